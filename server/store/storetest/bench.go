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
	Alternate(b, "plain", "trail", "ratio", func(int) time.Duration { return batch(plain) }, func(int) time.Duration { return batch(trail) })
}

// RemoveCost measures what a removal costs against an addition on one
// store with its trail: each iteration adds a batch of 100 new addresses
// and removes by address the 100 of the batch added before it, in
// alternating order. It reports the mean time of each and their ratio
// (remove / add): at 1 a removal costs what an addition does.
func RemoveCost(b *testing.B, st store.Store) {
	ctx, author := context.Background(), store.Change{KeyID: "k1", KeyName: "bench", RequestID: "r"}
	batch := func(n int) []string {
		emails := make([]string, 100)
		for i := range emails {
			emails[i] = fmt.Sprintf("r%06d-%03d@example.com", n, i)
		}
		return emails
	}
	add := func(n int) time.Duration {
		start := time.Now()
		if _, err := st.Add(ctx, "bench", author, store.Manual(batch(n)...)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	remove := func(n int) time.Duration {
		start := time.Now()
		got, err := st.RemoveEmails(ctx, "bench", author, batch(n))
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != 100 {
			b.Fatalf("removed %d of 100", len(got))
		}
		return time.Since(start)
	}
	add(0)
	Alternate(b, "add", "remove", "ratio", func(i int) time.Duration { return add(i + 1) }, remove)
}

// Alternate runs first and second once in each iteration of b's loop,
// first before second in one iteration and after it in the next, so that
// whatever else the machine does weighs on both alike. Each is given the
// iteration's number and returns the time its work took. It reports the
// mean time of each, in µs a batch, named by firstName and secondName, and
// the ratio of second to first as ratioName.
func Alternate(b *testing.B, firstName, secondName, ratioName string, first, second func(i int) time.Duration) {
	var spent [2]time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			spent[0] += first(i)
			spent[1] += second(i)
		} else {
			spent[1] += second(i)
			spent[0] += first(i)
		}
		i++
	}
	b.ReportMetric(float64(spent[0].Microseconds())/float64(i), firstName+"-µs/batch")
	b.ReportMetric(float64(spent[1].Microseconds())/float64(i), secondName+"-µs/batch")
	b.ReportMetric(float64(spent[1])/float64(spent[0]), ratioName)
}
