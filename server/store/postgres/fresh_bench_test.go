package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

// BenchmarkAddWithoutStatistics adds batches of 100 new addresses to a
// list of 80,000 entries in a table never analyzed (autovacuum off: what a
// new deployment has until autovacuum's first ANALYZE) and, alternately in
// the same run, to the same list analyzed. It reports the mean time of
// each and their ratio.
//
//	SHUSH_TEST_POSTGRES=… go test ./server/store/postgres -run '^$' -bench AddWithoutStatistics -benchtime 400x -count 3
func BenchmarkAddWithoutStatistics(b *testing.B) {
	ctx := context.Background()
	open := func(analyze bool) *Store {
		st, err := Open(ctx, pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		if _, err := st.db.pool.Exec(ctx, `
			ALTER TABLE suppressions SET (autovacuum_enabled = false);
			INSERT INTO suppressions (id, team, email, origin, created_at)
			SELECT gen_random_uuid(), 'bench', 'listed' || lpad(g::text, 7, '0') || '@example.com', 'manual', now()
			FROM generate_series(1, 80000) g`); err != nil {
			b.Fatal(err)
		}
		if analyze {
			if _, err := st.db.pool.Exec(ctx, `VACUUM ANALYZE suppressions`); err != nil {
				b.Fatal(err)
			}
		}
		return st
	}
	fresh, analyzed := open(false), open(true)
	author := store.Change{KeyID: "k1", KeyName: "bench", RequestID: "r"}
	n := 0
	add := func(st *Store) time.Duration {
		emails := make([]string, 100)
		for i := range emails {
			emails[i] = fmt.Sprintf("new%08d@example.com", n)
			n++
		}
		start := time.Now()
		if _, err := st.Add(ctx, "bench", author, store.Manual(emails...)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	storetest.Alternate(b, "analyzed", "fresh", "fresh/analyzed",
		func(int) time.Duration { return add(analyzed) }, func(int) time.Duration { return add(fresh) })
}
