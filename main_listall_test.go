package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/server"
)

// list --all reads 100 per page and ends; a service that repeats a page
// makes it stop with an error, not loop.
func TestListAllPagesAndStopsOnARepeat(t *testing.T) {
	t.Parallel()
	var lists atomic.Int64
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.URL.Path == "/suppressions" {
				lists.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	var lines []string
	for i := range 250 {
		lines = append(lines, fmt.Sprintf("all%03d@example.com", i))
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", writeFile(t, sb.home, "in.txt", strings.Join(lines, "\n"))).want(t, 0)
	lists.Store(0)
	r := sb.run(t, nil, "suppressions", "list", "--all", "--json").want(t, 0)
	page := decode[struct {
		Data []struct{ Email string }
	}](t, r)
	if len(page.Data) != 250 || lists.Load() != 3 {
		t.Errorf("--all printed %d entries in %d requests; want 250 in 3", len(page.Data), lists.Load())
	}

	// A service that answers the same page whatever the cursor.
	repeat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","has_more":true,"data":[
			{"id":"0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b","email":"a@example.com","origin":"manual","source_id":null,"created_at":"2026-11-01T10:00:00.000Z"},
			{"id":"0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7c","email":"b@example.com","origin":"manual","source_id":null,"created_at":"2026-11-01T10:00:00.000Z"}]}`)
	}))
	defer repeat.Close()
	r = newSandbox(t).run(t, nil, "suppressions", "list", "--all", "--base-url", repeat.URL, "--api-key", "k").want(t, 1)
	if !strings.Contains(r.stderr, "stopping rather than looping") {
		t.Errorf("a repeating service: %s", r)
	}
}
