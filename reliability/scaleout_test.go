package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestTwoProcessesOnePostgres starts two `shush serve` processes at once
// on one fresh PostgreSQL database (so their migrations race too), and has
// clients of two teams add and remove overlapping addresses through both
// at the same time. Afterwards every team has exactly one entry per
// address, every acknowledged add is on the list unless an acknowledged
// remove took it, and no request failed for a reason other than the rate
// limit.
func TestTwoProcessesOnePostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	// The processes start on an empty schema, so that their migrations
	// race; the keys are made afterwards.
	var procs [2]*proc
	var wg sync.WaitGroup
	for i := range procs {
		wg.Go(func() { procs[i] = serve(t, dsn, "--rate", "100", "--log-format", "json") })
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, p := range procs {
		p.waitHealthy()
	}
	teams := []string{"alpha", "beta"}
	keys := map[string]string{}
	for _, tm := range teams {
		keys[tm] = createKey(t, dsn, tm, false)
	}

	const (
		workers  = 8
		pool     = 150
		duration = 3 * time.Second
	)
	addr := func(i int) string { return fmt.Sprintf("shared%03d@scale.example.com", i) }

	type ack struct {
		team   string
		add    bool
		ids    []string
		emails []string // for adds: the address of each ID
	}
	var (
		mu       sync.Mutex
		acks     []ack
		limited  int
		failures []string
	)
	// Requests in flight at the end run to their answer: one cut off
	// could have been applied without the test knowing.
	ctx := context.Background()
	end := time.Now().Add(duration)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 99))
			tm := teams[w%len(teams)]
			c := newClient(procs[(w/2)%2].url, keys[tm])
			var known []string // IDs this worker was given
			for time.Now().Before(end) {
				n := 1 + rng.IntN(30)
				seen := map[string]bool{}
				var emails []string
				for range n {
					e := addr(rng.IntN(pool))
					if !seen[e] {
						seen[e] = true
						emails = append(emails, e)
					}
				}
				var a answer
				var got ack
				switch r := rng.IntN(10); {
				case r < 6:
					var ids []string
					ids, a = c.add(ctx, emails)
					got = ack{team: tm, add: true, ids: ids, emails: emails}
					known = append(known, ids...)
				case r < 8 || len(known) == 0:
					var ids []string
					ids, a = c.remove(ctx, api.BatchRemoveRequest{Emails: emails})
					got = ack{team: tm, ids: ids}
				default:
					k := min(len(known), n)
					pick := make([]string, 0, k)
					for range k {
						pick = append(pick, known[rng.IntN(len(known))])
					}
					pick = dedupe(pick)
					var ids []string
					ids, a = c.remove(ctx, api.BatchRemoveRequest{IDs: pick})
					got = ack{team: tm, ids: ids}
				}
				mu.Lock()
				switch {
				case a.err != nil:
					failures = append(failures, a.err.Error())
				case a.status == 429:
					if e := a.apiError(); e.Name != api.ErrRateLimitExceeded {
						failures = append(failures, fmt.Sprintf("429 named %q", e.Name))
					}
					limited++
					mu.Unlock()
					time.Sleep(50 * time.Millisecond)
					continue
				case a.status == 200 || a.status == 201:
					acks = append(acks, got)
				default:
					failures = append(failures, fmt.Sprintf("%d %s", a.status, a.body))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d requests failed for a reason other than the rate limit, e.g. %v", len(failures), failures[:min(5, len(failures))])
	}

	for _, tm := range teams {
		added := map[string]string{} // ID -> address
		removed := map[string]bool{}
		for _, a := range acks {
			if a.team != tm {
				continue
			}
			for i, id := range a.ids {
				if a.add {
					if prev, ok := added[id]; ok && prev != a.emails[i] {
						t.Fatalf("team %s: ID %s given for %s and %s", tm, id, prev, a.emails[i])
					}
					added[id] = a.emails[i]
				} else {
					if removed[id] {
						t.Errorf("team %s: entry %s reported removed twice", tm, id)
					}
					removed[id] = true
				}
			}
		}
		for id := range removed {
			if _, ok := added[id]; !ok {
				t.Errorf("team %s: a remove reported entry %s, which no add of the team returned", tm, id)
			}
		}
		// Read the list through each process: both see the same.
		var lists [2]map[string]string
		for i, p := range procs {
			lists[i] = map[string]string{}
			for _, e := range newClient(p.url, keys[tm]).list(t) {
				for id, email := range lists[i] {
					if email == e.Email {
						t.Errorf("team %s: %s is listed twice (%s and %s)", tm, e.Email, id, e.ID)
					}
				}
				lists[i][e.ID] = e.Email
			}
		}
		if len(lists[0]) != len(lists[1]) {
			t.Errorf("team %s: the processes list %d and %d entries", tm, len(lists[0]), len(lists[1]))
		}
		for id, email := range lists[0] {
			if added[id] != email {
				t.Errorf("team %s: listed entry %s (%s) was not returned by any add of the team as that address", tm, id, email)
			}
		}
		for id, email := range added {
			_, on := lists[0][id]
			if on == removed[id] {
				t.Errorf("team %s: entry %s (%s): listed %v, reported removed %v", tm, id, email, on, removed[id])
			}
		}
		report(t, "team %s: %d entries listed, %d distinct entries acknowledged by adds, %d acknowledged removed", tm, len(lists[0]), len(added), len(removed))
	}
	report(t, "%d requests acknowledged through 2 processes in %v, %d answered 429 (rate limit 100/s per team per process), 0 other failures", len(acks), duration, limited)
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
