package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// receiver is a webhook endpoint: it checks every delivery's signature
// with the secrets it was given and answers with what answer says.
type receiver struct {
	t       *testing.T
	url     string
	mu      sync.Mutex
	secrets []string
	got     []delivery
	answer  func(n int) int // status for the n-th request (0-based)
	hits    int
}

type delivery struct {
	id      string
	payload api.WebhookPayload
	header  http.Header
	body    []byte
	valid   map[string]bool // secret -> its signature verified
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	rc := &receiver{t: t, answer: answer}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		n := rc.hits
		rc.hits++
		d := delivery{id: r.Header.Get("svix-id"), header: r.Header.Clone(), body: body, valid: map[string]bool{}}
		if err := json.Unmarshal(body, &d.payload); err != nil {
			t.Errorf("delivery body %q: %v", body, err)
		}
		for _, s := range rc.secrets {
			d.valid[s] = api.VerifyWebhook(s, r.Header, body, time.Now()) == nil
		}
		rc.got = append(rc.got, d)
		status := http.StatusNoContent
		if rc.answer != nil {
			status = rc.answer(n)
		}
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "http://127.0.0.1:1/elsewhere")
		}
		w.WriteHeader(status)
		fmt.Fprintf(w, "answer %d", n)
	}))
	t.Cleanup(ts.Close)
	rc.url = ts.URL + "/hook"
	return rc
}

func (rc *receiver) trust(secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secrets = append(rc.secrets, secret)
}

func (rc *receiver) deliveries() []delivery {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.got)
}

// waitFor polls cond until it holds or 10 s pass.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// loopbackOK lets deliveries reach the tests' receivers on 127.0.0.1.
var loopbackOK = outbox.AddressPolicy{AllowPrivate: true}

// startDelivering runs the service with a deliverer of fast retries.
func startDelivering(t *testing.T, opts outbox.DelivererConfig) *service {
	t.Helper()
	return startDeliveringOn(t, openSQLite(t), opts)
}

// startDeliveringOn is startDelivering over the store st.
func startDeliveringOn(t *testing.T, st store.Store, opts outbox.DelivererConfig) *service {
	t.Helper()
	if opts.RetryMin == 0 {
		opts.RetryMin, opts.RetryMax = 20*time.Millisecond, 80*time.Millisecond
	}
	opts.Poll = 20 * time.Millisecond
	d := outbox.NewDeliverer(st, opts)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
	return startService(t, st, server.Options{Deliveries: d})
}

func (s *service) createWebhook(key, endpoint string, events ...string) api.Webhook {
	s.t.Helper()
	r := s.post("/webhooks", key, jsonBody(s.t.(*testing.T), api.CreateWebhookRequest{Endpoint: endpoint, Events: events}))
	if r.status != http.StatusCreated {
		s.t.Fatalf("create webhook: %d %s", r.status, r.body)
	}
	var w api.Webhook
	r.decode(s.t, &w)
	return w
}

func (s *service) events(key, hook string) []api.WebhookEvent {
	s.t.Helper()
	r := s.get("/webhooks/"+hook+"/events?limit=100", key)
	if r.status != http.StatusOK {
		s.t.Fatalf("events: %d %s", r.status, r.body)
	}
	var l api.WebhookEventList
	r.decode(s.t, &l)
	return l.Data
}

// firstAttempt waits for the webhook's one event to have its first attempt
// on record and returns it.
func (s *service) firstAttempt(t *testing.T, key, hook string) api.WebhookAttempt {
	t.Helper()
	var atts api.WebhookAttemptList
	waitFor(t, "the first attempt", func() bool {
		ev := s.events(key, hook)
		if len(ev) != 1 {
			return false
		}
		s.get("/webhooks/"+hook+"/events/"+ev[0].ID+"/attempts", key).decode(t, &atts)
		return len(atts.Data) == 1
	})
	return atts.Data[0]
}

var secretShape = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{30}[A-Za-z0-9+/=]{2}$`)

// TestWebhooksAPI: the /webhooks surface answers as the hosted service's
// does, per team, with read-only keys kept from secrets and changes.
func TestWebhooksAPI(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key, ro, other := s.key("hooks", false), s.key("hooks", true), s.key("others", false)

	created := s.createWebhook(key, "https://example.com/hook", "suppression.added", "email.sent")
	if created.Object != "webhook" || created.ID == "" || !secretShape.MatchString(created.SigningSecret) {
		t.Fatalf("create answered %+v; want object webhook, an ID, a whsec_ secret of 32 characters", created)
	}
	second := s.createWebhook(key, "http://127.0.0.1:9/x", "suppression.removed")

	var list api.WebhookList
	r := s.get("/webhooks?limit=1", ro)
	r.decode(t, &list)
	if r.status != 200 || !list.HasMore || len(list.Data) != 1 || list.Data[0].ID != second.ID || list.Data[0].Status != "enabled" || list.Data[0].SigningSecret != "" {
		t.Errorf("GET /webhooks?limit=1 with a read-only key: %d %s; want the newest, enabled, no secret, has_more", r.status, r.body)
	}
	r = s.get("/webhooks", other)
	r.decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("another team lists %d webhooks", len(list.Data))
	}
	s.get("/webhooks/"+created.ID, other).wantError(t, 404, "not_found")

	var got api.Webhook
	r = s.get("/webhooks/"+created.ID, key)
	r.decode(t, &got)
	if got.Object != "webhook" || got.SigningSecret != created.SigningSecret || got.Endpoint != "https://example.com/hook" ||
		!slices.Equal(got.Events, []string{"suppression.added", "email.sent"}) || got.CreatedAt.IsZero() {
		t.Errorf("GET /webhooks/{id}: %s", r.body)
	}
	if e := s.get("/webhooks/"+created.ID, ro).wantError(t, 403, "restricted_api_key"); !strings.Contains(e.Message, "secret") {
		t.Errorf("read-only GET of a webhook says %q; want it to name the secret", e.Message)
	}
	s.post("/webhooks", ro, `{"endpoint":"https://example.com","events":["suppression.added"]}`).wantError(t, 403, "restricted_api_key")

	for _, c := range []struct {
		body, name, mention string
	}{
		{`{"events":["suppression.added"]}`, "missing_required_field", "endpoint"},
		{`{"endpoint":"https://example.com"}`, "missing_required_field", "events"},
		{`{"endpoint":"ftp://example.com","events":["suppression.added"]}`, "validation_error", "endpoint"},
		{`{"endpoint":"/relative","events":["suppression.added"]}`, "validation_error", "endpoint"},
		{`{"endpoint":"https://example.com","events":[]}`, "validation_error", "events"},
		{`{"endpoint":"https://example.com","events":["added"]}`, "validation_error", "events[0]"},
	} {
		e := s.post("/webhooks", key, c.body).wantError(t, 422, c.name)
		if !strings.Contains(e.Message, c.mention) {
			t.Errorf("POST /webhooks %s: %q does not name %s", c.body, e.Message, c.mention)
		}
	}
	s.get("/webhooks?limit=0", key).wantError(t, 422, "validation_error")
	s.get("/webhooks?limit=101", key).wantError(t, 422, "validation_error")
	if e := s.get("/webhooks/0190f0a2-0000-7000-8000-000000000000", key).wantError(t, 404, "not_found"); e.Message != "Webhook not found" {
		t.Errorf("unknown webhook: %q", e.Message)
	}
	s.get("/webhooks/nope", key).wantError(t, 404, "not_found")

	r = s.do("PATCH", "/webhooks/"+created.ID, key, "application/json", []byte(`{"status":"disabled","events":["suppression.removed"]}`))
	r.decode(t, &got)
	if r.status != 200 || got.Object != "webhook" || got.ID != created.ID {
		t.Errorf("PATCH: %d %s", r.status, r.body)
	}
	s.do("PATCH", "/webhooks/"+created.ID, key, "application/json", []byte(`{}`))
	s.get("/webhooks/"+created.ID, key).decode(t, &got)
	if got.Status != "disabled" || !slices.Equal(got.Events, []string{"suppression.removed"}) || got.Endpoint != "https://example.com/hook" {
		t.Errorf("after PATCH and {}: %+v", got)
	}
	s.do("PATCH", "/webhooks/"+created.ID, key, "application/json", []byte(`{"status":"paused"}`)).wantError(t, 422, "validation_error")
	s.do("PATCH", "/webhooks/"+created.ID, ro, "application/json", []byte(`{}`)).wantError(t, 403, "restricted_api_key")

	// Rotate and DELETE take no body, with or without a JSON content type.
	r = s.do("POST", "/webhooks/"+second.ID+"/signing-secret/rotate", key, "application/json", nil)
	var rotated api.Webhook
	r.decode(t, &rotated)
	if r.status != 200 || rotated.ID != second.ID || !secretShape.MatchString(rotated.SigningSecret) || rotated.SigningSecret == second.SigningSecret {
		t.Errorf("rotate: %d %s", r.status, r.body)
	}
	r = s.do("DELETE", "/webhooks/"+second.ID, key, "", nil)
	var deleted api.Webhook
	r.decode(t, &deleted)
	if r.status != 200 || !deleted.Deleted || deleted.ID != second.ID || deleted.Object != "webhook" {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	s.do("DELETE", "/webhooks/"+second.ID, key, "application/json", nil).wantError(t, 404, "not_found")

	// Deliveries of an unknown event, and paging rules of events.
	if e := s.get("/webhooks/"+created.ID+"/events/0190f0a2-0000-7000-8000-000000000000", ro).wantError(t, 404, "not_found"); e.Message != "Webhook event not found" {
		t.Errorf("unknown event: %q", e.Message)
	}
	s.get("/webhooks/"+created.ID+"/events?before=0190f0a2-0000-7000-8000-000000000000", ro).wantError(t, 422, "validation_error")
	if r := s.get("/webhooks/"+created.ID+"/events", ro); r.status != 200 {
		t.Errorf("a read-only key lists deliveries: %d %s", r.status, r.body)
	}
}

// TestWebhookDeliveries: each change reaches each webhook that lists its
// type once, signed, with the suppression; failures are retried until a
// 2xx, and every attempt is on record.
func TestWebhookDeliveries(t *testing.T) {
	rc := newReceiver(t, func(n int) int {
		if n < 2 {
			return http.StatusServiceUnavailable // the first two attempts fail
		}
		return http.StatusOK
	})
	s := startDelivering(t, outbox.DelivererConfig{Addresses: loopbackOK})
	key := s.key("deliver", false)
	hook := s.createWebhook(key, rc.url, "suppression.added", "suppression.removed")
	rc.trust(hook.SigningSecret)

	ids := s.add(key, "a@example.com")
	waitFor(t, "the added event to succeed", func() bool {
		ev := s.events(key, hook.ID)
		return len(ev) == 1 && ev[0].Status == "success"
	})
	got := rc.deliveries()
	if len(got) != 3 {
		t.Fatalf("%d requests reached the receiver; want 3 (two failures, then the success)", len(got))
	}
	ev := s.events(key, hook.ID)[0]
	for i, d := range got {
		if d.id != ev.ID || !d.valid[hook.SigningSecret] || d.header.Get("webhook-id") != ev.ID ||
			d.header.Get("webhook-signature") != d.header.Get("svix-signature") || d.header.Get("Content-Type") != "application/json" {
			t.Errorf("request %d: id %q, signature valid %v, headers %v; want event %s signed under both header names", i, d.id, d.valid, d.header, ev.ID)
		}
		p := d.payload
		if p.Type != "suppression.added" || p.Data.ID != ids[0] || p.Data.Email != "a@example.com" || p.Data.Origin != "manual" || p.CreatedAt.IsZero() {
			t.Errorf("request %d payload %+v", i, p)
		}
	}

	var detail struct {
		api.WebhookEvent
		NextAttemptAt *string `json:"next_attempt_at"`
	}
	r := s.get("/webhooks/"+hook.ID+"/events/"+ev.ID, key)
	r.decode(t, &detail)
	if detail.Object != "webhook_event" || detail.Status != "success" || detail.NextAttemptAt != nil || !strings.Contains(string(r.body), `"next_attempt_at":null`) {
		t.Errorf("the settled event: %s; want success with next_attempt_at null", r.body)
	}
	var sent api.WebhookPayload
	if err := json.Unmarshal(detail.Payload, &sent); err != nil || sent.Data.ID != ids[0] {
		t.Errorf("the event's payload %s (%v); want the suppression %s", detail.Payload, err, ids[0])
	}

	var atts api.WebhookAttemptList
	s.get("/webhooks/"+hook.ID+"/events/"+ev.ID+"/attempts", key).decode(t, &atts)
	codes := []int{}
	for _, a := range atts.Data {
		codes = append(codes, a.HTTPStatusCode)
	}
	if !slices.Equal(codes, []int{200, 503, 503}) || atts.Data[0].Response != "answer 2" || atts.Data[0].SentAt.IsZero() {
		t.Errorf("attempts, newest first: %+v; want 200 after two 503s with the answers kept", atts.Data)
	}

	// A removal is delivered with the removed entry.
	r = s.post("/suppressions/batch/remove", key, `{"emails":["a@example.com"]}`)
	if r.status != 200 {
		t.Fatalf("remove: %d %s", r.status, r.body)
	}
	waitFor(t, "the removed event", func() bool { return len(rc.deliveries()) == 4 })
	if p := rc.deliveries()[3].payload; p.Type != "suppression.removed" || p.Data.ID != ids[0] {
		t.Errorf("removal payload %+v; want the removed entry %s", p, ids[0])
	}
	// Re-adding nothing new, or removing what is missing, sends nothing.
	s.post("/suppressions/batch/remove", key, `{"emails":["a@example.com"]}`)
	time.Sleep(200 * time.Millisecond)
	if n := len(rc.deliveries()); n != 4 {
		t.Errorf("a removal that changed nothing made %d more requests", n-4)
	}
}

// TestWebhookGivesUpAndReplays: an endpoint that never answers 2xx is
// given up once the retry time is over; a redirect is a failure, not
// followed; a replay makes exactly one more attempt.
func TestWebhookGivesUpAndReplays(t *testing.T) {
	fail := true
	var mu sync.Mutex
	rc := newReceiver(t, func(int) int {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return http.StatusFound
		}
		return http.StatusOK
	})
	s := startDelivering(t, outbox.DelivererConfig{Addresses: loopbackOK, RetryFor: 150 * time.Millisecond})
	key := s.key("giveup", false)
	hook := s.createWebhook(key, rc.url, "suppression.added")
	s.add(key, "b@example.com")
	waitFor(t, "the event to be given up", func() bool {
		ev := s.events(key, hook.ID)
		return len(ev) == 1 && ev[0].Status == "failed"
	})
	ev := s.events(key, hook.ID)[0]
	tries := len(rc.deliveries())
	if tries < 2 {
		t.Errorf("%d attempts before giving up; want retries", tries)
	}
	var atts api.WebhookAttemptList
	s.get("/webhooks/"+hook.ID+"/events/"+ev.ID+"/attempts", key).decode(t, &atts)
	if len(atts.Data) != tries || atts.Data[0].HTTPStatusCode != 302 {
		t.Errorf("attempts %+v; want %d, each the 302 (not followed)", atts.Data, tries)
	}

	mu.Lock()
	fail = false
	mu.Unlock()
	r := s.do("POST", "/webhooks/"+hook.ID+"/events/"+ev.ID+"/replay", key, "application/json", nil)
	var replay api.WebhookEvent
	r.decode(t, &replay)
	if r.status != 200 || replay.ID != ev.ID || replay.Object != "webhook_event" {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	waitFor(t, "the replay to succeed", func() bool { return s.events(key, hook.ID)[0].Status == "success" })
	if n := len(rc.deliveries()); n != tries+1 {
		t.Errorf("the replay made %d requests; want 1", n-tries)
	}
	if d := rc.deliveries()[tries]; d.id != ev.ID {
		t.Errorf("the replay's id %q; want the event's own %s", d.id, ev.ID)
	}

	s.do("PATCH", "/webhooks/"+hook.ID, key, "application/json", []byte(`{"status":"disabled"}`))
	s.do("POST", "/webhooks/"+hook.ID+"/events/"+ev.ID+"/replay", key, "", nil).wantError(t, 422, "validation_error")
}

// TestWebhookTimeoutAndRotation: a slow endpoint's attempt ends at the
// timeout as status 0; after a rotation deliveries verify with the new
// secret and, for the overlap, the old one.
func TestWebhookTimeoutAndRotation(t *testing.T) {
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); slow.Close() })
	s := startDelivering(t, outbox.DelivererConfig{Addresses: loopbackOK, Timeout: 100 * time.Millisecond, RetryMin: time.Hour})
	key := s.key("slow", false)
	hook := s.createWebhook(key, slow.URL, "suppression.added")
	s.add(key, "c@example.com")
	a := s.firstAttempt(t, key, hook.ID)
	if a.HTTPStatusCode != 0 || a.Response != "timed out" {
		t.Errorf("the slow attempt: %+v; want status 0, timed out", a)
	}

	rc := newReceiver(t, nil)
	rot := s.createWebhook(key, rc.url, "suppression.added")
	r := s.do("POST", "/webhooks/"+rot.ID+"/signing-secret/rotate", key, "", nil)
	var fresh api.Webhook
	r.decode(t, &fresh)
	rc.trust(rot.SigningSecret)
	rc.trust(fresh.SigningSecret)
	s.add(key, "d@example.com")
	waitFor(t, "the delivery after rotation", func() bool { return len(rc.deliveries()) == 1 })
	d := rc.deliveries()[0]
	if !d.valid[fresh.SigningSecret] || !d.valid[rot.SigningSecret] || len(strings.Fields(d.header.Get("svix-signature"))) != 2 {
		t.Errorf("after rotation: valid %v, signatures %q; want both secrets to verify", d.valid, d.header.Get("svix-signature"))
	}
	first := d.header.Clone()
	first.Set("svix-signature", strings.Fields(d.header.Get("svix-signature"))[0])
	first.Set("webhook-signature", first.Get("svix-signature"))
	if err := api.VerifyWebhook(fresh.SigningSecret, first, d.body, time.Now()); err != nil {
		t.Errorf("the first signature is not the new secret's: %v", err)
	}
}

// TestWebhookHostileAnswer: an endpoint's answer is kept as at most 2 KiB
// of valid text, whatever bytes it sent: no NUL (PostgreSQL's text refuses
// it), no broken UTF-8, no unbounded growth.
func TestWebhookHostileAnswer(t *testing.T) {
	junk := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte("\x00\xff\xfe\x1b]52;c;aGk=\x07"))
		_, _ = w.Write([]byte(strings.Repeat("é", 4000)))
	}))
	t.Cleanup(junk.Close)
	s := startDelivering(t, outbox.DelivererConfig{Addresses: loopbackOK, RetryMin: time.Hour})
	key := s.key("junk", false)
	hook := s.createWebhook(key, junk.URL, "suppression.added")
	s.add(key, "e@example.com")
	a := s.firstAttempt(t, key, hook.ID)
	got := a.Response
	if a.HTTPStatusCode != 500 || len(got) > 2048 || strings.ContainsRune(got, 0) || !utf8.ValidString(got) || !strings.HasPrefix(got, "\ufffd") {
		t.Errorf("kept answer (%d bytes, status %d) %q…; want at most 2048 bytes of valid UTF-8 without NUL", len(got), a.HTTPStatusCode, got[:min(len(got), 40)])
	}
}

// TestWebhookDeniedAddresses: by default a webhook reaches public
// addresses only: an endpoint on loopback or a cloud's metadata address is
// never connected to. Allowing private addresses opens loopback but not
// the metadata address; naming loopback's range opens it too.
func TestWebhookDeniedAddresses(t *testing.T) {
	rc := newReceiver(t, nil)
	for _, c := range []struct {
		name, endpoint string
		policy         outbox.AddressPolicy
		want           string
	}{
		{"metadata", "http://169.254.169.254/latest/meta-data/", outbox.AddressPolicy{AllowPrivate: true}, "the endpoint's address 169.254.169.254 is not allowed (forbidden)"},
		{"metadata-v6", "http://[fd00:ec2::254]/latest/meta-data/", outbox.AddressPolicy{AllowPrivate: true}, "the endpoint's address fd00:ec2::254 is not allowed (forbidden)"},
		{"metadata-nat64", "http://[64:ff9b::a9fe:a9fe]/latest/meta-data/", outbox.AddressPolicy{AllowPrivate: true}, "the endpoint's address 64:ff9b::a9fe:a9fe is not allowed (forbidden)"},
		{"loopback", rc.url, outbox.AddressPolicy{}, "the endpoint's address 127.0.0.1 is not allowed (private)"},
		{"localhost", strings.Replace(rc.url, "127.0.0.1", "localhost", 1), outbox.AddressPolicy{}, " is not allowed (private)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startDelivering(t, outbox.DelivererConfig{RetryMin: time.Hour, Addresses: c.policy})
			key := s.key("deny", false)
			hook := s.createWebhook(key, c.endpoint, "suppression.added")
			s.add(key, "f@example.com")
			a := s.firstAttempt(t, key, hook.ID)
			if a.HTTPStatusCode != 0 || !strings.HasSuffix(a.Response, c.want) {
				t.Errorf("attempt %+v; want status 0, %q", a, c.want)
			}
		})
	}
	if n := len(rc.deliveries()); n != 0 {
		t.Errorf("the receiver on loopback got %d requests by default", n)
	}
	t.Run("allow-cidr", func(t *testing.T) {
		s := startDelivering(t, outbox.DelivererConfig{RetryMin: time.Hour,
			Addresses: outbox.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}}})
		key := s.key("named", false)
		hook := s.createWebhook(key, rc.url, "suppression.added")
		s.add(key, "g@example.com")
		if a := s.firstAttempt(t, key, hook.ID); a.HTTPStatusCode != http.StatusNoContent {
			t.Errorf("attempt %+v; want the receiver's 204 once its range is allowed", a)
		}
	})
}

// TestWebhookProxyChecked: with a proxy configured, an endpoint whose
// address is refused never reaches the proxy (the host is resolved and
// checked first); a public one would. Without one, the environment's
// HTTP_PROXY is not consulted at all (see the serve test in reliability).
func TestWebhookProxyChecked(t *testing.T) {
	var proxied atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		fmt.Fprint(w, `{"AccessKeyId":"ASIA-FAKE-FROM-PROXY"}`)
	}))
	t.Cleanup(proxy.Close)
	pu, _ := url.Parse(proxy.URL)
	rc := newReceiver(t, nil)
	for _, c := range []struct{ name, endpoint, want string }{
		{"metadata", "http://169.254.169.254/latest/meta-data/iam/security-credentials/", "the endpoint's address 169.254.169.254 is not allowed (forbidden)"},
		{"loopback", rc.url, "the endpoint's address 127.0.0.1 is not allowed (private)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := startDelivering(t, outbox.DelivererConfig{RetryMin: time.Hour, Proxy: http.ProxyURL(pu)})
			key := s.key("proxied", false)
			hook := s.createWebhook(key, c.endpoint, "suppression.added")
			s.add(key, "p@example.com")
			if a := s.firstAttempt(t, key, hook.ID); a.HTTPStatusCode != 0 || a.Response != c.want {
				t.Errorf("attempt %+v; want status 0, %q", a, c.want)
			}
		})
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("the proxy got %d requests for refused endpoints", n)
	}
}
