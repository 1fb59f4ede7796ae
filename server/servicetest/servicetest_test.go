package servicetest_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
	"github.com/shushlist/shush/server/store"
)

// The key works against the service, the wrappers see every answer in
// order (first outermost), and the store is the one the service reads.
func TestStart(t *testing.T) {
	var (
		mu       sync.Mutex // the wrappers run on the server's goroutines
		order    []string
		statuses []int
	)
	outer := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			order = append(order, "outer")
			mu.Unlock()
			rec := &servicetest.StatusRecorder{ResponseWriter: w}
			next.ServeHTTP(rec, r)
			mu.Lock()
			statuses = append(statuses, rec.Status)
			mu.Unlock()
		})
	}
	inner := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			order = append(order, "inner")
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	}
	svc := servicetest.Start(t, server.Options{Rate: 1000}, outer, nil, inner)

	if _, err := svc.Store.Add(context.Background(), svc.Team, store.Change{}, store.Manual([]string{"a@example.com"}...)); err != nil {
		t.Fatal(err)
	}
	get := func(key string) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, svc.URL+"/suppressions", nil)
		if err != nil {
			t.Fatal(err)
		}
		if key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(body)
	}
	if body := get(svc.Key); !strings.Contains(body, "a@example.com") {
		t.Errorf("the list of the key's team does not show what the store holds: %s", body)
	}
	get("")
	mu.Lock()
	defer mu.Unlock()
	if len(statuses) != 2 || statuses[0] != http.StatusOK || statuses[1] != http.StatusUnauthorized {
		t.Errorf("statuses with and without the key: %v, want [200 401]", statuses)
	}
	if len(order) != 4 || order[0] != "outer" || order[1] != "inner" {
		t.Errorf("wrappers ran in order %v, want outer before inner", order)
	}
}
