package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

func open(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// Several processes starting at once on a fresh database must each find
// the schema complete, and it must be created once.
func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	stores := make([]*postgres.Store, n)
	for i := range n {
		wg.Go(func() {
			stores[i], errs[i] = postgres.Open(t.Context(), dsn)
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	// Every store works on the same list.
	if _, err := stores[0].Add(t.Context(), "t", store.Change{}, store.Manual([]string{"a@example.com"}...)); err != nil {
		t.Fatal(err)
	}
	for i, st := range stores {
		if _, err := st.GetByEmail(t.Context(), "t", "a@example.com"); err != nil {
			t.Errorf("store %d does not see the entry: %v", i, err)
		}
	}
	// Opening again is a no-op.
	open(t, dsn)
}

func TestBadDSNDoesNotLeakPassword(t *testing.T) {
	_, err := postgres.Open(t.Context(), "postgres://u:s3cret@[::1")
	if err == nil {
		t.Fatal("no error for a malformed DSN")
	}
	if got := err.Error(); contains(got, "s3cret") {
		t.Errorf("error shows the password: %s", got)
	}
}

func TestUnreachableIsUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	// Port 1 on loopback refuses connections.
	_, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:1/test?sslmode=disable&connect_timeout=2")
	if !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Open on a closed port: %v, want store.ErrUnavailable", err)
	}
}

// Two pools (as two service processes would have) add and remove
// overlapping addresses concurrently. Afterwards each address is on the
// list at most once, concurrent adds of one address agree on its ID, and
// the final list is what the last acknowledged operation on each address
// says.
func TestConcurrentOverlappingAddRemove(t *testing.T) {
	dsn := pgtest.DSN(t)
	stores := []*postgres.Store{open(t, dsn), open(t, dsn)}
	const (
		team    = "acme"
		pool    = 60
		workers = 8
		rounds  = 100
	)
	addr := func(i int) string { return fmt.Sprintf("user%02d@example.com", i) }

	type op struct {
		add   bool
		email string
		id    string
	}
	var mu sync.Mutex
	var ops []op
	var wg sync.WaitGroup
	errc := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(w), 7))
			st := stores[w%2]
			for range rounds {
				n := 1 + rng.IntN(20)
				seen := map[string]bool{}
				var emails []string
				for range n {
					e := addr(rng.IntN(pool))
					if !seen[e] {
						seen[e] = true
						emails = append(emails, e)
					}
				}
				if rng.IntN(3) > 0 {
					got, err := st.Add(t.Context(), team, store.Change{}, store.Manual(emails...))
					if err != nil {
						errc <- fmt.Errorf("add: %w", err)
						return
					}
					if len(got) != len(emails) {
						errc <- fmt.Errorf("add of %d addresses returned %d entries", len(emails), len(got))
						return
					}
					mu.Lock()
					for i, e := range got {
						if e.Email != emails[i] {
							errc <- fmt.Errorf("add entry %d is %s, want %s", i, e.Email, emails[i])
						}
						ops = append(ops, op{add: true, email: e.Email, id: e.ID})
					}
					mu.Unlock()
				} else {
					got, err := st.RemoveEmails(t.Context(), team, store.Change{}, emails)
					if err != nil {
						errc <- fmt.Errorf("remove: %w", err)
						return
					}
					mu.Lock()
					for _, e := range got {
						ops = append(ops, op{email: e.Email, id: e.ID})
					}
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}

	// Every entry ID ever returned names one address only, and a removal
	// only ever removes an ID some add returned.
	idEmail := map[string]string{}
	for _, o := range ops {
		if prev, ok := idEmail[o.id]; ok && prev != o.email {
			t.Fatalf("ID %s returned for %s and %s", o.id, prev, o.email)
		}
		idEmail[o.id] = o.email
	}
	added := map[string]bool{}
	for _, o := range ops {
		if o.add {
			added[o.id] = true
		}
	}
	for _, o := range ops {
		if !o.add && !added[o.id] {
			t.Fatalf("remove returned ID %s that no add returned", o.id)
		}
	}

	// The list: one entry per address, each with an ID an add returned.
	var all []store.Entry
	after := ""
	for {
		page, more, err := stores[0].List(t.Context(), team, store.ListQuery{Limit: 100, After: after})
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if !more {
			break
		}
		after = page[len(page)-1].ID
	}
	onList := map[string]bool{}
	for _, e := range all {
		if onList[e.Email] {
			t.Fatalf("%s is on the list twice", e.Email)
		}
		onList[e.Email] = true
		if !added[e.ID] {
			t.Errorf("%s has ID %s that no add returned", e.Email, e.ID)
		}
	}
	// Every entry an add acknowledged is on the list unless a remove
	// reported taking it off.
	removed := map[string]bool{}
	for _, o := range ops {
		if !o.add {
			if removed[o.id] {
				t.Fatalf("ID %s removed twice", o.id)
			}
			removed[o.id] = true
		}
	}
	listed := map[string]bool{}
	for _, e := range all {
		listed[e.ID] = true
	}
	for id := range added {
		if listed[id] == removed[id] {
			t.Errorf("entry %s (%s): on the list %v, reported removed %v", id, idEmail[id], listed[id], removed[id])
		}
	}
	if len(ops) < workers*rounds {
		t.Fatalf("only %d operations acknowledged", len(ops))
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

// Re-adding listed addresses reads their rows and writes none: the row
// version (xmin) and place (ctid) stay, so a re-import of a big list makes
// no dead tuples, index entries or WAL for what was already there.
func TestReAddDoesNotRewrite(t *testing.T) {
	dsn := pgtest.DSN(t)
	st := open(t, dsn)
	ctx := t.Context()
	emails := []string{"kept@example.com", "also@example.com"}
	if _, err := st.Add(ctx, "t", store.Change{}, store.Manual(emails...)); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	version := func() string {
		var v string
		err := conn.QueryRow(ctx, `SELECT string_agg(email || ' ' || xmin::text || ' ' || ctid::text, ', ' ORDER BY email) FROM suppressions WHERE team = 't'`).Scan(&v)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	before := version()
	got, err := st.Add(ctx, "t", store.Change{}, store.Manual(append([]string{"new@example.com"}, emails...)...))
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Created || got[1].Created || got[2].Created {
		t.Fatalf("re-add: created %v %v %v; want only the new address created", got[0].Created, got[1].Created, got[2].Created)
	}
	after := version()
	for _, line := range strings.Split(before, ", ") {
		if !strings.Contains(after, line) {
			t.Errorf("the listed row %q was rewritten: now %q", line, after)
		}
	}
}

// Two sweepers (two serve processes) on one database remove each expired
// entry once: one audit entry and one webhook event each, every entry
// gone, however their sweeps interleave.
func TestTwoSweepersRemoveEachEntryOnce(t *testing.T) {
	dsn := pgtest.DSN(t)
	a, b := open(t, dsn), open(t, dsn)
	ctx := t.Context()
	const n = 600
	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	hook := store.Webhook{ID: "01a1fe15-ef7e-7c10-a222-42a32cbb09a1", Team: "t", Endpoint: "https://example.com/hook",
		Events: []string{store.AuditRemoved}, Status: "enabled", Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0", CreatedAt: base}
	if err := a.CreateWebhook(ctx, hook, 0); err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo < n; lo += 100 {
		var add []store.NewEntry
		for i := lo; i < lo+100; i++ {
			add = append(add, store.NewEntry{Email: fmt.Sprintf("u%04d@example.com", i), ExpiresAt: base.Add(time.Duration(i) * time.Millisecond)})
		}
		if _, err := a.Add(ctx, "t", store.Change{}, add); err != nil {
			t.Fatal(err)
		}
	}
	now := base.Add(time.Hour)
	var wg sync.WaitGroup
	removed := make([]int, 2)
	errs := make([]error, 2)
	for i, st := range []*postgres.Store{a, b} {
		wg.Go(func() {
			for {
				k, err := st.RemoveExpired(ctx, now, 25)
				if err != nil {
					errs[i] = err
					return
				}
				if k == 0 {
					return
				}
				removed[i] += k
			}
		})
	}
	wg.Wait()
	if errs[0] != nil || errs[1] != nil {
		t.Fatalf("sweeps failed: %v, %v", errs[0], errs[1])
	}
	if removed[0]+removed[1] != n {
		t.Errorf("the sweepers removed %d and %d entries: %d in all; want %d", removed[0], removed[1], removed[0]+removed[1], n)
	}
	var audits, events, left int
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM audit WHERE type = 'suppression.removed' AND reference = 'expired' AND key_id = ''),
		(SELECT count(*) FROM webhook_events), (SELECT count(*) FROM suppressions)`).
		Scan(&audits, &events, &left); err != nil {
		t.Fatal(err)
	}
	if audits != n || events != n || left != 0 {
		t.Errorf("after both sweeps: %d audit entries, %d events, %d entries left; want %d, %d, 0", audits, events, left, n, n)
	}
	t.Logf("the sweepers removed %d and %d", removed[0], removed[1])
}

// An add made while another process's clock has put the team's trail
// head an hour ahead mints above it; see storetest.AddAboveTheHead.
func TestAddAboveTheHead(t *testing.T) {
	dsn := pgtest.DSN(t)
	st := open(t, dsn)
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	storetest.AddAboveTheHead(t, st, func(team, id string) {
		if _, err := conn.Exec(t.Context(), `UPDATE trail_heads SET last_id = $2 WHERE team = $1`, team, id); err != nil {
			t.Fatal(err)
		}
	}, func(team string) (last string) {
		if err := conn.QueryRow(t.Context(), `SELECT last_id::text FROM trail_heads WHERE team = $1`, team).Scan(&last); err != nil {
			t.Fatal(err)
		}
		return last
	})
}
