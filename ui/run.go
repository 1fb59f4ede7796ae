package ui

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// Run is one recorded run and its results, as the Results and History
// screens show them; the outcomes are batch's.
type Run struct {
	// ID names the recorded run (batch.Runs); "" for a run sent without a
	// journal directory, which cannot be resumed or undone later.
	ID      string
	Started time.Time
	// Target is the service's base URL the run was sent to.
	Target string
	Mode   batch.Mode
	Ticket string
	State  batch.RunState
	UndoOf string
	// Results has one entry per value sent, in order.
	Results []batch.Result
	// Counts is how many entries have each outcome.
	Counts map[batch.Outcome]int
	// Invalid and LeftOut are the entries the run did not send, with why:
	// what the customer is told includes them.
	Invalid []batch.Item
	LeftOut []batch.LeftOut

	// emails maps an ID to its address for a removal by ID, from the
	// preview, for results the service did not name.
	emails map[string]string
}

// segments gathers a run's segment reports (batch.Observer.Segment, or
// batch.Runs.Read) into what its Run shows.
type segments struct {
	results []batch.Result
	invalid []batch.Item
	leftOut []batch.LeftOut
}

func (s *segments) add(rep batch.Report) error {
	if rep.Base == 0 {
		// The first segment's journal holds what the run left out.
		s.invalid, s.leftOut = rep.Invalid, rep.LeftOut
	}
	s.results = append(s.results, rep.Results...)
	return nil
}

// runOf is the run of a recorded run's header and its segments.
func runOf(ri batch.RunInfo, s segments) *Run {
	r := &Run{ID: ri.ID, Started: ri.Created, Target: ri.Target, Mode: ri.Mode, Ticket: ri.Reference,
		State: ri.State, UndoOf: ri.UndoOf, Results: s.results, Invalid: s.invalid, LeftOut: s.leftOut, Counts: map[batch.Outcome]int{}}
	for _, x := range s.results {
		r.Counts[x.Outcome]++
	}
	return r
}

// address is the address of a result: the input itself, or for a removal
// by ID the address the service or the preview named ("" when unknown).
func (r *Run) address(x batch.Result) string {
	if a := x.Address(); a != "" {
		return a
	}
	return r.emails[x.Input]
}

// retryable says whether some entries failed or were never sent, and the
// run can send them again: it is recorded, the service did not refuse its
// key (the same key would be refused again), and not every failed batch
// was refused as sent (the same entries would be refused again).
func (r *Run) retryable() bool {
	return r.ID != "" && r.State != batch.Refused && r.Counts[batch.Failed]-r.refusedAsSent()+r.Counts[batch.Unsent] > 0
}

// refusedAsSent counts the failed entries whose batch the service refused
// for what it held (batch.Result.Refused).
func (r *Run) refusedAsSent() int {
	n := 0
	for _, x := range r.Results {
		if x.Outcome == batch.Failed && x.Refused {
			n++
		}
	}
	return n
}

// countsText is the counts line shown above the results and in the
// history: the outcomes, then what was not sent (invalid, left out).
func countsText(c map[batch.Outcome]int, invalid, leftOut int) string {
	s := batch.CountsText(c, " · ")
	for _, n := range []struct {
		n    int
		what string
	}{{invalid, "invalid"}, {leftOut, "left out"}} {
		if n.n > 0 {
			s = strings.TrimPrefix(s+fmt.Sprintf(" · %d %s", n.n, n.what), " · ")
		}
	}
	if s == "" {
		return "nothing"
	}
	return s
}

// stateText says how a run stands when that is more than its counts tell:
// paused, refused, cut off ("" for a run that finished or was stopped).
func stateText(s batch.RunState) string {
	switch s {
	case batch.Running:
		return "cut off"
	case batch.Paused, batch.Refused:
		return string(s)
	}
	return ""
}

// Kinds of rows beside the outcomes of what was sent: entries the run did
// not send, with why.
const (
	rowInvalid batch.Outcome = "invalid"
	rowLeftOut batch.Outcome = "left_out"
)

// row is one entry of a run as the Results screen shows it and an export
// (and the history file of earlier versions) writes it: address, ID,
// outcome (rowInvalid and rowLeftOut for what was not sent), deleted (a
// removal the service confirmed), the error message (for what was not
// sent, why), and the entry's expiry and note as the service said.
type row struct {
	Address   string        `json:"address,omitempty"`
	ID        string        `json:"id,omitempty"`
	Outcome   batch.Outcome `json:"outcome"`
	Deleted   bool          `json:"deleted"`
	Error     string        `json:"error,omitempty"`
	ExpiresAt time.Time     `json:"expires_at,omitzero"`
	Note      string        `json:"note,omitempty"`
}

func (r *Run) rows() []row {
	out := make([]row, 0, len(r.Results)+len(r.Invalid)+len(r.LeftOut))
	for _, x := range r.Results {
		out = append(out, row{Address: r.address(x), ID: x.ID, Outcome: x.Outcome, Deleted: x.Outcome == batch.Removed, Error: x.Message,
			ExpiresAt: x.ExpiresAt, Note: x.Note})
	}
	alone, _ := r.reached().apart(r.Invalid)
	for _, it := range alone {
		out = append(out, row{Address: it.Raw, Outcome: rowInvalid, Error: fmt.Sprintf("line %d: %s", it.Line, it.Problem)})
	}
	for _, l := range r.LeftOut {
		why := l.Text()
		if ev := l.By.String(); ev != "" {
			why += " (" + ev + ")"
		}
		out = append(out, row{Address: l.Value, Outcome: rowLeftOut, Error: why})
	}
	return out
}

// record is a run as a line of the history file that earlier versions
// kept; the history now is the recorded runs, and such a file is imported
// into them once.
type record struct {
	Started time.Time      `json:"started"`
	Target  string         `json:"target"`
	Mode    string         `json:"mode"`
	Ticket  string         `json:"ticket,omitempty"`
	Counts  map[string]int `json:"counts"`
	Results []row          `json:"results"`
}

// UnmarshalJSON reads a history record. The counts are made again from the
// results.
func (r *Run) UnmarshalJSON(b []byte) error {
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		return err
	}
	*r = Run{Started: rec.Started, Target: rec.Target, Ticket: rec.Ticket, Counts: map[batch.Outcome]int{}}
	found := false
	for _, m := range []batch.Mode{batch.Add, batch.RemoveEmails, batch.RemoveIDs, batch.Erase} {
		if m.String() == rec.Mode {
			r.Mode, found = m, true
		}
	}
	if !found {
		return fmt.Errorf("unknown mode %q", rec.Mode)
	}
	if r.Mode == batch.RemoveIDs {
		r.emails = map[string]string{}
	}
	r.Results = make([]batch.Result, len(rec.Results))
	for i, x := range rec.Results {
		res := batch.Result{Input: x.Address, ID: x.ID, Outcome: x.Outcome, Message: x.Error}
		if r.Mode == batch.RemoveIDs {
			res.Input = x.ID
			if x.Address != "" {
				r.emails[x.ID] = x.Address
			}
		}
		// Earlier versions wrote a removal by address that the service did
		// not resolve as "removed" without deleted.
		if x.Outcome == batch.Removed && !x.Deleted {
			res.Outcome = batch.Unverified
		}
		if r.Mode == batch.RemoveIDs {
			res.Email = x.Address
		}
		r.Results[i] = res
		r.Counts[res.Outcome]++
	}
	return nil
}

// errorText is the service's own message when it sent one.
func errorText(err error) string {
	var ae *api.Error
	if errors.As(err, &ae) {
		if ae.Message != "" {
			return fmt.Sprintf("%d %s: %s", ae.StatusCode, ae.Name, ae.Message)
		}
		return ae.Error()
	}
	if errors.Is(err, context.Canceled) {
		return "cancelled"
	}
	return err.Error()
}
