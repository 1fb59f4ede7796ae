package cli

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"unsafe"
	"weak"

	"github.com/shushlist/shush/batch"
)

// The summary of a run keeps neither the results of a piece it adds up nor
// the memory their strings are slices of (a segment's values, one string
// of 2.2 MB for 100,000 addresses): the 1M import once peaked with a
// segment's values held so by the results the report shows
// (docs/benchmarks.md). Weak pointers to both find them gone after a
// collection; what the report shows is still there, as it was.
func TestSummaryLetsGoOfThePiecesItAddsUp(t *testing.T) {
	const pieces, size = 3, 100
	sum := newSummary(batch.Add, pieces*size)
	var results []weak.Pointer[batch.Result]
	var values []weak.Pointer[byte]
	for p := range pieces {
		var joined strings.Builder
		for i := range size {
			fmt.Fprintf(&joined, "u%04d@example.com", p*size+i)
		}
		all := joined.String()
		rep := batch.Report{Base: p, Batches: 1, Results: make([]batch.Result, size)}
		for i := range rep.Results {
			o := batch.Added
			if p == 1 && i == 3 {
				o = batch.Unverified
			}
			rep.Results[i] = batch.Result{Input: all[i*17 : (i+1)*17], ID: all[i*17 : i*17+5], Outcome: o, Batch: p + 1}
		}
		results = append(results, weak.Make(&rep.Results[0]))
		values = append(values, weak.Make(unsafe.StringData(all)))
		sum.add(rep)
	}
	runtime.GC()
	for p := range pieces {
		if results[p].Value() != nil || values[p].Value() != nil {
			t.Errorf("piece %d: its results held %v, its values held %v, after the summary added it up; want neither",
				p, results[p].Value() != nil, values[p].Value() != nil)
		}
	}
	if len(sum.shown) != maxShownResults || sum.shown[49].Input != "u0049@example.com" ||
		sum.unverified == nil || sum.unverified.Input != "u0103@example.com" || sum.results != pieces*size {
		t.Fatalf("summary shows %d results, unverified %+v, %d results counted", len(sum.shown), sum.unverified, sum.results)
	}
}
