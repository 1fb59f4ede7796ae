package server_test

import (
	"bytes"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// The one-click pages are text to the OpenAPI validator.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
}

// unsubscribeKey fetches the team's unsubscribe key with a read-write key
// and returns its team and secret.
func (s *service) unsubscribeKey(key string) (string, []byte) {
	s.t.Helper()
	r := s.get("/team/unsubscribe-key", key)
	if r.status != http.StatusOK {
		s.t.Fatalf("GET /team/unsubscribe-key: %d %s", r.status, r.body)
	}
	var k api.UnsubscribeKey
	r.decode(s.t, &k)
	team, secret, err := api.ParseUnsubscribeKey(k.Key)
	if err != nil || team != k.Team {
		s.t.Fatalf("the unsubscribe key does not read back: %v (team %q, answer's %q)", err, team, k.Team)
	}
	return team, secret
}

// oneClick posts RFC 8058's body to /u/{token}, form-urlencoded or
// multipart, with no key and no cookie.
func (s *service) oneClick(token string, multi bool) reply {
	s.t.Helper()
	if !multi {
		return s.do("POST", "/u/"+token, "", "application/x-www-form-urlencoded", []byte("List-Unsubscribe=One-Click"))
	}
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if err := w.WriteField("List-Unsubscribe", "One-Click"); err != nil {
		s.t.Fatal(err)
	}
	w.Close()
	return s.do("POST", "/u/"+token, "", w.FormDataContentType(), b.Bytes())
}

// wantPage checks what RFC 8058 asks of a one-click answer: 200, no
// cookie, no redirect; and that it is an HTML page.
func wantPage(t *testing.T, what string, r reply) {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("%s: %d, want 200: %s", what, r.status, r.body)
	}
	if c := r.header.Values("Set-Cookie"); len(c) > 0 {
		t.Errorf("%s set cookies: %q", what, c)
	}
	if l := r.header.Get("Location"); l != "" {
		t.Errorf("%s redirects to %q", what, l)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
		t.Errorf("%s: Content-Type %q, want text/html", what, ct)
	}
}

// TestOneClickConformance: RFC 8058 over real HTTP on both stores. A token
// minted offline with the team's unsubscribe key lists its address when
// posted as form-urlencoded and as multipart (origin manual, evidence
// source one-click, the trail's reference one-click with no key, a
// webhook event); a replay answers 200 and writes nothing; GET shows a
// confirm page with a POST form, the address escaped, and changes
// nothing; no answer sets a cookie or redirects.
func TestOneClickConformance(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("acme", false)
		hook := s.createWebhook(key, "https://example.com/hook", api.EventSuppressionAdded)
		team, secret := s.unsubscribeKey(key)
		if team != "acme" || len(secret) != 32 {
			t.Fatalf("the unsubscribe key: team %q, %d bytes", team, len(secret))
		}
		if _, again := s.unsubscribeKey(key); !bytes.Equal(again, secret) {
			t.Fatal("the team's unsubscribe key changed between two reads")
		}
		if r := s.get("/team/unsubscribe-key", s.key("acme", true)); r.status != http.StatusForbidden {
			t.Errorf("a read-only key read the unsubscribe key: %d", r.status)
		}

		// GET: a page with a POST form, the address escaped; nothing written.
		hostile := "o'neil&co@example.com"
		tok := api.MintOneClick(team, secret, hostile, time.Now())
		r := s.get("/u/"+tok, "")
		wantPage(t, "GET", r)
		page := string(r.body)
		if !strings.Contains(page, `<form method="post">`) || !strings.Contains(page, `name="List-Unsubscribe" value="One-Click"`) ||
			!strings.Contains(page, "o&#39;neil&amp;co@example.com") || strings.Contains(page, hostile) {
			t.Errorf("the confirm page:\n%s", page)
		}
		if s.lookup(key, hostile) != "" {
			t.Fatal("GET listed the address")
		}

		for _, c := range []struct {
			email string
			multi bool
		}{{"Bob@Example.com", false}, {hostile, true}} {
			tok := api.MintOneClick(team, secret, c.email, time.Now())
			wantPage(t, "POST", s.oneClick(tok, c.multi))
			norm, _ := api.NormalizeEmail(c.email)
			var e api.Entry
			s.get("/suppressions/"+escapeSegment(norm), key).decode(t, &e)
			if e.Origin != api.OriginManual || e.Evidence == nil || e.Evidence.Source != "one-click" || e.Email != norm {
				t.Errorf("multipart %v: the entry %+v", c.multi, e)
			}
			var trail api.AuditList
			s.get("/suppressions/"+escapeSegment(norm)+"/audit", key).decode(t, &trail)
			if len(trail.Data) != 1 || trail.Data[0].Key != nil || trail.Data[0].Reference == nil || *trail.Data[0].Reference != "one-click" {
				t.Errorf("multipart %v: the trail %+v", c.multi, trail.Data)
			}
		}
		if n := len(s.events(key, hook.ID)); n != 2 {
			t.Errorf("%d webhook events after two one-clicks, want 2", n)
		}

		// A replay, in either encoding: 200, nothing new.
		for _, multi := range []bool{false, true} {
			wantPage(t, "replay", s.oneClick(api.MintOneClick(team, secret, "bob@example.com", time.Now()), multi))
		}
		var trail api.AuditList
		s.get("/audit", key).decode(t, &trail)
		if len(trail.Data) != 2 || len(s.events(key, hook.ID)) != 2 {
			t.Errorf("a replay wrote: %d trail entries, %d events", len(trail.Data), len(s.events(key, hook.ID)))
		}
	})
}

// TestOneClickForgedAndAltered: a token the team's key did not mint
// (another key, an altered address, date or MAC, a cut or overlong token,
// an unknown team, an address that is not one) answers 404 to POST and
// GET and writes nothing; so does a body without
// List-Unsubscribe=One-Click (400) or of another type (415).
func TestOneClickForgedAndAltered(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("acme", false)
		team, secret := s.unsubscribeKey(key)
		other := bytes.Repeat([]byte{7}, 32)
		good := api.MintOneClick(team, secret, "bob@example.com", time.Now())
		parts := strings.Split(good, ".")
		b64 := func(s string) string { return strings.Split(api.MintOneClick(s, secret, "x", time.Now()), ".")[0] }
		flip := func(s string) string {
			last := s[len(s)-1]
			if last == 'A' {
				return s[:len(s)-1] + "B"
			}
			return s[:len(s)-1] + "A"
		}
		forged := map[string]string{
			"another key":        api.MintOneClick(team, other, "bob@example.com", time.Now()),
			"altered address":    parts[0] + "." + b64("eve@example.com") + "." + parts[2] + "." + parts[3],
			"altered team":       b64("other") + "." + parts[1] + "." + parts[2] + "." + parts[3],
			"altered date":       parts[0] + "." + parts[1] + ".20250101." + parts[3],
			"altered MAC":        parts[0] + "." + parts[1] + "." + parts[2] + "." + flip(parts[3]),
			"cut":                good[:len(good)-5],
			"three parts":        parts[0] + "." + parts[1] + "." + parts[3],
			"overlong":           good + strings.Repeat("A", api.MaxOneClickToken),
			"unknown team":       api.MintOneClick("nobody", secret, "bob@example.com", time.Now()),
			"not an address":     api.MintOneClick(team, secret, "<script>alert(1)</script>", time.Now()),
			"a domain entry":     api.MintOneClick(team, secret, "@example.com", time.Now()),
			"dated a week on":    api.MintOneClick(team, secret, "bob@example.com", time.Now().AddDate(0, 0, 7)),
			"not base64url":      parts[0] + "." + parts[1] + "." + parts[2] + "." + strings.ReplaceAll(parts[3], parts[3][:1], "+"),
			"empty address":      parts[0] + ".." + parts[2] + "." + parts[3],
			"the MAC of another": parts[0] + "." + parts[1] + "." + parts[2] + "." + strings.Split(api.MintOneClick(team, secret, "eve@example.com", time.Now()), ".")[3],
		}
		for what, tok := range forged {
			for _, multi := range []bool{false, true} {
				if r := s.oneClick(tok, multi); r.status != http.StatusNotFound {
					t.Errorf("%s (multipart %v): POST %d, want 404: %s", what, multi, r.status, r.body)
				} else if len(r.header.Values("Set-Cookie")) > 0 {
					t.Errorf("%s: a 404 set a cookie", what)
				}
			}
			if r := s.get("/u/"+tok, ""); r.status != http.StatusNotFound {
				t.Errorf("%s: GET %d, want 404", what, r.status)
			}
		}
		for _, c := range []struct {
			what, ct, body string
			status         int
		}{
			{"no field", "application/x-www-form-urlencoded", "", 400},
			{"another value", "application/x-www-form-urlencoded", "List-Unsubscribe=Yes", 400},
			{"JSON", "application/json", `{"List-Unsubscribe":"One-Click"}`, 415},
			{"text", "text/plain", "List-Unsubscribe=One-Click", 415},
			{"no type", "", "List-Unsubscribe=One-Click", 415},
		} {
			if r := s.do("POST", "/u/"+good, "", c.ct, []byte(c.body)); r.status != c.status {
				t.Errorf("%s: %d, want %d: %s", c.what, r.status, c.status, r.body)
			}
		}
		var trail api.AuditList
		s.get("/audit", key).decode(t, &trail)
		var list api.ListResponse
		s.get("/suppressions", key).decode(t, &list)
		if len(trail.Data) != 0 || len(list.Data) != 0 {
			t.Fatalf("refused one-clicks wrote: %d trail entries, list %+v", len(trail.Data), list.Data)
		}
		// The genuine token still works.
		wantPage(t, "the genuine token", s.oneClick(good, false))
		if s.lookup(key, "bob@example.com") == "" {
			t.Error("the genuine token did not list its address")
		}
	})
}

// TestOneClickRateLimit: each client address has its own bucket of
// one-click requests (forged tokens spend it too); past it the answer is
// 429 with Retry-After, and the metrics count the outcomes.
func TestOneClickRateLimit(t *testing.T) {
	m := server.NewMetrics()
	s := startService(t, openSQLite(t), server.Options{OneClickRate: 0.01, OneClickBurst: 3, Metrics: m})
	key := s.key("acme", false)
	team, secret := s.unsubscribeKey(key)
	forged := api.MintOneClick(team, bytes.Repeat([]byte{1}, 32), "a@example.com", time.Now())
	wantPage(t, "first", s.oneClick(api.MintOneClick(team, secret, "a@example.com", time.Now()), false))
	if r := s.oneClick(forged, false); r.status != http.StatusNotFound {
		t.Fatalf("forged: %d", r.status)
	}
	wantPage(t, "GET", s.get("/u/"+api.MintOneClick(team, secret, "a@example.com", time.Now()), ""))
	r := s.oneClick(api.MintOneClick(team, secret, "b@example.com", time.Now()), false)
	r.wantError(t, http.StatusTooManyRequests, api.ErrRateLimitExceeded)
	if r.header.Get("Retry-After") == "" {
		t.Error("a 429 without Retry-After")
	}
	if s.lookup(key, "b@example.com") != "" {
		t.Error("a refused one-click listed its address")
	}
	// The keyed API is another bucket: it still answers.
	if r := s.get("/suppressions", key); r.status != http.StatusOK {
		t.Errorf("the keyed API after the one-click limit: %d", r.status)
	}
	ts := httptest.NewServer(m.Handler())
	defer ts.Close()
	resp, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, want := range []string{
		`shush_oneclick_requests_total{method="POST",outcome="listed"} 1`,
		`shush_oneclick_requests_total{method="POST",outcome="not_found"} 1`,
		`shush_oneclick_requests_total{method="GET",outcome="page"} 1`,
		`shush_oneclick_requests_total{method="POST",outcome="rate_limited"} 1`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the metrics lack %s", want)
		}
	}
}

// TestOneClickProtected: a one-click for an address the team protects
// answers 200 (the provider's request is taken) and lists nothing.
func TestOneClickProtected(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("acme", false)
	if r := s.do("PATCH", "/team", key, "application/json", []byte(`{"protected":["@acme.test"]}`)); r.status != http.StatusOK {
		t.Fatalf("protect: %d %s", r.status, r.body)
	}
	team, secret := s.unsubscribeKey(key)
	wantPage(t, "protected", s.oneClick(api.MintOneClick(team, secret, "support@acme.test", time.Now()), false))
	if s.lookup(key, "support@acme.test") != "" {
		t.Error("a one-click listed a protected address")
	}
}

// TestOneClickOfAnErasedAddress: a one-click for an address erased before
// it answers 200 and finds the erased entry by its hash: no entry, trail
// entry or webhook event names the address, and the list keeps one entry.
func TestOneClickOfAnErasedAddress(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("acme", false)
		if r := s.post("/suppressions/erase", key, `{"emails":["gone@example.com"]}`); r.status != http.StatusOK {
			t.Fatalf("erase: %d %s", r.status, r.body)
		}
		hook := s.createWebhook(key, "https://example.com/hook", api.EventSuppressionAdded)
		team, secret := s.unsubscribeKey(key)
		for _, multi := range []bool{false, true} {
			wantPage(t, "a one-click of the erased address", s.oneClick(api.MintOneClick(team, secret, "Gone@Example.com", time.Now()), multi))
		}
		var list api.ListResponse
		s.get("/suppressions", key).decode(t, &list)
		if len(list.Data) != 1 || strings.Contains(list.Data[0].Email, "gone") {
			t.Errorf("the list after one-clicks of an erased address: %+v", list.Data)
		}
		var check api.CheckResponse
		s.post("/suppressions/batch/check", key, `{"emails":["gone@example.com"]}`).decode(t, &check)
		if len(check.Data) != 1 || !check.Data[0].Listed || !check.Data[0].Entry.Erased {
			t.Errorf("the erased address is not listed after the one-clicks: %+v", check.Data)
		}
		all := string(s.get("/audit", key).body) + string(s.get("/suppressions", key).body)
		for _, ev := range s.events(key, hook.ID) {
			all += ev.Type + ev.ID
		}
		if strings.Contains(strings.ToLower(all), "gone@example.com") {
			t.Errorf("an answer names the erased address: %s", all)
		}
		if n := len(s.events(key, hook.ID)); n != 0 {
			t.Errorf("%d webhook events for one-clicks of an erased address, want none", n)
		}
	})
}
