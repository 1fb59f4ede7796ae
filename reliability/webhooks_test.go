package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// hookReceiver is a webhook endpoint that can go down and come back on the
// same address. It checks every delivery's signature and counts, per
// delivery id, the deliveries it accepted.
type hookReceiver struct {
	t      *testing.T
	addr   string
	delay  time.Duration
	mu     sync.Mutex
	srv    *http.Server
	secret string
	got    map[string]int    // svix-id -> deliveries answered 200
	about  map[string]string // svix-id -> "type email"
	bad    []string
}

func newHookReceiver(t *testing.T) *hookReceiver {
	rc := &hookReceiver{t: t, addr: "127.0.0.1:0", got: map[string]int{}, about: map[string]string{}}
	rc.up()
	t.Cleanup(rc.down)
	return rc
}

func (rc *hookReceiver) trust(secret string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.secret = secret
}

func (rc *hookReceiver) url() string {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return "http://" + rc.addr + "/hook"
}

// up listens (again) on the receiver's address.
func (rc *hookReceiver) up() {
	rc.t.Helper()
	var ln net.Listener
	var err error
	rc.mu.Lock()
	addr := rc.addr
	rc.mu.Unlock()
	for range 100 { // the port may linger a moment after down
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		rc.t.Fatalf("receiver listen on %s: %v", addr, err)
	}
	rc.mu.Lock()
	rc.addr = ln.Addr().String()
	rc.srv = &http.Server{Handler: http.HandlerFunc(rc.serve)}
	srv := rc.srv
	rc.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

// down closes the listener and every connection: deliveries are refused.
func (rc *hookReceiver) down() {
	rc.mu.Lock()
	srv := rc.srv
	rc.srv = nil
	rc.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

func (rc *hookReceiver) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	time.Sleep(rc.delay)
	rc.mu.Lock()
	defer rc.mu.Unlock()
	id := r.Header.Get("svix-id")
	if err := api.VerifyWebhook(rc.secret, r.Header, body, time.Now()); err != nil {
		rc.bad = append(rc.bad, fmt.Sprintf("%s: %v", id, err))
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	var p api.WebhookPayload
	if err := json.Unmarshal(body, &p); err != nil {
		rc.bad = append(rc.bad, fmt.Sprintf("%s: body %q: %v", id, body, err))
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	what := p.Type + " " + p.Data.Email
	if prev, ok := rc.about[id]; ok && prev != what {
		rc.bad = append(rc.bad, fmt.Sprintf("delivery id %s came as %q and as %q", id, prev, what))
	}
	rc.about[id] = what
	rc.got[id]++
}

// delivered returns, per "type email", the delivery ids accepted for it,
// and each id's count.
func (rc *hookReceiver) delivered() (map[string][]string, map[string]int, []string) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	by := map[string][]string{}
	for id, what := range rc.about {
		by[what] = append(by[what], id)
	}
	counts := map[string]int{}
	for id, n := range rc.got {
		counts[id] = n
	}
	return by, counts, append([]string(nil), rc.bad...)
}

// waitDelivered waits until every one of want ("type email") has arrived.
func (rc *hookReceiver) waitDelivered(t *testing.T, want []string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		by, _, _ := rc.delivered()
		missing := 0
		for _, w := range want {
			if len(by[w]) == 0 {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d events never arrived within %s", missing, len(want), within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkOnce: every event arrived under exactly one delivery id, with a
// valid signature; exactly says whether each id was also accepted only
// once (true when the receiver never failed an answer it had accepted).
func (rc *hookReceiver) checkOnce(t *testing.T, want []string, exactly bool) {
	t.Helper()
	by, counts, bad := rc.delivered()
	for _, b := range bad {
		t.Errorf("bad delivery: %s", b)
	}
	for _, w := range want {
		if ids := by[w]; len(ids) != 1 {
			t.Errorf("%s arrived under %d delivery ids %v; want exactly one", w, len(ids), ids)
		} else if exactly && counts[ids[0]] != 1 {
			t.Errorf("%s (id %s) was delivered %d times; want once", w, ids[0], counts[ids[0]])
		}
	}
	if len(by) != len(want) {
		t.Errorf("%d distinct events arrived; want %d", len(by), len(want))
	}
}

func createHook(t *testing.T, c *client, endpoint string) string {
	t.Helper()
	a := c.do(context.Background(), "POST", "/webhooks", api.CreateWebhookRequest{Endpoint: endpoint, Events: []string{api.AuditAdded, api.AuditRemoved}})
	if a.err != nil || a.status != http.StatusCreated {
		t.Fatalf("create webhook: %d %v %s", a.status, a.err, a.body)
	}
	var w api.Webhook
	if err := json.Unmarshal(a.body, &w); err != nil {
		t.Fatal(err)
	}
	return w.SigningSecret
}

func addAll(t *testing.T, c *client, prefix string, batches, per int) []string {
	t.Helper()
	var want []string
	for b := range batches {
		emails := make([]string, per)
		for i := range emails {
			emails[i] = fmt.Sprintf("%s-%d-%d@example.com", prefix, b, i)
			want = append(want, api.AuditAdded+" "+emails[i])
		}
		if _, a := c.add(context.Background(), emails); a.err != nil || a.status != http.StatusCreated {
			t.Fatalf("add: %d %v %s", a.status, a.err, a.body)
		}
	}
	return want
}

var fastRetries = []string{"--webhook-retry-min", "100ms", "--webhook-retry-max", "400ms", "--webhook-allow-private"}

// killTimeout is the SIGKILL test's attempt timeout, which sets the lease
// an attempt under way at the kill holds its event for.
const killTimeout = 2 * time.Second

var killFlags = append(slices.Clone(fastRetries), "--webhook-timeout", killTimeout.String())

// TestWebhookOutboxSurvivesSIGKILL: events committed with their changes
// while the receiver is down survive a SIGKILL of the service, and arrive
// once it runs again, each under one delivery id, with valid signatures.
func TestWebhookOutboxSurvivesSIGKILL(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hooks.db")
	key := createKey(t, db, "hooks", false)
	rc := newHookReceiver(t)
	p := serve(t, db, killFlags...)
	c := newClient(p.url, key)
	rc.trust(createHook(t, c, rc.url()))
	rc.down()

	want := addAll(t, c, "killed", 5, 20)
	time.Sleep(300 * time.Millisecond) // a few refused attempts
	p.kill()

	rc.up()
	serve(t, db, killFlags...) // runs until the test's cleanup
	// An event whose attempt was under way at the kill is held by the dead
	// process's lease (twice the attempt timeout and 30 s) before the new
	// one may claim it: the wait covers that lease.
	rc.waitDelivered(t, want, 2*killTimeout+30*time.Second+15*time.Second)
	rc.checkOnce(t, want, true)
	report(t, "%d events committed before SIGKILL, receiver down: all delivered after restart, one delivery id each, signatures valid", len(want))
}

// TestWebhookReceiverDown: a receiver that is down for a while gets every
// event once it is back, signed.
func TestWebhookReceiverDown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "hooks.db")
	key := createKey(t, db, "hooks", false)
	rc := newHookReceiver(t)
	p := serve(t, db, fastRetries...)
	c := newClient(p.url, key)
	rc.trust(createHook(t, c, rc.url()))

	want := addAll(t, c, "before", 2, 10)
	rc.waitDelivered(t, want, 30*time.Second)
	rc.down()
	want = append(want, addAll(t, c, "during", 5, 10)...)
	if _, a := c.remove(context.Background(), api.BatchRemoveRequest{Emails: []string{"before-0-0@example.com"}}); a.status != http.StatusOK {
		t.Fatalf("remove: %d %s", a.status, a.body)
	}
	want = append(want, api.AuditRemoved+" before-0-0@example.com")
	time.Sleep(1500 * time.Millisecond)
	rc.up()
	rc.waitDelivered(t, want, 30*time.Second)
	rc.checkOnce(t, want, true)
	report(t, "receiver down 1.5 s while %d of %d events were queued: every event delivered after it returned, one delivery id each", len(want)-20, len(want))
}

// TestWebhooksTwoProcessesPostgres: two services on one PostgreSQL
// database share the outbox; each event reaches the endpoint once.
func TestWebhooksTwoProcessesPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	key := createKey(t, dsn, "hooks", false)
	rc := newHookReceiver(t)
	rc.delay = 5 * time.Millisecond // attempts overlap the other process's claims
	a := serve(t, dsn, fastRetries...)
	b := serve(t, dsn, fastRetries...)
	ca, cb := newClient(a.url, key), newClient(b.url, key)
	rc.trust(createHook(t, ca, rc.url()))

	var want []string
	for i := range 10 {
		c := ca
		if i%2 == 1 {
			c = cb
		}
		want = append(want, addAll(t, c, fmt.Sprintf("p%d", i), 1, 20)...)
	}
	rc.waitDelivered(t, want, 60*time.Second)
	time.Sleep(500 * time.Millisecond) // room for a second delivery, should one come
	rc.checkOnce(t, want, true)
	report(t, "two serve processes on one PostgreSQL: %d events, each delivered once", len(want))
}

// TestWebhookAddressesByDefault: a service started with HTTP_PROXY in its
// environment and no webhook setting sends nothing through the proxy and
// refuses endpoints on loopback and the cloud metadata address, on the
// address it would dial: the receiver and the proxy get nothing, and the
// attempts (readable by the team) hold only the refusal.
func TestWebhookAddressesByDefault(t *testing.T) {
	var proxied atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxied.Add(1)
		fmt.Fprint(w, `{"AccessKeyId":"ASIA-FAKE-FROM-PROXY"}`)
	}))
	t.Cleanup(proxy.Close)
	db := filepath.Join(t.TempDir(), "hooks.db")
	key := createKey(t, db, "hooks", false)
	rc := newHookReceiver(t)
	p := serveEnv(t, db, []string{"HTTP_PROXY=" + proxy.URL, "http_proxy=" + proxy.URL}, "--webhook-retry-min", "1h", "--rate", "1000")
	c := newClient(p.url, key)
	for _, endpoint := range []string{rc.url(), "http://169.254.169.254/latest/meta-data/iam/security-credentials/", "http://[fd00:ec2::254]/latest/"} {
		createHook(t, c, endpoint)
	}
	addAll(t, c, "denied", 1, 1)
	var hooks api.WebhookList
	if a := c.do(context.Background(), "GET", "/webhooks", nil); a.status != http.StatusOK || json.Unmarshal(a.body, &hooks) != nil {
		t.Fatalf("list webhooks: %d %s", a.status, a.body)
	}
	for _, h := range hooks.Data {
		deadline := time.Now().Add(20 * time.Second)
		for {
			var evs api.WebhookEventList
			var atts api.WebhookAttemptList
			a := c.do(context.Background(), "GET", "/webhooks/"+h.ID+"/events", nil)
			if json.Unmarshal(a.body, &evs) == nil && len(evs.Data) == 1 {
				b := c.do(context.Background(), "GET", "/webhooks/"+h.ID+"/events/"+evs.Data[0].ID+"/attempts", nil)
				if json.Unmarshal(b.body, &atts) == nil && len(atts.Data) == 1 {
					if at := atts.Data[0]; at.HTTPStatusCode != 0 || !strings.Contains(at.Response, "is not allowed") {
						t.Errorf("%s: attempt %d %q; want a refusal", h.Endpoint, at.HTTPStatusCode, at.Response)
					}
					break
				}
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: no attempt after 20 s: %s", h.Endpoint, c.do(context.Background(), "GET", "/webhooks/"+h.ID+"/events", nil).body)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	if n := proxied.Load(); n != 0 {
		t.Errorf("the environment's proxy got %d requests", n)
	}
	rc.mu.Lock()
	got := len(rc.got) + len(rc.bad)
	rc.mu.Unlock()
	if got != 0 {
		t.Errorf("the loopback receiver got %d deliveries by default", got)
	}
	report(t, "HTTP_PROXY set, default settings: loopback, 169.254.169.254 and fd00:ec2::254 refused on the dialled address; proxy got 0 requests")
}
