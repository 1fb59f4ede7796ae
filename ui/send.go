package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// sender is the Send screen: it sends a run through the run service
// (batch.Runs) in the background and shows progress by batch and entry and
// any wait for the rate limit; on cancel the batch in flight finishes and
// the rest stays unsent.
type sender struct {
	c         *Common
	seq       int
	job       sendJob
	state     progressState
	stop      context.CancelFunc
	stopped   bool
	done      chan struct{} // closed when the run in flight has stopped
	cancelKey key.Binding
	bar       progress.Model
}

// sendJob is what a send is about, for its screen and its results.
type sendJob struct {
	mode    batch.Mode
	target  string
	ticket  string
	emails  map[string]string // ID → address, for a removal by ID
	started time.Time
	// resume names the recorded run to finish instead of a new plan.
	resume string
	// undoOf names the run a new plan undoes.
	undoOf string
	// input says where the entries came from ("pasted", a file name).
	input string
	// total is how many entries the run sends, prior how many of them
	// have an outcome already (a resume).
	total int
	prior []batch.Result
	// note and expires are what an addition says of each entry it lists.
	note    string
	expires batch.Expiry
	// send starts the run on the run service.
	send func(context.Context, *batch.Runs, batch.Observer) (batch.RunInfo, error)
}

// progressState is what the Send screen shows of a run.
type progressState struct {
	batch, batches int // the batch in flight (1-based)
	done, total    int // entries answered, entries in all
	counts         map[batch.Outcome]int
	wait           string
	pages          int // list pages read to find IDs
	// answered says a batch was answered since the last progress read.
	answered bool
}

func newSender(c *Common) *sender {
	bar := progress.New(progress.WithoutPercentage(), progress.WithColorProfile(c.r.ColorProfile()), progress.WithSolidFill("#7D56F4"))
	return &sender{c: c, bar: bar,
		cancelKey: kbh("esc/c", "cancel (the batch in flight gets a moment)", "esc", "c")}
}

func (s *sender) setSize(w, h int) { s.bar.Width = max(w-2, 10) }

func (s *sender) help(g globalKeys) help.KeyMap {
	b := []key.Binding{s.cancelKey}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

// progressMsg is the latest progress of the run seq.
type progressMsg struct {
	seq   int
	state progressState
	feed  *feed
}

// sentMsg is the end of the run seq: the run, and the error that stopped
// it (ctx's after a cancel).
type sentMsg struct {
	seq int
	run *Run
	err error
}

// feed carries a run's progress from the run's goroutines to the UI.
// OnEvent folds each event into the state under a lock and wakes the
// listener without ever blocking; the listener reads the latest state, so
// progress is coalesced while the UI is busy, and the end of the run is
// kept until it is read.
type feed struct {
	seq      int
	mu       sync.Mutex
	state    progressState
	outcomes []batch.Outcome // of each entry so far, to keep the counts
	end      *sentMsg
	wake     chan struct{}
}

// newFeed is the feed of run seq of total entries, of which prior (in
// plan order) have an outcome already.
func newFeed(seq, total int, prior []batch.Result) *feed {
	st := progressState{batches: batch.BatchCount(total), total: total, batch: 1, counts: map[batch.Outcome]int{}}
	outcomes := make([]batch.Outcome, total)
	for i := range outcomes {
		outcomes[i] = batch.Unsent
		if i < len(prior) {
			outcomes[i] = prior[i].Outcome
			if prior[i].Settled() {
				st.done++
			}
		}
		st.counts[outcomes[i]]++
	}
	return &feed{seq: seq, state: st, outcomes: outcomes, wake: make(chan struct{}, 1)}
}

// snapshot is the progress so far.
func (f *feed) snapshot() progressState {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := f.state
	st.counts = maps.Clone(st.counts)
	return st
}

// event is the run's Observer.Event.
func (f *feed) event(e batch.Event) {
	f.mu.Lock()
	s := &f.state
	s.batches, s.total = e.Batches, e.Total
	switch e.Kind {
	case batch.BatchStarted:
		s.batch, s.done, s.wait = e.Batch, e.Done, ""
	case batch.Waiting:
		s.wait = fmt.Sprintf("Waiting %s: %s.", e.Wait.Round(100*time.Millisecond), e.Reason)
	case batch.Listing:
		s.pages, s.done = e.Pages, e.Done
	case batch.BatchDone, batch.BatchFailed:
		s.done, s.wait = e.Done, ""
		s.answered = s.answered || e.Kind == batch.BatchDone
		// Results are in plan order and batches are its chunks.
		start := (e.Batch - 1) * api.MaxBatch
		for k, x := range e.Results {
			if i := start + k; i < len(f.outcomes) {
				s.counts[f.outcomes[i]]--
				f.outcomes[i] = x.Outcome
				s.counts[x.Outcome]++
			}
		}
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default: // a wake is pending: the listener reads the latest state anyway
	}
}

// finish records the end of the run and wakes the listener for good.
func (f *feed) finish(m sentMsg) {
	f.mu.Lock()
	f.end = &m
	f.mu.Unlock()
	close(f.wake)
}

// listen waits for news of the run: the end when it came, else the latest
// progress.
func (f *feed) listen() tea.Msg {
	<-f.wake
	f.mu.Lock()
	end := f.end
	f.mu.Unlock()
	if end != nil {
		return *end
	}
	st := f.snapshot()
	f.mu.Lock()
	f.state.answered = false
	f.mu.Unlock()
	return progressMsg{seq: f.seq, state: st, feed: f}
}

// sendPlan sends plan as a new run (recorded, so that a run the UI
// leaves, a closed terminal, can be resumed by the UI or the CLI).
func (s *sender) sendPlan(job sendJob, plan *batch.Input) tea.Cmd {
	meta := batch.RunMeta{Reference: job.ticket, Input: job.input, Note: job.note}
	job.total = plan.Len()
	exp := job.expires
	job.send = func(ctx context.Context, rs *batch.Runs, on batch.Observer) (batch.RunInfo, error) {
		// An age counts from the service's clock, asked now.
		at, err := batch.ExpiresAt(ctx, rs.Client, exp)
		if err != nil {
			return batch.RunInfo{}, err
		}
		meta.ExpiresAt = at
		return rs.Start(ctx, plan, meta, on)
	}
	return s.start(job)
}

// sendUndo sends the undo u of a recorded run.
func (s *sender) sendUndo(job sendJob, u batch.Undo) tea.Cmd {
	job.total = len(u.Values)
	job.send = func(ctx context.Context, rs *batch.Runs, on batch.Observer) (batch.RunInfo, error) {
		return rs.Undo(ctx, u, on)
	}
	return s.start(job)
}

// resume finishes the recorded run job.resume; what it has done so far
// counts from the start.
func (s *sender) resume(job sendJob) tea.Cmd {
	ri, err := s.c.Runs.Read(job.resume, func(rep batch.Report) error {
		job.prior = append(job.prior, rep.Results...)
		return nil
	})
	job.total, job.mode, job.started = ri.Entries, ri.Mode, ri.Created
	id := job.resume
	job.send = func(ctx context.Context, rs *batch.Runs, on batch.Observer) (batch.RunInfo, error) {
		if err != nil {
			return batch.RunInfo{}, err // it cannot start: it is not read
		}
		return rs.Resume(ctx, id, on)
	}
	return s.start(job)
}

// start sends job in the background and listens to its progress.
func (s *sender) start(job sendJob) tea.Cmd {
	s.seq++
	if s.stop != nil {
		s.stop()
	}
	ctx, stop := context.WithCancel(context.Background())
	s.job, s.stop, s.stopped, s.done = job, stop, false, make(chan struct{})
	if s.job.started.IsZero() {
		s.job.started = time.Now().UTC()
	}
	f := newFeed(s.seq, job.total, job.prior)
	s.state = f.snapshot()
	seq, done, runs := s.seq, s.done, s.c.Runs
	return func() tea.Msg {
		go func() {
			defer close(done)
			var segs segments
			ri, err := job.send(ctx, runs, batch.Observer{Event: f.event, Segment: func(rep batch.Report) { _ = segs.add(rep) }})
			var run *Run
			if ri.Entries > 0 {
				run = runOf(ri, segs)
				run.emails = job.emails
			}
			f.finish(sentMsg{seq: seq, run: run, err: err})
		}()
		return f.listen()
	}
}

// cancel stops the run in flight: nothing more goes out, and a batch on
// the wire is cut off after a moment.
func (s *sender) cancel() {
	if s.stop != nil && !s.stopped {
		s.stopped = true
		s.stop()
	}
}

// wait blocks until the run in flight (if any) has stopped and journaled
// what it sent; quitting calls it after a cancel.
func (s *sender) wait() {
	if s.done != nil {
		<-s.done
	}
}

func (s *sender) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case progressMsg:
		if msg.seq != s.seq {
			return nil
		}
		wait := s.state.wait
		s.state = msg.state
		if s.stopped {
			s.state.wait = wait
		}
		return msg.feed.listen
	case sentMsg:
		if msg.seq != s.seq {
			return nil
		}
		return s.ended(msg)
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		if key.Matches(msg, s.cancelKey) && !s.stopped {
			s.stopped = true
			s.stop()
			s.state.wait = "Cancelling: the batch in flight gets a moment to finish, the rest stays unsent."
		}
	}
	return nil
}

// ended hands the run that ended to the Results screen, with what
// stopped it.
func (s *sender) ended(msg sentMsg) tea.Cmd {
	s.stop()
	run := msg.run
	if run == nil {
		// The run could not start (it or its journal could not be read).
		return func() tea.Msg { return runFailedMsg{err: msg.err} }
	}
	note := ""
	if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
		note = capitalize(msg.err.Error()) + "."
	}
	return func() tea.Msg { return runDoneMsg{run: run, note: note} }
}

func (s *sender) render() string {
	st := s.c.Styles
	p := s.state
	var b strings.Builder
	fmt.Fprintln(&b, st.Title.Render(fmt.Sprintf("Sending · %s → %s", s.job.mode, s.job.target)))
	if s.job.ticket != "" {
		fmt.Fprintln(&b, "Ticket: "+s.job.ticket)
	}
	fmt.Fprintln(&b)
	pct := 0.0
	if p.total > 0 {
		pct = float64(p.done) / float64(p.total)
	}
	fmt.Fprintln(&b, s.bar.ViewAs(pct))
	fmt.Fprintf(&b, "Batch %d of %d · %d of %d entries answered\n", min(p.batch, p.batches), p.batches, p.done, p.total)
	fmt.Fprintln(&b, st.Muted.Render("So far: "+countsText(p.counts, 0, 0)))
	if p.pages > 0 && p.batch <= 1 && p.done == 0 {
		fmt.Fprintln(&b, st.Muted.Render(fmt.Sprintf("Reading the list to find the addresses' IDs: %d %s so far.", p.pages, pluralN(p.pages, "page"))))
	}
	if p.wait != "" {
		fmt.Fprintln(&b, st.Warn.Render(p.wait))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
