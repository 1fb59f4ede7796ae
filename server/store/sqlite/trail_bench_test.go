package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store/sqlstore"
	"github.com/shushlist/shush/server/store/storetest"
)

// BenchmarkTrailCost adds batches of 100 new addresses, each a durable
// commit, to a file without the trail and to one with it, alternately in
// one run: the ratio is what the trail costs a batch add.
//
//	go test ./server/store/sqlite -run '^$' -bench TrailCost -benchtime 600x -count 3
func BenchmarkTrailCost(b *testing.B) {
	open := func(name string) *Store {
		st, err := Open(context.Background(), filepath.Join(b.TempDir(), name))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { st.Close() })
		return st
	}
	plain, trail := open("plain.db"), open("trail.db")
	plain.Core = sqlstore.New(plain.db, sqlstore.Options{NoTrail: true})
	storetest.TrailCost(b, plain, trail)
}

// BenchmarkRemoveCost removes batches of 100 addresses and adds as many,
// alternately, each a durable commit with its trail: the ratio is what a
// removal costs against an addition (see storetest.RemoveCost).
//
//	go test ./server/store/sqlite -run '^$' -bench RemoveCost -benchtime 600x -count 3
func BenchmarkRemoveCost(b *testing.B) {
	st, err := Open(context.Background(), filepath.Join(b.TempDir(), "remove.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	storetest.RemoveCost(b, st)
}
