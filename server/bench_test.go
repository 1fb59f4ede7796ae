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
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// benchSeed is how many entries the benchmark's list holds before it
// starts; benchClients how many clients send batches at once.
const (
	benchSeed    = 1_000_000
	benchClients = 8
	benchTeam    = "bench"
)

// seeded is the benchmark's database, built once per process: seeding a
// million entries takes far longer than the benchmark itself.
var seeded struct {
	once sync.Once
	dir  string
	st   *sqlite.Store
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if seeded.st != nil {
		seeded.st.Close()
	}
	if seeded.dir != "" {
		os.RemoveAll(seeded.dir)
	}
	os.Exit(code)
}

func seededStore(b *testing.B) *sqlite.Store {
	b.Helper()
	seeded.once.Do(func() {
		seeded.dir, seeded.err = os.MkdirTemp("", "shush-bench-")
		if seeded.err != nil {
			return
		}
		path := filepath.Join(seeded.dir, "bench.db")
		if seeded.err = seed(path); seeded.err != nil {
			return
		}
		seeded.st, seeded.err = sqlite.Open(context.Background(), path)
	})
	if seeded.err != nil {
		b.Fatalf("seed the benchmark database: %v", seeded.err)
	}
	return seeded.st
}

// seed creates the database at path with the store's schema and fills it
// with benchSeed entries of benchTeam in one SQL statement: going through
// the store would take minutes. The entries have UUIDv7 IDs of the last
// hour, all older than the benchmark's own.
func seed(path string) error {
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
	base := time.Now().Add(-time.Hour).UnixMilli()
	_, err = db.Exec(`WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < ?1)
		INSERT INTO suppressions (team, id, email, origin, source_id, created_at)
		SELECT ?2, printf('%08x-%04x-7000-8000-%012x', (?3 + i) >> 16, (?3 + i) & 65535, i),
		       printf('seed-%07d@example.com', i), 'manual', NULL, ?3 + i
		FROM n`, benchSeed, benchTeam, base)
	return err
}

// BenchmarkBatchAdd measures batch adds of 100 new addresses by 8
// concurrent clients on a list of a million entries: first straight into
// the store, then through the service over loopback HTTP.
func BenchmarkBatchAdd(b *testing.B) {
	st := seededStore(b)
	var round atomic.Int64
	fresh := func() func() []string {
		r := round.Add(1)
		var n atomic.Int64
		return func() []string {
			k := n.Add(1)
			out := make([]string, api.MaxBatch)
			for i := range out {
				out[i] = fmt.Sprintf("r%d-b%d-%d@example.com", r, k, i)
			}
			return out
		}
	}
	var storeRate float64
	b.Run("store", func(b *testing.B) {
		next := fresh()
		storeRate = runClients(b, func(ctx context.Context) error {
			got, err := st.Add(ctx, benchTeam, store.Change{}, store.Manual(next()...))
			if err == nil && len(got) != api.MaxBatch {
				err = fmt.Errorf("%d entries for %d addresses", len(got), api.MaxBatch)
			}
			return err
		})
	})
	b.Run("http", func(b *testing.B) {
		_, key, err := server.CreateKey(context.Background(), st, benchTeam, false)
		if err != nil {
			b.Fatal(err)
		}
		ts := httptest.NewServer(server.New(st, server.Options{Rate: 1e9}))
		defer ts.Close()
		client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: benchClients, MaxConnsPerHost: benchClients}}
		defer client.CloseIdleConnections()
		next := fresh()
		rate := runClients(b, func(ctx context.Context) error {
			body, _ := json.Marshal(api.BatchAddRequest{Emails: next()})
			req, _ := http.NewRequestWithContext(ctx, "POST", ts.URL+"/suppressions/batch/add", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				return err
			}
			defer resp.Body.Close()
			var out api.BatchResponse
			err = json.NewDecoder(resp.Body).Decode(&out)
			io.Copy(io.Discard, resp.Body)
			if resp.StatusCode != http.StatusCreated || err != nil || len(out.Data) != api.MaxBatch {
				return fmt.Errorf("status %d, %d items, %v", resp.StatusCode, len(out.Data), err)
			}
			return nil
		})
		if storeRate > 0 {
			b.ReportMetric(100*rate/storeRate, "%_of_store")
		}
	})
}

// runClients runs b.N calls of do from benchClients goroutines and reports
// the rate and the latency percentiles; it returns the rate.
func runClients(b *testing.B, do func(ctx context.Context) error) float64 {
	b.Helper()
	ctx := context.Background()
	lat := make([][]time.Duration, benchClients)
	var left atomic.Int64
	left.Store(int64(b.N))
	var failed atomic.Value
	var wg sync.WaitGroup
	b.ResetTimer()
	cpu0 := cputime.Process()
	start := time.Now()
	for c := 0; c < benchClients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for left.Add(-1) >= 0 {
				t0 := time.Now()
				if err := do(ctx); err != nil {
					failed.Store(err)
					return
				}
				lat[c] = append(lat[c], time.Since(t0))
			}
		}(c)
	}
	wg.Wait()
	elapsed := time.Since(start)
	cpu := cputime.Process() - cpu0
	b.StopTimer()
	if err, ok := failed.Load().(error); ok {
		b.Fatalf("a batch failed: %v", err)
	}
	all := slices.Concat(lat...)
	slices.Sort(all)
	pct := func(p float64) float64 {
		return float64(all[min(len(all)-1, int(p*float64(len(all))))].Microseconds()) / 1000
	}
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "req/s")
	b.ReportMetric(pct(0.50), "p50_ms")
	b.ReportMetric(pct(0.99), "p99_ms")
	// CPU per batch (of the whole process: server and clients) does not
	// depend on how busy the machine's other processes keep it.
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu_ms/op")
	return rate
}

var _ store.Store = (*sqlite.Store)(nil)
