package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestFollowerMissesNothing follows the trail and the list the way the
// API offers to read what is new (before=<the newest ID seen>) while
// writers add and remove overlapping addresses concurrently: on
// PostgreSQL through two `shush serve` processes on one database, on
// SQLite through one. Newest-first order must be commit order: an entry
// that commits after the follower has read past its ID is lost to it for
// good. Afterwards every trail entry and every listed entry newer than
// where the follower started was seen, and the newest trail entry of
// each address agrees with the list.
func TestFollowerMissesNothing(t *testing.T) {
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		a := serve(t, dsn, "--rate", "100000")
		a.waitHealthy()
		b := serve(t, dsn, "--rate", "100000")
		b.waitHealthy()
		followAndChurn(t, createKey(t, dsn, "churn", false), a.url, b.url)
	})
	t.Run("sqlite", func(t *testing.T) {
		dsn := filepath.Join(t.TempDir(), "shush.db")
		p := serve(t, dsn, "--rate", "100000")
		p.waitHealthy()
		followAndChurn(t, createKey(t, dsn, "churn", false), p.url)
	})
}

func followAndChurn(t *testing.T, key string, urls ...string) {
	const (
		workers  = 8
		pool     = 60
		duration = 4 * time.Second
	)
	addr := func(i int) string { return fmt.Sprintf("c%02d@churn.example", i) }
	ctx := context.Background()
	reader := newClient(urls[0], key)
	// A first entry, so that the follower starts from a cursor.
	if _, a := reader.add(ctx, []string{addr(0)}); a.err != nil || a.status != 201 {
		t.Fatalf("first add: %d %v %s", a.status, a.err, a.body)
	}
	startAudit := newestID(t, reader, "/audit")
	startList := newestID(t, reader, "/suppressions")

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	var failures []string
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 23))
			c := newClient(urls[w%len(urls)], key)
			for {
				select {
				case <-stop:
					return
				default:
				}
				var emails []string
				seen := map[string]bool{}
				for range 1 + rng.IntN(4) {
					if e := addr(rng.IntN(pool)); !seen[e] {
						seen[e] = true
						emails = append(emails, e)
					}
				}
				var a answer
				if rng.IntN(2) == 0 {
					_, a = c.add(ctx, emails)
				} else {
					_, a = c.remove(ctx, api.BatchRemoveRequest{Emails: emails})
				}
				if a.err != nil || a.status >= 300 {
					mu.Lock()
					failures = append(failures, fmt.Sprintf("%d %v %s", a.status, a.err, a.body))
					mu.Unlock()
				}
			}
		})
	}
	// The followers poll as fast as they can while the writers run, then
	// once more after, to read what committed last.
	seenAudit, seenList := map[string]bool{}, map[string]bool{}
	cursorAudit, cursorList := startAudit, startList
	end := time.Now().Add(duration)
	for time.Now().Before(end) {
		cursorAudit = follow(t, reader, "/audit", cursorAudit, seenAudit)
		cursorList = follow(t, reader, "/suppressions", cursorList, seenList)
	}
	close(stop)
	wg.Wait()
	follow(t, reader, "/audit", cursorAudit, seenAudit)
	follow(t, reader, "/suppressions", cursorList, seenList)
	if len(failures) > 0 {
		t.Fatalf("%d writes failed, the first: %s", len(failures), failures[0])
	}

	all := readAll(t, reader, "/audit", startAudit)
	missed := 0
	for _, id := range all {
		if !seenAudit[id] {
			missed++
		}
	}
	listed := readAll(t, reader, "/suppressions", startList)
	missedListed := 0
	for _, id := range listed {
		if !seenList[id] {
			missedListed++
		}
	}
	t.Logf("trail: %d entries after the start, %d missed; list: %d listed after the start, %d missed", len(all), missed, len(listed), missedListed)
	if len(all) < 100 {
		t.Fatalf("only %d trail entries were written: the churn did not run", len(all))
	}
	if missed > 0 || missedListed > 0 {
		t.Errorf("the follower missed %d of %d trail entries and %d of %d listed entries that committed after it had read past their IDs",
			missed, len(all), missedListed, len(listed))
	}

	// The newest trail entry of each address says what the list says.
	for i := range pool {
		e := addr(i)
		var page api.AuditList
		getJSON(t, reader, "/audit?"+url.Values{"email": {e}, "limit": {"1"}}.Encode(), &page)
		entry, isListed := reader.get(t, e)
		switch {
		case len(page.Data) == 0:
			t.Errorf("%s has no trail", e)
		case isListed && (page.Data[0].Type != api.AuditAdded || page.Data[0].Suppression.ID != entry.ID):
			t.Errorf("%s is listed as %s, but its newest trail entry is %s of %s", e, entry.ID, page.Data[0].Type, page.Data[0].Suppression.ID)
		case !isListed && page.Data[0].Type != api.AuditRemoved:
			t.Errorf("%s is not listed, but its newest trail entry is %s", e, page.Data[0].Type)
		}
	}
}

// follow reads what is newer than cursor, page by page, into seen and
// returns the newest ID seen.
func follow(t *testing.T, c *client, path, cursor string, seen map[string]bool) string {
	t.Helper()
	for {
		var page struct {
			HasMore bool `json:"has_more"`
			Data    []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		getJSON(t, c, path+"?"+url.Values{"limit": {"100"}, "before": {cursor}}.Encode(), &page)
		for _, d := range page.Data {
			seen[d.ID] = true
			cursor = max(cursor, d.ID)
		}
		if len(page.Data) < 100 {
			return cursor
		}
	}
}

// newestID is the ID of the newest entry at path.
func newestID(t *testing.T, c *client, path string) string {
	t.Helper()
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	getJSON(t, c, path+"?limit=1", &page)
	if len(page.Data) != 1 {
		t.Fatalf("%s has no entries", path)
	}
	return page.Data[0].ID
}

// readAll reads every ID at path newer than since, newest first.
func readAll(t *testing.T, c *client, path, since string) []string {
	t.Helper()
	var ids []string
	after := ""
	for {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("after", after)
		}
		var page struct {
			HasMore bool `json:"has_more"`
			Data    []struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		getJSON(t, c, path+"?"+q.Encode(), &page)
		for _, d := range page.Data {
			if d.ID <= since {
				return ids
			}
			ids = append(ids, d.ID)
			after = d.ID
		}
		if !page.HasMore {
			return ids
		}
	}
}

func getJSON(t *testing.T, c *client, path string, v any) {
	t.Helper()
	a := c.do(context.Background(), "GET", path, nil)
	if a.err != nil || a.status != 200 {
		t.Fatalf("GET %s: %d %v %s", path, a.status, a.err, a.body)
	}
	if err := jsonInto(a.body, v); err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
}
