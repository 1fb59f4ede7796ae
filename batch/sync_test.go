package batch_test

import (
	"context"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

func snapshotOf(ours bool, emails ...string) batch.Snapshot {
	s := batch.Snapshot{Entries: map[string]api.Entry{}, Ours: ours, At: time.Now()}
	for _, e := range emails {
		s.Entries[e] = api.Entry{ID: "id-" + e, Email: e, Origin: api.OriginManual}
	}
	return s
}

func itemEmails(l []batch.SyncItem) []string {
	var out []string
	for _, x := range l {
		out = append(out, x.Email)
	}
	return out
}

// Without a record, an address on one side only is new; with one, an
// address the record holds and one side lacks was removed there. Each
// direction does what it says: a removal only with Both.
func TestSyncPlan(t *testing.T) {
	here := snapshotOf(true, "both@x.com", "new.here@x.com", "gone.there@x.com")
	there := snapshotOf(false, "both@x.com", "new.there@x.com", "gone.here@x.com")
	first := batch.CompareLists(here, there, nil)
	if !first.First || !slices.Equal(itemEmails(first.NewHere), []string{"gone.there@x.com", "new.here@x.com"}) ||
		len(first.GoneHere)+len(first.GoneThere) != 0 || first.Same != 1 {
		t.Fatalf("first: %+v", first)
	}
	rec := &batch.SyncRecord{At: time.Now(), Base: []string{"both@x.com", "gone.here@x.com", "gone.there@x.com"}}
	p := batch.CompareLists(here, there, rec)
	if !slices.Equal(itemEmails(p.NewHere), []string{"new.here@x.com"}) || !slices.Equal(itemEmails(p.NewThere), []string{"new.there@x.com"}) ||
		!slices.Equal(itemEmails(p.GoneThere), []string{"gone.there@x.com"}) || !slices.Equal(itemEmails(p.GoneHere), []string{"gone.here@x.com"}) {
		t.Fatalf("with a record: %+v", p)
	}
	push, both := p.Actions(batch.Push), p.Actions(batch.Both)
	if len(push.AddThere) != 1 || len(push.AddHere)+len(push.RemoveHere)+len(push.RemoveThere) != 0 {
		t.Errorf("push: %+v", push)
	}
	if !slices.Equal(itemEmails(both.RemoveHere), []string{"gone.there@x.com"}) || !slices.Equal(itemEmails(both.RemoveThere), []string{"gone.here@x.com"}) {
		t.Errorf("both: %+v", both)
	}
	// An entry listed on both with another origin differs; notes count
	// only where both services show them.
	here.Entries["both@x.com"] = api.Entry{Email: "both@x.com", Origin: api.OriginBounce, Note: new("n")}
	p = batch.CompareLists(here, there, rec)
	if len(p.Differ) != 1 || !slices.Equal(p.Differ[0].What, []string{"origin"}) {
		t.Errorf("differ: %+v", p.Differ)
	}
}

// BenchmarkSync syncs two lists of 100,000 entries each, 1% of them new
// on either side, shush's own service (here, in process) with the hosted
// double (there, UUIDv4 IDs and shuffled answers, at its rate limit,
// 500 requests a second, so that it runs in seconds, with one batch in
// flight as at the hosted service's own 2 a second). It counts the requests the double answered and the
// waits the client paced, and reports them over the floor: the list pages
// of both lists (the double's 1,000 pages and the export of ours) plus
// the batches of the entries carried each way. While the apply runs,
// both sides change; after the changes settle the next plan is empty.
//
//	go test ./batch/ -run '^$' -bench BenchmarkSync -benchtime 1x
func BenchmarkSync(b *testing.B) {
	const n, fresh = 100_000, 1_000
	ctx := context.Background()
	for range b.N {
		b.StopTimer()
		svc := startService(b, 1e6)
		h := hostedtest.Start(b)
		h.SetOrder(hostedtest.Shuffled)
		var hereN atomic.Int64
		hereC := svc.client(client.WithTransport(countRT{http.DefaultTransport, &hereN}))
		waits := 0
		thereC := client.New(h.URL, "re_test_key", client.WithRetry(4, time.Millisecond, 5*time.Millisecond),
			client.WithWaitHook(func(client.WaitInfo) { waits++ }))
		common := addresses("common", n-fresh)
		seedService(b, hereC, append(slices.Clone(common), addresses("here", fresh)...))
		h.Add(common...)
		h.Add(addresses("there", fresh)...)
		h.SetRate(500)
		dir := b.TempDir()
		here := &batch.Runs{Dir: dir, Client: hereC, Concurrency: batch.AutoConcurrency}
		// One batch at a time, as a run against the hosted service's 2
		// requests a second goes (batch.ConcurrencyFor); the double's
		// high limit only makes the benchmark take seconds.
		there := &batch.Runs{Dir: dir, Client: thereC, Concurrency: 1}
		before, hereBefore := h.Total(), hereN.Load()
		b.StartTimer()
		start := time.Now()
		hs, ts := readBoth(b, hereC, thereC)
		rec, err := here.LoadSync(hereC.BaseURL(), thereC.BaseURL())
		if err != nil {
			b.Fatal(err)
		}
		plan := batch.CompareLists(hs, ts, nil)
		if len(plan.NewHere) != fresh || len(plan.NewThere) != fresh || plan.Same != n-fresh {
			b.Fatalf("plan: %d new here, %d new there, %d on both", len(plan.NewHere), len(plan.NewThere), plan.Same)
		}
		// Both sides change while the apply runs.
		h.OnNextAdd(func() {
			h.Add("during.there@example.com")
			h.Remove(common[7])
			if _, err := hereC.BatchAdd(ctx, []string{"during.here@example.com"}); err != nil {
				b.Error(err)
			}
		})
		applyAll(b, plan, rec, here, there, hs, ts)
		took := time.Since(start)
		b.StopTimer()
		used, ours := h.Total()-before, hereN.Load()-hereBefore
		floor := int64(n/api.MaxBatch) + 1 + 2*fresh/api.MaxBatch
		b.ReportMetric(float64(used), "requests-there")
		b.ReportMetric(float64(ours), "requests-here")
		b.ReportMetric(float64(floor), "floor")
		b.ReportMetric(float64(used+ours)/float64(floor), "requests/floor")
		b.ReportMetric(float64(h.Refused.Load()), "429s")
		b.ReportMetric(float64(waits), "paced-waits")
		b.ReportMetric(took.Seconds(), "s")
		// Settle: the next sync carries the changes made during this
		// one; then the plan is empty.
		for round := 0; ; round++ {
			hs, ts = readBoth(b, hereC, thereC)
			p := batch.CompareLists(hs, ts, rec)
			if p.Actions(batch.Both).Empty() {
				break
			}
			if round == 2 {
				b.Fatalf("after two more syncs the plan still has %+v", p.Actions(batch.Both))
			}
			applyAll(b, p, rec, here, there, hs, ts)
		}
		if _, ok := hs.Entries[common[7]]; ok || hs.Entries["during.there@example.com"].ID == "" || ts.Entries["during.here@example.com"].ID == "" {
			b.Fatal("a change made during the sync was lost")
		}
	}
}

func seedService(b *testing.B, c *client.Client, emails []string) {
	b.Helper()
	for lo := 0; lo < len(emails); lo += api.MaxBatch {
		if _, err := c.BatchAdd(context.Background(), emails[lo:min(lo+api.MaxBatch, len(emails))]); err != nil {
			b.Fatal(err)
		}
	}
}

func readBoth(b *testing.B, here, there *client.Client) (batch.Snapshot, batch.Snapshot) {
	b.Helper()
	hs, err := batch.ReadList(context.Background(), here, nil)
	if err != nil {
		b.Fatal(err)
	}
	ts, err := batch.ReadList(context.Background(), there, nil)
	if err != nil {
		b.Fatal(err)
	}
	return hs, ts
}

// applyAll carries a plan out both ways, as sync --both --apply does.
func applyAll(b *testing.B, plan batch.SyncPlan, rec *batch.SyncRecord, here, there *batch.Runs, hs, ts batch.Snapshot) {
	b.Helper()
	runs, err := batch.ApplySync(context.Background(), plan, batch.Both, rec, batch.SyncSide{Runs: here, Snap: hs}, batch.SyncSide{Runs: there, Snap: ts}, "sync", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, r := range runs {
		if r.Info.State != batch.Finished || r.Info.Counts[batch.Unverified] > 0 {
			b.Fatalf("%s: %s %v", r.Action, r.Info.State, r.Info.Counts)
		}
	}
}

// countRT counts the requests a client sends.
type countRT struct {
	next http.RoundTripper
	n    *atomic.Int64
}

func (c countRT) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}
