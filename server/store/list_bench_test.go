package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// The lists BenchmarkListByOrigin and BenchmarkSearch read: the team
// asked about holds bigTeamSize entries (big-0000000@… to big-0999999@…),
// one in a thousand a bounce, the rest manual, and no complaint; every
// other one at big.example, the rest spread over a thousand domains
// (d000.example to d999.example, 500 each); another team holds
// otherTeamSize complaints at example.com, with IDs of the same times, so
// that a plan that left the team's own range would read them.
const (
	bigTeamSize   = 1_000_000
	otherTeamSize = 500_000
)

// listStores are the seeded stores, made once per process: seeding takes
// far longer than the benchmark.
var listStores struct {
	sync.Mutex
	open map[string]store.Store
	dir  string
	// pgDSN is the PostgreSQL store's database while it is open.
	pgDSN string
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, st := range listStores.open {
		st.Close()
	}
	if listStores.dir != "" {
		os.RemoveAll(listStores.dir)
	}
	os.Exit(code)
}

// BenchmarkListByOrigin reads the first page (limit 20 and 100) of a
// team of a million entries with and without an origin filter, on both
// stores: the origin of one entry in a thousand, and an origin the team
// has none of. x_plain is the filtered page's time over the plain page's
// time in the same run.
//
//	go test ./server/store -run '^$' -bench ListByOrigin -benchtime 2000x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkListByOrigin(b *testing.B) {
	benchPages(b, func(limit int) []pageCase {
		return []pageCase{
			{"origin=bounce(0.1%)", store.ListQuery{Origin: api.OriginBounce}, limit},
			{"origin=complaint(none)", store.ListQuery{Origin: api.OriginComplaint}, 0},
		}
	})
}

// pageCase is a page a benchmark reads: its query (the limit aside) and
// how many entries it must hold (-1: any; a bounded page may hold fewer
// than its limit, and reports how many it held).
type pageCase struct {
	name string
	q    store.ListQuery
	want int
}

// benchPages reads, on both stores' seeded list and with limits 20 and
// 100, each case's page and the plain first page in turn, one of each per
// iteration, and reports each one's time and the case's over the plain
// page's in the same iteration's pair (x_plain): every round of -count is
// its own pair, whatever the machine did meanwhile.
func benchPages(b *testing.B, cases func(limit int) []pageCase) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			st := seededListStore(b, kind)
			for _, limit := range []int{20, 100} {
				for _, c := range cases(limit) {
					b.Run(fmt.Sprintf("limit=%d/%s", limit, c.name), func(b *testing.B) {
						benchPair(b, st, limit, c)
					})
				}
			}
		})
	}
}

// benchPair times the case's page and the plain page alternately.
func benchPair(b *testing.B, st store.Store, limit int, c pageCase) {
	ctx := context.Background()
	q := c.q
	q.Limit = limit
	plainQ := store.ListQuery{Limit: limit}
	var plain, page time.Duration
	held := 0
	for b.Loop() {
		start := time.Now()
		if _, _, err := st.List(ctx, "big", plainQ); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		got, err := st.Page(ctx, "big", q)
		if err != nil {
			b.Fatal(err)
		}
		page += time.Since(mid)
		plain += mid.Sub(start)
		if c.want >= 0 && len(got.Entries) != c.want {
			b.Fatalf("%d entries, want %d", len(got.Entries), c.want)
		}
		held = len(got.Entries)
	}
	n := float64(b.N)
	b.ReportMetric(float64(page.Microseconds())/n, "page_µs")
	b.ReportMetric(float64(plain.Microseconds())/n, "plain_µs")
	b.ReportMetric(float64(page)/float64(plain), "x_plain")
	b.ReportMetric(float64(held), "entries")
}

func seededListStore(b *testing.B, kind string) store.Store {
	b.Helper()
	listStores.Lock()
	defer listStores.Unlock()
	if st, ok := listStores.open[kind]; ok {
		return st
	}
	if listStores.open == nil {
		listStores.open = map[string]store.Store{}
	}
	ctx := context.Background()
	var st store.Store
	switch kind {
	case "sqlite":
		if listStores.dir == "" {
			dir, err := os.MkdirTemp("", "shush-list-bench-")
			if err != nil {
				b.Fatal(err)
			}
			listStores.dir = dir
		}
		path := filepath.Join(listStores.dir, "list.db")
		if err := seedSQLiteList(path); err != nil {
			b.Fatalf("seed SQLite: %v", err)
		}
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		st = s
	case "postgres":
		// The schema outlives this sub-benchmark: it is dropped when the
		// whole benchmark ends.
		dsn := pgtest.DSN(b)
		s, err := postgres.Open(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		if err := seedPostgresList(ctx, dsn); err != nil {
			s.Close()
			b.Fatalf("seed PostgreSQL: %v", err)
		}
		listStores.pgDSN = dsn
		// pgtest drops the schema when b ends; the store must not be
		// kept past it.
		b.Cleanup(func() {
			listStores.Lock()
			delete(listStores.open, kind)
			listStores.Unlock()
			s.Close()
		})
		return s
	}
	listStores.open[kind] = st
	return st
}

// seedSQLiteList creates the store's schema at path and fills both teams
// with one statement each. IDs are UUIDv7-shaped, one a millisecond in the
// past, the two teams' interleaved.
func seedSQLiteList(path string) error {
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		return err
	}
	if err := st.Close(); err != nil {
		return err
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		return err
	}
	defer db.Close()
	base := time.Now().Add(-2 * time.Hour).UnixMilli()
	const fill = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
		INSERT INTO suppressions (team, id, email, origin, source_id, created_at)
		SELECT ?2, printf('%08x-%04x-7000-8000-%012x', (?3 + 2 * i + ?4) >> 16, (?3 + 2 * i + ?4) & 65535, i),
		       printf('%s-%07d@%s', ?2, i, DOMAIN), ORIGIN, NULL, ?3 + 2 * i + ?4
		FROM n`
	big := strings.NewReplacer("ORIGIN", "CASE WHEN i % 1000 = 0 THEN 'bounce' ELSE 'manual' END",
		"DOMAIN", "CASE WHEN i % 2 = 0 THEN 'big.example' ELSE printf('d%03d.example', (i / 2) % 1000) END")
	if _, err := db.Exec(big.Replace(fill), bigTeamSize, "big", base, 0); err != nil {
		return err
	}
	_, err = db.Exec(strings.NewReplacer("ORIGIN", "'complaint'", "DOMAIN", "'example.com'").Replace(fill), otherTeamSize, "other", base, 1)
	return err
}

// seedPostgresList fills both teams with generate_series and vacuums and
// analyzes the table, as autovacuum would after such a load.
func seedPostgresList(ctx context.Context, dsn string) error {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, fmt.Sprintf(`
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT (lpad(to_hex(b.ms + 2 * g), 12, '0') || '7000' || '8000' || lpad(to_hex(g), 12, '0'))::uuid,
		       'big', 'big-' || lpad(g::text, 7, '0') || '@' ||
		         CASE WHEN g %% 2 = 0 THEN 'big.example' ELSE 'd' || lpad(((g / 2) %% 1000)::text, 3, '0') || '.example' END,
		       CASE WHEN g %% 1000 = 0 THEN 'bounce' ELSE 'manual' END,
		       to_timestamp((b.ms + 2 * g) / 1000.0)
		FROM generate_series(0, %[1]d - 1) g, (SELECT (extract(epoch FROM now()) * 1000)::bigint - 7200000 AS ms) b;
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT (lpad(to_hex(b.ms + 2 * g + 1), 12, '0') || '7000' || '8000' || lpad(to_hex(g), 12, '0'))::uuid,
		       'other', 'other-' || g || '@example.com', 'complaint',
		       to_timestamp((b.ms + 2 * g + 1) / 1000.0)
		FROM generate_series(0, %[2]d - 1) g, (SELECT (extract(epoch FROM now()) * 1000)::bigint - 7200000 AS ms) b`, bigTeamSize, otherTeamSize))
	if err != nil {
		return err
	}
	// As autovacuum leaves a table after such a load: analyzed, its pages
	// all-visible (an index-only scan reads no row).
	_, err = conn.Exec(ctx, `VACUUM ANALYZE suppressions`)
	return err
}

// BenchmarkSearch reads the first page (limit 20 and 100) of searches of
// the million-entry team against its plain page, on both stores: a domain
// that holds half the list, a domain of 500 entries (one in 2,000), and
// prefixes of 100, 1,000, 10,000 and 100,000 addresses (the oldest ones,
// as an import in address order leaves them) and of the newest 10,000.
// x_plain is the search's page time over the plain page's, paired in each
// iteration; entries is how many the page held. A domain's page is a
// range of its index in ID order; a prefix's page is bounded: its
// matches sorted by ID when they are few, else the matches among a
// bounded stretch of the list (a page that may hold fewer than its limit,
// and says where it stopped).
//
//	go test ./server/store -run '^$' -bench Search -benchtime 2000x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkSearch(b *testing.B) {
	search := func(q string) store.ListQuery {
		s, err := api.ParseSearch(q)
		if err != nil {
			b.Fatal(err)
		}
		return store.ListQuery{Search: s}
	}
	benchPages(b, func(limit int) []pageCase {
		return []pageCase{
			{"domain(50%)", search("@big.example"), limit},
			{"domain(500)", search("@d007.example"), limit},
			{"prefix(100)", search("big-00012*"), min(limit, 100)},
			{"prefix(1000)", search("big-0001*"), -1},
			{"prefix(10000)", search("big-001*"), -1},
			{"prefix(100000)", search("big-01*"), -1},
			{"prefix(newest10000)", search("big-099*"), limit},
			{"address", search("big-0004242@big.example"), 1},
		}
	})
}
