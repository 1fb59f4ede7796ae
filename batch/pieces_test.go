package batch_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"weak"

	"github.com/shushlist/shush/batch"
)

// A run observed in pieces hands every entry on once, in plan order, while
// it runs, not at a segment's end: each piece follows the one before it,
// the first of a segment says what the run left out, and a failed batch
// and the batches a resume finds settled are in their place. Put together,
// the pieces are the report the journals give.
func TestPiecesHandEveryEntryOnInOrderWhileTheRunGoes(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	values := addresses("piece", 2350)
	plan := planOf(batch.Add, append(values, "not an address", values[5]))
	var refuse atomic.Bool
	refuse.Store(true)
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		switch {
		case r.URL.Path != "/suppressions/batch/add":
		case bytes.Contains(body, []byte("piece0000@")):
			// The first batch ends last: nothing can be handed on before it.
			time.Sleep(300 * time.Millisecond)
		case refuse.Load() && bytes.Contains(body, []byte("piece1250@")):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"statusCode":422,"name":"validation_error","message":"refused by policy"}`)
			return true
		}
		return false
	})
	rs := &batch.Runs{Client: c, Dir: t.TempDir(), Concurrency: 4, SegmentSize: 1000}

	// observe follows a run in pieces: what the pieces hold, merged, and
	// the checks of their order.
	type observed struct {
		mu     sync.Mutex
		rep    batch.Report
		pieces int
		// early counts the pieces handed on while batches of their segment
		// were still to end.
		early int
		ended map[int]bool // batches ended, by number
	}
	observe := func(o *observed) batch.Observer {
		o.ended = map[int]bool{}
		return batch.Observer{Pieces: true,
			Event: func(e batch.Event) {
				o.mu.Lock()
				defer o.mu.Unlock()
				if e.Kind == batch.BatchDone || e.Kind == batch.BatchFailed {
					o.ended[e.Batch] = true
				}
			},
			Segment: func(p batch.Report) {
				o.mu.Lock()
				defer o.mu.Unlock()
				if want := o.rep.Batches; p.Base != want {
					t.Errorf("piece based at batch %d follows %d batches", p.Base, want)
				}
				if p.Base%10 == 0 && p.Base > 0 && len(p.Invalid) > 0 {
					t.Errorf("piece at %d carries the invalid entries", p.Base)
				}
				segEnd := (p.Base/10 + 1) * 10
				for b := p.Base + p.Batches + 1; b <= min(segEnd, 24); b++ {
					if !o.ended[b] {
						o.early++
						break
					}
				}
				o.pieces++
				o.rep = merged(o.rep, p)
			}}
	}

	var first observed
	ri, err := rs.Start(context.Background(), plan.Input(), batch.RunMeta{}, observe(&first))
	if err != nil || ri.State != batch.Stopped {
		t.Fatalf("run with a refused batch: %v, %s; want it stopped", err, ri.State)
	}
	rep := first.rep
	if len(rep.Results) != len(values) || rep.Batches != 24 || len(rep.Invalid) != 1 || rep.Duplicates != 1 {
		t.Fatalf("pieces hold %d results in %d batches, %d invalid, %d duplicates; want %d in 24, 1, 1",
			len(rep.Results), rep.Batches, len(rep.Invalid), rep.Duplicates, len(values))
	}
	for i, x := range rep.Results {
		if x.Input != values[i] || x.Batch != i/100+1 {
			t.Fatalf("result %d is %s of batch %d; want %s of batch %d", i, x.Input, x.Batch, values[i], i/100+1)
		}
	}
	if len(rep.Failed) != 1 || rep.Failed[0] != 13 || len(rep.Unsent) != 0 {
		t.Fatalf("failed %v, unsent %v; want batch 13 failed", rep.Failed, rep.Unsent)
	}
	if first.early == 0 || first.pieces < 3 {
		t.Fatalf("%d pieces, %d of them before their segment's last batch ended; want pieces handed on as the run goes", first.pieces, first.early)
	}

	// The resume hands the settled batches on from the journals, the
	// batch sent again in its place.
	refuse.Store(false)
	var again observed
	ri, err = rs.Resume(context.Background(), ri.ID, observe(&again))
	if err != nil || ri.State != batch.Finished || ri.Counts[batch.Added] != len(values) {
		t.Fatalf("resume: %v, %s, %v", err, ri.State, ri.Counts)
	}
	var whole batch.Report
	if _, err := rs.Read(ri.ID, func(seg batch.Report) error { whole = merged(whole, seg); return nil }); err != nil {
		t.Fatal(err)
	}
	got := again.rep
	if len(got.Results) != len(whole.Results) || got.Batches != whole.Batches || len(got.Failed) != 0 || len(got.Invalid) != 1 {
		t.Fatalf("resumed pieces: %d results in %d batches, failed %v; the journals: %d in %d",
			len(got.Results), got.Batches, got.Failed, len(whole.Results), whole.Batches)
	}
	for i := range whole.Results {
		if got.Results[i] != whole.Results[i] {
			t.Fatalf("result %d handed on as %+v; the journal has %+v", i, got.Results[i], whole.Results[i])
		}
	}
}

// A run lets go of a batch's results once they are handed on: it holds
// those of the batches in flight, never a segment's (the 1M import once
// peaked at a segment's 100,000 results held at once, docs/benchmarks.md).
// The observer keeps only weak pointers to the results it is handed; at
// each piece, after a collection, none of those handed on two pieces ago
// or before is still in memory.
func TestRunLetsGoOfResultsHandedOn(t *testing.T) {
	svc := startService(t, 10000)
	values := addresses("held", 3000)
	rs := &batch.Runs{Client: svc.client(), Dir: t.TempDir(), Concurrency: 1}
	var handed []weak.Pointer[batch.Result]
	held := 0
	on := batch.Observer{Pieces: true, Segment: func(p batch.Report) {
		runtime.GC()
		for _, w := range handed[:max(0, len(handed)-2)] {
			if w.Value() != nil {
				held++
			}
		}
		handed = append(handed, weak.Make(&p.Results[0]))
	}}
	ri, err := rs.Start(context.Background(), planOf(batch.Add, values).Input(), batch.RunMeta{}, on)
	if err != nil || ri.State != batch.Finished {
		t.Fatalf("run: %v, %s", err, ri.State)
	}
	if len(handed) < 10 || held > 0 {
		t.Fatalf("%d pieces handed on; results still held %d times after their piece was handed on; want none", len(handed), held)
	}
}
