package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
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

// A prefix search over more matches than a page sorts, all older than
// more entries than a page reads (as an import in address order leaves
// them): the service's pages stop at their bound, empty at first, and the
// CLI reads on from where each stopped: one page shows the newest
// matches, and --all shows every match once, newest first.
func TestListSearchReadsOnWhereThePageStopped(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	add := func(format string, n int) {
		for i := 0; i < n; i += 1000 {
			emails := make([]string, min(1000, n-i))
			for j := range emails {
				emails[j] = fmt.Sprintf(format, i+j)
			}
			if _, err := svc.store.Add(context.Background(), svc.team, store.Change{}, store.Manual(emails...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	old := sqlstore.PrefixExact + 200
	add("old-%05d@example.com", old)
	add("new-%05d@example.com", sqlstore.PrefixScan+500)
	sb := newSandbox(t).at(svc)

	// Piped, the page comes as JSON.
	r := sb.run(t, nil, "suppressions", "list", "--search", "old-*", "--limit", "3").want(t, 0)
	first := decode[struct {
		HasMore bool `json:"has_more"`
		Data    []struct{ Email string }
	}](t, r)
	if len(first.Data) != 3 || !first.HasMore || first.Data[0].Email != fmt.Sprintf("old-%05d@example.com", old-1) || first.Data[2].Email != fmt.Sprintf("old-%05d@example.com", old-3) {
		t.Errorf("one page of a prefix behind many newer entries: %+v", first)
	}

	r = sb.run(t, nil, "suppressions", "list", "--search", "old-*", "--all", "--json").want(t, 0)
	page := decode[struct {
		Data []struct{ Email string }
	}](t, r)
	seen := map[string]bool{}
	for i, e := range page.Data {
		if want := fmt.Sprintf("old-%05d@example.com", old-1-i); e.Email != want || seen[e.Email] {
			t.Fatalf("--all entry %d is %s; want %s, once", i, e.Email, want)
		}
		seen[e.Email] = true
	}
	if len(page.Data) != old {
		t.Errorf("--all printed %d matches; want %d", len(page.Data), old)
	}
}
