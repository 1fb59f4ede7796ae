package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// BenchmarkKeyCache measures what the cache of verified keys saves, on a
// SQLite file and on PostgreSQL (when SHUSH_TEST_POSTGRES names a server)
// over real HTTP, against the uncached path in the same run (entries that
// expire at once, so every request reads its key): a look-up of one
// address, where authentication is a large share of the work, and a batch
// add of 100 new addresses, where it is a small one. x_uncached is the
// cached path's CPU per request over the uncached path's; on PostgreSQL
// the CPU is this process's only, not the database's.
//
//	go test ./server -run '^$' -bench KeyCache -benchtime 3000x -count 3
func BenchmarkKeyCache(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		st, err := sqlite.Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		benchKeyCache(b, st)
	})
	b.Run("postgres", func(b *testing.B) {
		dsn := pgtest.DSN(b)
		st, err := postgres.Open(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer st.Close()
		// A list of some size, analyzed, before the first add: statements
		// first planned on an empty table can keep plans that read the
		// whole team on a server without autovacuum.
		conn, err := pgx.Connect(context.Background(), dsn)
		if err != nil {
			b.Fatal(err)
		}
		_, err = conn.Exec(context.Background(), `
			INSERT INTO suppressions (id, team, email, origin, created_at)
			SELECT gen_random_uuid(), 'bench', 'seed-' || g || '@example.com', 'manual', now() - interval '1 hour'
			FROM generate_series(1, 50000) g;
			ANALYZE suppressions`)
		conn.Close(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		benchKeyCache(b, st)
	})
}

func benchKeyCache(b *testing.B, st store.Store) {
	var batch, teams atomic.Int64
	requests := []struct {
		name string
		make func(url string) *http.Request
		want int
	}{
		{"get", func(url string) *http.Request {
			req, _ := http.NewRequest("GET", url+"/suppressions/listed@example.com", nil)
			return req
		}, http.StatusOK},
		{"add100", func(url string) *http.Request {
			n := batch.Add(1)
			emails := make([]string, api.MaxBatch)
			for i := range emails {
				emails[i] = fmt.Sprintf("b%d-%d@example.com", n, i)
			}
			body, _ := json.Marshal(api.BatchAddRequest{Emails: emails})
			req, _ := http.NewRequest("POST", url+"/suppressions/batch/add", bytes.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			return req
		}, http.StatusCreated},
	}
	for _, r := range requests {
		var uncached time.Duration
		for _, cached := range []bool{false, true} {
			b.Run(fmt.Sprintf("%s/cached=%v", r.name, cached), func(b *testing.B) {
				// A team of its own each time, so that no run adds to a
				// list another run made longer.
				team := fmt.Sprintf("bench%d", teams.Add(1))
				_, key, err := CreateKey(context.Background(), st, team, false)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := st.Add(context.Background(), team, store.Change{}, store.Manual("listed@example.com")); err != nil {
					b.Fatal(err)
				}
				srv := New(st, Options{Rate: 1e9})
				if !cached {
					srv.keys.ttl = 0
				}
				ts := httptest.NewServer(srv)
				defer ts.Close()
				client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
				defer client.CloseIdleConnections()
				var failed atomic.Value
				cpu0, start := cputime.Process(), time.Now()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req := r.make(ts.URL)
						req.Header.Set("Authorization", "Bearer "+key)
						resp, err := client.Do(req)
						if err != nil {
							failed.Store(err)
							return
						}
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						if resp.StatusCode != r.want {
							failed.Store(fmt.Errorf("status %d, want %d", resp.StatusCode, r.want))
							return
						}
					}
				})
				b.StopTimer()
				elapsed, cpu := time.Since(start), cputime.Process()-cpu0
				if err, ok := failed.Load().(error); ok {
					b.Fatal(err)
				}
				per := cpu / time.Duration(b.N)
				b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
				b.ReportMetric(float64(per.Nanoseconds())/1000, "cpu_us/op")
				if !cached {
					uncached = per
				} else if uncached > 0 {
					b.ReportMetric(float64(per)/float64(uncached), "x_uncached")
				}
			})
		}
	}
}
