package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

// latencyFloor is the least baseline a ratio is taken against, so that a
// sub-millisecond baseline does not turn scheduling noise into a failure.
const latencyFloor = 5 * time.Millisecond

// victim makes another team's everyday requests one after another (a
// look-up of the first page, a one-address add, a look-up by address) and
// reports their median latency and every status that was not a 2xx.
func victim(s *service, key, tag string, n int) (time.Duration, []int) {
	var took []time.Duration
	var bad []int
	for i := range n {
		start := time.Now()
		var status int
		switch i % 3 {
		case 0:
			status = s.get("/suppressions?limit=1", key).status
		case 1:
			status = s.post("/suppressions/batch/add", key, fmt.Sprintf(`{"emails":["%s-%d@victim.example"]}`, tag, i)).status
		default:
			status = s.get("/suppressions/"+url.PathEscape(fmt.Sprintf("%s-%d@victim.example", tag, i-1)), key).status
		}
		took = append(took, time.Since(start))
		if status/100 != 2 {
			bad = append(bad, status)
		}
	}
	slices.Sort(took)
	return took[len(took)/2], bad
}

// isolated checks the victim's latency during an attack against its
// latency before, and logs both and their ratio.
func isolated(t *testing.T, attack string, before, during time.Duration, bad []int) {
	t.Helper()
	ratio := float64(during) / float64(max(before, latencyFloor))
	t.Logf("%s: another team's median latency %v before, %v during (ratio %.1f against max(before, %v)); refused during: %v",
		attack, before.Round(10*time.Microsecond), during.Round(10*time.Microsecond), ratio, latencyFloor, bad)
	if len(bad) > 0 || ratio > isolationRatio {
		t.Errorf("%s: another team's requests were %.1f× slower (median %v, before %v) with statuses %v; want every one answered, at most %d× slower",
			attack, ratio, during, before, bad, isolationRatio)
	}
}

// fill lists n addresses for the team, through the store.
func fill(t *testing.T, st store.Store, team string, n int) {
	t.Helper()
	for i := 0; i < n; i += 1000 {
		emails := make([]string, min(1000, n-i))
		for j := range emails {
			emails[j] = fmt.Sprintf("entry-%07d@%s.example", i+j, team)
		}
		if _, err := st.Add(context.Background(), team, store.Change{}, store.Manual(emails...)); err != nil {
			t.Fatal(err)
		}
	}
}

// stalledExport asks for an export on a connection whose receive buffer
// is tiny and which it never reads: the service's writes stall as soon as
// the socket's buffers are full. The answer's status, if any, is not read
// either.
func stalledExport(t *testing.T, base, key string) net.Conn {
	t.Helper()
	u, _ := url.Parse(base)
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = smallReceiveBuffer(fd) })
		if err != nil {
			return err
		}
		return serr
	}}
	c, err := d.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "GET /suppressions/export?format=ndjson HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", u.Host, key)
	return c
}

// TestExportsCannotStarveOtherTeams (audit H-A): two teams each open 10
// exports of a large list with a read-only key and never read them. Before,
// the exports held every read connection of the store for as long as the
// sockets stayed open, and every other team's requests (key look-ups
// included) waited for the request timeout and answered 503. Now exports
// stream from slots of their own, fewer than the store's connections, with
// a cap per team: the other team's look-ups and adds stay within
// isolationRatio of their latency without the attack.
func TestExportsCannotStarveOtherTeams(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		const entries = 30_000 // about 6 MB of NDJSON: more than loopback's socket buffers
		fill(t, st, "alpha", entries)
		fill(t, st, "gamma", entries)
		m := server.NewMetrics()
		s := startService(t, st, server.Options{RequestTimeout: 2 * time.Second, Metrics: m})
		alpha, gamma, beta := s.key("alpha", true), s.key("gamma", true), s.key("beta", false)
		quiet(t)
		before, bad := victim(s, beta, "before", 30)
		if len(bad) > 0 {
			t.Fatalf("without an attack the victim got %v", bad)
		}
		for range 10 {
			stalledExport(t, s.url, alpha)
			stalledExport(t, s.url, gamma)
		}
		// The exports reach the store and stream until the sockets'
		// buffers are full; the victim is measured once they stall.
		deadline := time.Now().Add(20 * time.Second)
		for scrape(t, m)["shush_exports_streaming"] < server.DefaultMaxExports {
			if time.Now().After(deadline) {
				t.Fatalf("the exports never started: %v", scrape(t, m))
			}
			time.Sleep(10 * time.Millisecond)
		}
		quiet(t)
		// The stalled exports last; a pause of the process's own (the
		// database's checkpoint after the fill, under the race detector)
		// is not what this measures: the victim is measured again, up to
		// three times, and its best median counts. Without the slots
		// every request of every try waited for the request timeout.
		during, bad := victim(s, beta, "during", 15)
		for try := 1; try < 3 && (len(bad) > 0 || float64(during) > isolationRatio*float64(max(before, latencyFloor))); try++ {
			t.Logf("try %d: median %v, refused %v; measuring again", try, during, bad)
			quiet(t)
			during, bad = victim(s, beta, fmt.Sprintf("during%d", try), 15)
		}
		isolated(t, "20 stalled exports of two teams", before, during, bad)
		if r := s.get("/readyz", ""); r.status != http.StatusOK {
			t.Errorf("/readyz during the stalled exports: %d %s", r.status, r.body)
		}
		got := scrape(t, m)
		if got["shush_exports_streaming"] != server.DefaultMaxExports || got[`shush_exports_refused_total{scope="team"}`] != 16 {
			t.Errorf("exports streaming %v (want %d), refused for the team's cap %v (want 16 of 20)",
				got["shush_exports_streaming"], server.DefaultMaxExports, got[`shush_exports_refused_total{scope="team"}`])
		}
	})
}

// TestStalledExportIsCutOff: an export whose client stops reading is cut
// off after the stall timeout, which frees its slot: the team's cap of
// exports at once answers 429 with Retry-After while two stall, and a
// third export streams whole once they were cut.
func TestStalledExportIsCutOff(t *testing.T) {
	st := openSQLite(t)
	const entries = 30_000
	fill(t, st, "alpha", entries)
	m := server.NewMetrics()
	// The stalled exports' work (what they read and encoded before the
	// sockets' buffers filled: seconds under the race detector) is not
	// what this measures: a budget of an hour of work a second lets the
	// third one start.
	s := startService(t, st, server.Options{Metrics: m, ExportStallTimeout: time.Second, ReadBudget: time.Hour})
	key := s.key("alpha", true)
	stalledExport(t, s.url, key)
	stalledExport(t, s.url, key)
	deadline := time.Now().Add(10 * time.Second)
	for scrape(t, m)["shush_exports_streaming"] < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the exports never started: %v", scrape(t, m))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if r := s.get("/suppressions/export", key); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
		t.Errorf("a third export while two stream: %d, Retry-After %q; want 429 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
	for scrape(t, m)["shush_exports_streaming"] > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the stalled exports were never cut off: %v", scrape(t, m))
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := s.get("/suppressions/export?format=ndjson", key)
	if lines := bytes.Count(r.body, []byte("\n")); r.status != http.StatusOK || lines != entries {
		t.Errorf("an export after the stalled ones were cut: %d with %d lines (%.200s); want 200 with %d", r.status, lines, r.body, entries)
	}
	if got := scrape(t, m)["shush_exports_cut_total"]; got != 2 {
		t.Errorf("shush_exports_cut_total %v; want 2", got)
	}
}

// quiet waits until the process (the service is in it) has used under a
// quarter of a core for half a second: stalled exports cost nothing once
// their sockets are full, but under the race detector filling them (and
// the database's checkpoint after a large fill) takes a while, and that
// CPU is not what the isolation tests measure.
func quiet(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for quietFor := 0; quietFor < 2; {
		cpu := cputime.Process()
		time.Sleep(250 * time.Millisecond)
		if cputime.Process()-cpu < 60*time.Millisecond {
			quietFor++
		} else {
			quietFor = 0
		}
		if time.Now().After(deadline) {
			t.Fatal("the process stayed busy for a minute")
		}
	}
}

// TestBodiesCannotStarveOtherTeams (audit M-B): one team opens 64
// requests announcing 1 MiB bodies and sends almost nothing of them. Before,
// they held the whole body budget and every other team's writes answered
// 503. Now a team holds at most its share of the budget: the other team's
// writes are answered, within isolationRatio of their latency without the
// attack.
func TestBodiesCannotStarveOtherTeams(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		m := server.NewMetrics()
		s := startService(t, open(t), server.Options{Metrics: m, RequestTimeout: 5 * time.Second})
		alpha, beta := s.key("alpha", false), s.key("beta", false)
		before, bad := victim(s, beta, "before", 30)
		if len(bad) > 0 {
			t.Fatalf("without an attack the victim got %v", bad)
		}
		for range 64 {
			heldBody(t, s.url, alpha, server.MaxBody)
		}
		deadline := time.Now().Add(10 * time.Second)
		for scrape(t, m)["shush_request_body_bytes_held"] < 4*server.MaxBody {
			if time.Now().After(deadline) {
				t.Fatalf("the held requests never reserved their bodies: %v", scrape(t, m))
			}
			time.Sleep(10 * time.Millisecond)
		}
		time.Sleep(200 * time.Millisecond) // every head read
		during, bad := victim(s, beta, "during", 15)
		isolated(t, "64 held 1 MiB bodies of one team", before, during, bad)
		if got := scrape(t, m)[`shush_team_share_refused_total{limit="body"}`]; got != 48 {
			t.Errorf("requests refused for the team's share of the body budget: %v; want 48 of 64 (a quarter of 64 MiB is 16 bodies)", got)
		}
	})
}

// TestWebhookFanOutIsBounded (audit H-B): a team may have at most
// DefaultMaxWebhooksPerTeam webhooks (the next is a 422 naming the limit,
// also when 30 are created at once), so one batch of 100 writes at most
// 2,000 outbox rows; while that team adds batches of 100 with every one of
// its webhooks enabled, another team's requests stay within
// isolationRatio of their latency without it. Before, 1,000 webhooks were
// created in 0.9 s and another team's one-address add went from 2.4 ms to
// 1,560 ms (the audit's figures).
func TestWebhookFanOutIsBounded(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		m := server.NewMetrics()
		s := startService(t, open(t), server.Options{Metrics: m})
		alpha, beta := s.key("alpha", false), s.key("beta", false)
		created := make(chan int, 30)
		for i := range 30 {
			go func() {
				created <- s.post("/webhooks", alpha, fmt.Sprintf(`{"endpoint":"http://192.0.2.1:9/hook-%d","events":["suppression.added"]}`, i)).status
			}()
		}
		counts := map[int]int{}
		for range 30 {
			counts[<-created]++
		}
		if counts[http.StatusCreated] != server.DefaultMaxWebhooksPerTeam || counts[http.StatusUnprocessableEntity] != 30-server.DefaultMaxWebhooksPerTeam {
			t.Fatalf("30 webhooks created at once: %v; want %d created and the rest 422", counts, server.DefaultMaxWebhooksPerTeam)
		}
		r := s.post("/webhooks", alpha, `{"endpoint":"http://192.0.2.1:9/one-more","events":["suppression.added"]}`)
		if e := r.wantError(t, http.StatusUnprocessableEntity, "validation_error"); !strings.Contains(e.Message, fmt.Sprint(server.DefaultMaxWebhooksPerTeam)) {
			t.Errorf("one webhook more: %q; want the message to name the limit", e.Message)
		}
		if r := s.post("/webhooks", beta, `{"endpoint":"http://192.0.2.1:9/beta","events":["suppression.added"]}`); r.status != http.StatusCreated {
			t.Errorf("another team's first webhook: %d %s", r.status, r.body)
		}

		before, bad := victim(s, beta, "before", 30)
		if len(bad) > 0 {
			t.Fatalf("without an attack the victim got %v", bad)
		}
		stop := make(chan struct{})
		done := make(chan struct{})
		go func() {
			defer close(done)
			for b := 0; ; b++ {
				select {
				case <-stop:
					return
				default:
				}
				emails := make([]string, 100)
				for i := range emails {
					emails[i] = fmt.Sprintf(`"fan-%d-%d@alpha.example"`, b, i)
				}
				s.post("/suppressions/batch/add", alpha, `{"emails":[`+strings.Join(emails, ",")+`]}`)
			}
		}()
		time.Sleep(200 * time.Millisecond)
		during, bad := victim(s, beta, "during", 30)
		close(stop)
		<-done
		isolated(t, "batches of 100 to 20 webhooks", before, during, bad)
		if got := scrape(t, m)[`shush_team_share_refused_total{limit="webhooks"}`]; got != 11 {
			t.Errorf("webhooks refused for the team's limit: %v; want 11", got)
		}
	})
}

// hangingEndpoint answers nothing until the attempt gives up; it counts
// the requests it got and the most under way at once.
type hangingEndpoint struct {
	url            string
	now, most, got atomic.Int64
}

func newHangingEndpoint(t *testing.T, answerAfter time.Duration) *hangingEndpoint {
	h := &hangingEndpoint{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // the request's context ends with its connection only once its body is read
		h.got.Add(1)
		n := h.now.Add(1)
		defer h.now.Add(-1)
		for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
		}
		select {
		case <-r.Context().Done():
		case <-time.After(answerAfter):
			w.WriteHeader(http.StatusNoContent)
		}
	}))
	t.Cleanup(ts.Close)
	h.url = ts.URL + "/hook"
	return h
}

// deliveryLatency is the time from a one-address add to its delivery at
// the receiver.
func deliveryLatency(t *testing.T, s *service, key string, rc *receiver, email string) time.Duration {
	t.Helper()
	n := len(rc.deliveries())
	start := time.Now()
	s.add(key, email)
	deadline := start.Add(60 * time.Second)
	for len(rc.deliveries()) == n {
		if time.Now().After(deadline) {
			return time.Since(start)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return time.Since(start)
}

// TestDeliveriesShareFairly (audit M-A): one team's 20 webhooks to an
// endpoint that hangs, and a batch of 100 (2,000 events), hold at most
// that team's share of the deliverer's attempts (half of them, at most 2
// per webhook): another team's delivery to a healthy endpoint arrives
// within isolationRatio of its latency without the backlog. Before, the
// outbox was one queue by due time and the other team's delivery was
// still pending after 90 s.
func TestDeliveriesShareFairly(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		hang := newHangingEndpoint(t, time.Hour)
		s := startDeliveringOn(t, open(t), outbox.DelivererConfig{Addresses: loopbackOK, Timeout: 2 * time.Second, RetryMin: time.Second})
		alpha, beta := s.key("alpha", false), s.key("beta", false)
		rc := newReceiver(t, nil)
		s.createWebhook(beta, rc.url, "suppression.added")
		var base []time.Duration
		for i := range 5 {
			base = append(base, deliveryLatency(t, s, beta, rc, fmt.Sprintf("base-%d@beta.example", i)))
		}
		slices.Sort(base)
		before := base[len(base)/2]

		for range server.DefaultMaxWebhooksPerTeam {
			s.createWebhook(alpha, hang.url, "suppression.added")
		}
		emails := make([]string, 100)
		for i := range emails {
			emails[i] = fmt.Sprintf("backlog-%d@alpha.example", i)
		}
		s.add(alpha, emails...)
		waitFor(t, "the hanging endpoint's first attempts", func() bool { return hang.now.Load() >= 4 })
		var during []time.Duration
		for i := range 5 {
			during = append(during, deliveryLatency(t, s, beta, rc, fmt.Sprintf("during-%d@beta.example", i)))
		}
		slices.Sort(during)
		isolated(t, "2,000 events to an endpoint that hangs", before, during[len(during)/2], nil)
		if m := hang.most.Load(); m > 4 {
			t.Errorf("the hanging endpoint had %d attempts at once; want at most the team's share, 4 of 8", m)
		}
	})
}

// TestReplaysCoalesce (audit L-B): 100 replays of one event while its
// attempt is under way make no attempt beside it: the endpoint never has
// two requests with one svix-id at once. Before, they made 16 at once.
func TestReplaysCoalesce(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		slow := newHangingEndpoint(t, 500*time.Millisecond)
		s := startDeliveringOn(t, open(t), outbox.DelivererConfig{Addresses: loopbackOK, Timeout: 5 * time.Second, RetryMin: time.Hour})
		key := s.key("replays", false)
		hook := s.createWebhook(key, slow.url, "suppression.added")
		s.add(key, "once@example.com")
		waitFor(t, "the first attempt", func() bool { return slow.now.Load() == 1 })
		ev := s.events(key, hook.ID)
		// 100 replays, 20 at a time (a team may have 64 requests under way).
		done := make(chan int, 100)
		for range 20 {
			go func() {
				for range 5 {
					done <- s.post("/webhooks/"+hook.ID+"/events/"+ev[0].ID+"/replay", key, "").status
				}
			}()
		}
		for range 100 {
			if st := <-done; st != http.StatusOK {
				t.Errorf("replay: %d", st)
			}
		}
		time.Sleep(1500 * time.Millisecond) // the attempt under way, and any replay's, end
		if m := slow.most.Load(); m != 1 {
			t.Errorf("%d attempts of the one event at once; want 1", m)
		}
		t.Logf("100 replays during an attempt: %d requests in all, at most %d at once", slow.got.Load(), slow.most.Load())
	})
}
