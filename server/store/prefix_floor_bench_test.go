package store_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// BenchmarkPrefixFloor reads the first page (limit 20 and 100, newest
// first) of the prefix big-001* (10,000 matches, the oldest addresses,
// as an import in address order leaves them) three ways in turn in each
// iteration, on the seeded million-entry list of both stores: the plain
// first page, shush's prefix page (Store.Page), and the floor: the
// cheapest raw SQL for the same page, one statement over the same
// database that reads every match from the address index and keeps the
// newest by ID, with no bound on how many it reads. x_plain is shush's
// page over the plain page, x_floor shush's page over the floor, and
// floor_x_plain the floor over the plain page, each over the same
// iterations: what "a prefix page of 10,000 matches at most 3× a plain
// page" costs at the least.
//
//	go test ./server/store -run '^$' -bench PrefixFloor -benchtime 500x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkPrefixFloor(b *testing.B) {
	s, err := api.ParseSearch("big-001*")
	if err != nil {
		b.Fatal(err)
	}
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			st := seededListStore(b, kind)
			floor := prefixFloor(b, kind)
			for _, limit := range []int{20, 100} {
				b.Run(fmt.Sprintf("limit=%d/prefix(10000)", limit), func(b *testing.B) {
					ctx := context.Background()
					q := store.ListQuery{Search: s, Limit: limit}
					plainQ := store.ListQuery{Limit: limit}
					var plain, page, raw time.Duration
					for b.Loop() {
						t0 := time.Now()
						if _, _, err := st.List(ctx, "big", plainQ); err != nil {
							b.Fatal(err)
						}
						t1 := time.Now()
						got, err := st.Page(ctx, "big", q)
						if err != nil {
							b.Fatal(err)
						}
						t2 := time.Now()
						n, err := floor(ctx, limit)
						if err != nil {
							b.Fatal(err)
						}
						t3 := time.Now()
						plain, page, raw = plain+t1.Sub(t0), page+t2.Sub(t1), raw+t3.Sub(t2)
						if n != limit || len(got.Entries) == 0 {
							b.Fatalf("the floor read %d entries and shush %d, want %d", n, len(got.Entries), limit)
						}
					}
					k := float64(b.N)
					b.ReportMetric(float64(page.Microseconds())/k, "page_µs")
					b.ReportMetric(float64(plain.Microseconds())/k, "plain_µs")
					b.ReportMetric(float64(raw.Microseconds())/k, "floor_µs")
					b.ReportMetric(float64(page)/float64(plain), "x_plain")
					b.ReportMetric(float64(page)/float64(raw), "x_floor")
					b.ReportMetric(float64(raw)/float64(plain), "floor_x_plain")
				})
			}
		})
	}
}

// prefixFloor returns the floor's read of the prefix page of big-001* on
// the seeded store of this kind: how many entries it read.
func prefixFloor(b *testing.B, kind string) func(ctx context.Context, limit int) (int, error) {
	listStores.Lock()
	dir, dsn := listStores.dir, listStores.pgDSN
	listStores.Unlock()
	const cols = "id, email, origin, source_id, created_at, note, expires_at, evidence"
	if kind == "sqlite" {
		db, err := sql.Open("sqlite", filepath.Join(dir, "list.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		// The address index holds each match's ID (the table's key):
		// the newest IDs are sorted from it alone, and only their rows
		// are read. INDEXED BY pins that plan: reading every match's row
		// to sort them costs a look-up per match, and the rows are found
		// by their key (team, id): without the team, SQLite scans an
		// index of the whole list for the IDs (0.13 s a page).
		query := `SELECT ` + cols + ` FROM suppressions WHERE id IN (
			SELECT id FROM suppressions INDEXED BY suppressions_team_email
			WHERE team = 'big' AND email >= 'big-001' AND email < 'big-002' ORDER BY id DESC LIMIT ?)
			AND team = 'big' ORDER BY id DESC`
		return func(ctx context.Context, limit int) (int, error) {
			rows, err := db.QueryContext(ctx, query, limit)
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				var id, email, origin string
				var source, note, evidence sql.NullString
				var at, until sql.NullInt64
				if err := rows.Scan(&id, &email, &origin, &source, &at, &note, &until, &evidence); err != nil {
					return n, err
				}
				n++
			}
			return n, rows.Err()
		}
	}
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close(context.Background()) })
	// The address index holds each match's ID (an index-only scan);
	// the newest IDs are sorted from it, and only their rows are read.
	// MATERIALIZED pins that plan: without it the planner may walk the
	// team's IDs newest first and filter on the address, hoping for an
	// early match, and these matches are the oldest (0.15 s a page).
	query := `WITH m AS MATERIALIZED (SELECT id FROM suppressions WHERE team = 'big' AND email >= 'big-001' AND email < 'big-002')
		SELECT ` + cols + ` FROM suppressions WHERE id = ANY(ARRAY(SELECT id FROM m ORDER BY id DESC LIMIT $1))
		ORDER BY id DESC`
	return func(ctx context.Context, limit int) (int, error) {
		rows, err := conn.Query(ctx, query, limit)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			n++
		}
		return n, rows.Err()
	}
}
