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

// Run is one send of a batch set and its results, as the Results and
// History screens show them; the outcomes are batch's.
type Run struct {
	Started time.Time
	Target  string
	Mode    batch.Mode
	Ticket  string
	// Results has one entry per value sent, in order (batch.Report.Results).
	Results []batch.Result
	// Counts is how many entries have each outcome.
	Counts map[batch.Outcome]int

	// emails maps an ID to its address for a removal by ID, from the
	// preview: the undo of the run adds these addresses back.
	emails map[string]string
	// report is the live run's report, which Retry takes; nil for a run
	// read from the history.
	report *batch.Report
}

// newRun is the run of a report, started at started on the target named
// target.
func newRun(rep batch.Report, started time.Time, target, ticket string, emails map[string]string) *Run {
	return &Run{Started: started, Target: target, Mode: rep.Plan.Mode, Ticket: ticket,
		Results: rep.Results, Counts: rep.Count(), emails: emails, report: &rep}
}

// address is the address of a result: the input itself, or for a removal
// by ID the address the preview found for it ("" when unknown).
func (r *Run) address(x batch.Result) string {
	if r.Mode == batch.RemoveIDs {
		return r.emails[x.Input]
	}
	return x.Input
}

// retryable says whether some entries failed or were never sent, and the
// run can send them again.
func (r *Run) retryable() bool {
	return r.report != nil && r.Counts[batch.Failed]+r.Counts[batch.Unsent] > 0
}

// countsText is the counts line shown above the results and in the
// history.
func countsText(c map[batch.Outcome]int) string {
	var parts []string
	for _, o := range batch.Outcomes() {
		if n := c[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o.Text()))
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " · ")
}

// undoable is what the undo of the run sends: for an addition the IDs it
// added (never those already listed), for a removal the addresses it took
// off (and those it may have: a removal by address without lookups does
// not say which of a batch it removed, and putting back one too many is
// the safe side of a suppression list). emails maps the IDs to their
// addresses, so that the undo's results show them.
func (r *Run) undoable() (values []string, emails map[string]string, unknown int) {
	if r.Mode == batch.Add {
		emails = map[string]string{}
		for _, x := range r.Results {
			if x.Outcome == batch.Added && x.ID != "" {
				values = append(values, x.ID)
				emails[x.ID] = x.Input
			}
		}
		return values, emails, 0
	}
	for _, x := range r.Results {
		if x.Outcome != batch.Removed && x.Outcome != batch.Unverified {
			continue
		}
		if a := r.address(x); a != "" {
			values = append(values, a)
		} else {
			unknown++
		}
	}
	return values, nil, unknown
}

// inverse is the plan that undoes the run and the ticket it goes under.
func (r *Run) inverse() (batch.Plan, string, map[string]string) {
	values, emails, _ := r.undoable()
	mode := batch.RemoveIDs
	if removes(r.Mode) {
		mode = batch.Add
	}
	ticket := r.Ticket
	if ticket != "" {
		ticket += " "
	}
	return batch.Plan{Mode: mode, Values: values}, ticket + "(undo of the run of " + r.Started.Local().Format("2006-01-02 15:04:05") + ")", emails
}

// row is one result as the history file and an export write it:
// address, ID, outcome, deleted (a removal the service confirmed) and the
// error message.
type row struct {
	Address string        `json:"address,omitempty"`
	ID      string        `json:"id,omitempty"`
	Outcome batch.Outcome `json:"outcome"`
	Deleted bool          `json:"deleted"`
	Error   string        `json:"error,omitempty"`
}

func (r *Run) rows() []row {
	out := make([]row, len(r.Results))
	for i, x := range r.Results {
		out[i] = row{Address: r.address(x), ID: x.ID, Outcome: x.Outcome, Deleted: x.Outcome == batch.Removed, Error: x.Message}
	}
	return out
}

// record is a run as a line of the history file. The format predates the
// use of batch's results and stays as it was, so that history written by
// earlier versions still opens (and theirs reads ours).
type record struct {
	Started time.Time      `json:"started"`
	Target  string         `json:"target"`
	Mode    string         `json:"mode"`
	Ticket  string         `json:"ticket,omitempty"`
	Counts  map[string]int `json:"counts"`
	Results []row          `json:"results"`
}

// countKey is the name of an outcome in a record's counts.
func countKey(o batch.Outcome) string { return string(o) }

// MarshalJSON writes the run as a history record.
func (r Run) MarshalJSON() ([]byte, error) {
	rec := record{Started: r.Started, Target: r.Target, Mode: r.Mode.String(), Ticket: r.Ticket,
		Counts: map[string]int{}, Results: r.rows()}
	for o, n := range r.Counts {
		if n > 0 {
			rec.Counts[countKey(o)] = n
		}
	}
	return json.Marshal(rec)
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
	for _, m := range []batch.Mode{batch.Add, batch.RemoveEmails, batch.RemoveIDs} {
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
