package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/shushlist/shush/server/store"
)

// TrailCost measures what the trail costs a batch add: each iteration adds
// a batch of 100 new addresses to plain (a store writing no trail) and to
// trail (the same store with it), in alternating order, so that whatever
// else the machine does weighs on both alike. It reports the mean time of
// each and their ratio.
func TrailCost(b *testing.B, plain, trail store.Store) {
	ctx, author := context.Background(), store.Change{KeyID: "k1", KeyName: "bench", Reference: "#48213", RequestID: "r"}
	var spent [2]time.Duration
	n := 0
	batch := func(st store.Store) time.Duration {
		emails := make([]string, 100)
		for i := range emails {
			emails[i] = fmt.Sprintf("u%08d@example.com", n)
			n++
		}
		start := time.Now()
		if _, err := st.Add(ctx, "bench", author, store.Manual(emails...)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			spent[0] += batch(plain)
			spent[1] += batch(trail)
		} else {
			spent[1] += batch(trail)
			spent[0] += batch(plain)
		}
		i++
	}
	b.ReportMetric(float64(spent[0].Microseconds())/float64(i), "plain-µs/batch")
	b.ReportMetric(float64(spent[1].Microseconds())/float64(i), "trail-µs/batch")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), "ratio")
}
