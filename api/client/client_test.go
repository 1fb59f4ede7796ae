package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// startService runs the real service (servicetest.Start) with rate
// (requests/s per team); wrap, when not nil, sits in front of it to inject
// faults or count answers.
func startService(t *testing.T, rate float64, wrap func(http.Handler) http.Handler) *servicetest.Service {
	t.Helper()
	return servicetest.Start(t, server.Options{Rate: rate}, wrap)
}

// fast retries keep fault tests short.
func fast() client.Option { return client.WithRetry(4, time.Millisecond, 5*time.Millisecond) }

// faults answers the first n requests to path with status (and a
// retry-after of 1 s for 429), then passes requests on, counting all.
type faults struct {
	path   string
	status int
	left   atomic.Int32
	seen   atomic.Int32
	body   string
}

func (f *faults) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == f.path {
			f.seen.Add(1)
			if f.left.Add(-1) >= 0 {
				if f.status == http.StatusTooManyRequests {
					w.Header().Set("Retry-After", "1")
				}
				if f.body != "" {
					w.Header().Set("Content-Type", "text/html")
					w.WriteHeader(f.status)
					w.Write([]byte(f.body))
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(f.status)
				fmt.Fprintf(w, `{"statusCode":%d,"name":"injected","message":"injected fault"}`, f.status)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func TestEndpointsAgainstTheService(t *testing.T) {
	svc := startService(t, 1000, nil)
	c := client.New(svc.URL+"/", svc.Key)
	ctx := context.Background()

	if err := c.Health(ctx); err != nil {
		t.Fatalf("Health: %v", err)
	}
	if ok, err := c.Supports(ctx); !ok || err != nil {
		t.Fatalf("Supports = %v, %v; want true", ok, err)
	}
	added, err := c.BatchAdd(ctx, []string{"a@example.com", "b/slash+tag@example.com"})
	if err != nil || len(added) != 2 {
		t.Fatalf("BatchAdd = %v, %v", added, err)
	}
	got, err := c.Get(ctx, "b/slash+tag@example.com")
	if err != nil {
		t.Fatalf("Get by an address with / and +: %v", err)
	}
	if got.ID != added[1].ID || got.Email != "b/slash+tag@example.com" || got.Origin != api.OriginManual {
		t.Fatalf("Get = %+v, want ID %s", got, added[1].ID)
	}
	byID, err := c.Get(ctx, added[0].ID)
	if err != nil || byID.Email != "a@example.com" {
		t.Fatalf("Get by ID = %+v, %v", byID, err)
	}
	one, err := c.Add(ctx, "c@example.com")
	if err != nil || one.ID == "" {
		t.Fatalf("Add = %+v, %v", one, err)
	}
	page, err := c.List(ctx, client.ListParams{Limit: 2, Origin: api.OriginManual})
	if err != nil || len(page.Data) != 2 || !page.HasMore || page.Data[0].Email != "c@example.com" {
		t.Fatalf("List = %+v, %v; want the 2 newest with has_more", page, err)
	}
	rest, err := c.List(ctx, client.ListParams{Limit: 10, After: page.Data[1].ID})
	if err != nil || len(rest.Data) != 1 || rest.HasMore {
		t.Fatalf("List after = %+v, %v", rest, err)
	}
	gone, err := c.BatchRemoveEmails(ctx, []string{"a@example.com", "nobody@example.com"})
	if err != nil || len(gone) != 1 || gone[0].ID != added[0].ID || !gone[0].Deleted {
		t.Fatalf("BatchRemoveEmails = %+v, %v", gone, err)
	}
	gone, err = c.BatchRemoveIDs(ctx, []string{added[1].ID})
	if err != nil || len(gone) != 1 || !gone[0].Deleted {
		t.Fatalf("BatchRemoveIDs = %+v, %v", gone, err)
	}
	rm, err := c.Remove(ctx, "c@example.com")
	if err != nil || rm.ID != one.ID || !rm.Deleted {
		t.Fatalf("Remove = %+v, %v", rm, err)
	}
	_, err = c.Get(ctx, "c@example.com")
	if !client.IsNotFound(err) || client.IsUnsupported(err) {
		t.Fatalf("Get after Remove: %v; want not found", err)
	}
}

func TestUserAgentAndKeyHeader(t *testing.T) {
	var mu sync.Mutex
	var agents []string
	svc := startService(t, 1000, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			agents = append(agents, r.UserAgent())
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	c := client.New(svc.URL, svc.Key, client.WithUserAgent("1.2.3"))
	if _, err := c.BatchAdd(context.Background(), []string{"ua@example.com"}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(agents) != 1 || agents[0] != "shush/1.2.3" {
		t.Fatalf("User-Agent = %q, want shush/1.2.3", agents)
	}
}

func TestServiceErrorsAreTyped(t *testing.T) {
	svc := startService(t, 1000, nil)
	ctx := context.Background()
	c := client.New(svc.URL, svc.Key)
	emails := make([]string, 101)
	for i := range emails {
		emails[i] = "x" + strings.Repeat("y", i%5) + "@example.com"
	}
	_, err := c.BatchAdd(ctx, emails)
	var e *api.Error
	if !errors.As(err, &e) || e.StatusCode != 422 || e.Name != api.ErrValidation || e.Message == "" {
		t.Fatalf("101 items: %v; want a 422 validation_error", err)
	}
	if !e.RateLimit.Known || e.RateLimit.Limit == 0 {
		t.Fatalf("rate limit figures not filled from the headers: %+v", e.RateLimit)
	}

	bad := client.New(svc.URL, "shush_wrongkey_0123456789abcdef")
	_, err = bad.BatchAdd(ctx, []string{"a@example.com"})
	if !errors.As(err, &e) || e.StatusCode != 403 || e.Name != api.ErrInvalidAPIKey {
		t.Fatalf("wrong key: %v; want 403 invalid_api_key", err)
	}
	if strings.Contains(err.Error(), "wrongkey") {
		t.Fatalf("the key appears in the error: %v", err)
	}
	none := client.New(svc.URL, "")
	if _, err = none.List(ctx, client.ListParams{}); !errors.As(err, &e) || e.StatusCode != 401 {
		t.Fatalf("no key: %v; want 401", err)
	}
}

func TestNonJSONErrorBodyIsASentence(t *testing.T) {
	f := &faults{path: "/suppressions/batch/add", status: http.StatusBadGateway, body: "<html><body>Bad gateway from the proxy</body></html>"}
	f.left.Store(100)
	svc := startService(t, 1000, f.wrap)
	c := client.New(svc.URL, svc.Key, client.WithRetry(2, time.Millisecond, time.Millisecond))
	_, err := c.BatchAdd(context.Background(), []string{"a@example.com"})
	var e *api.Error
	if !errors.As(err, &e) || e.StatusCode != 502 {
		t.Fatalf("err = %v; want a 502 *api.Error", err)
	}
	if !strings.Contains(err.Error(), "502") || !strings.Contains(err.Error(), "Bad gateway from the proxy") {
		t.Fatalf("err = %q; want the status and a snippet of the body", err)
	}
	if got := f.seen.Load(); got != 3 {
		t.Fatalf("attempts = %d; want 3 (1 + 2 retries on a 5xx)", got)
	}
}

func TestRetriesAfter429WithRetryAfter(t *testing.T) {
	f := &faults{path: "/suppressions/batch/add", status: http.StatusTooManyRequests}
	f.left.Store(1)
	svc := startService(t, 1000, f.wrap)
	var waits []client.WaitInfo
	var mu sync.Mutex
	c := client.New(svc.URL, svc.Key, fast(), client.WithWaitHook(func(w client.WaitInfo) {
		mu.Lock()
		waits = append(waits, w)
		mu.Unlock()
	}))
	start := time.Now()
	data, err := c.BatchAdd(context.Background(), []string{"a@example.com"})
	if err != nil || len(data) != 1 {
		t.Fatalf("BatchAdd after a 429 = %v, %v", data, err)
	}
	if time.Since(start) < time.Second {
		t.Fatalf("retried after %v; the 429 said retry-after: 1", time.Since(start))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(waits) == 0 || waits[0].Reason != client.WaitRetryAfter || waits[0].Delay < time.Second {
		t.Fatalf("waits = %+v; want a retry-after wait of at least 1 s", waits)
	}
	if f.seen.Load() != 2 {
		t.Fatalf("attempts = %d, want 2", f.seen.Load())
	}
}

func TestRetriesOn503ButNotOn4xx(t *testing.T) {
	f := &faults{path: "/suppressions/batch/remove", status: http.StatusServiceUnavailable}
	f.left.Store(2)
	svc := startService(t, 1000, f.wrap)
	c := client.New(svc.URL, svc.Key, fast())
	ctx := context.Background()
	if _, err := c.BatchRemoveEmails(ctx, []string{"a@example.com"}); err != nil {
		t.Fatalf("BatchRemoveEmails after two 503s: %v", err)
	}
	if f.seen.Load() != 3 {
		t.Fatalf("attempts = %d, want 3", f.seen.Load())
	}
	f.seen.Store(0)
	_, err := c.BatchRemoveIDs(ctx, []string{"not-a-uuid"})
	var e *api.Error
	if !errors.As(err, &e) || e.StatusCode != 422 {
		t.Fatalf("bad ID: %v; want 422", err)
	}
	if f.seen.Load() != 1 {
		t.Fatalf("a 422 was sent %d times; a 4xx must not be retried", f.seen.Load())
	}
}

func TestNetworkErrorNamesTheServiceNotTheKey(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	url := ts.URL
	ts.Close()
	const key = "shush_secretkeyvalue_42"
	var retries atomic.Int32
	c := client.New(url, key, fast(), client.WithWaitHook(func(w client.WaitInfo) {
		if w.Reason == client.WaitBackoff {
			retries.Add(1)
		}
	}))
	_, err := c.BatchAdd(context.Background(), []string{"a@example.com"})
	var ne *client.NetworkError
	if !errors.As(err, &ne) {
		t.Fatalf("err = %v; want a *client.NetworkError", err)
	}
	if !strings.Contains(err.Error(), url) || strings.Contains(err.Error(), "secretkey") {
		t.Fatalf("err = %q; want the base URL and not the key", err)
	}
	if retries.Load() != 4 {
		t.Fatalf("retries = %d; want 4 (WithRetry(4, …))", retries.Load())
	}
	// A single DELETE is not retried on a network error.
	retries.Store(0)
	if _, err := c.Remove(context.Background(), "a@example.com"); err == nil || retries.Load() != 0 {
		t.Fatalf("Remove: err %v after %d retries; want an error and no retry", err, retries.Load())
	}
}

func TestSupportsFalseOnBatchOnlyService(t *testing.T) {
	svc := startService(t, 1000, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusNotFound)
				w.Write([]byte(`{"statusCode":404,"name":"not_found","message":"The requested endpoint does not exist."}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	c := client.New(svc.URL, svc.Key)
	ok, err := c.Supports(context.Background())
	if ok || err != nil {
		t.Fatalf("Supports = %v, %v; want false, nil", ok, err)
	}
	if _, err := c.BatchAdd(context.Background(), []string{"a@example.com"}); err != nil {
		t.Fatalf("batch add on a batch-only service: %v", err)
	}
}

// TestPacingAvoids429 sends more requests than the burst, sequentially and
// from several goroutines, against a service limited to 5 requests/s.
func TestPacingAvoids429(t *testing.T) {
	var limited atomic.Int32
	svc := startService(t, 5, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rec := &servicetest.StatusRecorder{ResponseWriter: w}
			h.ServeHTTP(rec, r)
			if rec.Status == http.StatusTooManyRequests {
				limited.Add(1)
			}
		})
	})
	var paced atomic.Int32
	c := client.New(svc.URL, svc.Key, client.WithWaitHook(func(w client.WaitInfo) {
		if w.Reason == client.WaitPacing {
			paced.Add(1)
		}
	}))
	ctx := context.Background()
	for i := range 8 {
		if _, err := c.BatchAdd(ctx, []string{"s" + string(rune('a'+i)) + "@example.com"}); err != nil {
			t.Fatal(err)
		}
	}
	if limited.Load() != 0 || paced.Load() == 0 {
		t.Fatalf("sequential: %d answers were 429 and %d pacing waits; want 0 and some", limited.Load(), paced.Load())
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2 {
				if _, err := c.BatchAdd(ctx, []string{"p" + string(rune('a'+g)) + string(rune('a'+i)) + "@example.com"}); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if n := limited.Load(); n > 1 {
		t.Fatalf("8 goroutines: %d answers were 429; want at most 1", n)
	}
}

func TestCancelStopsAWait(t *testing.T) {
	f := &faults{path: "/suppressions/batch/add", status: http.StatusTooManyRequests}
	f.left.Store(100)
	svc := startService(t, 1000, f.wrap)
	c := client.New(svc.URL, svc.Key)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.BatchAdd(ctx, []string{"a@example.com"})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("err = %v after %v; want the context's error before the 1 s retry-after", err, time.Since(start))
	}
}

// TestNoPacingWithoutFigures: a service that sends no rate-limit headers
// is not paced, and concurrent requests are not held back one at a time.
func TestNoPacingWithoutFigures(t *testing.T) {
	var inflight, most atomic.Int32
	svc := startService(t, 1000, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inflight.Add(1)
			defer inflight.Add(-1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(50 * time.Millisecond) // long enough for the others to arrive
			h.ServeHTTP(&stripWriter{ResponseWriter: w}, r)
		})
	})
	var waits atomic.Int32
	c := client.New(svc.URL, svc.Key, client.WithWaitHook(func(client.WaitInfo) { waits.Add(1) }))
	ctx := context.Background()
	if _, err := c.BatchAdd(ctx, []string{"first@example.com"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.BatchAdd(ctx, []string{fmt.Sprintf("np%d@example.com", g)}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if waits.Load() != 0 || most.Load() < 2 {
		t.Fatalf("%d waits, at most %d requests at once; want no waits and concurrent requests", waits.Load(), most.Load())
	}
}

// stripWriter drops the rate-limit headers of an answer.
type stripWriter struct{ http.ResponseWriter }

func (w *stripWriter) WriteHeader(code int) {
	for _, h := range []string{"Ratelimit-Limit", "Ratelimit-Remaining", "Ratelimit-Reset"} {
		w.Header().Del(h)
	}
	w.ResponseWriter.WriteHeader(code)
}

// ReadOnly tells a read-only key from one that may change the list, and a
// refused key from both, without changing the list.
func TestReadOnlyAsksWithoutChanging(t *testing.T) {
	svc := startService(t, 1000, nil)
	ctx := context.Background()
	_, ro, err := server.CreateKey(ctx, svc.Store, svc.Team, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		key      string
		readOnly bool
		refused  bool
	}{{svc.Key, false, false}, {ro, true, false}, {"re_not_a_key", false, true}} {
		name := map[bool]string{false: "read-write", true: "read-only"}[tc.readOnly]
		if tc.refused {
			name = "unknown"
		}
		got, err := client.New(svc.URL, tc.key, fast()).ReadOnly(ctx)
		var ae *api.Error
		if got != tc.readOnly || (err != nil) != tc.refused || tc.refused && (!errors.As(err, &ae) || ae.StatusCode != http.StatusForbidden) {
			t.Errorf("the %s key: read-only %v, %v; want %v, refused %v", name, got, err, tc.readOnly, tc.refused)
		}
	}
	if page, err := client.New(svc.URL, svc.Key).List(ctx, client.ListParams{Limit: 1}); err != nil || len(page.Data) != 0 {
		t.Errorf("the list after asking: %+v %v", page, err)
	}
}

// A request made with Once is tried once: no retry of a 5xx or of no
// answer, however many the client would make.
func TestOnceTriesOnce(t *testing.T) {
	var calls atomic.Int32
	svc := startService(t, 1000, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			w.Write([]byte(`{"statusCode":503,"name":"service_unavailable","message":"down"}`))
		})
	})
	c := client.New(svc.URL, svc.Key, fast())
	if _, err := c.Supports(client.Once(context.Background())); err == nil || calls.Load() != 1 {
		t.Fatalf("Once: %v after %d requests; want the 503 after 1", err, calls.Load())
	}
	calls.Store(0)
	if _, err := c.Supports(context.Background()); err == nil || calls.Load() != 5 {
		t.Fatalf("without Once: %v after %d requests; want 1 + 4 retries", err, calls.Load())
	}
}
