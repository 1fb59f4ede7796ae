package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// --reference goes with every request of a run that changes the list, and
// the service's trail keeps it; a bad one is refused before anything is
// sent.
func TestReferenceGoesWithEveryChange(t *testing.T) {
	t.Parallel()
	var (
		mu   sync.Mutex
		refs = map[string][]string{}
	)
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			refs[r.Method] = append(refs[r.Method], r.Header.Get(api.ReferenceHeader))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	var lines []string
	for i := range 250 {
		lines = append(lines, fmt.Sprintf("ref%d@example.com", i))
	}
	path := writeFile(t, sb.home, "in.txt", strings.Join(lines, "\n"))
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--reference", "#48213", "--json").want(t, 0)
	mu.Lock()
	posts := refs[http.MethodPost]
	mu.Unlock()
	if len(posts) != 3 {
		t.Fatalf("%d POSTs; want 3 batches", len(posts))
	}
	for _, ref := range posts {
		if ref != "#48213" {
			t.Errorf("a batch went out with reference %q", ref)
		}
	}
	trail, _, err := svc.store.Audit(context.Background(), svc.team, store.AuditQuery{Reference: "#48213", Limit: 100})
	if err != nil || len(trail) != 100 || trail[0].Type != store.AuditAdded {
		t.Errorf("the trail under #48213: %d entries, %v", len(trail), err)
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--reference", "bad\u202eref").want(t, 2)
	mu.Lock()
	if len(refs[http.MethodPost]) != 3 {
		t.Errorf("a refused --reference still sent %d requests", len(refs[http.MethodPost])-3)
	}
	mu.Unlock()
}
