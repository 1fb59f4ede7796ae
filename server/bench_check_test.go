package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
	_ "modernc.org/sqlite"
)

// The list the check is measured on, and how many addresses it checks: a
// CRM export of checkAsk customers, one in two of them listed.
const (
	checkList = 100_000
	checkAsk  = 10_000
)

// BenchmarkCheck checks checkAsk addresses through the service (the
// client's batch.Checker over real HTTP: ten bulk requests of 1,000)
// against two floors, on both stores: exporting the whole list of
// checkList entries (the client's Export, CSV), and one indexed query
// for the same checkAsk addresses straight on the database (every
// address a probe of the unique (team, email) index, the listed ones'
// IDs returned). x_export and x_query are the check's time over each,
// measured in the same run.
//
//	go test ./server -run '^$' -bench Check -benchtime 20x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkCheck(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			var st store.Store
			var where string
			switch kind {
			case "sqlite":
				where = filepath.Join(b.TempDir(), "check.db")
				s, err := sqlite.Open(ctx, where)
				if err != nil {
					b.Fatal(err)
				}
				st = s
			case "postgres":
				where = pgtest.DSN(b)
				s, err := postgres.Open(ctx, where)
				if err != nil {
					b.Fatal(err)
				}
				st = s
			}
			defer st.Close()
			for i := 0; i < checkList; i += 1000 {
				emails := make([]string, 1000)
				for j := range emails {
					// Every other customer of the CRM export is listed.
					emails[j] = fmt.Sprintf("customer%07d@crm.example", 2*(i+j))
				}
				if _, err := st.Add(ctx, "bench", store.Change{}, store.Manual(emails...)); err != nil {
					b.Fatal(err)
				}
			}
			ask := make([]string, checkAsk)
			for i := range ask {
				ask[i] = fmt.Sprintf("customer%07d@crm.example", i)
			}
			// The team's budget of costly reads is raised out of the way, as the
			// rate limit is: the benchmark measures the work, not the pacing.
			s := startService(b, st, server.Options{Rate: 1e6, ReadBudget: time.Hour})
			c := client.New(s.url, s.key("bench", true))
			var export time.Duration
			b.Run("floor=export", func(b *testing.B) {
				for b.Loop() {
					n, err := c.Export(ctx, client.ExportParams{Format: "csv"}, io.Discard)
					if err != nil || n < int64(checkList)*40 {
						b.Fatalf("%d bytes, %v", n, err)
					}
				}
				export = b.Elapsed() / time.Duration(b.N)
			})
			query := checkQuery(b, kind, where)
			var floor time.Duration
			b.Run("floor=query", func(b *testing.B) {
				for b.Loop() {
					n, err := query(ctx, ask)
					if err != nil || n != checkAsk/2 {
						b.Fatalf("%d listed, %v", n, err)
					}
				}
				floor = b.Elapsed() / time.Duration(b.N)
			})
			b.Run(fmt.Sprintf("check=%d", checkAsk), func(b *testing.B) {
				for b.Loop() {
					k := &batch.Checker{Client: c}
					found, err := k.Check(ctx, ask)
					if err != nil || len(found) != checkAsk || !found[0].Listed || found[1].Listed || !k.Bulk() {
						b.Fatalf("%d answers, %v", len(found), err)
					}
				}
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(checkAsk)/per.Seconds(), "addresses/s")
				if export > 0 {
					b.ReportMetric(float64(per)/float64(export), "x_export")
				}
				if floor > 0 {
					b.ReportMetric(float64(per)/float64(floor), "x_query")
				}
			})
		})
	}
}

// checkQuery returns the floor of the check: one query, straight on the
// store's database (a SQLite file, or a PostgreSQL DSN), that finds which
// of the addresses the team "bench" lists, each by a probe of the unique
// (team, email) index, and reads their IDs; it says how many are listed.
func checkQuery(b *testing.B, kind, where string) func(ctx context.Context, emails []string) (int, error) {
	if kind == "sqlite" {
		db, err := sql.Open("sqlite", where)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
		return func(ctx context.Context, emails []string) (int, error) {
			list, err := json.Marshal(emails)
			if err != nil {
				return 0, err
			}
			// CROSS JOIN keeps SQLite's join order: each address a
			// probe of the unique index (team, email).
			rows, err := db.QueryContext(ctx, `SELECT s.email, s.id FROM json_each(?) AS k
				CROSS JOIN suppressions s ON s.team = 'bench' AND s.email = k.value`, string(list))
			if err != nil {
				return 0, err
			}
			return countRows(rows)
		}
	}
	pool, err := pgxpool.New(context.Background(), where)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return func(ctx context.Context, emails []string) (int, error) {
		rows, err := pool.Query(ctx, `SELECT s.email, s.id::text FROM unnest($1::text[]) AS k(email)
			JOIN suppressions s ON s.team = 'bench' AND s.email = k.email`, emails)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		n := 0
		for rows.Next() {
			var email, id string
			if err := rows.Scan(&email, &id); err != nil {
				return n, err
			}
			n++
		}
		return n, rows.Err()
	}
}

func countRows(rows *sql.Rows) (int, error) {
	defer rows.Close()
	n := 0
	for rows.Next() {
		var email, id string
		if err := rows.Scan(&email, &id); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}
