package batch

import (
	"time"

	"github.com/shushlist/shush/api/client"
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of events of a run.
const (
	// BatchStarted: a batch is about to be sent (or looked up first). A
	// cancel that comes while it still waits (rate limit, retry) stops it
	// before its request goes out: no further event, and it is Unsent.
	BatchStarted EventKind = iota
	// BatchDone: a batch finished; Results holds its entries.
	BatchDone
	// BatchFailed: a batch was refused or its retries ran out; Err says why.
	BatchFailed
	// Waiting: a batch waits Wait for the rate limit or before a retry.
	Waiting
	// Listing: a removal by address reads the list to find the addresses'
	// IDs before its batches start; Pages pages are read so far.
	Listing
)

// Event reports the progress of a run. Events are delivered one at a time
// (Observer.Event is never called concurrently).
type Event struct {
	Kind    EventKind
	Batch   int // 1-based
	Batches int
	Size    int // entries in the batch
	// Done counts entries whose batch has finished (done or failed), Total
	// all entries of the plan.
	Done, Total int
	// Wait and Reason describe a Waiting event.
	Wait   time.Duration
	Reason client.WaitReason
	// Err is the failure of a BatchFailed event, or the error that caused a
	// retry on a Waiting event.
	Err     error
	Results []Result
	// Pages counts the list pages read, on a Listing event.
	Pages int
}

// Observer follows a run as Runs.Start or Runs.Resume sends it. Every
// field may be nil; each is called from the run's goroutines and must
// return quickly.
type Observer struct {
	// Started receives the run's header once it is recorded (or read back,
	// for a resume), before anything is sent.
	Started func(RunInfo)
	// Event receives the run's progress, one event at a time.
	Event func(Event)
	// Segment receives the report of each segment of the run, in order,
	// whether sent now or read back from its journal: together they hold
	// every entry of the run once.
	Segment func(Report)
	// Pieces has Segment receive each segment in pieces, not whole:
	// reports of consecutive batches, in plan order, each as soon as its
	// batches and every batch before them have ended, so that the run
	// holds the results of the batches in flight, never a segment's (a
	// report of 100,000 entries is some 20 MB). Base and Batches place a
	// piece in the run; the first piece of a segment carries what the
	// segment's plan leaves out (Invalid, LeftOut, Duplicates), every
	// piece its Restore. Segment is then called from the run's goroutines,
	// one piece at a time.
	Pieces bool
}

func (o Observer) started(ri RunInfo) {
	if o.Started != nil {
		o.Started(ri)
	}
}

func (o Observer) segment(rep Report) {
	if o.Segment != nil {
		o.Segment(rep)
	}
}
