package server_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shushlist/shush/api"
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
// paired measures the check and its floors in paired rounds: the query,
// the same query reading every column of the entries (checkEntries: what
// the store must read for the answer), the wire (checkWire: the ten
// requests and their answers over HTTP, encoded and decoded, without the
// service) and the check. x_query is the check over the query;
// x_entries+wire the check over the entries and the wire, the floor of
// what a check over HTTP cannot avoid.
//
//	go test ./server -run '^$' -bench 'Check$' -benchtime 10x -count 3
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
			// The same, in paired rounds: each iteration runs the query,
			// the query of the entries, the wire and the check, the
			// order turning, so that a loaded machine weighs on each alike.
			entries := checkEntries(b, kind, where)
			wire := checkWire(b, s, s.key("bench", true), ask)
			b.Run(fmt.Sprintf("paired=%d", checkAsk), func(b *testing.B) {
				var took [4]time.Duration
				steps := [4]func() error{
					func() error { return want(query(ctx, ask)) },
					func() error { return want(entries(ctx, ask)) },
					func() error { return want(wire(ctx)) },
					func() error {
						k := &batch.Checker{Client: c}
						found, err := k.Check(ctx, ask)
						if err == nil && (len(found) != checkAsk || !found[0].Listed || found[1].Listed || !k.Bulk()) {
							err = fmt.Errorf("%d answers", len(found))
						}
						return err
					},
				}
				round := 0
				for b.Loop() {
					for j := range steps {
						at := (round + j) % len(steps)
						start := time.Now()
						if err := steps[at](); err != nil {
							b.Fatal(err)
						}
						took[at] += time.Since(start)
					}
					round++
				}
				n := float64(round)
				for i, name := range []string{"query", "entries", "wire", "check"} {
					b.ReportMetric(took[i].Seconds()*1000/n, name+"_ms")
				}
				b.ReportMetric(float64(took[3])/float64(took[0]), "x_query")
				b.ReportMetric(float64(took[3])/float64(took[1]+took[2]), "x_entries+wire")
			})
		})
	}
}

// want says whether a floor found the listed half of the addresses.
func want(n int, err error) error {
	if err == nil && n != checkAsk/2 {
		err = fmt.Errorf("%d listed, want %d", n, checkAsk/2)
	}
	return err
}

// checkEntries is the query of checkQuery reading every column of the
// entries the check answers with (what each listed address's item holds),
// each into a plain Go value: what the store must read for the check at
// least.
func checkEntries(b *testing.B, kind, where string) func(ctx context.Context, emails []string) (int, error) {
	return floorQuery(b, kind, where, `SELECT s.id, s.email, s.origin, s.source_id, s.created_at, s.note,
			s.expires_at, s.evidence, s.erased_domain FROM json_each(?) AS k
		CROSS JOIN suppressions s ON s.team = 'bench' AND s.email = k.value`, checkEntriesSQL,
		func() []any {
			var id, email, origin string
			var source, note, evidence, domain *string
			if kind == "sqlite" {
				var at int64
				var until *int64
				return []any{&id, &email, &origin, &source, &at, &note, &until, &evidence, &domain}
			}
			var at time.Time
			var until *time.Time
			return []any{&id, &email, &origin, &source, &at, &note, &until, &evidence, &domain}
		})
}

// checkWire is the check's traffic without the service: the same ten
// requests of api.MaxCheck addresses over real HTTP (net/http, a new
// server on loopback), the handler decoding each request's addresses and
// encoding the answer the service gave for them (taken from it once),
// the client reading and decoding each answer. It says how many of the
// items are listed.
func checkWire(b *testing.B, s *service, key string, ask []string) func(ctx context.Context) (int, error) {
	answers := map[string]api.CheckResponse{}
	var bodies [][]byte
	for lo := 0; lo < len(ask); lo += api.MaxCheck {
		body, err := json.Marshal(api.CheckRequest{Emails: ask[lo:min(lo+api.MaxCheck, len(ask))]})
		if err != nil {
			b.Fatal(err)
		}
		r := s.post("/suppressions/batch/check", key, string(body))
		if r.status != http.StatusOK {
			b.Fatalf("check: %d %s", r.status, r.body)
		}
		answer, err := api.DecodeCheckResponse(r.body)
		if err != nil {
			b.Fatal(err)
		}
		answers[ask[lo]] = answer
		bodies = append(bodies, body)
	}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req api.CheckRequest
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Emails) == 0 {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		answer, err := answers[req.Emails[0]].AppendJSON(nil)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(answer)))
		_, _ = w.Write(answer)
	}))
	b.Cleanup(ts.Close)
	hc := ts.Client()
	return func(ctx context.Context) (int, error) {
		n := 0
		for _, body := range bodies {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, bytes.NewReader(body))
			if err != nil {
				return n, err
			}
			req.Header.Set("Content-Type", "application/json")
			resp, err := hc.Do(req)
			if err != nil {
				return n, err
			}
			got, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return n, err
			}
			answer, err := api.DecodeCheckResponse(got)
			if err != nil {
				return n, err
			}
			for _, it := range answer.Data {
				if it.Listed {
					n++
				}
			}
		}
		return n, nil
	}
}

// checkQuery returns the floor of the check: one query, straight on the
// store's database (a SQLite file, or a PostgreSQL DSN), that finds which
// of the addresses the team "bench" lists, each by a probe of the unique
// (team, email) index, and reads their IDs; it says how many are listed.
func checkQuery(b *testing.B, kind, where string) func(ctx context.Context, emails []string) (int, error) {
	// CROSS JOIN keeps SQLite's join order: each address a probe of the
	// unique index (team, email).
	return floorQuery(b, kind, where, `SELECT s.email, s.id FROM json_each(?) AS k
		CROSS JOIN suppressions s ON s.team = 'bench' AND s.email = k.value`, checkQuerySQL,
		func() []any {
			var email, id string
			return []any{&email, &id}
		})
}

// floorQuery runs a floor's statement straight on the store's database:
// sqliteSQL with the addresses as one JSON array, or pgSQL with them as a
// text array, checked first to be planned as probes of the address index
// (a plain JOIN is planned as a hash join over the team's whole list,
// 55-175 ms here; LATERAL makes each address a probe). Each row is read
// into the values dests gives; it says how many rows there were.
func floorQuery(b *testing.B, kind, where, sqliteSQL, pgSQL string, dests func() []any) func(ctx context.Context, emails []string) (int, error) {
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
			rows, err := db.QueryContext(ctx, sqliteSQL, string(list))
			if err != nil {
				return 0, err
			}
			defer rows.Close()
			return countScanned(rows, dests())
		}
	}
	pool, err := pgxpool.New(context.Background(), where)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	probes(b, pool, pgSQL)
	return func(ctx context.Context, emails []string) (int, error) {
		rows, err := pool.Query(ctx, pgSQL, emails)
		if err != nil {
			return 0, err
		}
		defer rows.Close()
		return countScanned(rows, dests())
	}
}

// scannedRows is what database/sql's and pgx's rows both do.
type scannedRows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// countScanned reads every row into dest and says how many there were.
func countScanned(rows scannedRows, dest []any) (int, error) {
	n := 0
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

// The PostgreSQL floors: each address a probe of the unique (team,
// email) index (at most one entry each: LIMIT 1 changes nothing but the
// plan).
const (
	checkQuerySQL = `SELECT x.email, x.id::text FROM unnest($1::text[]) AS k(email) CROSS JOIN LATERAL (
		SELECT s.email, s.id FROM suppressions s WHERE s.team = 'bench' AND s.email = k.email LIMIT 1) x`
	checkEntriesSQL = `SELECT x.* FROM unnest($1::text[]) AS k(email) CROSS JOIN LATERAL (
		SELECT s.id::text, s.email, s.origin, s.source_id, s.created_at, s.note, s.expires_at, s.evidence, s.erased_domain
		FROM suppressions s WHERE s.team = 'bench' AND s.email = k.email LIMIT 1) x`
)

// probes fails the benchmark unless PostgreSQL plans the floor q as
// probes of the address index.
func probes(b *testing.B, pool *pgxpool.Pool, q string) {
	rows, err := pool.Query(context.Background(), "EXPLAIN (COSTS OFF) "+q, []string{"a@crm.example"})
	if err != nil {
		b.Fatal(err)
	}
	defer rows.Close()
	var plan string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			b.Fatal(err)
		}
		plan += line + "\n"
	}
	if !strings.Contains(plan, "Nested Loop") || !strings.Contains(plan, "suppressions_team_email") {
		b.Fatalf("the floor is not planned as probes of the address index:\n%s", plan)
	}
}
