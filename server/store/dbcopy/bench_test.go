package dbcopy_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/dbcopy"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// BenchmarkCopy copies a list of SHUSH_BENCH_COPY_ENTRIES entries (default
// 1,000,000) with its trail (a change per 100 entries, a removal's audit
// row for every 20th entry) from SQLite to PostgreSQL and back, and in the
// same run the floor: the same tables dumped and restored by the
// databases' own tools (pg_dump | psql into an empty database; sqlite3's
// .dump | sqlite3 into a new file). It reports each copy's time over its
// floor (copy/floor) and checks the copies' checksums against the
// source's. It needs SHUSH_TEST_POSTGRES (a role that may create
// databases), pg_dump, psql and sqlite3.
//
//	SHUSH_TEST_POSTGRES=postgres://postgres@127.0.0.1:5432/test?sslmode=disable \
//	  go test ./server/store/dbcopy/ -run '^$' -bench BenchmarkCopy -benchtime 1x -timeout 60m
func BenchmarkCopy(b *testing.B) {
	base := os.Getenv(pgtest.EnvVar)
	if base == "" {
		b.Skip("set " + pgtest.EnvVar)
	}
	for _, tool := range []string{"pg_dump", "psql", "sqlite3"} {
		if _, err := exec.LookPath(tool); err != nil {
			b.Skipf("%s is not installed", tool)
		}
	}
	n := 1_000_000
	if v, err := strconv.Atoi(os.Getenv("SHUSH_BENCH_COPY_ENTRIES")); err == nil && v > 0 {
		n = v
	}
	ctx := context.Background()
	dir := b.TempDir()
	srcPath := filepath.Join(dir, "source.db")
	seedBench(b, srcPath, n)
	from := dbcopy.Endpoint{DSN: srcPath}
	want := sums(b, from)

	pgA, pgB := benchDatabase(b, base, "a"), benchDatabase(b, base, "b")
	st, err := postgres.Open(ctx, pgA)
	if err != nil {
		b.Fatal(err)
	}
	st.Close()
	toPG := dbcopy.Endpoint{DSN: pgA, Postgres: true}
	toLite := dbcopy.Endpoint{DSN: filepath.Join(dir, "back.db")}
	for range b.N {
		b.StopTimer()
		start := time.Now()
		if _, err := dbcopy.Copy(ctx, from, toPG, dbcopy.Options{Force: true}); err != nil {
			b.Fatal(err)
		}
		copyPG := time.Since(start)
		start = time.Now()
		run(b, "sh", "-c", "pg_dump --no-owner -d '"+pgA+"' | psql -q -v ON_ERROR_STOP=1 -d '"+pgB+"' >/dev/null")
		floorPG := time.Since(start)

		_ = os.Remove(toLite.DSN)
		lite, err := sqlite.Open(ctx, toLite.DSN)
		if err != nil {
			b.Fatal(err)
		}
		lite.Close()
		start = time.Now()
		if _, err := dbcopy.Copy(ctx, toPG, toLite, dbcopy.Options{Force: true}); err != nil {
			b.Fatal(err)
		}
		copyLite := time.Since(start)
		dumped := filepath.Join(dir, "dumped.db")
		_ = os.Remove(dumped)
		start = time.Now()
		run(b, "sh", "-c", "sqlite3 '"+srcPath+"' .dump | sqlite3 '"+dumped+"'")
		floorLite := time.Since(start)

		for _, e := range []dbcopy.Endpoint{toPG, toLite} {
			if got := sums(b, e); fmt.Sprint(got) != fmt.Sprint(want) {
				b.Fatalf("%s: the copy's checksums differ from the source's", e.DSN)
			}
		}
		resetPG(b, pgB)
		b.ReportMetric(copyPG.Seconds(), "s-sqlite-to-pg")
		b.ReportMetric(floorPG.Seconds(), "s-pg_dump|psql")
		b.ReportMetric(copyPG.Seconds()/floorPG.Seconds(), "copy/floor-pg")
		b.ReportMetric(copyLite.Seconds(), "s-pg-to-sqlite")
		b.ReportMetric(floorLite.Seconds(), "s-sqlite3.dump|sqlite3")
		b.ReportMetric(copyLite.Seconds()/floorLite.Seconds(), "copy/floor-sqlite")
	}
}

func run(b *testing.B, name string, args ...string) {
	b.Helper()
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		b.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

// benchDatabase makes an empty database of its own on the test server,
// dropped when the benchmark ends, and returns its URL.
func benchDatabase(b *testing.B, base, name string) string {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	db := "shush_bench_copy_" + name
	_, _ = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+db)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+db); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		c, err := pgx.Connect(ctx, base)
		if err == nil {
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+db+" WITH (FORCE)")
			c.Close(ctx)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		b.Fatal(err)
	}
	u.Path = "/" + db
	return u.String()
}

// resetPG empties the database the floor restores into.
func resetPG(b *testing.B, dsn string) {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"); err != nil {
		b.Fatal(err)
	}
}

// seedBench makes the source: n entries in changes of 100 (notes,
// expiries and evidence on some), and every 20th removed again.
func seedBench(b *testing.B, path string, n int) {
	b.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	until := time.Now().Add(90 * 24 * time.Hour)
	var wg sync.WaitGroup
	work := make(chan int)
	for range 8 {
		wg.Go(func() {
			for lo := range work {
				add := make([]store.NewEntry, 0, 100)
				var gone []string
				for i := lo; i < min(lo+100, n); i++ {
					e := store.NewEntry{Email: fmt.Sprintf("bench%07d@example.com", i), Origin: api.OriginBounce}
					switch i % 10 {
					case 1:
						e.Note = "asked on #" + strconv.Itoa(i)
					case 2:
						e.ExpiresAt = until
					case 3:
						e.Evidence = &api.Evidence{Provider: "sendgrid", Kind: api.EvidenceImport, Status: "5.1.1", Diagnostic: "550 5.1.1 no such user"}
					}
					add = append(add, e)
					if i%20 == 0 {
						gone = append(gone, e.Email)
					}
				}
				author := store.Change{KeyID: "bench", KeyName: "bench", RequestID: "r" + strconv.Itoa(lo)}
				if _, err := st.Add(ctx, "bench", author, add); err != nil {
					b.Error(err)
					return
				}
				if _, err := st.RemoveEmails(ctx, "bench", author, gone); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	for lo := 0; lo < n; lo += 100 {
		work <- lo
	}
	close(work)
	wg.Wait()
}
