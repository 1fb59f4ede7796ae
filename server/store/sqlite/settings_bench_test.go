package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server/store"
)

// settingsSeed is the list the settings are compared on: large enough
// that its address index (about 60 MB) does not fit the small page cache.
const settingsSeed = 1_000_000

// BenchmarkSettings compares page cache sizes, memory-mapped I/O and
// where temporary files go, on a copy of the same 1,000,000-entry file for
// each setting, in one run. Its works: import, batch adds of 100 new
// addresses in random order, one after another, each a durable commit
// (what an import does on the service); import-sorted, the same with each
// batch's addresses after the last's (a sorted input file); read, look-ups of random listed
// addresses by 2 readers; read+write, the same look-ups while a writer
// commits batch adds (every commit makes each reader start its next read
// transaction afresh, which unmaps what it had mapped).
//
//	go test ./server/store/sqlite -run '^$' -bench 'Settings/.*/import' -benchtime 300x -count 3
//	go test ./server/store/sqlite -run '^$' -bench 'Settings/.*/read' -benchtime 20000x -count 3
func BenchmarkSettings(b *testing.B) {
	seed := filepath.Join(b.TempDir(), "seed.db")
	if err := seedSettings(seed); err != nil {
		b.Fatal(err)
	}
	type setting struct {
		name      string
		cache     int
		mmap      int
		tempStore string
	}
	settings := []setting{
		{"cache=2MiB,mmap=0,temp=memory", 2 << 10, 0, "MEMORY"},
		{"cache=64MiB,mmap=0,temp=memory", 64 << 10, 0, "MEMORY"},
		{"cache=64MiB,mmap=256MiB,temp=memory", 64 << 10, 256 << 20, "MEMORY"},
		{"cache=64MiB,mmap=1GiB,temp=memory", 64 << 10, 1 << 30, "MEMORY"},
		{"cache=64MiB,mmap=1GiB,temp=file", 64 << 10, 1 << 30, "DEFAULT"},
	}
	defer func(c, m int, t string) { cacheKiB, mmapBytes, tempStore = c, m, t }(cacheKiB, mmapBytes, tempStore)
	for _, s := range settings {
		cacheKiB, mmapBytes, tempStore = s.cache, s.mmap, s.tempStore
		for _, work := range []string{"import", "import-sorted", "read", "read+write"} {
			b.Run(s.name+"/"+work, func(b *testing.B) {
				path := filepath.Join(b.TempDir(), "bench.db")
				if err := copyFile(seed, path); err != nil {
					b.Fatal(err)
				}
				st, err := Open(context.Background(), path)
				if err != nil {
					b.Fatal(err)
				}
				defer st.Close()
				switch work {
				case "import":
					benchImport(b, st, false)
				case "import-sorted":
					benchImport(b, st, true)
				case "read":
					benchReads(b, st, false)
				default:
					benchReads(b, st, true)
				}
			})
		}
	}
}

var settingsAuthor = store.Change{KeyID: "0123456789abcdef", KeyName: "bench", RequestID: "r"}

// newBatch returns 100 addresses not on the list, in random order of the
// address index.
func newBatch(r *rand.Rand) []string {
	out := make([]string, 100)
	for i := range out {
		out[i] = fmt.Sprintf("new-%016x@example.com", r.Uint64())
	}
	return out
}

// benchImport adds b.N batches of 100 new addresses: in random order of
// the address index, or each after the last (a sorted input file).
func benchImport(b *testing.B, st *Store, sorted bool) {
	r := rand.New(rand.NewPCG(1, 2))
	next := 0
	batch := func() []string {
		if !sorted {
			return newBatch(r)
		}
		out := make([]string, 100)
		for i := range out {
			out[i] = fmt.Sprintf("z-%08d@example.com", next)
			next++
		}
		return out
	}
	cpu0, start := cputime.Process(), time.Now()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := st.Add(context.Background(), "bench", settingsAuthor, store.Manual(batch()...)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	report(b, "batches/s", b.N, time.Since(start), cputime.Process()-cpu0)
}

// benchReads looks up b.N random listed addresses from 2 readers, with
// a writer adding batches meanwhile when write is set.
func benchReads(b *testing.B, st *Store, write bool) {
	const readers = 2
	var left atomic.Int64
	left.Store(int64(b.N))
	stop := make(chan struct{})
	var writes atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	if write {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(3, 4))
			for {
				select {
				case <-stop:
					return
				default:
				}
				if _, err := st.Add(context.Background(), "bench", settingsAuthor, store.Manual(newBatch(r)...)); err != nil {
					failed.Store(err)
					return
				}
				writes.Add(1)
			}
		}()
	}
	cpu0, start := cputime.Process(), time.Now()
	b.ResetTimer()
	var rg sync.WaitGroup
	for c := 0; c < readers; c++ {
		rg.Add(1)
		go func(c int) {
			defer rg.Done()
			r := rand.New(rand.NewPCG(uint64(c), 5))
			for left.Add(-1) >= 0 {
				email := fmt.Sprintf("seed-%07d@example.com", r.IntN(settingsSeed))
				if _, err := st.GetByEmail(context.Background(), "bench", email); err != nil {
					failed.Store(err)
					return
				}
			}
		}(c)
	}
	rg.Wait()
	elapsed, cpu := time.Since(start), cputime.Process()-cpu0
	b.StopTimer()
	close(stop)
	wg.Wait()
	if err, ok := failed.Load().(error); ok {
		b.Fatal(err)
	}
	report(b, "reads/s", b.N, elapsed, cpu)
	if write {
		b.ReportMetric(float64(writes.Load())/elapsed.Seconds(), "batches/s")
	}
}

func report(b *testing.B, unit string, n int, elapsed, cpu time.Duration) {
	b.ReportMetric(float64(n)/elapsed.Seconds(), unit)
	// CPU per operation (the whole process) hardly depends on what else
	// the machine runs.
	b.ReportMetric(float64(cpu.Microseconds())/float64(n), "cpu_us/op")
}

// seedSettings makes the store's schema at path and fills it with
// settingsSeed entries (seed-NNNNNNN@example.com, UUIDv7-shaped IDs in
// the past) in one statement, then closes it so that the file is whole
// without its log.
func seedSettings(path string) error {
	st, err := Open(context.Background(), path)
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
		SELECT 'bench', printf('%08x-%04x-7000-8000-%012x', (?2 + i) >> 16, (?2 + i) & 65535, i),
		       printf('seed-%07d@example.com', i), 'manual', NULL, ?2 + i
		FROM n`, settingsSeed, base)
	return err
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
