package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
)

// batchesInFlight counts the batch requests the service answers at once,
// holding each a little so that batches sent together meet.
type batchesInFlight struct {
	mu       sync.Mutex
	now, max int
}

func (f *batchesInFlight) wrap(next http.Handler) http.Handler {
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

// Without --concurrency a batch run is one batch at a time against a
// service that allows 10 requests a second (as the hosted one allows 2),
// four at a time against one that allows 40, sixteen against one that
// allows 100,000; --concurrency wins.
func TestDefaultConcurrencyFollowsTheRateLimit(t *testing.T) {
	t.Parallel()
	var lines []string
	for i := range 2000 {
		lines = append(lines, fmt.Sprintf("c%04d@example.com", i))
	}
	for _, tc := range []struct {
		rate float64
		args []string
		want int
	}{
		{10, nil, 1},
		{100000, nil, 16},
		{40, nil, 4},
		{100000, []string{"--concurrency", "2"}, 2},
		{10, []string{"--concurrency", "3"}, 3},
	} {
		var f batchesInFlight
		svc := newService(t, server.Options{Rate: tc.rate}, f.wrap)
		sb := newSandbox(t).at(svc)
		file := writeFile(t, sb.home, "in.txt", strings.Join(lines, "\n"))
		sb.run(t, nil, append([]string{"suppressions", "batch", "add", "--file", file}, tc.args...)...).want(t, 0)
		if got := len(svc.emails(t)); got != len(lines) {
			t.Fatalf("rate %v %v: %d listed", tc.rate, tc.args, got)
		}
		f.mu.Lock()
		most := f.max
		f.mu.Unlock()
		if most != tc.want {
			t.Errorf("rate %v %v: %d batches in flight at most; want %d", tc.rate, tc.args, most, tc.want)
		}
	}
	r := newSandbox(t).run(t, nil, "suppressions", "batch", "add", "--file", "x.txt", "--concurrency", "0").want(t, 2)
	if !strings.Contains(r.stderr, "--concurrency must be between 1 and 16, not 0") {
		t.Errorf("--concurrency 0: %s", r)
	}
}
