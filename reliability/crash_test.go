package reliability

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// ledger is what the clients were told: adds and removes the service
// acknowledged. Requests whose answer never came may or may not have
// happened.
type ledger struct {
	mu        sync.Mutex
	added     map[string]string // ID -> address, acknowledged by an add
	removed   map[string]bool   // IDs acknowledged by a remove
	acks      int
	connFails int
	// cut holds add batches whose answer never came: each must be on
	// the list entirely or not at all.
	cut [][]string
	// cutRemoves holds remove batches (IDs) whose answer never came.
	cutRemoves [][]string
	other      []string
}

func newLedger() *ledger {
	return &ledger{added: map[string]string{}, removed: map[string]bool{}}
}

// load runs workers that add batches of new addresses and remove some of
// their own earlier ones by ID, until ctx ends or the service goes away.
func (l *ledger) load(ctx context.Context, c *client, workers int, prefix string) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			var mine []string
			for n := 0; ctx.Err() == nil; n++ {
				if n%4 == 3 && len(mine) >= 20 {
					batch := mine[len(mine)-20:]
					mine = mine[:len(mine)-20]
					ids, a := c.remove(ctx, api.BatchRemoveRequest{IDs: batch})
					if !l.record(ctx, a) {
						if a.err != nil && isConnErr(a.err) {
							l.mu.Lock()
							l.cutRemoves = append(l.cutRemoves, batch)
							l.mu.Unlock()
						}
						return
					}
					l.mu.Lock()
					for _, id := range ids {
						l.removed[id] = true
					}
					l.mu.Unlock()
					continue
				}
				emails := make([]string, 100)
				for i := range emails {
					emails[i] = fmt.Sprintf("%s-w%d-n%d-%d@crash.example.com", prefix, w, n, i)
				}
				ids, a := c.add(ctx, emails)
				if !l.record(ctx, a) {
					if a.err != nil && isConnErr(a.err) {
						l.mu.Lock()
						l.cut = append(l.cut, emails)
						l.mu.Unlock()
					}
					return
				}
				l.mu.Lock()
				for i, id := range ids {
					l.added[id] = emails[i]
				}
				l.mu.Unlock()
				mine = append(mine, ids...)
			}
		})
	}
	wg.Wait()
}

// record notes an answer and says whether the worker should go on.
func (l *ledger) record(ctx context.Context, a answer) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case ctx.Err() != nil:
		return false
	case a.err != nil && isConnErr(a.err):
		l.connFails++
		return false
	case a.err != nil:
		l.other = append(l.other, a.err.Error())
		return false
	case a.status == 201 || a.status == 200:
		l.acks++
		return true
	default:
		l.other = append(l.other, fmt.Sprintf("%d %s", a.status, a.body))
		return false
	}
}

// check compares the service's list with the ledger: every acknowledged add
// is there unless a remove took it (an acknowledged one, or one cut off by
// the kill, which then applied whole), no acknowledged remove is undone, no
// cut-off batch is half applied, and no address is listed twice.
func (l *ledger) check(t *testing.T, c *client) {
	t.Helper()
	list := c.list(t)
	byID := map[string]api.Entry{}
	byEmail := map[string]bool{}
	for _, e := range list {
		if byEmail[e.Email] {
			t.Errorf("%s is on the list twice", e.Email)
		}
		byEmail[e.Email] = true
		byID[e.ID] = e
	}
	maybeRemoved := map[string]bool{}
	for _, batch := range l.cutRemoves {
		n := 0
		for _, id := range batch {
			maybeRemoved[id] = true
			if _, on := byID[id]; on {
				n++
			}
		}
		if n != 0 && n != len(batch) {
			t.Errorf("a remove cut off by the kill is half applied: %d of %d entries still listed", n, len(batch))
		}
	}
	lost := 0
	for id, email := range l.added {
		e, on := byID[id]
		switch {
		case l.removed[id] && on:
			t.Errorf("entry %s (%s) was removed with an acknowledgement but is back", id, email)
		case !l.removed[id] && !on && !maybeRemoved[id]:
			lost++
			if lost <= 5 {
				t.Errorf("entry %s (%s) was acknowledged but is gone", id, email)
			}
		case on && e.Email != email:
			t.Errorf("entry %s holds %s, want %s", id, e.Email, email)
		}
	}
	if lost > 0 {
		t.Errorf("%d acknowledged entries lost", lost)
	}
	for _, batch := range l.cut {
		n := 0
		for _, e := range batch {
			if byEmail[e] {
				n++
			}
		}
		if n != 0 && n != len(batch) {
			t.Errorf("a batch cut off by the kill is half applied: %d of %d addresses listed", n, len(batch))
		}
	}
}

// cutApplied counts the cut-off batches that were applied in full.
func (l *ledger) cutApplied(t *testing.T, c *client) (applied, total int) {
	on := map[string]bool{}
	for _, e := range c.list(t) {
		on[e.Email] = true
	}
	for _, b := range l.cut {
		if on[b[0]] {
			applied++
		}
	}
	return applied, len(l.cut)
}

// TestCrashSQLite kills `shush serve` with SIGKILL under load, three times,
// and checks after each restart that nothing acknowledged was lost, that
// the database file passes PRAGMA integrity_check, and that the service
// answers at once.
func TestCrashSQLite(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "shush.db")
	crashCycles(t, dsn, func(t *testing.T) {
		db, err := sql.Open("sqlite", "file:"+dsn+"?_pragma=busy_timeout(5000)")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var res string
		if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil {
			t.Fatalf("integrity_check: %v", err)
		}
		if res != "ok" {
			t.Fatalf("PRAGMA integrity_check: %s", res)
		}
		var dups int
		if err := db.QueryRow(`SELECT count(*) FROM (SELECT team, email FROM suppressions GROUP BY team, email HAVING count(*) > 1)`).Scan(&dups); err != nil {
			t.Fatal(err)
		}
		if dups != 0 {
			t.Fatalf("%d (team, email) pairs are stored twice", dups)
		}
		report(t, "PRAGMA integrity_check: ok; duplicate (team, email): 0")
	})
}

// TestCrashPostgres is TestCrashSQLite on PostgreSQL; the consistency check
// is a query for duplicate (team, email) pairs and, where the amcheck
// extension is available, bt_index_check on every index of the table.
func TestCrashPostgres(t *testing.T) {
	dsn := pgtest.DSN(t)
	crashCycles(t, dsn, func(t *testing.T) {
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(ctx)
		var dups int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM (SELECT team, email FROM suppressions GROUP BY team, email HAVING count(*) > 1) d`).Scan(&dups); err != nil {
			t.Fatal(err)
		}
		if dups != 0 {
			t.Fatalf("%d (team, email) pairs are stored twice", dups)
		}
		var badIDs int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM suppressions WHERE id IS NULL OR email = '' OR created_at IS NULL`).Scan(&badIDs); err != nil {
			t.Fatal(err)
		}
		if badIDs != 0 {
			t.Fatalf("%d rows lack an ID, address or time", badIDs)
		}
		amcheck := "amcheck not available"
		var available bool
		_ = conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'amcheck')`).Scan(&available)
		if available {
			schema := schemaOf(t, dsn)
			n := 0
			err := withAmcheck(ctx, conn, func(ext string) error {
				rows, err := conn.Query(ctx, `
					SELECT c.relname, `+pgx.Identifier{ext}.Sanitize()+`.bt_index_check(c.oid, true) IS NULL
					FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
					JOIN pg_class r ON r.oid = i.indrelid
					WHERE r.relname = 'suppressions' AND r.relnamespace = $1::regnamespace`, schema)
				if err != nil {
					return err
				}
				for rows.Next() {
					n++
				}
				return rows.Err()
			})
			var ie *installError
			switch {
			case errors.As(err, &ie):
				amcheck = "amcheck could not be installed: " + ie.err.Error()
			case err != nil:
				t.Fatalf("amcheck bt_index_check: %v", err)
			default:
				amcheck = fmt.Sprintf("amcheck bt_index_check(heapallindexed) passed on %d indexes", n)
			}
		}
		report(t, "duplicate (team, email): 0; rows without ID/address/time: 0; %s", amcheck)
	})
}

// amcheckSchema is where withAmcheck puts the extension: a schema no
// test drops.
const amcheckSchema = "shush_amcheck"

// withAmcheck runs check with the amcheck extension installed, passing
// the schema of its functions. An extension is one per database, while
// each test has a schema of its own that is dropped when it ends (and
// other test runs share the database): installed into a test's schema it
// was found there by a concurrent test that did not have that schema on
// its path ("function bt_index_check does not exist"), or dropped under
// it, and two tests installing it at once collided. So the tests take
// turns (a session lock), install it in a schema of their own unless it
// is there already, call it by its schema's name, and drop what they
// installed, leaving the database as they found it.
func withAmcheck(ctx context.Context, conn *pgx.Conn, check func(schema string) error) error {
	const lock = `hashtext('shush tests: amcheck')`
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock(`+lock+`)`); err != nil {
		return err
	}
	defer conn.Exec(context.Background(), `SELECT pg_advisory_unlock(`+lock+`)`)
	var schema string
	err := conn.QueryRow(ctx, `SELECT n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'amcheck'`).Scan(&schema)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		if _, err := conn.Exec(ctx, `CREATE SCHEMA IF NOT EXISTS `+amcheckSchema+`; CREATE EXTENSION amcheck SCHEMA `+amcheckSchema); err != nil {
			return &installError{err}
		}
		schema = amcheckSchema
		defer conn.Exec(context.Background(), `DROP EXTENSION IF EXISTS amcheck; DROP SCHEMA IF EXISTS `+amcheckSchema)
	case err != nil:
		return err
	}
	return check(schema)
}

// installError is withAmcheck's failure to install the extension, which
// leaves the check out rather than failing it.
type installError struct{ err error }

func (e *installError) Error() string { return e.err.Error() }

func schemaOf(t *testing.T, dsn string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

func crashCycles(t *testing.T, dsn string, integrity func(t *testing.T)) {
	key := createKey(t, dsn, "crash", false)
	l := newLedger()
	const cycles = 3
	for cycle := 1; cycle <= cycles; cycle++ {
		p := serve(t, dsn, "--rate", "100000", "--log-format", "json")
		ready := p.waitHealthy()
		c := newClient(p.url, key)
		if cycle > 1 {
			// The service answers at once after the crash, with the
			// whole list.
			l.check(t, c)
			report(t, "cycle %d: restarted after SIGKILL, /healthz answered %v after start; all %d acknowledged adds (%d acknowledged removes) as expected",
				cycle, ready.Round(time.Millisecond), len(l.added), len(l.removed))
			if ready > 5*time.Second {
				t.Errorf("the restarted service took %v to answer", ready)
			}
		}
		// Kill while requests are in flight: after some have been
		// acknowledged.
		before := l.acks
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { l.load(ctx, c, 8, fmt.Sprintf("c%d", cycle)) })
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			l.mu.Lock()
			n := l.acks
			l.mu.Unlock()
			if n >= before+40 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		p.kill()
		wg.Wait()
		cancel()
		if len(l.other) > 0 {
			t.Fatalf("requests failed for reasons other than the kill: %v", l.other[:min(5, len(l.other))])
		}
		if l.acks < before+40 {
			t.Fatalf("only %d requests acknowledged before the kill", l.acks-before)
		}
		report(t, "cycle %d: killed with SIGKILL after %d acknowledged requests; %d requests cut off", cycle, l.acks-before, l.connFails)
		l.connFails = 0
		integrity(t)
	}
	p := serve(t, dsn, "--rate", "100000")
	ready := p.waitHealthy()
	c := newClient(p.url, key)
	l.check(t, c)
	applied, total := l.cutApplied(t, c)
	report(t, "final restart: /healthz answered %v after start; all %d acknowledged adds (%d acknowledged removes) as expected; of %d add batches cut off by the kills, %d were applied whole and the rest not at all",
		ready.Round(time.Millisecond), len(l.added), len(l.removed), total, applied)
	p.stop()
}
