package batch

import "github.com/shushlist/shush/api"

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

// report is what st knows: a result for every value of its plan, Unsent
// for the batches with none.
func (st *run) report() Report {
	rep := Report{Target: st.target, Invalid: st.plan.Invalid, LeftOut: st.plan.LeftOut, Duplicates: st.plan.Duplicates, Restore: st.plan.Restore,
		Batches: len(st.batches), Results: st.all}
	if rep.Results == nil {
		rep.Results = make([]Result, len(st.plan.Values))
	}
	rep.Base = st.seg.batches
	for i, b := range st.batches {
		n := st.seg.batches + i + 1
		win := rep.Results[i*api.MaxBatch : i*api.MaxBatch+len(b)]
		res, ok := st.results[i]
		switch {
		case !ok:
			rep.Unsent = append(rep.Unsent, n)
			for k, v := range b {
				win[k] = Result{Input: v, Outcome: Unsent, Batch: n}
			}
			continue
		case !res[0].Settled():
			rep.Failed = append(rep.Failed, n)
		}
		if &res[0] != &win[0] {
			copy(win, res)
		}
	}
	return rep
}
