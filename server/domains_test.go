package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// checkBy asks the bulk check about addresses and returns its items by
// address.
func (s *service) checkBy(key string, emails ...string) map[string]api.CheckItem {
	s.t.Helper()
	r := s.post("/suppressions/batch/check", key, jsonBody(s.t.(*testing.T), api.CheckRequest{Emails: emails}))
	if r.status != http.StatusOK {
		s.t.Fatalf("check: %d %s", r.status, r.body)
	}
	var out api.CheckResponse
	r.decode(s.t, &out)
	items := make(map[string]api.CheckItem, len(out.Data))
	for _, it := range out.Data {
		items[it.Email] = it
	}
	return items
}

// TestDomainEntries: @domain and *.domain entries are added with a note,
// an expiry and a reference, listed with their entry as email (the hosted
// wire), in the trail and the webhook's events; the bulk check says which
// addresses they list ("listed_by"), the nearest first, an address's own
// entry before them; the team's protected addresses are never listed by
// them; a batch add names the domain entry that lists an address too; an
// internationalized domain is normalized as an address's is; removal by
// the entry takes the block off.
func TestDomainEntries(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("acme", false)
		hook := s.createWebhook(key, "https://example.com/hook", api.EventSuppressionAdded, api.EventSuppressionRemoved)
		until := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
		r := s.do("POST", "/suppressions/batch/add", key, "application/json",
			[]byte(fmt.Sprintf(`{"entries":[{"email":" @Evil.Example ","note":"phishing wave","expires_at":%q},{"email":"*.evil.example"},{"email":"@BÜCHER.example"}]}`, until)),
			api.ReferenceHeader, "INC-7")
		if r.status != http.StatusCreated {
			t.Fatalf("add domain entries: %d %s", r.status, r.body)
		}
		var added api.BatchResponse
		r.decode(t, &added)
		if len(added.Data) != 3 || added.Data[0].Email != "@evil.example" || added.Data[1].Email != "*.evil.example" ||
			added.Data[2].Email != "@xn--bcher-kva.example" || added.Data[0].ExpiresAt == nil {
			t.Fatalf("the add's answer: %s", r.body)
		}
		if r := s.do("PATCH", "/team", key, "application/json", []byte(`{"protected":["ops@evil.example"]}`)); r.status != http.StatusOK {
			t.Fatalf("protect: %d %s", r.status, r.body)
		}
		s.add(key, "own@evil.example")

		got := s.checkBy(key, "x@evil.example", "y@mail.evil.example", "z@a.b.evil.example", "ops@evil.example",
			"own@evil.example", "w@notevil.example", "w@evil.example.org", "leser@bücher.example")
		for email, want := range map[string]string{
			"x@evil.example": "@evil.example", "y@mail.evil.example": "*.evil.example", "z@a.b.evil.example": "*.evil.example",
			"leser@xn--bcher-kva.example": "@xn--bcher-kva.example",
		} {
			if it := got[email]; !it.Listed || it.ListedBy != want || it.Entry.Email != want {
				t.Errorf("check %s: %+v, want listed by %s", email, it, want)
			}
		}
		if it := got["x@evil.example"]; it.Entry.Note == nil || *it.Entry.Note != "phishing wave" || it.Entry.ExpiresAt == nil {
			t.Errorf("check x@: the domain entry's note and expiry are missing: %+v", it.Entry)
		}
		for _, email := range []string{"ops@evil.example", "w@notevil.example", "w@evil.example.org"} {
			if got[email].Listed {
				t.Errorf("check %s: listed (%+v), want not", email, got[email])
			}
		}
		if it := got["own@evil.example"]; !it.Listed || it.ListedBy != "" || it.Entry.Email != "own@evil.example" {
			t.Errorf("check own@: %+v, want its own entry", it)
		}

		// A batch add answers which domain entry lists an address too.
		r = s.post("/suppressions/batch/add", key, `{"emails":["new@evil.example","new@example.org"]}`)
		r.decode(t, &added)
		if added.Data[0].ListedBy != "@evil.example" || added.Data[1].ListedBy != "" || !*added.Data[0].Created {
			t.Errorf("batch add's answer: %s", r.body)
		}
		// Adding a domain the team protects is refused.
		if r := s.post("/suppressions/batch/add", key, `{"emails":["@ops.example"]}`); r.status != http.StatusCreated {
			t.Fatalf("add @ops.example: %d", r.status)
		}
		s.do("PATCH", "/team", key, "application/json", []byte(`{"protected":["ops@evil.example","@safe.example"]}`))
		s.post("/suppressions/batch/add", key, `{"emails":["*.safe.example"]}`).wantError(t, 422, api.ErrValidation)
		// A block that would cover a protected address is refused whole.
		s.post("/suppressions/batch/add", key, `{"emails":["@other.example","@evil.example"]}`).wantError(t, 422, api.ErrValidation)
		if s.lookup(key, "@other.example") != "" {
			t.Error("a refused add listed @other.example")
		}

		// The hosted wire: the list shows the entry as its email.
		var list api.ListResponse
		s.get("/suppressions?limit=100", key).decode(t, &list)
		var emails []string
		for _, e := range list.Data {
			emails = append(emails, e.Email)
		}
		if !strings.Contains(strings.Join(emails, " "), "@evil.example *.evil.example") && !strings.Contains(strings.Join(emails, " "), "*.evil.example @evil.example") {
			t.Errorf("the list: %v", emails)
		}
		var trail api.AuditList
		s.get("/audit?reference=INC-7", key).decode(t, &trail)
		if len(trail.Data) != 3 || trail.Data[2].Suppression.Email != "@evil.example" {
			t.Errorf("the trail of INC-7: %+v", trail.Data)
		}
		var blocks api.ListResponse
		s.get("/suppressions/domains", key).decode(t, &blocks)
		var names []string
		for _, e := range blocks.Data {
			names = append(names, e.Email)
		}
		// @domains first, then *.domains, each newest first.
		if strings.Join(names, " ") != "@ops.example @xn--bcher-kva.example @evil.example *.evil.example" {
			t.Errorf("GET /suppressions/domains: %v", names)
		}
		for _, ref := range []string{"@evil.example", "%40evil.example", "*.evil.example"} {
			if r := s.get("/suppressions/"+ref, key); r.status != http.StatusOK {
				t.Errorf("GET /suppressions/%s: %d", ref, r.status)
			}
		}

		// Removal takes the block off, in the trail and the webhook.
		if r := s.do("DELETE", "/suppressions/@evil.example", key, "", nil); r.status != http.StatusOK {
			t.Fatalf("remove @evil.example: %d %s", r.status, r.body)
		}
		r = s.post("/suppressions/batch/remove", key, `{"emails":["*.EVIL.example"]}`)
		var removed api.BatchResponse
		r.decode(t, &removed)
		if len(removed.Data) != 1 || removed.Data[0].Email != "*.evil.example" {
			t.Fatalf("batch remove *.evil.example: %s", r.body)
		}
		if got := s.checkBy(key, "x@evil.example", "y@mail.evil.example"); got["x@evil.example"].Listed || got["y@mail.evil.example"].Listed {
			t.Errorf("listed after the domain entries' removal: %+v", got)
		}
		var types []string
		for _, ev := range s.events(key, hook.ID) {
			types = append(types, ev.Type)
		}
		// 3 domain entries, own@, new@evil.example, new@example.org and
		// @ops.example added; 2 removed.
		if n := strings.Count(strings.Join(types, " "), api.EventSuppressionRemoved); n != 2 || len(types) != 9 {
			t.Errorf("webhook events: %v", types)
		}
		for _, bad := range []string{"@", "@nodot", "*.", "*.x", "@a@b.example", "@-bad.example", "*.*.evil.example"} {
			s.post("/suppressions/batch/add", key, jsonBody(t, api.BatchAddRequest{Emails: []string{bad}})).wantError(t, 422, api.ErrValidation)
		}
	})
}

// TestDomainEntryExpires: a domain entry with an expiry is taken off by
// the sweeper once its time has passed by the service's clock, as any
// entry (reference "expired", a webhook); until then it lists its
// domain's addresses, and then it no longer does.
func TestDomainEntryExpires(t *testing.T) {
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
		until := now.Add(24 * time.Hour).Format(time.RFC3339)
		r := s.post("/suppressions/batch/add", key, fmt.Sprintf(`{"entries":[{"email":"@evil.example","expires_at":%q},{"email":"*.evil.example"}]}`, until))
		if r.status != http.StatusCreated {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		time.Sleep(100 * time.Millisecond) // several sweeps
		if !s.checkBy(key, "x@evil.example")["x@evil.example"].Listed {
			t.Fatal("the domain entry stopped listing before its expiry")
		}
		mu.Lock()
		now = now.Add(24*time.Hour + time.Millisecond)
		mu.Unlock()
		waitFor(t, "the expired domain entry's removal", func() bool { return !s.checkBy(key, "x@evil.example")["x@evil.example"].Listed })
		if it := s.checkBy(key, "y@mail.evil.example")["y@mail.evil.example"]; !it.Listed || it.ListedBy != "*.evil.example" {
			t.Errorf("the domain entry without expiry: %+v", it)
		}
		var trail api.AuditList
		s.get("/audit?type=suppression.removed", key).decode(t, &trail)
		if len(trail.Data) != 1 || trail.Data[0].Suppression.Email != "@evil.example" || trail.Data[0].Reference == nil || *trail.Data[0].Reference != "expired" {
			t.Fatalf("the trail's removals: %+v", trail.Data)
		}
		waitFor(t, "the removal's webhook", func() bool { return len(rc.deliveries()) == 1 })
		if d := rc.deliveries()[0]; d.payload.Data.Email != "@evil.example" {
			t.Errorf("the webhook: %s", d.body)
		}
	})
}
