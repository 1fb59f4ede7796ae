package batch_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

func foreignClient(h *hostedtest.Service) *client.Client {
	return client.New(h.URL, "re_test_key", client.WithRetry(4, time.Millisecond, 5*time.Millisecond))
}

// Against a service whose answers are bare UUIDv4 IDs in any order and
// whose clock is minutes off ours, every address gets its own ID, and
// "added" means this run made the entry: never by position, never by the
// ID's bits, never by our clock.
func TestForeignServicePairsAreTrue(t *testing.T) {
	for _, order := range []hostedtest.Order{hostedtest.RequestOrder, hostedtest.NewestFirst, hostedtest.Shuffled} {
		for _, offset := range []time.Duration{0, -7 * time.Minute, 9 * time.Minute} {
			t.Run(fmt.Sprintf("order%d/offset%v", order, offset), func(t *testing.T) {
				h := hostedtest.Start(t)
				h.SetOrder(order)
				h.SetClockOffset(offset)
				values := addresses("pair", 250)
				before := h.Add(values[10], values[120], values[249]) // listed long before the run
				h.Add("someone-else@example.com")
				rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h), Concurrency: 2}, planOf(batch.Add, values), nil)
				if err != nil || !rep.Complete() {
					t.Fatalf("Run: %v failed %v", err, rep.Failed)
				}
				truth := h.Truth()
				for i, res := range rep.Results {
					if res.Input != values[i] || res.ID != truth[values[i]] {
						t.Fatalf("result %d = %+v; the service holds %s for %s", i, res, truth[values[i]], values[i])
					}
					want := batch.Added
					if _, ok := before[values[i]]; ok {
						want = batch.AlreadyListed
					}
					if res.Outcome != want {
						t.Fatalf("result %d (%s) = %s (%s); want %s", i, values[i], res.Outcome, res.Message, want)
					}
				}
			})
		}
	}
}

// An address another client lists during the run, before the run reads
// the list ahead of its batch, is "already listed" — so an undo would
// leave it alone. Here another client lists two addresses of the third
// batch just after the second batch is answered: the second batch's walk
// meets them on its first page, and the third batch's mark is read after
// them.
func TestForeignServiceOtherClientDuringRun(t *testing.T) {
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	values := addresses("during", 300)
	other := []string{values[250], values[299]}
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h)}, planOf(batch.Add, values), func(e batch.Event) {
		if e.Kind == batch.BatchStarted && e.Batch == 2 {
			h.ListAfterNextAdd(other...)
		}
	})
	if err != nil || !rep.Complete() {
		t.Fatalf("Run: %v", err)
	}
	truth := h.Truth()
	for i, res := range rep.Results {
		if slices.Contains(other, values[i]) {
			if res.Outcome != batch.AlreadyListed || res.ID != truth[values[i]] {
				t.Errorf("%s, listed by another client during the run: %+v", values[i], res)
			}
		} else if res.Outcome != batch.Added || res.ID != truth[values[i]] {
			t.Errorf("%s: %+v", values[i], res)
		}
	}
}

// A batch answered with fewer IDs than addresses, whose missing address
// the service does not list, is not reported added.
func TestForeignServiceFewerIDs(t *testing.T) {
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	values := addresses("fewer", 40)
	h.DropNewFromNextAdd(2)
	c := foreignClient(h)
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c}, planOf(batch.Add, values), nil)
	if err != nil {
		t.Fatal(err)
	}
	truth := h.Truth()
	unverified := 0
	for _, res := range rep.Results {
		if _, listed := truth[res.Input]; !listed {
			unverified++
			if res.Outcome != batch.Unverified || res.ID != "" || !strings.Contains(res.Message, "does not list this one") {
				t.Errorf("%s is not listed but the run says %+v", res.Input, res)
			}
			continue
		}
		if res.Outcome != batch.Added || res.ID != truth[res.Input] {
			t.Errorf("%s: %+v; want added as %s", res.Input, res, truth[res.Input])
		}
	}
	if unverified != 2 {
		t.Errorf("%d addresses unverified; want the 2 the service left out", unverified)
	}
	if got := rep.Count()[batch.Added]; got != 38 {
		t.Errorf("%d added; want 38", got)
	}
}

// The request overhead of establishing the truth against another service,
// counted by the double: a batch of new addresses costs the batch and one
// page of the list (the previous batch's page is its mark; only the first
// batch reads a mark of its own); a second page only while an ID of the
// answer is still unpaired, and then the next batch reads its own mark.
// Already-listed addresses are paired by reading on down the list where
// that takes fewer requests than a look-up each (walk.go): 100 of a list
// of 1,000 take its 10 pages, 3 of them 3 look-ups. Our
// service needs one request per batch after the first.
func TestTruthOverhead(t *testing.T) {
	h := hostedtest.Start(t)
	values := addresses("cost", 1000)
	if _, _, err := sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h)}, planOf(batch.Add, values), nil); err != nil {
		t.Fatal(err)
	}
	adds, lists := requests(h, "POST /suppressions/batch/add"), requests(h, "GET /suppressions")
	t.Logf("another service, 10 batches of 100 new addresses: %d requests (%.2f per batch)", h.Total(), float64(h.Total())/10)
	if adds != 10 || lists != 11 || h.Total() != 21 {
		t.Errorf("10 batches of new addresses: %d batch adds and %d list pages (%d requests); want 10 and 11 (one mark, then one page a batch)", adds, lists, h.Total())
	}

	// Another client lists two addresses just after the third batch is
	// answered: that batch's first page holds 98 of its 100, so it reads
	// a second, and the fourth batch reads a mark of its own.
	h2 := hostedtest.Start(t)
	var once sync.Once
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h2)}, planOf(batch.Add, values), func(e batch.Event) {
		if e.Kind == batch.BatchStarted && e.Batch == 3 {
			once.Do(func() { h2.ListAfterNextAdd("other1@example.com", "other2@example.com") })
		}
	})
	if err != nil || rep.Count()[batch.Added] != 1000 {
		t.Fatalf("with another client: %v %v", err, rep.Count())
	}
	if lists := requests(h2, "GET /suppressions"); lists != 13 || h2.Total() != 23 {
		t.Errorf("with another client's entries in a batch's first page: %d list pages (%d requests); want 13 (one more page, one more mark)", lists, h2.Total())
	}

	before := h.Total()
	if _, _, err := sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h)}, planOf(batch.Add, values[:100]), nil); err != nil {
		t.Fatal(err)
	}
	if n := h.Total() - before; n != 12 {
		t.Errorf("1 batch of 100 already listed: %d requests; want 12 (mark, batch, the list's 10 pages)", n)
	}
	before = h.Total()
	rep, _, err = sendPlan(context.Background(), &batch.Runs{Client: foreignClient(h)}, planOf(batch.Add, values[:3]), nil)
	if err != nil || rep.Count()[batch.AlreadyListed] != 3 {
		t.Fatalf("3 already listed: %v %v", err, rep.Count())
	}
	if n := h.Total() - before; n != 6 {
		t.Errorf("1 batch of 3 already listed: %d requests; want 6 (mark, batch, one page, 3 look-ups)", n)
	}

	svc := startService(t, 10000)
	rep, _, err = sendPlan(context.Background(), &batch.Runs{Client: svc.client()}, planOf(batch.Add, values), nil)
	if err != nil || rep.Count()[batch.Added] != 1000 {
		t.Fatalf("our service: %v %v", err, rep.Count())
	}
	if n := svc.gate.lists.Load(); n != 1 {
		t.Errorf("our service: %d list requests; want 1 (the first batch's mark, before the service is known)", n)
	}
}

// requests is how many requests of this kind the double answered.
func requests(h *hostedtest.Service, kind string) int64 {
	n, ok := h.Requests.Load(kind)
	if !ok {
		return 0
	}
	return n.(*atomic.Int64).Load()
}

// A service that stops answering pauses the run after three batches in a
// row: the rest stay unsent (for a resume), instead of each spending its
// retries.
func TestRunPausesWhenTheServiceStopsAnswering(t *testing.T) {
	h := hostedtest.Start(t)
	h.HangUp(1000)
	values := addresses("pause", 2000) // 20 batches
	c := client.New(h.URL, "re_test_key", client.WithRetry(2, time.Millisecond, 2*time.Millisecond))
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c}, planOf(batch.Add, values), nil)
	var paused *batch.PausedError
	if !errors.As(err, &paused) || !strings.Contains(err.Error(), "paused after 3 batches in a row failed: cannot reach the service") {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Failed) != 3 || len(rep.Unsent) != 17 {
		t.Errorf("failed %v, unsent %d; want 3 failed and 17 unsent", rep.Failed, len(rep.Unsent))
	}
	if n := h.Total(); n > 3*3+3 {
		t.Errorf("%d requests reached the service; a paused run stops asking", n)
	}
}

// A Retry-After longer than the client waits out pauses at once, saying
// how long the service asked for.
func TestRunPausesOnALongRetryAfter(t *testing.T) {
	h := hostedtest.Start(t)
	h.RetryAfter(10 * time.Minute)
	values := addresses("wait", 300)
	rs := &batch.Runs{Client: foreignClient(h), Dir: t.TempDir()}
	rep, ri, err := sendPlan(context.Background(), rs, planOf(batch.Add, values), nil)
	if err == nil || !strings.Contains(err.Error(), "paused: the service asks to wait 10m0s before the next request (Retry-After)") {
		t.Fatalf("Run: %v", err)
	}
	if len(rep.Failed) != 1 || len(rep.Unsent) != 2 {
		t.Errorf("failed %v, unsent %v", rep.Failed, rep.Unsent)
	}
	// Back to normal: a resume of the run sends what is left (with a new
	// client: this one's pacer keeps the service's 10 minutes).
	rs.Client = foreignClient(h)
	rep, _, err = resumeRun(context.Background(), rs, ri.ID)
	if err != nil || !rep.Complete() || rep.Count()[batch.Added] != 300 {
		t.Fatalf("after the wait: %v %v", err, rep.Count())
	}
}
