package batch

// Report is the outcome of a run, or of one segment of a recorded run.
type Report struct {
	Target string
	// Invalid, LeftOut and Duplicates are what the run leaves out: the
	// first segment of a recorded run holds them. Restore is how the
	// plan's additions are listed (the undo of a removal, an export read
	// back), by address.
	Invalid    []Item
	LeftOut    []LeftOut
	Duplicates int
	Restore    map[string]Restore
	// Results has one entry per value of the plan, in plan order.
	Results []Result
	Batches int
	// Base is the number of batches before this report's in the recorded
	// run it is a segment of (0 for a run of its own).
	Base int
	// Failed and Unsent list the 1-based numbers of batches that failed or
	// were not sent (counted across the whole recorded run); a resume
	// sends them again.
	Failed []int
	Unsent []int
}

// Complete reports whether every batch was sent successfully.
func (r Report) Complete() bool { return len(r.Failed) == 0 && len(r.Unsent) == 0 }

// Count returns how many entries have each outcome.
func (r Report) Count() map[Outcome]int {
	m := map[Outcome]int{}
	for _, res := range r.Results {
		m[res.Outcome]++
	}
	return m
}

// countRefused counts the failed results whose batch the service refused
// for what it held (Result.Refused).
func countRefused(results []Result) int {
	n := 0
	for _, x := range results {
		if x.Outcome == Failed && x.Refused {
			n++
		}
	}
	return n
}

// report is what st knows: a result for every value of its plan, Unsent
// for the batches with none.
func (st *run) report() Report { return st.piece(0, len(st.batches)) }

// has reports whether batch i (0-based) has results.
func (st *run) has(i int) bool {
	_, ok := st.results[i]
	return ok
}

// piece is the report of st's batches lo to hi-1 (0-based): their results,
// Unsent for a batch with none. Base and Batches place it in the recorded
// run; the first piece of a segment (lo 0) carries what its plan leaves
// out, and every piece the plan's Restore.
func (st *run) piece(lo, hi int) Report {
	rep := Report{Target: st.target, Restore: st.plan.Restore, Batches: hi - lo, Base: st.seg.batches + lo}
	if lo == 0 {
		rep.Invalid, rep.LeftOut, rep.Duplicates = st.plan.Invalid, st.plan.LeftOut, st.plan.Duplicates
	}
	if res, ok := st.results[lo]; ok && hi-lo == 1 {
		// One batch sent: its results as they are, not a copy.
		rep.Results = res
		if !res[0].Settled() {
			rep.Failed = []int{st.seg.batches + lo + 1}
		}
		return rep
	}
	n := 0
	for _, b := range st.batches[lo:hi] {
		n += len(b)
	}
	rep.Results = make([]Result, 0, n)
	for i := lo; i < hi; i++ {
		num := st.seg.batches + i + 1
		res, ok := st.results[i]
		switch {
		case !ok:
			rep.Unsent = append(rep.Unsent, num)
			for _, v := range st.batches[i] {
				rep.Results = append(rep.Results, Result{Input: v, Outcome: Unsent, Batch: num})
			}
			continue
		case !res[0].Settled():
			rep.Failed = append(rep.Failed, num)
		}
		rep.Results = append(rep.Results, res...)
	}
	return rep
}

// handAll hands on every batch of st in pieces, as a run does (see
// sending.handOn), letting go of each piece's results: a segment not sent
// now, reported as its journal has it.
func (st *run) handAll(hand func(Report)) {
	for lo := 0; lo < len(st.batches); lo += pieceBatches {
		hi := min(lo+pieceBatches, len(st.batches))
		p := st.piece(lo, hi)
		for i := lo; i < hi; i++ {
			delete(st.results, i)
		}
		hand(p)
	}
}

// segmentOut takes the pieces of a segment's report as they are handed on:
// it counts their outcomes and the addresses the service erased, and gives
// them to the observer as they come (Observer.Pieces) or as one report
// once the segment has ended (close).
type segmentOut struct {
	on      Observer
	whole   Report // the segment's report so far, unless on.Pieces
	counts  map[Outcome]int
	refused int // failed entries refused as sent (countRefused)
	erased  []Erasure
	entries int // handed on
	batches int
}

func newSegmentOut(on Observer, st *run) *segmentOut {
	o := &segmentOut{on: on, counts: map[Outcome]int{}}
	if !on.Pieces {
		o.whole = Report{Target: st.target, Invalid: st.plan.Invalid, LeftOut: st.plan.LeftOut, Duplicates: st.plan.Duplicates,
			Restore: st.plan.Restore, Base: st.seg.batches, Results: make([]Result, 0, len(st.plan.Values))}
	}
	return o
}

// take is handed a piece.
func (o *segmentOut) take(p Report) {
	for _, x := range p.Results {
		o.counts[x.Outcome]++
		if x.Outcome == Erased && x.Erased != "" {
			o.erased = append(o.erased, Erasure{Email: x.Input, Marker: x.Erased})
		}
	}
	o.refused += countRefused(p.Results)
	o.entries += len(p.Results)
	o.batches += p.Batches
	if o.on.Pieces {
		o.on.segment(p)
		return
	}
	o.whole.Results = append(o.whole.Results, p.Results...)
	o.whole.Batches += p.Batches
	o.whole.Failed = append(o.whole.Failed, p.Failed...)
	o.whole.Unsent = append(o.whole.Unsent, p.Unsent...)
}

// close gives the observer the segment's whole report, unless it had it
// in pieces.
func (o *segmentOut) close() {
	if !o.on.Pieces {
		o.on.segment(o.whole)
	}
}
