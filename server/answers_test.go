package server_test

import (
	"context"
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// listEmails reads one page of GET /suppressions with the query and
// returns its addresses and has_more.
func (s *service) listEmails(key, query string) ([]string, bool) {
	s.t.Helper()
	r := s.get("/suppressions?"+query, key)
	if r.status != http.StatusOK {
		s.t.Fatalf("GET /suppressions?%s: %d %s", query, r.status, r.body)
	}
	var l api.ListResponse
	r.decode(s.t, &l)
	var out []string
	for _, e := range l.Data {
		out = append(out, e.Email)
	}
	return out, l.HasMore
}

// TestSearch: q finds a domain (exactly), a prefix or one address, case
// aside, paged newest first and with the other filters; a q that is none
// of them is refused naming q.
func TestSearch(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key := s.key("acme", false)
		s.add(key, "a@firm.example", "jane@example.com", "b@firm.example", "x@sub.firm.example", "jan@example.com", "eva@xn--bcher-kva.example")
		// Times are kept to the millisecond: before is apart from both adds.
		time.Sleep(5 * time.Millisecond)
		before := time.Now().UTC()
		time.Sleep(5 * time.Millisecond)
		src := "evt-1"
		if _, err := st.Add(context.Background(), "acme", store.Change{}, store.Listed(api.OriginBounce, &src, "c@firm.example")); err != nil {
			t.Fatal(err)
		}
		s.add(s.key("other", false), "z@firm.example")

		for _, c := range []struct {
			query string
			want  []string
		}{
			{"q=" + url.QueryEscape("@firm.example"), []string{"c@firm.example", "b@firm.example", "a@firm.example"}},
			{"q=" + url.QueryEscape("@FIRM.Example"), []string{"c@firm.example", "b@firm.example", "a@firm.example"}},
			{"q=" + url.QueryEscape("@Bücher.example"), []string{"eva@xn--bcher-kva.example"}},
			{"q=" + url.QueryEscape("JANE*"), []string{"jane@example.com"}},
			{"q=" + url.QueryEscape("jan*"), []string{"jan@example.com", "jane@example.com"}},
			{"q=" + url.QueryEscape("Jan@Example.com"), []string{"jan@example.com"}},
			{"q=" + url.QueryEscape("nobody@example.com"), nil},
			{"q=" + url.QueryEscape("@firm.example") + "&origin=manual", []string{"b@firm.example", "a@firm.example"}},
			{"q=" + url.QueryEscape("@firm.example") + "&created_after=" + before.Format(time.RFC3339Nano), []string{"c@firm.example"}},
			{"q=" + url.QueryEscape("@firm.example") + "&created_before=" + before.Format(time.RFC3339Nano), []string{"b@firm.example", "a@firm.example"}},
		} {
			got, more := s.listEmails(key, c.query+"&limit=100")
			if !slices.Equal(got, c.want) || more {
				t.Errorf("%s: %v (has_more %v); want %v", c.query, got, more, c.want)
			}
		}
		first, more := s.listEmails(key, "q=%40firm.example&limit=2")
		if len(first) != 2 || !more {
			t.Fatalf("first page of 2: %v has_more=%v", first, more)
		}
		var l api.ListResponse
		s.get("/suppressions?q=%40firm.example&limit=2", key).decode(t, &l)
		if rest, more := s.listEmails(key, "q=%40firm.example&limit=2&after="+l.Data[1].ID); !slices.Equal(rest, []string{"a@firm.example"}) || more {
			t.Errorf("the next page: %v has_more=%v", rest, more)
		}

		for _, q := range []string{"", "ja*", "*jane", "ja*ne*", "@nodot", "@", "a@b@c.example", "not an address", "jane doe*", "@firm.example&q=jane*"} {
			e := s.get("/suppressions?q="+url.QueryEscape(q), key).wantError(t, 422, api.ErrValidation)
			if !strings.Contains(e.Message, "`q`") {
				t.Errorf("q=%q: %q does not name q", q, e.Message)
			}
		}
		e := s.get("/suppressions?q=jane*&created_after=yesterday", key).wantError(t, 422, api.ErrValidation)
		if !strings.Contains(e.Message, "`created_after`") {
			t.Errorf("created_after=yesterday: %q", e.Message)
		}
	})
}

// check posts a check and decodes its answer.
func (s *service) check(key string, emails ...string) (api.CheckResponse, reply) {
	s.t.Helper()
	r := s.post("/suppressions/batch/check", key, jsonBody(s.t.(*testing.T), api.CheckRequest{Emails: emails}))
	var out api.CheckResponse
	if r.status == http.StatusOK {
		r.decode(s.t, &out)
	}
	return out, r
}

// TestCheck: one item per distinct address in request order, listed with
// its entry or not; 1 to 1,000 addresses validated like batch add; a
// read-only key may check, and a check is one request of the rate limit.
func TestCheck(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{Rate: 5, Burst: 5})
		key := s.key("acme", false)
		ro := s.key("acme", true)
		ids := s.add(key, "listed@example.com", "also@example.com")
		s.add(s.key("other", false), "theirs@example.com")

		got, r := s.check(ro, "nobody@example.com", "LISTED@example.com", "theirs@example.com", "listed@example.com", "also@example.com")
		if r.status != http.StatusOK {
			t.Fatalf("check with a read-only key: %d %s", r.status, r.body)
		}
		if got.Object != "list" || len(got.Data) != 4 {
			t.Fatalf("check: %s; want 4 items", r.body)
		}
		want := []struct {
			email  string
			listed bool
			id     string
		}{{"nobody@example.com", false, ""}, {"listed@example.com", true, ids[0]}, {"theirs@example.com", false, ""}, {"also@example.com", true, ids[1]}}
		for i, w := range want {
			it := got.Data[i]
			if it.Email != w.email || it.Listed != w.listed || it.Entry.ID != w.id {
				t.Errorf("item %d: %+v; want %s listed=%v id %s", i, it, w.email, w.listed, w.id)
			}
		}
		// Exactly the contract's shape: an address not listed says so and no more.
		var raw struct {
			Data []map[string]any `json:"data"`
		}
		r.decode(t, &raw)
		if len(raw.Data[0]) != 2 || raw.Data[0]["listed"] != false {
			t.Errorf("a not-listed item: %v; want email and listed:false only", raw.Data[0])
		}
		for _, k := range []string{"id", "origin", "source_id", "created_at", "note", "expires_at"} {
			if _, ok := raw.Data[1][k]; !ok {
				t.Errorf("a listed item lacks %s: %v", k, raw.Data[1])
			}
		}
		if left, _ := strconv.Atoi(r.header.Get("ratelimit-remaining")); left != 3 {
			t.Errorf("ratelimit-remaining after one add and one check: %d; want 3 (one request each)", left)
		}

		thousand := manyEmails("c", 1000)
		if got, r := s.check(key, thousand...); r.status != http.StatusOK || len(got.Data) != 1000 {
			t.Errorf("1,000 addresses: %d, %d items", r.status, len(got.Data))
		}
		_, r = s.check(key, manyEmails("c", 1001)...)
		if e := r.wantError(t, 422, api.ErrValidation); !strings.Contains(e.Message, "1000") {
			t.Errorf("1,001 addresses: %q", e.Message)
		}
	})
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("acme", false)
	for _, c := range []struct {
		body   string
		status int
		name   string
		says   string
	}{
		{`{}`, 422, api.ErrMissingRequiredField, "`emails`"},
		{`{"emails":[]}`, 422, api.ErrValidation, "`emails`"},
		{`{"emails":["a@example.com","bob@"]}`, 422, api.ErrValidation, `emails[1] ("bob@")`},
		{`{"emails":"a@example.com"}`, 400, api.ErrValidation, "`emails`"},
	} {
		if e := s.post("/suppressions/batch/check", key, c.body).wantError(t, c.status, c.name); !strings.Contains(e.Message, c.says) {
			t.Errorf("%s: %q does not say %s", c.body, e.Message, c.says)
		}
	}
}

// TestNoteAndExpiry: a note and an expiry go in through batch add's
// entries and single add, and come out of every read: get, list, check,
// export (CSV escaped), batch add's answer, the trail; bad ones are
// refused naming the field, and nothing of the batch is listed.
func TestNoteAndExpiry(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
		s := startService(t, open(t), server.Options{Now: func() time.Time { return now }})
		key := s.key("acme", false)
		day := "2026-11-25T12:00:00.000Z"
		r := s.post("/suppressions/batch/add", key, `{"entries":[
			{"email":"full@example.com","note":"=HYPERLINK(\"x\") mailbox full, #48213","expires_at":"2026-11-25T12:00:00Z"},
			{"email":"plain@example.com"}]}`)
		if r.status != http.StatusCreated {
			t.Fatalf("batch add with note and expiry: %d %s", r.status, r.body)
		}
		var added api.BatchResponse
		r.decode(t, &added)
		if n := added.Data[0].Note; n == nil || !strings.HasPrefix(*n, "=HYPERLINK") || added.Data[0].ExpiresAt == nil ||
			added.Data[1].Note != nil || added.Data[1].ExpiresAt != nil {
			t.Errorf("batch add answer: %s", r.body)
		}
		r = s.post("/suppressions", key, `{"email":"one@example.com","note":"asked on #5","expires_at":"2026-12-01T00:00:00+01:00"}`)
		if r.status != http.StatusCreated {
			t.Fatalf("single add: %d %s", r.status, r.body)
		}
		var e api.Entry
		s.get("/suppressions/one@example.com", key).decode(t, &e)
		if e.Note == nil || *e.Note != "asked on #5" || e.ExpiresAt == nil || e.ExpiresAt.UTC().Format(api.TimestampLayout) != "2026-11-30T23:00:00.000Z" {
			t.Errorf("get one@: %+v", e)
		}
		var l api.ListResponse
		s.get("/suppressions?q=full%40example.com", key).decode(t, &l)
		if len(l.Data) != 1 || l.Data[0].ExpiresAt == nil || l.Data[0].ExpiresAt.UTC().Format(api.TimestampLayout) != day {
			t.Errorf("list of full@: %+v", l.Data)
		}
		got, _ := s.check(key, "full@example.com", "plain@example.com")
		if got.Data[0].Entry.Note == nil || got.Data[1].Entry.Note != nil || got.Data[1].Entry.ExpiresAt != nil {
			t.Errorf("check: %+v", got.Data)
		}
		exp := s.get("/suppressions/export?format=csv&q=%40example.com", key)
		rows, err := csv.NewReader(strings.NewReader(string(exp.body))).ReadAll()
		if err != nil || len(rows) != 4 || !slices.Equal(rows[0][:7], []string{"id", "email", "origin", "source_id", "created_at", "note", "expires_at"}) {
			t.Fatalf("CSV export: %q, %v", exp.body, err)
		}
		for _, row := range rows[1:] {
			if row[1] == "full@example.com" && (!strings.HasPrefix(row[5], "'=HYPERLINK") || row[6] != day) {
				t.Errorf("full@'s row %q: the note must be escaped as text, the expiry shown", row)
			}
			if row[1] == "plain@example.com" && (row[5] != "" || row[6] != "") {
				t.Errorf("plain@'s row %q: no note, no expiry", row)
			}
		}
		var trail api.AuditList
		s.get("/suppressions/full@example.com/audit", key).decode(t, &trail)
		if len(trail.Data) != 1 || trail.Data[0].Suppression.Note == nil || trail.Data[0].Suppression.ExpiresAt == nil {
			t.Errorf("trail of full@: %+v", trail.Data)
		}

		// Re-adding extends, never shortens; the answer says what the list holds.
		r = s.post("/suppressions/batch/add", key, `{"entries":[{"email":"full@example.com","expires_at":"2026-11-24T18:00:00Z"},
			{"email":"one@example.com","expires_at":"2027-01-01T00:00:00Z"}]}`)
		r.decode(t, &added)
		if *added.Data[0].Created || added.Data[0].ExpiresAt.UTC().Format(api.TimestampLayout) != day ||
			added.Data[1].ExpiresAt.UTC().Format(api.TimestampLayout) != "2027-01-01T00:00:00.000Z" {
			t.Errorf("re-add: %s; want full@ kept to %s and one@ extended", r.body, day)
		}

		for _, c := range []struct{ path, body, says string }{
			{"/suppressions/batch/add", `{"entries":[{"email":"ok@example.com"},{"email":"b@example.com","note":"a\u001b[2Jb"}]}`, "`entries[1].note`"},
			{"/suppressions/batch/add", `{"entries":[{"email":"ok@example.com"},{"email":"b@example.com","expires_at":"2026-11-24T11:59:59Z"}]}`, "`entries[1].expires_at`"},
			{"/suppressions/batch/add", `{"entries":[{"email":"ok@example.com","expires_at":"next week"}]}`, "`entries[0].expires_at`"},
			{"/suppressions/batch/add", `{"entries":[{"email":"ok@example.com","note":"` + strings.Repeat("x", 501) + `"}]}`, "`entries[0].note`"},
			{"/suppressions", `{"email":"ok@example.com","expires_at":"2026-11-24T12:00:00Z"}`, "`expires_at`"},
		} {
			if e := s.post(c.path, key, c.body).wantError(t, 422, api.ErrValidation); !strings.Contains(e.Message, c.says) {
				t.Errorf("%s: %q does not name %s", c.body, e.Message, c.says)
			}
		}
		if s.lookup(key, "ok@example.com") != "" {
			t.Error("a refused batch listed an address")
		}
	})
}

// TestExpirySweeper: the service removes an entry once its expiry has
// passed by its own clock, as a removal of its own: the trail's entry has
// no key and the reference "expired", and a webhook gets the removal.
// Until then the entry is listed.
func TestExpirySweeper(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		var mu sync.Mutex
		now := time.Now().UTC().Add(-48 * time.Hour)
		clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
		s, _ := runService(t, open(t), server.Config{
			API:        server.Options{Now: clock},
			Deliveries: outbox.DelivererConfig{Poll: 20 * time.Millisecond, Addresses: outbox.AddressPolicy{AllowPrivate: true}},
			Expiry:     outbox.SweeperConfig{Interval: 20 * time.Millisecond},
		})
		key := s.key("acme", false)
		rc := newReceiver(t, nil)
		s.createWebhook(key, rc.url, api.EventSuppressionRemoved)
		until := now.Add(time.Hour).Format(time.RFC3339)
		r := s.post("/suppressions/batch/add", key, fmt.Sprintf(`{"entries":[{"email":"full@example.com","note":"mailbox full","expires_at":%q},{"email":"stays@example.com"}]}`, until))
		if r.status != http.StatusCreated {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond) // several sweeps
		if s.lookup(key, "full@example.com") == "" {
			t.Fatal("the entry was removed before its expiry")
		}
		mu.Lock()
		now = now.Add(time.Hour + time.Millisecond)
		mu.Unlock()
		waitFor(t, "the expired entry's removal", func() bool { return s.lookup(key, "full@example.com") == "" })
		if s.lookup(key, "stays@example.com") == "" {
			t.Error("an entry without expiry was removed")
		}
		var trail api.AuditList
		s.get("/audit?type=suppression.removed", key).decode(t, &trail)
		if len(trail.Data) != 1 || trail.Data[0].Key != nil || trail.Data[0].Reference == nil || *trail.Data[0].Reference != "expired" ||
			trail.Data[0].Suppression.Email != "full@example.com" {
			t.Fatalf("the trail's removals: %+v", trail.Data)
		}
		raw := s.get("/audit?type=suppression.removed", key)
		if !strings.Contains(string(raw.body), `"key":null`) || !strings.Contains(string(raw.body), `"reference":"expired"`) {
			t.Errorf("the removal's audit entry: %s", raw.body)
		}
		waitFor(t, "the removal's webhook", func() bool { return len(rc.deliveries()) == 1 })
		d := rc.deliveries()[0]
		if d.payload.Type != api.EventSuppressionRemoved || d.payload.Data.Email != "full@example.com" || d.payload.Data.Note == nil {
			t.Errorf("the webhook: %s", d.body)
		}
	})
}
