package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
)

// Outcome is what happened to one entry of a run.
type Outcome string

// The outcomes a run reports.
const (
	OutAdded     Outcome = "added"
	OutAlready   Outcome = "already listed"
	OutRemoved   Outcome = "removed"
	OutNotListed Outcome = "not on the list"
	OutFailed    Outcome = "failed"
	OutUnsent    Outcome = "unsent"
)

// Result is one row of a run's results.
type Result struct {
	Address string  `json:"address,omitempty"`
	ID      string  `json:"id,omitempty"`
	Outcome Outcome `json:"outcome"`
	Deleted bool    `json:"deleted"`
	Error   string  `json:"error,omitempty"`
	// Value is what was sent for the entry (the address or the ID).
	Value string `json:"-"`
	// Batch is the batch the entry went in; -1 when it was never sent.
	Batch int `json:"-"`
}

// Run is one send of a batch set and its results; History keeps them.
type Run struct {
	Started time.Time `json:"started"`
	Target  string    `json:"target"`
	Mode    string    `json:"mode"`
	Ticket  string    `json:"ticket,omitempty"`
	Counts  Counts    `json:"counts"`
	Results []Result  `json:"results"`

	mode    Mode
	byID    bool    // the requests carry IDs (remove by ID, or remove by address after a preview)
	batches [][]int // result indices of each batch
	undoOf  bool
}

// Counts sums a run's outcomes.
type Counts struct {
	Added     int `json:"added,omitempty"`
	Already   int `json:"already_listed,omitempty"`
	Removed   int `json:"removed,omitempty"`
	NotListed int `json:"not_listed,omitempty"`
	Failed    int `json:"failed,omitempty"`
	Unsent    int `json:"unsent,omitempty"`
}

func (r *Run) count() {
	var c Counts
	for _, x := range r.Results {
		switch x.Outcome {
		case OutAdded:
			c.Added++
		case OutAlready:
			c.Already++
		case OutRemoved:
			c.Removed++
		case OutNotListed:
			c.NotListed++
		case OutFailed:
			c.Failed++
		case OutUnsent:
			c.Unsent++
		}
	}
	r.Counts = c
}

// String is the counts line shown above the results.
func (c Counts) String() string {
	s := ""
	add := func(n int, what string) {
		if n == 0 {
			return
		}
		if s != "" {
			s += " · "
		}
		s += fmt.Sprintf("%d %s", n, what)
	}
	add(c.Added, "added")
	add(c.Already, "already listed")
	add(c.Removed, "removed")
	add(c.NotListed, "not on the list")
	add(c.Failed, "failed")
	add(c.Unsent, "unsent")
	if s == "" {
		return "nothing"
	}
	return s
}

// newRun lays out the results of a run before it is sent: entries known
// not to be on the list (from the preview) are settled already and go in
// no batch.
func newRun(mode Mode, target, ticket string, rows []Result, byID bool) *Run {
	r := &Run{Started: time.Now().UTC(), Target: target, Mode: mode.String(), Ticket: ticket, mode: mode, byID: byID, Results: rows}
	r.layout(func(x Result) bool { return x.Outcome == OutUnsent })
	return r
}

// layout groups the results that pick selects into batches of up to
// api.MaxBatch, and marks them unsent.
func (r *Run) layout(pick func(Result) bool) {
	r.batches = nil
	var cur []int
	for i := range r.Results {
		if !pick(r.Results[i]) {
			continue
		}
		r.Results[i].Outcome = OutUnsent
		r.Results[i].Error = ""
		cur = append(cur, i)
		if len(cur) == api.MaxBatch {
			r.batches = append(r.batches, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		r.batches = append(r.batches, cur)
	}
	for b, idx := range r.batches {
		for _, i := range idx {
			r.Results[i].Batch = b
		}
	}
	r.count()
}

// retryable says whether some entries failed or were never sent.
func (r *Run) retryable() bool { return r.Counts.Failed+r.Counts.Unsent > 0 }

// entries is how many entries the batches carry.
func (r *Run) entries() int {
	n := 0
	for _, b := range r.batches {
		n += len(b)
	}
	return n
}

// sendBatch sends one batch and returns its answer. It runs inside a
// tea.Cmd: everything it reads is passed in.
func sendBatch(ctx context.Context, svc Service, mode Mode, byID bool, values []string) ([]api.Suppression, error) {
	switch {
	case mode == ModeAdd:
		return svc.BatchAdd(ctx, values)
	case byID:
		return svc.BatchRemoveIDs(ctx, values)
	default:
		return svc.BatchRemoveEmails(ctx, values)
	}
}

// settleAt records a batch's answer in the results; an ID made before
// cutoff was on the list already.
func (r *Run) settleAt(b int, sentAt time.Time, data []api.Suppression, err error) {
	idx := r.batches[b]
	if err != nil {
		msg := errorText(err)
		for _, i := range idx {
			r.Results[i].Outcome = OutFailed
			r.Results[i].Error = msg
		}
		r.count()
		return
	}
	switch {
	case r.mode == ModeAdd:
		if len(data) == len(idx) {
			// The service answers one item per distinct address in request
			// order, and our batches are distinct: map by position.
			for k, i := range idx {
				r.Results[i].ID = data[k].ID
				r.Results[i].Outcome = addOutcome(data[k].ID, sentAt)
			}
		} else {
			for _, i := range idx {
				r.Results[i].Outcome = OutAdded
				r.Results[i].Error = "the service answered with a different count; IDs unknown"
			}
		}
	case r.byID:
		deleted := make(map[string]bool, len(data))
		for _, d := range data {
			deleted[d.ID] = d.Deleted
		}
		for _, i := range idx {
			if deleted[r.Results[i].Value] {
				r.Results[i].Outcome = OutRemoved
				r.Results[i].Deleted = true
			} else {
				r.Results[i].Outcome = OutNotListed
			}
		}
	default:
		// Removal by address without lookups: the answer carries no
		// addresses, so only a full count can be mapped by position.
		if len(data) == len(idx) {
			for k, i := range idx {
				r.Results[i].ID = data[k].ID
				r.Results[i].Deleted = data[k].Deleted
				r.Results[i].Outcome = OutRemoved
			}
		} else {
			for _, i := range idx {
				r.Results[i].Outcome = OutRemoved
				r.Results[i].Error = fmt.Sprintf("the batch removed %d of %d; without lookups the rest is not known", len(data), len(idx))
			}
		}
	}
	r.count()
}

// addOutcome tells a new entry from one already on the list. The answer
// does not say; but a time-ordered ID (UUID version 7, as our service
// makes) carries its creation time, and one made well before the request
// was sent was already there.
func addOutcome(id string, sentAt time.Time) Outcome {
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		return OutAdded
	}
	// The ID holds whole milliseconds: compare with the millisecond before
	// the one the request was sent in.
	sec, nsec := u.Time().UnixTime()
	if time.Unix(sec, nsec).Before(sentAt.Truncate(time.Millisecond).Add(-time.Millisecond)) {
		return OutAlready
	}
	return OutAdded
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
