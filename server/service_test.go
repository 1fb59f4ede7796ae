package server_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// runService runs the service as `shush serve` does (server.Listen and
// Serve) on a free loopback port, stopped when the test ends; stop asks it
// to stop now and returns what Serve returned.
func runService(t *testing.T, st store.Store, cfg server.Config) (s *service, stop func() error) {
	t.Helper()
	cfg.Addr = "127.0.0.1:0"
	if cfg.API.Rate == 0 {
		cfg.API.Rate = 10000
	}
	svc, err := server.Listen(st, cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- svc.Serve(ctx) }()
	var result error
	stopped := false
	stop = func() error {
		if !stopped {
			stopped = true
			cancel()
			result = <-served
		}
		return result
	}
	t.Cleanup(func() { _ = stop() })
	return &service{t: t, st: st, url: "http://" + svc.Addr().String()}, stop
}

// TestServiceRuntime: the runtime puts the framing guard on its listener,
// runs a deliverer that the API wakes, and stops cleanly with nothing
// listening afterwards.
func TestServiceRuntime(t *testing.T) {
	// No poll in the test's time: only the API's wake can start the
	// delivery.
	s, stop := runService(t, openSQLite(t), server.Config{Deliveries: outbox.DelivererConfig{Poll: time.Hour, Addresses: outbox.AddressPolicy{AllowPrivate: true}}})
	key := s.key("ops", false)

	// Ambiguous framing is refused on the connection itself.
	body := `{"emails":["smuggle@example.com"]}`
	rs := rawExchange(t, s.url, fmt.Sprintf("POST /suppressions/batch/add HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s", key, len(body), chunked(body)), 1)
	if rs[0].StatusCode != http.StatusBadRequest || !rs[0].Close {
		t.Errorf("ambiguous framing: %d, connection closed %v; want 400 and closed", rs[0].StatusCode, rs[0].Close)
	}
	if s.lookup(key, "smuggle@example.com") != "" {
		t.Error("the refused request changed the list")
	}

	// A change is delivered, signed: the change wakes the deliverer.
	rc := newReceiver(t, nil)
	hook := s.createWebhook(key, rc.url, api.EventSuppressionAdded)
	rc.trust(s.getWebhookSecret(key, hook.ID))
	s.add(key, "jane@example.com")
	waitFor(t, "the delivery", func() bool { return len(rc.deliveries()) == 1 })
	if d := rc.deliveries()[0]; !d.valid[hook.SigningSecret] || d.payload.Data.Email != "jane@example.com" {
		t.Errorf("delivery %+v", d)
	}

	if err := stop(); err != nil {
		t.Fatalf("Serve after its context ended: %v", err)
	}
	if _, err := http.Get(s.url + "/livez"); err == nil {
		t.Error("the service still answers after Serve returned")
	}
}

// TestServiceRetention: the runtime's pruner deletes the trail's entries
// and the settled webhook events older than their retention, and nothing
// younger; an event still waiting for delivery is kept however old, and
// the list itself is untouched.
func TestServiceRetention(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		// old is added keep/2 before young: once old is pruned, young has
		// keep/2 left, the window in which the checks below run.
		const keep = 2 * time.Second
		s, _ := runService(t, open(t), server.Config{
			Deliveries: outbox.DelivererConfig{Poll: 20 * time.Millisecond, RetryMin: time.Hour, Addresses: outbox.AddressPolicy{AllowPrivate: true}},
			Retention:  outbox.PrunerConfig{AuditRetention: keep, EventRetention: keep, Interval: 20 * time.Millisecond},
		})
		key := s.key("ops", false)
		ok := newReceiver(t, nil)
		down := newReceiver(t, func(int) int { return http.StatusServiceUnavailable })
		okHook := s.createWebhook(key, ok.url, api.EventSuppressionAdded)
		downHook := s.createWebhook(key, down.url, api.EventSuppressionAdded)

		s.add(key, "old@example.com")
		time.Sleep(keep / 2)
		s.add(key, "young@example.com")
		waitFor(t, "the deliveries", func() bool { return len(ok.deliveries()) == 2 && len(down.deliveries()) == 2 })
		// One pass of the pruner takes the trail, then the events: wait for
		// both, or the events are looked at between the two.
		waitFor(t, "the old trail entry and event pruned", func() bool {
			return !slices.Contains(s.trail(key), "old@example.com") && len(s.events(key, okHook.ID)) == 1
		})

		if got := s.trail(key); !slices.Equal(got, []string{"young@example.com"}) {
			t.Errorf("trail after pruning: %v, want the young entry only", got)
		}
		if evs := s.events(key, okHook.ID); len(evs) != 1 || evs[0].Status != api.EventSuccess {
			t.Errorf("delivered events after pruning: %+v, want the young one only", evs)
		}
		if evs := s.events(key, downHook.ID); len(evs) != 2 || evs[1].Status != api.EventAttempting {
			t.Errorf("events of the failing webhook: %+v; both wait for a retry and must stay", evs)
		}
		for _, email := range []string{"old@example.com", "young@example.com"} {
			if s.lookup(key, email) == "" {
				t.Errorf("%s left the list; pruning must not touch it", email)
			}
		}
	})
}

// trail lists the addresses of the team's audit entries, newest first.
func (s *service) trail(key string) []string {
	s.t.Helper()
	r := s.get("/audit?limit=100", key)
	if r.status != http.StatusOK {
		s.t.Fatalf("audit: %d %s", r.status, r.body)
	}
	var l api.AuditList
	r.decode(s.t, &l)
	var out []string
	for _, e := range l.Data {
		out = append(out, e.Suppression.Email)
	}
	return out
}

// getWebhookSecret reads a webhook's signing secret.
func (s *service) getWebhookSecret(key, id string) string {
	s.t.Helper()
	var w api.Webhook
	s.get("/webhooks/"+id, key).decode(s.t, &w)
	if !strings.HasPrefix(w.SigningSecret, api.WebhookSecretPrefix) {
		s.t.Fatalf("webhook %s has no secret: %+v", id, w)
	}
	return w.SigningSecret
}

// TestShutdownDrains: once asked to stop, the service answers /readyz
// with 503 for the drain period while it still serves every request (a
// load balancer takes it out of rotation first); then its listener
// closes, and a request in flight since before the stop is answered.
// Before, the listener closed at once and /readyz never said so.
func TestShutdownDrains(t *testing.T) {
	const drain = 1500 * time.Millisecond
	s, stop := runService(t, openSQLite(t), server.Config{DrainPeriod: drain})
	key := s.key("ops", false)
	if r := s.get("/readyz", ""); r.status != http.StatusOK {
		t.Fatalf("/readyz before the stop: %d", r.status)
	}
	// A request in flight: its body comes slowly, a part before the stop
	// and the rest during the drain.
	body := `{"emails":["in-flight@example.com"]}`
	pr, pw := io.Pipe()
	req, _ := http.NewRequest(http.MethodPost, s.url+"/suppressions/batch/add", pr)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	req.ContentLength = int64(len(body))
	answered := make(chan int, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- 0
			return
		}
		resp.Body.Close()
		answered <- resp.StatusCode
	}()
	io.WriteString(pw, body[:10])
	time.Sleep(100 * time.Millisecond)

	stopped := make(chan error, 1)
	start := time.Now()
	go func() { stopped <- stop() }()
	waitFor(t, "/readyz to answer 503", func() bool { return s.get("/readyz", "").status == http.StatusServiceUnavailable })
	r := s.get("/readyz", "")
	if e := r.wantError(t, http.StatusServiceUnavailable, "service_unavailable"); !strings.Contains(e.Message, "shutting down") {
		t.Errorf("/readyz while draining: %q", e.Message)
	}
	if r := s.get("/suppressions?limit=1", key); r.status != http.StatusOK {
		t.Errorf("a request while draining: %d; want it served", r.status)
	}
	io.WriteString(pw, body[10:])
	pw.Close()
	if st := <-answered; st != http.StatusCreated {
		t.Errorf("the request in flight since before the stop: %d; want 201", st)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if took := time.Since(start); took < drain {
		t.Errorf("the service stopped %v after it was asked to; want the drain period, %v, first", took.Round(time.Millisecond), drain)
	}
	if _, err := http.Get(s.url + "/livez"); err == nil {
		t.Error("the listener still answers after the stop")
	}
	if _, err := s.st.GetByEmail(context.Background(), "ops", "in-flight@example.com"); err != nil {
		t.Errorf("the request in flight was not applied: %v", err)
	}
}
