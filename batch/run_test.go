package batch_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// service is the real service over real HTTP with a real SQLite file, behind
// a gate that counts requests and can inject faults.
type service struct {
	URL  string
	Key  string
	gate *gate
}

// gate sits in front of the service. fault, when set, may answer a request
// itself (it returns true then).
type gate struct {
	next    http.Handler // the service, set by wrap
	mu      sync.Mutex
	fault   func(w http.ResponseWriter, r *http.Request, body []byte) bool
	batches atomic.Int32 // batch requests that reached the service
	lists   atomic.Int32 // GET /suppressions
	gets    atomic.Int32 // GET /suppressions/{id-or-email}
	limited atomic.Int32 // 429 answers of the service itself
	bodies  []string     // batch request bodies that reached the service
}

// countingWriter calls onStatus once, as the status is written.
type countingWriter struct {
	http.ResponseWriter
	onStatus func(int)
	done     bool
}

func (w *countingWriter) WriteHeader(code int) {
	if !w.done && code >= http.StatusOK {
		w.done = true
		w.onStatus(code)
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap gives http.ResponseController the writer beneath: the export
// streams through it (flushes, write deadlines).
func (w *countingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *countingWriter) Write(b []byte) (int, error) {
	if !w.done {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (g *gate) setFault(f func(w http.ResponseWriter, r *http.Request, body []byte) bool) {
	g.mu.Lock()
	g.fault = f
	g.mu.Unlock()
}

func (g *gate) wrap(next http.Handler) http.Handler {
	g.next = next
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		g.mu.Lock()
		f := g.fault
		g.mu.Unlock()
		if f != nil && f(w, r, body) {
			return
		}
		if r.Method == http.MethodGet && r.URL.Path == "/suppressions" {
			g.lists.Add(1)
		} else if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/suppressions/") {
			g.gets.Add(1)
		}
		// Count when the answer's status is written, before the client
		// can see it: a test that reads the counts after a call returns
		// finds them complete.
		next.ServeHTTP(&countingWriter{ResponseWriter: w, onStatus: func(status int) {
			if status == http.StatusTooManyRequests {
				g.limited.Add(1)
			} else if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
				g.batches.Add(1)
				g.mu.Lock()
				g.bodies = append(g.bodies, string(body))
				g.mu.Unlock()
			}
		}}, r)
	})
}

func startService(tb testing.TB, rate float64) *service {
	tb.Helper()
	g := &gate{}
	svc := servicetest.Start(tb, server.Options{Rate: rate}, g.wrap)
	return &service{URL: svc.URL, Key: svc.Key, gate: g}
}

func (s *service) client(opts ...client.Option) *client.Client {
	return client.New(s.URL, s.Key, append([]client.Option{client.WithRetry(4, time.Millisecond, 5*time.Millisecond)}, opts...)...)
}

func addresses(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%04d@example.com", prefix, i)
	}
	return out
}

func planOf(mode batch.Mode, values []string) batch.Plan {
	items := make([]batch.Item, len(values))
	for i, v := range values {
		items[i] = batch.NewItem(mode, i+1, v)
	}
	return batch.NewPlan(mode, items)
}

// sendPlan starts plan as a run on rs (recorded when rs.Dir is set) and
// returns its report: its segments' reports merged.
func sendPlan(ctx context.Context, rs *batch.Runs, plan batch.Plan, event func(batch.Event)) (batch.Report, batch.RunInfo, error) {
	var rep batch.Report
	ri, err := rs.Start(ctx, plan.Input(), batch.RunMeta{}, batch.Observer{Event: event, Segment: func(seg batch.Report) { rep = merged(rep, seg) }})
	return rep, ri, err
}

// resumeRun resumes the recorded run id on rs and returns its report.
func resumeRun(ctx context.Context, rs *batch.Runs, id string) (batch.Report, batch.RunInfo, error) {
	var rep batch.Report
	ri, err := rs.Resume(ctx, id, batch.Observer{Segment: func(seg batch.Report) { rep = merged(rep, seg) }})
	return rep, ri, err
}

func merged(rep, seg batch.Report) batch.Report {
	if rep.Target == "" {
		rep.Target, rep.Invalid, rep.LeftOut, rep.Duplicates, rep.Restore = seg.Target, seg.Invalid, seg.LeftOut, seg.Duplicates, seg.Restore
	}
	rep.Results = append(rep.Results, seg.Results...)
	rep.Batches += seg.Batches
	rep.Failed = append(rep.Failed, seg.Failed...)
	rep.Unsent = append(rep.Unsent, seg.Unsent...)
	return rep
}

// journalOf is the path of the first segment's journal of run id.
func journalOf(dir, id string) string { return filepath.Join(dir, id+".s0001.jsonl") }

// listed returns the service's whole list, address → ID.
func listed(t *testing.T, c *client.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	p := client.ListParams{Limit: 100}
	for {
		page, err := c.List(context.Background(), p)
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		for _, e := range page.Data {
			out[e.Email] = e.ID
		}
		if !page.HasMore {
			return out
		}
		p.After = page.Data[len(page.Data)-1].ID
	}
}

func TestRunAddMapsIDsAndTellsAlreadyListed(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	values := addresses("add", 250)
	before, err := c.BatchAdd(ctx, []string{values[7], values[180]})
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // the IDs' milliseconds must precede the run's

	var events []batch.Event
	dir := t.TempDir()
	rs := &batch.Runs{Client: c, Dir: dir}
	rep, ri, err := sendPlan(ctx, rs, planOf(batch.Add, values), func(e batch.Event) { events = append(events, e) })
	if err != nil || !rep.Complete() {
		t.Fatalf("Run: %v, failed %v unsent %v", err, rep.Failed, rep.Unsent)
	}
	list := listed(t, c)
	if len(list) != 250 || len(rep.Results) != 250 || rep.Batches != 3 {
		t.Fatalf("%d listed, %d results, %d batches; want 250, 250, 3", len(list), len(rep.Results), rep.Batches)
	}
	for i, res := range rep.Results {
		want := batch.Added
		if i == 7 || i == 180 {
			want = batch.AlreadyListed
		}
		if res.Input != values[i] || res.ID != list[values[i]] || res.Outcome != want || res.Batch != i/100+1 {
			t.Fatalf("result %d = %+v; want %s with ID %s, outcome %s", i, res, values[i], list[values[i]], want)
		}
	}
	if rep.Results[7].ID != before[0].ID {
		t.Fatalf("already listed entry got ID %s, want its existing %s", rep.Results[7].ID, before[0].ID)
	}
	var started, done int
	last := events[len(events)-1]
	for _, e := range events {
		switch e.Kind {
		case batch.BatchStarted:
			started++
		case batch.BatchDone:
			done++
		}
	}
	if started != 3 || done != 3 || last.Done != 250 || last.Total != 250 || last.Batches != 3 {
		t.Fatalf("events: %d started, %d done, last %+v", started, done, last)
	}
	if got, ok, err := rs.Interrupted(); err != nil || ok {
		t.Fatalf("Interrupted after a complete run = %+v, %v; want none", got, err)
	}
	info, err := os.Stat(journalOf(dir, ri.ID))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("journal of %s: %v %v; want mode 0600", ri.ID, info, err)
	}
}

func TestRunRemoveByID(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	added, err := c.BatchAdd(ctx, addresses("rid", 3))
	if err != nil {
		t.Fatal(err)
	}
	unknown := "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b"
	ids := []string{added[0].ID, unknown, added[2].ID}
	rep, _, err := sendPlan(ctx, &batch.Runs{Client: c}, planOf(batch.RemoveIDs, ids), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []batch.Outcome{batch.Removed, batch.NotListed, batch.Removed}
	for i, res := range rep.Results {
		if res.Outcome != want[i] || res.Input != ids[i] {
			t.Fatalf("result %d = %+v; want %s", i, res, want[i])
		}
	}
	if l := listed(t, c); len(l) != 1 || l["rid0001@example.com"] != added[1].ID {
		t.Fatalf("list after removal: %v", l)
	}
}

// A removal by address is exact on our service with look-ups, and without
// them (a service that offers only the batch endpoints: it names each
// removed address).
func TestRunRemoveByAddress(t *testing.T) {
	for _, noLookup := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoLookup=%v", noLookup), func(t *testing.T) {
			svc := startService(t, 10000)
			c := svc.client()
			ctx := context.Background()
			// Batch 1: all listed; batch 2: none listed; batch 3: mixed.
			all := addresses("on", 100)
			none := addresses("off", 100)
			mixed := append(addresses("mixon", 3), addresses("mixoff", 2)...)
			for _, b := range [][]string{all, mixed[:3]} {
				if _, err := c.BatchAdd(ctx, b); err != nil {
					t.Fatal(err)
				}
			}
			ids := listed(t, c)
			lists := svc.gate.lists.Load()
			if noLookup {
				svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
					if r.Method != http.MethodGet {
						return false
					}
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusMethodNotAllowed)
					io.WriteString(w, `{"statusCode":405,"name":"method_not_allowed","message":"Method not allowed."}`)
					return true
				})
			}
			values := append(append(append([]string{}, all...), none...), mixed...)
			rep, _, err := sendPlan(ctx, &batch.Runs{Client: c}, planOf(batch.RemoveEmails, values), nil)
			svc.gate.setFault(nil)
			if err != nil || !rep.Complete() {
				t.Fatalf("Run: %v %+v", err, rep.Failed)
			}
			for i, res := range rep.Results {
				var want batch.Outcome
				switch {
				case i < 100:
					want = batch.Removed
				case i < 200:
					want = batch.NotListed
				case i < 203:
					// Our service names each removed address, so a removal
					// by address is exact with or without look-ups.
					want = batch.Removed
				default:
					want = batch.NotListed
				}
				if res.Outcome != want || res.Input != values[i] {
					t.Fatalf("result %d (%s) = %+v; want %s", i, values[i], res, want)
				}
				if want == batch.Removed && res.ID != ids[values[i]] {
					t.Fatalf("result %d has ID %s; the entry's ID was %s", i, res.ID, ids[values[i]])
				}
			}
			// 205 addresses against a list of 103: reading the list (the
			// availability check and 2 pages) settles all, with no lookups.
			wantLists := int32(3)
			if noLookup {
				wantLists = 0
			}
			if n, g := svc.gate.lists.Load()-lists, svc.gate.gets.Load(); n != wantLists || g != 0 {
				t.Fatalf("%d list requests and %d lookups; want %d and 0", n, g, wantLists)
			}
			if l := listed(t, c); len(l) != 0 {
				t.Fatalf("%d entries left on the list", len(l))
			}
		})
	}
}

func TestRemoveFewAddressesLooksEachUp(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	if _, err := c.BatchAdd(ctx, []string{"few1@example.com", "few3@example.com"}); err != nil {
		t.Fatal(err)
	}
	values := []string{"few1@example.com", "few2@example.com", "few3@example.com"}
	rep, _, err := sendPlan(ctx, &batch.Runs{Client: c}, planOf(batch.RemoveEmails, values), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []batch.Outcome{batch.Removed, batch.NotListed, batch.Removed}
	for i, res := range rep.Results {
		if res.Outcome != want[i] {
			t.Fatalf("result %d = %+v; want %s", i, res, want[i])
		}
	}
	if g := svc.gate.gets.Load(); g != 3 {
		t.Fatalf("%d lookups; want one per address (3)", g)
	}
}

func TestRemoveManyAddressesStopsReadingTheListWhenAllAreFound(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	for i := range 8 {
		if _, err := c.BatchAdd(ctx, addresses(fmt.Sprintf("old%d-", i), 100)); err != nil {
			t.Fatal(err)
		}
	}
	values := addresses("new", 250)
	for _, b := range planOf(batch.Add, values).Batches() {
		if _, err := c.BatchAdd(ctx, b); err != nil {
			t.Fatal(err)
		}
	}
	lists := svc.gate.lists.Load()
	var pages int
	rep, _, err := sendPlan(ctx, &batch.Runs{Client: c}, planOf(batch.RemoveEmails, values), func(e batch.Event) {
		if e.Kind == batch.Listing {
			pages = e.Pages
		}
	})
	if err != nil || rep.Count()[batch.Removed] != 250 {
		t.Fatalf("Run: %v, counts %v", err, rep.Count())
	}
	// The newest 250 entries are on the first 3 pages of 100.
	if n := svc.gate.lists.Load() - lists; n != 4 || pages != 3 || svc.gate.gets.Load() != 0 {
		t.Fatalf("%d list requests (%d pages reported), %d lookups; want 1+3 and none", n, pages, svc.gate.gets.Load())
	}
	if l := listed(t, c); len(l) != 800 {
		t.Fatalf("%d entries left; want the 800 others", len(l))
	}
}

func TestLookup(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	added, err := c.BatchAdd(ctx, []string{"here@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	found, err := batch.Lookup(ctx, c, []string{"gone@example.com", "here@example.com"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if found[0].Listed || found[0].Err != nil || !found[1].Listed || found[1].Entry.ID != added[0].ID ||
		found[1].Entry.Origin != api.OriginManual || found[1].Entry.CreatedAt.IsZero() {
		t.Fatalf("Lookup = %+v", found)
	}
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusMethodNotAllowed)
			io.WriteString(w, `{"statusCode":405,"name":"method_not_allowed","message":"Method not allowed."}`)
			return true
		}
		return false
	})
	if _, err := batch.Lookup(ctx, c, []string{"here@example.com"}, 1); !errors.Is(err, batch.ErrNoLookup) {
		t.Fatalf("Lookup on a batch-only service: %v; want ErrNoLookup", err)
	}
}

// TestRetriesAndFailedBatches injects a 429 with retry-after, 503s, and a
// refused batch: the run retries what is transient, reports the refused
// batch as failed without stopping the others, and a resume finishes it.
func TestRetriesAndFailedBatches(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	values := addresses("retry", 500)
	var calls atomic.Int32
	refuse := atomic.Bool{}
	refuse.Store(true)
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if r.URL.Path != "/suppressions/batch/add" {
			return false
		}
		n := calls.Add(1)
		w.Header().Set("Content-Type", "application/json")
		switch {
		case n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"statusCode":429,"name":"rate_limit_exceeded","message":"slow down"}`)
			return true
		case n == 3 || n == 4:
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, `{"statusCode":503,"name":"service_unavailable","message":"try later"}`)
			return true
		case refuse.Load() && bytes.Contains(body, []byte("retry0250@")):
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"statusCode":409,"name":"conflict","message":"emails[50] is refused by policy for now"}`)
			return true
		}
		return false
	})
	var waits []batch.Event
	rs := &batch.Runs{Client: c, Concurrency: 2, Dir: t.TempDir()}
	rep, ri, err := sendPlan(ctx, rs, planOf(batch.Add, values), func(e batch.Event) {
		if e.Kind == batch.Waiting {
			waits = append(waits, e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 1 || rep.Failed[0] != 3 || len(rep.Unsent) != 0 {
		t.Fatalf("failed %v unsent %v; want batch 3 failed only", rep.Failed, rep.Unsent)
	}
	counts := rep.Count()
	if counts[batch.Added] != 400 || counts[batch.Failed] != 100 {
		t.Fatalf("counts %v; want 400 added, 100 failed", counts)
	}
	if msg := rep.Results[250].Message; !strings.Contains(msg, "refused by policy") || strings.Contains(msg, svc.Key) {
		t.Fatalf("failed entry message %q; want the service's message and no key", msg)
	}
	var sawRetryAfter, sawBackoff bool
	for _, w := range waits {
		sawRetryAfter = sawRetryAfter || w.Reason == client.WaitRetryAfter && w.Wait >= time.Second
		sawBackoff = sawBackoff || w.Reason == client.WaitBackoff
	}
	if !sawRetryAfter || !sawBackoff {
		t.Fatalf("waiting events %+v; want a retry-after wait and a backoff", waits)
	}
	if got, ok, _ := rs.Interrupted(); !ok || got.ID != ri.ID || got.State != batch.Stopped {
		t.Fatalf("Interrupted = %+v, %v; want the unfinished run %s", got, ok, ri.ID)
	}

	refuse.Store(false)
	sent := svc.gate.batches.Load()
	rep, _, err = resumeRun(ctx, rs, ri.ID)
	if err != nil || !rep.Complete() {
		t.Fatalf("Resume: %v, failed %v", err, rep.Failed)
	}
	if n := svc.gate.batches.Load() - sent; n != 1 {
		t.Fatalf("Resume sent %d batches; want only the failed one", n)
	}
	if l := listed(t, c); len(l) != 500 || rep.Count()[batch.Added] != 500 {
		t.Fatalf("%d listed, counts %v; want 500 added", len(l), rep.Count())
	}
	journal, _ := os.ReadFile(journalOf(rs.Dir, ri.ID))
	if bytes.Contains(journal, []byte(svc.Key)) {
		t.Fatal("the journal holds the API key")
	}
}

// TestCancelAndResume stops a run after two batches (Ctrl-C), resumes it
// from the journal, and checks that the list is exactly the intended one
// and that no batch that had succeeded was sent again.
func TestCancelAndResume(t *testing.T) {
	for _, conc := range []int{1, 3} {
		t.Run(fmt.Sprintf("Concurrency=%d", conc), func(t *testing.T) { cancelAndResume(t, conc) })
	}
}

func cancelAndResume(t *testing.T, concurrency int) {
	svc := startService(t, 10000)
	c := svc.client()
	values := addresses("cancel", 730)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var started, startedAfter, finished int
	cancelled := false
	rs := &batch.Runs{Client: c, Concurrency: concurrency, Dir: dir}
	rep, ri, err := sendPlan(ctx, rs, planOf(batch.Add, values), func(e batch.Event) {
		switch {
		case e.Kind == batch.BatchStarted && cancelled:
			startedAfter++
		case e.Kind == batch.BatchStarted:
			started++
		case e.Kind == batch.BatchDone:
			// Batches finish in any order when several are in flight:
			// cancel after the second to finish, whichever it is.
			if finished++; finished == 2 {
				cancel()
				cancelled = true
			}
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Run after cancel: %v; want context.Canceled", err)
	}
	// The requests on the wire at the cancel finish and are recorded; a
	// batch still waiting (for the pacer) stays unsent; no other starts.
	sent := int(svc.gate.batches.Load())
	if startedAfter != 0 || sent > started || sent < 1 || sent == 8 || len(rep.Unsent) != 8-sent || rep.Count()[batch.Added] != 100*sent {
		t.Fatalf("after cancel: %d started (%d after the cancel), %d sent, unsent %v, counts %v",
			started, startedAfter, sent, rep.Unsent, rep.Count())
	}
	if concurrency == 1 && sent != 2 {
		t.Fatalf("one at a time: %d batches sent; want 2", sent)
	}
	got, ok, err := rs.Interrupted()
	if err != nil || !ok || got.ID != ri.ID || got.Sent() != 100*sent {
		t.Fatalf("Interrupted = %+v, %v, %v; want %s with %d sent", got, ok, err, ri.ID, 100*sent)
	}

	rep, _, err = resumeRun(context.Background(), rs, ri.ID)
	if err != nil || !rep.Complete() {
		t.Fatalf("Resume: %v %+v", err, rep.Failed)
	}
	if n := svc.gate.batches.Load(); n != 8 {
		t.Fatalf("%d batch requests in all; want 8 (nothing sent twice)", n)
	}
	checkExactly(t, c, values, rep)
	if got, ok, _ := rs.Interrupted(); ok {
		t.Fatalf("Interrupted after the resumed run finished = %+v", got)
	}
}

// TestAddResolvesWhenCountsDiffer: when the service's answer leaves an
// address out, the run never pairs by position: the named items are exact,
// and the left-out address is looked up and shown as unverified (it is
// listed, but the answer did not say this batch made it).
func TestAddResolvesWhenCountsDiffer(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	values := addresses("differ", 5)
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if r.URL.Path != "/suppressions/batch/add" {
			return false
		}
		rec := httptest.NewRecorder()
		svc.gate.next.ServeHTTP(rec, r)
		var resp api.BatchResponse
		if err := json.Unmarshal(rec.Body.Bytes(), &resp); err != nil || len(resp.Data) == 0 {
			t.Errorf("batch add answered %d %s", rec.Code, rec.Body)
			return false
		}
		resp.Data = resp.Data[1:] // the first address's ID goes missing
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rec.Code)
		json.NewEncoder(w).Encode(resp)
		return true
	})
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c}, planOf(batch.Add, values), nil)
	if err != nil {
		t.Fatal(err)
	}
	if svc.gate.gets.Load() != 1 {
		t.Fatalf("%d lookups; want one, for the address the answer left out", svc.gate.gets.Load())
	}
	list := listed(t, c)
	for i, res := range rep.Results {
		want := batch.Added
		if i == 0 {
			want = batch.Unverified
		}
		if res.ID != list[values[i]] || res.Outcome != want || res.Input != values[i] {
			t.Fatalf("result %d = %+v; want ID %s %s", i, res, list[values[i]], want)
		}
	}
	if !strings.Contains(rep.Results[0].Message, "left this one out; it is listed") {
		t.Errorf("the unverified entry does not say why: %q", rep.Results[0].Message)
	}
}

// TestResumeAfterCrash simulates a crash in the middle of writing a journal
// record (the last line cut short) and a network failure that ends a run.
func TestResumeAfterCrash(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	values := addresses("crash", 420)
	dir := t.TempDir()
	down := atomic.Bool{}
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, _ []byte) bool {
		if !down.Load() {
			return false
		}
		// The connection drops without an answer.
		hj, _ := w.(http.Hijacker)
		conn, _, err := hj.Hijack()
		if err == nil {
			conn.Close()
		}
		return true
	})
	rs := &batch.Runs{Client: c, Dir: dir}
	rep, ri, err := sendPlan(context.Background(), rs, planOf(batch.Add, values), func(e batch.Event) {
		if e.Kind == batch.BatchDone && e.Batch == 3 {
			down.Store(true)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Failed) != 2 || !strings.Contains(rep.Results[399].Message, "cannot reach the service at "+svc.URL) {
		t.Fatalf("failed %v, message %q; want batches 4 and 5 failed with a network error", rep.Failed, rep.Results[399].Message)
	}
	if strings.Contains(rep.Results[399].Message, svc.Key) {
		t.Fatal("the API key appears in a result message")
	}

	// Cut the last record (batch 5's failure) and half of the one before
	// (batch 4's), as a crash during the write would.
	path := journalOf(dir, ri.ID)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines = lines[:len(lines)-1] // the empty tail after the last newline
	cut := append(bytes.Join(lines[:len(lines)-2], nil), lines[len(lines)-2][:len(lines[len(lines)-2])/2]...)
	if err := os.WriteFile(path, cut, 0o600); err != nil {
		t.Fatal(err)
	}
	down.Store(false)
	sent := svc.gate.batches.Load()
	rep, _, err = resumeRun(context.Background(), rs, ri.ID)
	if err != nil || !rep.Complete() {
		t.Fatalf("Resume: %v %v", err, rep.Failed)
	}
	if n := svc.gate.batches.Load() - sent; n != 2 {
		t.Fatalf("Resume sent %d batches; want 2 (the failed ones)", n)
	}
	checkExactly(t, c, values, rep)

	// The repaired journal reads cleanly and says the run finished.
	got, err := rs.Read(ri.ID, nil)
	if err != nil || got.State != batch.Finished || got.Sent() != 420 {
		t.Fatalf("the run read back: %+v, %v", got, err)
	}
}

func TestResumeRefusesAnotherTarget(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, ri, _ := sendPlan(ctx, &batch.Runs{Client: c, Dir: dir}, planOf(batch.Add, addresses("x", 3)), nil)
	other := client.New("http://127.0.0.1:1", "k")
	if _, err := (&batch.Runs{Client: other, Dir: dir}).Resume(context.Background(), ri.ID, batch.Observer{}); err == nil ||
		!strings.Contains(err.Error(), svc.URL) {
		t.Fatalf("Resume against another service: %v; want an error naming the journal's target", err)
	}
}

func checkExactly(t *testing.T, c *client.Client, values []string, rep batch.Report) {
	t.Helper()
	list := listed(t, c)
	var got []string
	for k := range list {
		got = append(got, k)
	}
	sort.Strings(got)
	want := append([]string{}, values...)
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("the list has %d entries; want exactly the %d intended", len(got), len(want))
	}
	for i, res := range rep.Results {
		if res.Input != values[i] || res.ID != list[values[i]] || !res.Settled() {
			t.Fatalf("result %d = %+v; want %s with ID %s", i, res, values[i], list[values[i]])
		}
	}
}

// TestPacedRunMeetsFew429 runs 20 batches against a service limited to 5
// requests/s, with 3 batches in flight: pacing keeps 429s to at most one.
func TestPacedRunMeetsFew429(t *testing.T) {
	if testing.Short() {
		t.Skip("takes about 3 s")
	}
	svc := startService(t, 5)
	c := client.New(svc.URL, svc.Key)
	var paced atomic.Int32
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c, Concurrency: 3}, planOf(batch.Add, addresses("paced", 2000)), func(e batch.Event) {
		if e.Kind == batch.Waiting && e.Reason == client.WaitPacing {
			paced.Add(1)
		}
	})
	if err != nil || !rep.Complete() {
		t.Fatalf("Run: %v %v", err, rep.Failed)
	}
	if n := svc.gate.limited.Load(); n > 1 || paced.Load() == 0 {
		t.Fatalf("%d answers were 429, %d pacing waits; want at most one 429 and some waits", n, paced.Load())
	}
}

func TestResumeRefusesADamagedJournal(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	rs := &batch.Runs{Client: c, Dir: dir}
	_, ri, _ := sendPlan(ctx, rs, planOf(batch.Add, addresses("dmg", 300)), func(e batch.Event) {
		if e.Kind == batch.BatchDone && e.Batch == 2 {
			cancel()
		}
	})
	path := journalOf(dir, ri.ID)
	data, _ := os.ReadFile(path)
	lines := bytes.SplitAfter(data, []byte("\n"))
	lines[1] = []byte("{\"kind\":\"batch\",\"batch\":1,\"ok\":tr\n") // damage in the middle
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	sent := svc.gate.batches.Load()
	_, _, err := resumeRun(context.Background(), rs, ri.ID)
	if err == nil || !strings.Contains(err.Error(), "line 2 is damaged") {
		t.Fatalf("Resume of a damaged journal: %v; want an error naming line 2", err)
	}
	if svc.gate.batches.Load() != sent {
		t.Fatal("Resume sent batches from a damaged journal")
	}
}

func TestRunEmptyAndSingle(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	rs := &batch.Runs{Client: c, Dir: dir}
	rep, ri, err := sendPlan(context.Background(), rs, planOf(batch.Add, nil), nil)
	if err == nil || ri.ID != "" || rep.Batches != 0 || len(rep.Results) != 0 || svc.gate.batches.Load() != 0 {
		t.Fatalf("empty plan: %+v, %+v, %v; want it refused, nothing sent", rep, ri, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 0 {
		t.Fatalf("an empty run left %v", files)
	}
	rep, _, err = sendPlan(context.Background(), rs, planOf(batch.Add, []string{" One@Example.com "}), nil)
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Input != "one@example.com" || rep.Results[0].Outcome != batch.Added {
		t.Fatalf("one entry: %+v, %v", rep.Results, err)
	}
}
