package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// batchItems is a batch answer with our extensions, decoded loosely so a
// missing field shows as missing.
type batchItems struct {
	Data []map[string]any `json:"data"`
}

// Batch answers name the address of every item and say whether the add
// created it; the order stays the request's first occurrences.
func TestBatchAnswersNameTheAddress(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("wire", false)
		old := s.add(key, "old@example.com")[0]
		r := s.post("/suppressions/batch/add", key, `{"emails":["New@Example.com","old@example.com","new@example.com"]}`)
		if r.status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		var got batchItems
		r.decode(t, &got)
		if len(got.Data) != 2 {
			t.Fatalf("%d items: %s", len(got.Data), r.body)
		}
		n, o := got.Data[0], got.Data[1]
		if n["email"] != "new@example.com" || n["created"] != true || n["object"] != "suppression" {
			t.Errorf("new: %v", n)
		}
		if o["email"] != "old@example.com" || o["created"] != false || o["id"] != old {
			t.Errorf("old: %v; want id %s, created false", o, old)
		}
		r = s.post("/suppressions/batch/remove", key, `{"emails":["old@example.com","gone@example.com"]}`)
		got = batchItems{}
		r.decode(t, &got)
		if len(got.Data) != 1 || got.Data[0]["email"] != "old@example.com" || got.Data[0]["deleted"] != true || got.Data[0]["id"] != old {
			t.Errorf("remove answer: %s", r.body)
		}
		if _, has := got.Data[0]["created"]; has {
			t.Errorf("a removal item says created: %s", r.body)
		}
	})
}

// entries restore suppressions with their origin; bad entries are refused
// naming the item.
func TestBatchAddEntriesWithOrigin(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("entries", false)
		r := s.post("/suppressions/batch/add", key, `{"entries":[
			{"email":"b@example.com","origin":"bounce","source_id":"evt_1"},
			{"email":"c@example.com","origin":"complaint"},
			{"email":"m@example.com"}]}`)
		if r.status != http.StatusCreated {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		for email, want := range map[string]string{"b@example.com": "bounce", "c@example.com": "complaint", "m@example.com": "manual"} {
			var e api.Entry
			s.get("/suppressions/"+email, key).decode(t, &e)
			if string(e.Origin) != want {
				t.Errorf("%s: origin %q, want %q", email, e.Origin, want)
			}
			if email == "b@example.com" && (e.SourceID == nil || *e.SourceID != "evt_1") {
				t.Errorf("%s: source_id %v", email, e.SourceID)
			}
		}
		for body, want := range map[string]string{
			`{"emails":["a@example.com"],"entries":[{"email":"a@example.com"}]}`:                                       "either `emails` or `entries`",
			`{"entries":[{"email":"a@example.com"},{"email":"x@"}]}`:                                                   "entries[1].email",
			`{"entries":[{"email":"a@example.com","origin":"spam"}]}`:                                                  "entries[0].origin",
			`{"entries":[{"email":"a@example.com","source_id":"s1"}]}`:                                                 "entries[0] is a manual entry with a source_id",
			`{"entries":[{"email":"a@example.com","colour":"red"}]}`:                                                   "entries[0] has the unknown field",
			`{"entries":[{"origin":"bounce"}]}`:                                                                        "entries[0] has no `email`",
			`{"entries":[]}`:                                                                                           "`entries` is empty",
			`{"entries":[{"email":"a@example.com","origin":"bounce","source_id":"` + strings.Repeat("s", 201) + `"}]}`: "at most 200",
		} {
			r := s.post("/suppressions/batch/add", key, body)
			if r.status != http.StatusUnprocessableEntity || !strings.Contains(string(r.body), want) {
				t.Errorf("%s: status %d %s; want 422 saying %q", body, r.status, r.body, want)
			}
		}
		if r := s.post("/suppressions/batch/add", key, `{"entries":["a@example.com"]}`); r.status != http.StatusBadRequest {
			t.Errorf("entries of strings: status %d %s; want 400", r.status, r.body)
		}
	})
}

// The Shush-Reference header goes with the change into the trail, with the
// key's name; a bad one is refused naming the header and changes nothing.
func TestReferenceAndTrail(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		_, key, err := server.CreateNamedKey(context.Background(), st, "trail", "jane", false)
		if err != nil {
			t.Fatal(err)
		}
		reader := s.key("trail", true)
		other := s.key("elsewhere", false)
		body := []byte(`{"emails":["a@example.com","b@example.com"]}`)
		r := s.do("POST", "/suppressions/batch/add", key, "application/json", body, api.ReferenceHeader, "#48213", "X-Request-Id", "req-7")
		if r.status != http.StatusCreated {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		s.do("DELETE", "/suppressions/b@example.com", key, "", nil, api.ReferenceHeader, "https://tickets.example/48213")
		for _, bad := range []string{strings.Repeat("x", 201), "tab\there", "#48213\u202e"} {
			r := s.do("POST", "/suppressions/batch/add", key, "application/json", []byte(`{"emails":["c@example.com"]}`), api.ReferenceHeader, bad)
			e := r.wantError(t, http.StatusUnprocessableEntity, api.ErrValidation)
			if !strings.Contains(e.Message, api.ReferenceHeader) {
				t.Errorf("bad reference %q: message %q does not name the header", bad, e.Message)
			}
		}
		if id := s.lookup(key, "c@example.com"); id != "" {
			t.Errorf("a refused change added c@ (%s)", id)
		}
		r = s.do("POST", "/suppressions/batch/add", key, "application/json", []byte(`{"emails":["c@example.com"]}`), api.ReferenceHeader, "one", api.ReferenceHeader, "two")
		r.wantError(t, http.StatusUnprocessableEntity, api.ErrValidation)

		var list api.AuditList
		r = s.get("/audit", reader)
		if r.status != http.StatusOK {
			t.Fatalf("GET /audit with a read-only key: %d %s", r.status, r.body)
		}
		r.decode(t, &list)
		if len(list.Data) != 3 {
			t.Fatalf("trail has %d entries, want 3: %s", len(list.Data), r.body)
		}
		rm := list.Data[0]
		if rm.Object != "audit_entry" || rm.Type != api.AuditRemoved || rm.Suppression.Email != "b@example.com" ||
			rm.Reference == nil || *rm.Reference != "https://tickets.example/48213" || rm.Key.Name != "jane" {
			t.Errorf("newest entry: %+v", rm)
		}
		var raw struct {
			Data []map[string]any `json:"data"`
		}
		_ = json.Unmarshal(r.body, &raw)
		for _, f := range []string{"object", "id", "type", "created_at", "suppression", "key", "reference", "request_id"} {
			if _, ok := raw.Data[2][f]; !ok {
				t.Errorf("an audit entry lacks %q: %v", f, raw.Data[2])
			}
		}
		add := list.Data[2]
		if add.Type != api.AuditAdded || add.Reference == nil || *add.Reference != "#48213" || add.RequestID != "req-7" {
			t.Errorf("oldest entry: %+v", add)
		}

		// One address's trail, also after removal, by address and by ID.
		s.get("/suppressions/B@Example.com/audit", reader).decode(t, &list)
		if len(list.Data) != 2 || list.Data[0].Type != api.AuditRemoved {
			t.Errorf("b@'s trail: %+v", list.Data)
		}
		bID := list.Data[0].Suppression.ID
		s.get("/suppressions/"+bID+"/audit", reader).decode(t, &list)
		if len(list.Data) != 2 {
			t.Errorf("b@'s trail by ID: %+v", list.Data)
		}
		s.get("/audit?reference=%2348213", reader).decode(t, &list)
		if len(list.Data) != 2 {
			t.Errorf("by reference: %+v", list.Data)
		}
		s.get("/audit?type=suppression.removed&limit=1", reader).decode(t, &list)
		if len(list.Data) != 1 || list.HasMore {
			t.Errorf("by type: %+v", list)
		}
		s.get("/audit", other).decode(t, &list)
		if len(list.Data) != 0 {
			t.Errorf("another team sees %d entries", len(list.Data))
		}
		for q, want := range map[string]string{"limit=0": "`limit`", "type=deleted": "`type`", "after=x": "`after`", "email=nope": "`email`"} {
			e := s.get("/audit?"+q, reader).wantError(t, http.StatusUnprocessableEntity, api.ErrValidation)
			if !strings.Contains(e.Message, want) {
				t.Errorf("?%s: %q", q, e.Message)
			}
		}
	})
}
