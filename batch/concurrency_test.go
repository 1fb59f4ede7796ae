package batch_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

func TestConcurrencyFor(t *testing.T) {
	for _, tc := range []struct {
		rl   api.RateLimit
		want int
	}{
		{api.RateLimit{}, 1}, // no figures announced
		{api.RateLimit{Known: true, Limit: 2, Remaining: 1, Reset: time.Second}, 1},   // the hosted service
		{api.RateLimit{Known: true, Limit: 10, Remaining: 9, Reset: time.Second}, 1},  // shush serve's default
		{api.RateLimit{Known: true, Limit: 11, Remaining: 10, Reset: time.Second}, 4}, // more than one at a time uses
		{api.RateLimit{Known: true, Limit: 50, Remaining: 49, Reset: time.Second}, 5}, // 50 a second at 100 ms
		{api.RateLimit{Known: true, Limit: 160, Remaining: 159, Reset: time.Second}, 16},
		{api.RateLimit{Known: true, Limit: 100000, Remaining: 99999, Reset: 0}, 16},          // no more than the most
		{api.RateLimit{Known: true, Limit: 600, Remaining: 599, Reset: 60 * time.Second}, 1}, // 10 a second over a minute
		{api.RateLimit{Known: true, Limit: 3000, Remaining: 10, Reset: 60 * time.Second}, 5}, // 50 a second over a minute
		{api.RateLimit{Known: true, Remaining: 99, Reset: time.Second}, 10},                  // no ratelimit-limit
	} {
		if got := batch.ConcurrencyFor(tc.rl); got != tc.want {
			t.Errorf("ConcurrencyFor(%+v) = %d; want %d", tc.rl, got, tc.want)
		}
	}
}

// inFlight counts the batch requests a service is answering at once; each
// is held a little, so that batches sent together do meet.
type inFlight struct {
	mu       sync.Mutex
	now, max int
}

func (f *inFlight) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
			next.ServeHTTP(w, r)
			return
		}
		f.mu.Lock()
		f.now++
		f.max = max(f.max, f.now)
		f.mu.Unlock()
		time.Sleep(15 * time.Millisecond)
		next.ServeHTTP(w, r)
		f.mu.Lock()
		f.now--
		f.mu.Unlock()
	})
}

func (f *inFlight) most() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.max
}

// A run that chooses its concurrency sends one batch at a time to a
// service that allows 10 requests a second, and sixteen at a time to one
// that allows 100,000, over its segments; a given Concurrency is kept.
func TestAutoConcurrencyFollowsTheRateLimit(t *testing.T) {
	for _, tc := range []struct {
		rate        float64
		concurrency int
		want        int
	}{
		{10, batch.AutoConcurrency, 1},
		{100000, batch.AutoConcurrency, batch.MaxConcurrency},
		{100000, 2, 2},
	} {
		t.Run(fmt.Sprintf("rate %v, concurrency %d", tc.rate, tc.concurrency), func(t *testing.T) {
			var f inFlight
			svc := servicetest.Start(t, server.Options{Rate: tc.rate}, f.wrap)
			c := client.New(svc.URL, svc.Key)
			rs := &batch.Runs{Client: c, Concurrency: tc.concurrency, Dir: t.TempDir(), SegmentSize: 2000}
			ri, err := rs.Start(context.Background(), planOf(batch.Add, addresses("auto", 3000)).Input(), batch.RunMeta{}, batch.Observer{})
			if err != nil || ri.Counts[batch.Added] != 3000 {
				t.Fatalf("Start: %v, %v", err, ri.Counts)
			}
			if got := f.most(); got != tc.want {
				t.Errorf("%d batches in flight at most; want %d", got, tc.want)
			}
		})
	}
}

// The hosted service's double announces no rate limit: a run that chooses
// sends one batch at a time, since nothing would pace more.
func TestAutoConcurrencyWithoutFigures(t *testing.T) {
	h := hostedtest.Start(t)
	target, err := url.Parse(h.URL)
	if err != nil {
		t.Fatal(err)
	}
	var f inFlight
	proxy := httptest.NewServer(f.wrap(httputil.NewSingleHostReverseProxy(target)))
	t.Cleanup(proxy.Close)
	c := client.New(proxy.URL, "re_test_key", client.WithRetry(4, time.Millisecond, 5*time.Millisecond))
	rep, _, err := sendPlan(context.Background(), &batch.Runs{Client: c, Concurrency: batch.AutoConcurrency}, planOf(batch.Add, addresses("hosted", 800)), nil)
	if err != nil || !rep.Complete() {
		t.Fatalf("Run: %v, failed %v", err, rep.Failed)
	}
	if got := f.most(); got != 1 {
		t.Errorf("%d batches in flight at most; want 1", got)
	}
}
