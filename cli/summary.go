package cli

import (
	"fmt"
	"strings"

	"github.com/shushlist/shush/batch"
)

// summary adds up the reports of a run's segments.
type summary struct {
	plan    batch.Input // what the run leaves out (its values are not held: entries counts them)
	entries int
	batches int // of the whole plan
	counts  map[batch.Outcome]int
	failed  []failedBatch
	ok      int // batches that succeeded
	results int // entries with a result (sent or failed)
	// shown holds the first maxShownResults results, for the human
	// table of a small run.
	shown []batch.Result
	// unverified is the first entry whose outcome the service's answer
	// did not establish, with why.
	unverified *batch.Result
	// preset is the provider's file the input was read as, and warnings
	// what its entries left unsaid; ownIDs counts the entries the input
	// gave their own ID.
	preset   *batch.Preset
	warnings []string
	ownIDs   int
	// keepIDs says the run sent the entries' own IDs; kept counts the
	// entries it listed with them, renewed those it listed with new ones.
	keepIDs       bool
	kept, renewed int
}

type failedBatch struct {
	number  int
	message string
	// refused: the service refused the batch as it was sent; the same
	// batch would be refused again (batch.Result.Refused).
	refused bool
}

func newSummary(mode batch.Mode, entries int) *summary {
	return &summary{plan: batch.Input{Mode: mode}, entries: entries, batches: batch.BatchCount(entries), counts: map[batch.Outcome]int{}}
}

// summaryOfInput is the summary of a run of an input read in one pass.
func summaryOfInput(in *batch.Input) *summary {
	return &summary{plan: batch.Input{Mode: in.Mode, Invalid: in.Invalid, LeftOut: in.LeftOut, Duplicates: in.Duplicates}, entries: in.Len(),
		batches: in.Batches(), counts: map[batch.Outcome]int{}, preset: in.Preset, warnings: in.Warnings}
}

// summaryOf is the summary of a recorded run, known by its header.
func summaryOf(ri batch.RunInfo) *summary {
	return &summary{plan: batch.Input{Mode: ri.Mode, Duplicates: ri.Duplicates}, entries: ri.Entries,
		batches: ri.Batches(), counts: map[batch.Outcome]int{}}
}

// add counts the report of a segment, or of a piece of one (its batch
// numbers count across the run).
func (s *summary) add(rep batch.Report) {
	if rep.Base == 0 && len(rep.Invalid)+len(rep.LeftOut) > 0 {
		// The first segment's journal holds what the run leaves out.
		s.plan.Invalid, s.plan.LeftOut = rep.Invalid, rep.LeftOut
	}
	for o, n := range rep.Count() {
		s.counts[o] += n
	}
	s.countKept(rep)
	failed := map[int]bool{}
	for _, b := range rep.Failed {
		failed[b] = true
		fb := failedBatch{number: b}
		for _, r := range rep.Results {
			if r.Batch == b {
				fb.message, fb.refused = r.Message, r.Refused
				break
			}
		}
		s.failed = append(s.failed, fb)
	}
	if s.unverified == nil {
		// By index: a range variable whose address is taken would be a
		// copy on the heap per entry.
		for i := range rep.Results {
			if rep.Results[i].Outcome == batch.Unverified {
				r := keptResult(rep.Results[i])
				s.unverified = &r
				break
			}
		}
	}
	s.ok += rep.Batches - len(rep.Failed) - len(rep.Unsent)
	s.results += len(rep.Results)
	if room := maxShownResults - len(s.shown); room > 0 {
		for _, r := range rep.Results[:min(room, len(rep.Results))] {
			s.shown = append(s.shown, keptResult(r))
		}
	}
}

// keptResult is r with its own copy of the strings kept for the report: a
// result's input is a slice of its segment's values, which would
// otherwise stay in memory for the rest of the run.
func keptResult(r batch.Result) batch.Result {
	r.Input, r.ID, r.Message = strings.Clone(r.Input), strings.Clone(r.ID), strings.Clone(r.Message)
	return r
}

// firstFailure names the first failed batch and its cause, for the
// sentence that ends a run: the cause is on stderr too, not only in the
// report or the JSON on stdout.
func (s *summary) firstFailure() string {
	if len(s.failed) == 0 {
		return ""
	}
	f := s.failed[0]
	if f.message == "" {
		return fmt.Sprintf(" (batch %d first)", f.number)
	}
	return fmt.Sprintf(" (batch %d first: %s)", f.number, f.message)
}

// refused is how many of the failed batches the service refused as they
// were sent.
func (s *summary) refused() int {
	n := 0
	for _, f := range s.failed {
		if f.refused {
			n++
		}
	}
	return n
}

// unsent is how many batches were not sent, in segments run or not.
func (s *summary) unsent() int { return s.batches - s.ok - len(s.failed) }

// complete reports whether every batch of the plan succeeded.
func (s *summary) complete() bool { return s.ok == s.batches }

// outcomes counts the entries by outcome, the entries of segments never
// reached among the unsent.
func (s *summary) outcomes() map[batch.Outcome]int {
	m := make(map[batch.Outcome]int, len(s.counts)+1)
	for o, n := range s.counts {
		m[o] = n
	}
	if rest := s.entries - s.results; rest > 0 {
		m[batch.Unsent] += rest
	}
	return m
}

// ownIDsNew counts the entries the file gave their own ID that the run
// did not try to keep (no --keep-ids): their IDs and dates are new.
func (s *summary) ownIDsNew() int {
	if s.keepIDs {
		return 0
	}
	return s.ownIDs
}

// countKept counts the entries a segment listed with the ID their input
// gave (kept) and with a new one (renewed).
func (s *summary) countKept(rep batch.Report) {
	for _, r := range rep.Results {
		if to, ok := rep.Restore[r.Input]; ok && to.ID != "" && r.Outcome == batch.Added {
			if r.ID == to.ID {
				s.kept++
			} else {
				s.renewed++
			}
		}
	}
}
