package sqlite

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"
)

// BenchmarkTrailCost adds batches of 100 new addresses, each a durable
// commit, with the trail and without it, on the same kind of file in the
// same run: the ratio is what the trail costs a batch add.
//
//	go test ./server/store/sqlite -run '^$' -bench TrailCost -benchtime 300x -count 3
func BenchmarkTrailCost(b *testing.B) {
	for _, trail := range []bool{false, true} {
		b.Run(fmt.Sprintf("trail=%v", trail), func(b *testing.B) {
			st, err := Open(context.Background(), filepath.Join(b.TempDir(), "bench.db"))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			st.noTrail = !trail
			ctx := store.WithChange(context.Background(), store.Change{KeyID: "k1", KeyName: "bench", Reference: "#48213", RequestID: "r"})
			n := 0
			b.ResetTimer()
			for b.Loop() {
				emails := make([]string, 100)
				for i := range emails {
					emails[i] = fmt.Sprintf("u%08d@example.com", n)
					n++
				}
				if _, err := st.Add(ctx, "bench", store.Manual(emails...)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
