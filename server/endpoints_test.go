package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

func TestBatchRemove(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("remove", false)
		ids := s.add(key, "a@example.com", "b@example.com", "c@example.com", "d@example.com")

		r := s.post("/suppressions/batch/remove", key,
			`{"emails":["C@Example.com","nobody@example.com","a@example.com"," c@example.com"]}`)
		if r.status != http.StatusOK {
			t.Fatalf("status %d, want 200: %s", r.status, r.body)
		}
		var resp api.BatchResponse
		r.decode(t, &resp)
		var got []string
		for _, d := range resp.Data {
			if d.Object != "suppression" || !d.Deleted {
				t.Errorf("item %+v: want object suppression and deleted true", d)
			}
			got = append(got, d.ID)
		}
		if want := []string{ids[2], ids[0]}; !slices.Equal(got, want) {
			t.Errorf("removed %v, want %v (request order, misses left out, once each)", got, want)
		}
		if !strings.Contains(string(r.body), `"deleted":true`) {
			t.Errorf("body %s lacks deleted:true", r.body)
		}

		unknown := uuid.Must(uuid.NewV7()).String()
		r = s.post("/suppressions/batch/remove", key, jsonBody(t, map[string]any{"ids": []string{strings.ToUpper(ids[3]), unknown, ids[1], ids[3]}}))
		resp = api.BatchResponse{}
		r.decode(t, &resp)
		if r.status != 200 || len(resp.Data) != 2 || resp.Data[0].ID != ids[3] || resp.Data[1].ID != ids[1] {
			t.Errorf("remove by IDs: %d %s; want %s then %s", r.status, r.body, ids[3], ids[1])
		}
		for _, e := range []string{"a@example.com", "b@example.com", "c@example.com", "d@example.com"} {
			if s.lookup(key, e) != "" {
				t.Errorf("%s is still on the list", e)
			}
		}
		// All misses: 200 with an empty data array.
		r = s.post("/suppressions/batch/remove", key, `{"emails":["a@example.com"]}`)
		if r.status != 200 || !strings.Contains(string(r.body), `"data":[]`) {
			t.Errorf("removing only misses: %d %s; want 200 with empty data", r.status, r.body)
		}
		// Removed addresses can be added again, with a new ID.
		again := s.add(key, "a@example.com")
		if again[0] == ids[0] {
			t.Error("a re-added address got its old ID back")
		}
	})
}

func TestSingleEndpoints(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("single", false)
		r := s.post("/suppressions", key, `{"email":" User+Tag@Example.COM "}`)
		if r.status != http.StatusCreated {
			t.Fatalf("POST /suppressions: %d %s", r.status, r.body)
		}
		var one api.Suppression
		r.decode(t, &one)
		if one.Object != "suppression" || one.ID == "" || strings.Contains(string(r.body), "deleted") {
			t.Errorf("POST /suppressions body %s", r.body)
		}
		r = s.post("/suppressions", key, `{"email":"user+tag@example.com"}`)
		var again api.Suppression
		r.decode(t, &again)
		if r.status != 201 || again.ID != one.ID {
			t.Errorf("re-adding: %d %s; want 201 with the existing ID %s", r.status, r.body, one.ID)
		}

		for _, path := range []string{"/suppressions/" + one.ID, "/suppressions/" + strings.ToUpper(one.ID),
			"/suppressions/user%2Btag%40example.com", "/suppressions/USER+tag@example.com"} {
			r := s.get(path, key)
			if r.status != 200 {
				t.Fatalf("GET %s: %d %s", path, r.status, r.body)
			}
			var e api.Entry
			r.decode(t, &e)
			if e.Object != "suppression" || e.ID != one.ID || e.Email != "user+tag@example.com" || e.Origin != api.OriginManual || e.SourceID != nil {
				t.Errorf("GET %s: %s", path, r.body)
			}
			if !strings.Contains(string(r.body), `"source_id":null`) {
				t.Errorf("GET %s: source_id is not null: %s", path, r.body)
			}
			if time.Since(e.CreatedAt.Time) > time.Minute || time.Since(e.CreatedAt.Time) < -time.Minute {
				t.Errorf("created_at %v is not about now", e.CreatedAt)
			}
		}
		var raw map[string]any
		s.get("/suppressions/"+one.ID, key).decode(t, &raw)
		if ts, _ := raw["created_at"].(string); len(ts) != len("2006-01-02T15:04:05.000Z") || !strings.HasSuffix(ts, "Z") {
			t.Errorf("created_at %q is not RFC 3339 UTC with milliseconds", raw["created_at"])
		}

		// An address with a slash, sent as %2F.
		slash := s.add(key, "steve/wozniak@gmail.com")[0]
		if got := s.lookup(key, "steve/wozniak@gmail.com"); got != slash {
			t.Errorf("GET by an address with %%2F: %q, want %s", got, slash)
		}
		r = s.do("DELETE", "/suppressions/steve%2Fwozniak%40gmail.com", key, "", nil)
		var del api.Suppression
		r.decode(t, &del)
		if r.status != 200 || del.ID != slash || !del.Deleted || del.Object != "suppression" {
			t.Errorf("DELETE by address: %d %s", r.status, r.body)
		}
		r = s.do("DELETE", "/suppressions/"+one.ID, key, "", nil)
		if r.status != 200 {
			t.Errorf("DELETE by ID: %d %s", r.status, r.body)
		}
		for _, method := range []string{"GET", "DELETE"} {
			for _, ref := range []string{one.ID, "user%2Btag%40example.com", uuid.Must(uuid.NewV7()).String()} {
				r := s.do(method, "/suppressions/"+ref, key, "", nil)
				if e := r.wantError(t, 404, api.ErrNotFound); e.Message != "Suppression not found" {
					t.Errorf("%s %s: message %q", method, ref, e.Message)
				}
			}
			r := s.do(method, "/suppressions/not-an-address", key, "", nil)
			if e := r.wantError(t, 422, api.ErrValidation); !strings.Contains(e.Message, `"not-an-address"`) {
				t.Errorf("%s of an invalid reference: message %q", method, e.Message)
			}
		}
	})
}

func TestRoutingErrors(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("routes", false)
		for _, p := range []string{"/", "/nope", "/suppressions/batch", "/suppressions/batch/add/x", "/v1/suppressions"} {
			r := s.get(p, key)
			if p == "/suppressions/batch" {
				// "batch" is read as a suppression reference.
				r.wantError(t, 422, api.ErrValidation)
				continue
			}
			r.wantError(t, 404, api.ErrNotFound)
		}
		for _, c := range []struct{ method, path, allow string }{
			{"GET", "/suppressions/batch/add", "POST"},
			{"PUT", "/suppressions/batch/remove", "POST"},
			{"DELETE", "/suppressions", "GET, HEAD, POST"},
			{"PATCH", "/suppressions/a@example.com", "DELETE, GET, HEAD"},
			{"POST", "/healthz", "GET, HEAD"},
		} {
			r := s.do(c.method, c.path, key, "", nil)
			r.wantError(t, 405, api.ErrMethodNotAllowed)
			if got := r.header.Get("Allow"); got != c.allow {
				t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, got, c.allow)
			}
		}
	})
}

func TestList(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key := s.key("lister", false)
		var ids []string // oldest first
		for i := 0; i < 5; i++ {
			ids = append(ids, s.add(key, manyEmails(fmt.Sprintf("l%d-", i), 5)...)...)
		}
		src := "bounce-42"
		bounce, err := st.Add(context.Background(), "lister", store.Change{}, store.Listed(api.OriginBounce, &src, []string{"bounced@example.com"}...))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, bounce[0].ID)
		newest := slices.Clone(ids)
		slices.Reverse(newest)

		page := func(query string) api.ListResponse {
			t.Helper()
			r := s.get("/suppressions"+query, key)
			if r.status != 200 {
				t.Fatalf("GET /suppressions%s: %d %s", query, r.status, r.body)
			}
			var l api.ListResponse
			r.decode(t, &l)
			if l.Object != "list" {
				t.Errorf("object %q", l.Object)
			}
			return l
		}
		listIDs := func(l api.ListResponse) []string {
			var out []string
			for _, e := range l.Data {
				if e.Object != "" {
					t.Errorf("list item carries object %q", e.Object)
				}
				out = append(out, e.ID)
			}
			return out
		}
		l := page("")
		if !slices.Equal(listIDs(l), newest[:20]) || !l.HasMore {
			t.Errorf("default page: %d entries has_more=%v; want the 20 newest and more", len(l.Data), l.HasMore)
		}
		if l.Data[0].Origin != api.OriginBounce || l.Data[0].SourceID == nil || *l.Data[0].SourceID != src {
			t.Errorf("bounce entry %+v", l.Data[0])
		}
		l = page("?limit=10&after=" + newest[9])
		if !slices.Equal(listIDs(l), newest[10:20]) || !l.HasMore {
			t.Errorf("after: %v has_more=%v", listIDs(l), l.HasMore)
		}
		l = page("?limit=100&after=" + newest[20])
		if !slices.Equal(listIDs(l), newest[21:]) || l.HasMore {
			t.Errorf("last page: %v has_more=%v", listIDs(l), l.HasMore)
		}
		l = page("?limit=3&before=" + newest[3])
		if !slices.Equal(listIDs(l), newest[:3]) || l.HasMore {
			t.Errorf("before: %v has_more=%v; want the 3 newest, newest first, no more", listIDs(l), l.HasMore)
		}
		l = page("?limit=2&before=" + newest[5])
		if !slices.Equal(listIDs(l), newest[3:5]) || !l.HasMore {
			t.Errorf("before with more: %v has_more=%v", listIDs(l), l.HasMore)
		}
		l = page("?origin=bounce")
		if !slices.Equal(listIDs(l), []string{bounce[0].ID}) || l.HasMore {
			t.Errorf("origin=bounce: %v", listIDs(l))
		}
		l = page("?origin=manual&limit=100")
		if len(l.Data) != 25 {
			t.Errorf("origin=manual: %d entries, want 25", len(l.Data))
		}
		l = page("?origin=complaint")
		if l.Data == nil || len(l.Data) != 0 {
			t.Errorf("origin=complaint: %v; want an empty array", l.Data)
		}

		for _, q := range []struct{ query, mention string }{
			{"?limit=0", "`limit`"}, {"?limit=101", "`limit`"}, {"?limit=abc", "`limit`"}, {"?limit=", "`limit`"},
			{"?after=nope", "`after`"}, {"?before=123", "`before`"},
			{"?after=" + ids[0] + "&before=" + ids[1], "not both"},
			{"?origin=spam", "`origin`"},
		} {
			e := s.get("/suppressions"+q.query, key).wantError(t, 422, api.ErrValidation)
			if !strings.Contains(e.Message, q.mention) {
				t.Errorf("%s: message %q does not mention %s", q.query, e.Message, q.mention)
			}
		}
	})
}

func TestAuthentication(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key := s.key("authteam", false)
		ro := s.key("authteam", true)
		id := s.add(key, "a@example.com")[0]

		cases := []struct {
			name, header string
			status       int
			errName      string
		}{
			{"no header", "", 401, api.ErrMissingAPIKey},
			{"basic", "Basic dXNlcjpwYXNz", 401, api.ErrMissingAPIKey},
			{"bearer without token", "Bearer ", 401, api.ErrMissingAPIKey},
			{"bare key", key, 401, api.ErrMissingAPIKey},
			{"unknown key", "Bearer shush_0123456789abcdef_" + strings.Repeat("a", 32), 403, api.ErrInvalidAPIKey},
			{"wrong secret", "Bearer " + otherSecret(key), 403, api.ErrInvalidAPIKey},
			{"not our format", "Bearer re_123456789", 403, api.ErrInvalidAPIKey},
			{"lowercase scheme", "bearer " + key, 200, ""},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				var h []string
				if c.header != "" {
					h = []string{"Authorization", c.header}
				}
				r := s.do("GET", "/suppressions/"+id, "", "", nil, h...)
				if c.status == 200 {
					if r.status != 200 {
						t.Fatalf("status %d: %s", r.status, r.body)
					}
					return
				}
				e := r.wantError(t, c.status, c.errName)
				if strings.Contains(string(r.body), "shush_") || strings.Contains(e.Message, key[len(key)-10:]) {
					t.Errorf("the error shows the key: %s", r.body)
				}
			})
		}

		// Read-only: reads pass, changes are refused and change nothing.
		if got := s.lookup(ro, "a@example.com"); got != id {
			t.Errorf("read-only GET: %q", got)
		}
		if r := s.get("/suppressions", ro); r.status != 200 {
			t.Errorf("read-only list: %d", r.status)
		}
		for _, c := range []struct{ method, path, body string }{
			{"POST", "/suppressions/batch/add", `{"emails":["b@example.com"]}`},
			{"POST", "/suppressions/batch/remove", `{"emails":["a@example.com"]}`},
			{"POST", "/suppressions", `{"email":"b@example.com"}`},
			{"DELETE", "/suppressions/" + id, ``},
		} {
			r := s.do(c.method, c.path, ro, "application/json", []byte(c.body))
			r.wantError(t, 403, api.ErrRestrictedAPIKey)
		}
		if s.lookup(key, "a@example.com") != id || s.lookup(key, "b@example.com") != "" {
			t.Error("a read-only key changed the list")
		}

		// Revoked keys stop working at once.
		keys, err := st.ListKeys(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.Team == "authteam" && k.ReadOnly {
				if err := st.RevokeKey(context.Background(), k.ID); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.get("/suppressions", ro).wantError(t, 403, api.ErrInvalidAPIKey)
		if r := s.get("/suppressions", key); r.status != 200 {
			t.Errorf("revoking one key broke another: %d", r.status)
		}
		// healthz needs no key.
		if r := s.get("/healthz", ""); r.status != 200 || !strings.Contains(string(r.body), `"status":"ok"`) {
			t.Errorf("healthz: %d %s", r.status, r.body)
		}
	})
}

// otherSecret changes the key's last character.
func otherSecret(key string) string {
	last := byte('b')
	if key[len(key)-1] == last {
		last = 'c'
	}
	return key[:len(key)-1] + string(last)
}

func TestCreateKey(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		ctx := context.Background()
		k, text, err := server.CreateKey(ctx, st, "keyteam", true)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(text, server.KeyPrefix+k.ID+"_") || len(text) < len(server.KeyPrefix)+len(k.ID)+1+26 {
			t.Errorf("key text has the form shush_<id>_<secret>; got one of length %d", len(text))
		}
		stored, err := st.KeyByID(ctx, k.ID)
		if err != nil {
			t.Fatal(err)
		}
		secret := text[strings.LastIndex(text, "_")+1:]
		if bytes.Contains(stored.Hash, []byte(secret)) || len(stored.Hash) != 32 || !stored.ReadOnly || stored.Team != "keyteam" {
			t.Errorf("stored key %+v: want a 32-byte hash, read-only, team keyteam", stored)
		}
		_, other, _ := server.CreateKey(ctx, st, "keyteam", true)
		if other == text {
			t.Error("two keys are the same")
		}
		for _, bad := range []string{"", "a b", strings.Repeat("x", 65), "tab\there", "nl\n", "\xff"} {
			if _, _, err := server.CreateKey(ctx, st, bad, false); err == nil {
				t.Errorf("team %q was accepted", bad)
			}
		}
	})
}

func TestTeamIsolation(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		a, b := s.key("team-a", false), s.key("team-b", false)
		aIDs := s.add(a, "shared@example.com", "only-a@example.com")
		bIDs := s.add(b, "shared@example.com")
		if aIDs[0] == bIDs[0] {
			t.Fatal("two teams share an entry")
		}
		// Team b sees none of team a's entries, by any path.
		for _, ref := range []string{aIDs[0], aIDs[1], "only-a@example.com"} {
			s.get("/suppressions/"+escapeSegment(ref), b).wantError(t, 404, api.ErrNotFound)
			s.do("DELETE", "/suppressions/"+escapeSegment(ref), b, "", nil).wantError(t, 404, api.ErrNotFound)
		}
		r := s.post("/suppressions/batch/remove", b, jsonBody(t, map[string]any{"ids": aIDs}))
		if r.status != 200 || !strings.Contains(string(r.body), `"data":[]`) {
			t.Errorf("team b removing team a's IDs: %d %s", r.status, r.body)
		}
		r = s.post("/suppressions/batch/remove", b, `{"emails":["only-a@example.com"]}`)
		if r.status != 200 || !strings.Contains(string(r.body), `"data":[]`) {
			t.Errorf("team b removing team a's address: %d %s", r.status, r.body)
		}
		var l api.ListResponse
		s.get("/suppressions?limit=100", b).decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].ID != bIDs[0] {
			t.Errorf("team b's list: %+v", l.Data)
		}
		s.get("/suppressions?limit=100&before="+aIDs[0], b).decode(t, &l)
		for _, e := range l.Data {
			if e.ID == aIDs[0] || e.ID == aIDs[1] {
				t.Error("team b's page shows team a's entry")
			}
		}
		// Team a's entries are untouched.
		if s.lookup(a, "only-a@example.com") != aIDs[1] || s.lookup(a, aIDs[0]) != aIDs[0] {
			t.Error("team b's requests changed team a's list")
		}
	})
}

func TestRateLimit(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{Rate: 0.5, Burst: 3})
		key := s.key("limited", false)
		other := s.key("unlimited-neighbour", false)
		for i := 0; i < 3; i++ {
			r := s.get("/suppressions/nobody@example.com", key)
			r.wantError(t, 404, api.ErrNotFound)
			if got := r.header.Get("Ratelimit-Limit"); got != "3" {
				t.Errorf("ratelimit-limit %q, want 3", got)
			}
			if got := r.header.Get("Ratelimit-Remaining"); got != fmt.Sprint(2-i) {
				t.Errorf("request %d: ratelimit-remaining %q, want %d", i, got, 2-i)
			}
			if got := r.header.Get("Ratelimit-Reset"); got == "" || got == "0" {
				t.Errorf("request %d: ratelimit-reset %q, want whole seconds > 0", i, got)
			}
			if r.header.Get("Retry-After") != "" {
				t.Errorf("request %d: retry-after on an allowed request", i)
			}
		}
		r := s.post("/suppressions/batch/add", key, `{"emails":["x@example.com"]}`)
		e := r.wantError(t, 429, api.ErrRateLimitExceeded)
		if ra := r.header.Get("Retry-After"); ra != "2" {
			t.Errorf("retry-after %q, want 2 (one token at 0.5/s)", ra)
		}
		if r.header.Get("Ratelimit-Remaining") != "0" || r.header.Get("Ratelimit-Limit") != "3" {
			t.Errorf("429 headers: %v", r.header)
		}
		if !strings.Contains(e.Message, "retry after 2 seconds") {
			t.Errorf("message %q; want it to say when to retry", e.Message)
		}
		if s.lookup(other, "x@example.com") != "" {
			t.Fatal("impossible: other team sees an address")
		}
		// The refused add changed nothing, and other teams are not limited.
		if r := s.get("/suppressions", other); r.status != 200 || r.header.Get("Ratelimit-Remaining") == "" {
			t.Errorf("another team: %d %v", r.status, r.header)
		}
		// Unauthenticated answers count against no team and carry no
		// rate-limit headers.
		r = s.get("/suppressions", "")
		if r.status != 401 || r.header.Get("Ratelimit-Limit") != "" {
			t.Errorf("no key: %d, ratelimit-limit %q", r.status, r.header.Get("Ratelimit-Limit"))
		}
	})
}

// TestRateLimitRefills checks that a limited team gets through again once
// its bucket refills, by the time retry-after said.
func TestRateLimitRefills(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		// One request a second: the second request comes well inside the
		// refill even on a loaded machine (at 20 a second, a request
		// slower than 50 ms found the bucket refilled).
		s := startService(t, open(t), server.Options{Rate: 1, Burst: 1})
		key := s.key("refill", false)
		if r := s.get("/suppressions", key); r.status != 200 {
			t.Fatalf("first request: %d", r.status)
		}
		r := s.get("/suppressions", key)
		r.wantError(t, 429, api.ErrRateLimitExceeded)
		if r.header.Get("Retry-After") != "1" {
			t.Errorf("retry-after %q, want 1 (at least one second)", r.header.Get("Retry-After"))
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			time.Sleep(60 * time.Millisecond)
			if r := s.get("/suppressions", key); r.status == 200 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the bucket never refilled")
			}
		}
	})
}

// TestBatchFailingHalfWayChangesNothing makes the database refuse the
// third address of a batch (a trigger, a real fault of the real file): the
// request fails and none of its addresses stay on the list, while a
// concurrent good batch is unharmed.
func TestBatchFailingHalfWayChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shush.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var logs bytes.Buffer
	s := startService(t, st, server.Options{Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
	key := s.key("halfway", false)
	kept := s.add(key, "kept@example.com")

	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TRIGGER boom BEFORE INSERT ON suppressions WHEN NEW.email = 'boom@example.com'
		BEGIN SELECT RAISE(ABORT, 'injected fault'); END`); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var good reply
	wg.Add(1)
	go func() {
		defer wg.Done()
		good = s.post("/suppressions/batch/add", key, `{"emails":["g1@example.com","g2@example.com"]}`)
	}()
	r := s.post("/suppressions/batch/add", key, `{"emails":["n1@example.com","n2@example.com","boom@example.com","n3@example.com"]}`)
	wg.Wait()
	e := r.wantError(t, 500, api.ErrApplication)
	if strings.Contains(e.Message, "injected") || strings.Contains(e.Message, "boom") {
		t.Errorf("the message leaks the internal error: %q", e.Message)
	}
	for _, a := range []string{"n1@example.com", "n2@example.com", "boom@example.com", "n3@example.com"} {
		if s.lookup(key, a) != "" {
			t.Errorf("%s is on the list after a failed batch", a)
		}
	}
	if good.status != 201 || s.lookup(key, "g1@example.com") == "" || s.lookup(key, "g2@example.com") == "" {
		t.Errorf("a concurrent good batch: %d %s", good.status, good.body)
	}
	if s.lookup(key, "kept@example.com") != kept[0] {
		t.Error("an earlier entry was lost")
	}
	// Remove fails half-way too: a trigger refuses deleting one entry.
	if _, err := db.Exec(`CREATE TRIGGER keep BEFORE DELETE ON suppressions WHEN OLD.email = 'g2@example.com'
		BEGIN SELECT RAISE(ABORT, 'injected fault'); END`); err != nil {
		t.Fatal(err)
	}
	r = s.post("/suppressions/batch/remove", key, `{"emails":["kept@example.com","g1@example.com","g2@example.com"]}`)
	r.wantError(t, 500, api.ErrApplication)
	for _, a := range []string{"kept@example.com", "g1@example.com", "g2@example.com"} {
		if s.lookup(key, a) == "" {
			t.Errorf("%s was removed by a failed batch", a)
		}
	}
	if !strings.Contains(logs.String(), "injected fault") {
		t.Error("the log does not hold the cause of the 500")
	}
}

func TestUnavailableStore(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key := s.key("down", false)
		if r := s.get("/healthz", ""); r.status != 200 {
			t.Fatalf("healthz: %d", r.status)
		}
		st.Close()
		s.get("/healthz", "").wantError(t, 503, api.ErrServiceUnavailable)
		r := s.post("/suppressions/batch/add", key, `{"emails":["a@example.com"]}`)
		r.wantError(t, 503, api.ErrServiceUnavailable)
	})
}

// panicky is a fault injected around a real store: Add panics.
type panicky struct{ store.Store }

func (panicky) Add(context.Context, string, store.Change, []store.NewEntry) ([]store.Entry, error) {
	panic("injected panic")
}

func TestPanicIsA500(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		var logs bytes.Buffer
		st := panicky{open(t)}
		s := startService(t, st, server.Options{Logger: slog.New(slog.NewTextHandler(&syncWriter{w: &logs}, nil))})
		key := s.key("panic", false)
		s.post("/suppressions/batch/add", key, `{"emails":["a@example.com"]}`).wantError(t, 500, api.ErrApplication)
		if r := s.get("/suppressions", key); r.status != 200 {
			t.Errorf("the service is unwell after a panic: %d", r.status)
		}
		if !strings.Contains(logs.String(), "injected panic") {
			t.Error("the panic is not logged")
		}
	})
}

func TestLogsHoldNoSecrets(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		var logs bytes.Buffer
		s := startService(t, open(t), server.Options{Logger: slog.New(slog.NewJSONHandler(&syncWriter{w: &logs}, nil))})
		key := s.key("logged", false)
		s.add(key, "secret.person@example.com")
		s.get("/suppressions/secret.person%40example.com", key)
		s.get("/suppressions", "shush_0123456789abcdef_"+strings.Repeat("q", 32))
		s.do("GET", "/suppressions", key, "", nil, "X-Request-Id", "trace-123")
		out := logs.String()
		secret := key[strings.LastIndex(key, "_")+1:]
		for _, leak := range []string{secret, "qqqqqqqq", "secret.person", "Bearer"} {
			if strings.Contains(out, leak) {
				t.Errorf("the log holds %q", leak)
			}
		}
		for _, want := range []string{`"route":"GET /suppressions/{ref}"`, `"route":"POST /suppressions/batch/add"`, `"team":"logged"`, `"status":201`, `"request_id":"trace-123"`} {
			if !strings.Contains(out, want) {
				t.Errorf("the log lacks %s:\n%s", want, out)
			}
		}
	})
}

func TestConcurrentBatchAdds(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("concurrent", false)
		pool := manyEmails("c", 60)
		var wg sync.WaitGroup
		var mu sync.Mutex
		idOf := map[string]string{}
		for w := 0; w < 8; w++ {
			wg.Add(1)
			go func(w int) {
				defer wg.Done()
				batch := pool[w*5 : w*5+25]
				r := s.post("/suppressions/batch/add", key, jsonBody(t, map[string]any{"emails": batch}))
				var resp api.BatchResponse
				if err := decodeReply(r, &resp); err != nil || r.status != 201 || len(resp.Data) != len(batch) {
					t.Errorf("worker %d: %d %s", w, r.status, r.body)
					return
				}
				mu.Lock()
				defer mu.Unlock()
				for i, d := range resp.Data {
					if prev, ok := idOf[batch[i]]; ok && prev != d.ID {
						t.Errorf("%s got IDs %s and %s", batch[i], prev, d.ID)
					}
					idOf[batch[i]] = d.ID
				}
			}(w)
		}
		wg.Wait()
		var l api.ListResponse
		s.get("/suppressions?limit=100", key).decode(t, &l)
		if len(l.Data) != len(idOf) {
			t.Errorf("the list holds %d entries for %d addresses", len(l.Data), len(idOf))
		}
	})
}
