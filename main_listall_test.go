package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

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
