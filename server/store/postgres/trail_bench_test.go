package postgres

import (
	"context"
	"testing"

	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlstore"
	"github.com/shushlist/shush/server/store/storetest"
)

// BenchmarkTrailCost is the SQLite benchmark's twin on PostgreSQL: batches
// of 100 new addresses into a schema without the trail and one with it,
// alternately in one run.
//
//	SHUSH_TEST_POSTGRES=… go test ./server/store/postgres -run '^$' -bench TrailCost -benchtime 600x -count 3
func BenchmarkTrailCost(b *testing.B) {
	open := func() *Store {
		st, err := Open(context.Background(), pgtest.DSN(b))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	plain, trail := open(), open()
	plain.Core = sqlstore.New(plain.db, sqlstore.Options{NoTrail: true})
	storetest.TrailCost(b, plain, trail)
}

// BenchmarkRemoveCost is the SQLite benchmark's twin on PostgreSQL:
// removals of 100 addresses against additions of 100, alternately in one
// run, both with the trail.
//
//	SHUSH_TEST_POSTGRES=… go test ./server/store/postgres -run '^$' -bench RemoveCost -benchtime 600x -count 3
func BenchmarkRemoveCost(b *testing.B) {
	st, err := Open(context.Background(), pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	storetest.RemoveCost(b, st)
}
