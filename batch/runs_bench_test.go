package batch_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// BenchmarkFindInterruptedAmong1000Runs measures what --resume and the
// UI's start do to find an unfinished run in a journal directory that
// holds 1,000 finished runs of 1,000 entries: reading the runs' headers
// only, against reading every run's journal (what finding it cost before
// runs had headers).
//
//	go test -run '^$' -bench FindInterrupted -benchtime 20x ./batch
func BenchmarkFindInterruptedAmong1000Runs(b *testing.B) {
	const target = "https://list.example.com"
	rs := &batch.Runs{Dir: b.TempDir(), Client: client.New(target, "re_bench_key"), Source: "cli"}
	start := time.Now().Add(-1000 * time.Hour)
	for i := range 1000 {
		results := make([]batch.Result, 1000)
		for k := range results {
			results[k] = batch.Result{Input: fmt.Sprintf("r%d-%d@example.com", i, k), ID: fmt.Sprintf("0190a000-0000-7000-8000-%012d", i*1000+k),
				Outcome: batch.Added, Batch: k/100 + 1}
		}
		if _, err := rs.Import(target, batch.Add, start.Add(time.Duration(i)*time.Hour), batch.RunMeta{}, results); err != nil {
			b.Fatal(err)
		}
	}
	open := []batch.Result{{Input: "open@example.com", Outcome: batch.Unsent, Batch: 1}}
	if _, err := rs.Import(target, batch.Add, start.Add(-time.Hour), batch.RunMeta{}, open); err != nil {
		b.Fatal(err)
	}
	b.Run("headers", func(b *testing.B) {
		for b.Loop() {
			if _, ok, err := rs.Interrupted(); err != nil || !ok {
				b.Fatal(ok, err)
			}
		}
	})
	b.Run("every-journal", func(b *testing.B) {
		for b.Loop() {
			runs, err := rs.List()
			if err != nil {
				b.Fatal(err)
			}
			found := false
			for _, ri := range runs {
				exact, err := rs.Read(ri.ID, nil)
				if err != nil {
					b.Fatal(err)
				}
				found = found || exact.Counts[batch.Unsent] > 0
			}
			if !found {
				b.Fatal("not found")
			}
		}
	})
}
