package ui

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
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

// sender is the Send screen: it runs a plan with batch.Runner in the
// background and shows progress by batch and entry and any wait for the
// rate limit; on cancel the batch in flight finishes and the rest stays
// unsent.
type sender struct {
	c          *Common
	client     *api.Client
	journalDir string
	seq        int
	job        sendJob
	state      progressState
	stop       context.CancelFunc
	stopped    bool
	bar        progress.Model
}

// sendJob is what a send is about, for its screen and its results.
type sendJob struct {
	mode    batch.Mode
	target  string
	ticket  string
	emails  map[string]string // ID → address, for a removal by ID
	started time.Time
}

// progressState is what the Send screen shows of a run.
type progressState struct {
	batch, batches int // the batch in flight (1-based)
	done, total    int // entries answered, entries in all
	counts         map[batch.Outcome]int
	wait           string
	pages          int // list pages read to find IDs
}

func newSender(c *Common, client *api.Client, journalDir string) *sender {
	bar := progress.New(progress.WithoutPercentage(), progress.WithColorProfile(c.r.ColorProfile()), progress.WithSolidFill("#7D56F4"))
	return &sender{c: c, client: client, journalDir: journalDir, bar: bar}
}

func (s *sender) setSize(w, h int) { s.bar.Width = max(w-2, 10) }

func (s *sender) help(g globalKeys) help.KeyMap {
	b := []key.Binding{kbh("esc/c", "cancel after the batch in flight", "esc", "c")}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

// progressMsg is the latest progress of the run seq.
type progressMsg struct {
	seq   int
	state progressState
	feed  *feed
}

// sentMsg is the end of the run seq: its report, and the error that
// stopped it (ctx's after a cancel).
type sentMsg struct {
	seq int
	rep batch.Report
	err error
}

// runDoneMsg hands a finished (or cancelled) run to the Results screen;
// note says what went wrong beyond the results, if anything.
type runDoneMsg struct {
	run  *Run
	note string
}

// feed carries a run's progress from the Runner's goroutine to the UI.
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

func newFeed(seq int, st progressState, outcomes []batch.Outcome) *feed {
	return &feed{seq: seq, state: st, outcomes: outcomes, wake: make(chan struct{}, 1)}
}

// event is the Runner's OnEvent.
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
	defer f.mu.Unlock()
	if f.end != nil {
		return *f.end
	}
	st := f.state
	st.counts = maps.Clone(st.counts)
	return progressMsg{seq: f.seq, state: st, feed: f}
}

// start runs plan, or with prev sends again the failed and unsent batches
// of that report.
func (s *sender) start(job sendJob, plan batch.Plan, prev *batch.Report) tea.Cmd {
	s.seq++
	if s.stop != nil {
		s.stop()
	}
	ctx, stop := context.WithCancel(context.Background())
	s.job, s.stop, s.stopped = job, stop, false
	if s.job.started.IsZero() {
		s.job.started = time.Now().UTC()
	}
	if prev != nil {
		plan = prev.Plan
	}
	st := progressState{batches: (len(plan.Values) + api.MaxBatch - 1) / api.MaxBatch, total: len(plan.Values), batch: 1}
	outcomes := make([]batch.Outcome, len(plan.Values))
	if prev != nil {
		st.batches = prev.Batches
		if again := append(slices.Clone(prev.Failed), prev.Unsent...); len(again) > 0 {
			st.batch = slices.Min(again)
		}
		for i, x := range prev.Results[:min(len(prev.Results), len(outcomes))] {
			outcomes[i] = x.Outcome
			if x.Settled() {
				st.done++
			}
		}
	} else {
		for i := range outcomes {
			outcomes[i] = batch.Unsent
		}
	}
	st.counts = map[batch.Outcome]int{}
	for _, o := range outcomes {
		st.counts[o]++
	}
	s.state = st
	f := newFeed(s.seq, st, outcomes)
	f.state.counts = maps.Clone(st.counts)
	runner := &batch.Runner{Client: s.client, Concurrency: 1, JournalDir: s.journalDir, OnEvent: f.event}
	seq, client := s.seq, s.client
	return func() tea.Msg {
		go func() {
			var rep batch.Report
			var err error
			if prev != nil {
				rep, err = runner.Retry(ctx, *prev)
			} else {
				rep, err = runner.Run(ctx, plan)
			}
			switch {
			case rep.Results != nil || err == nil:
			case prev != nil:
				// The retry could not start (its journal could not be
				// read): the run stays as it was.
				rep = *prev
			default:
				// Stopped before any batch (the journal could not be
				// made): everything is unsent.
				rep = unsentReport(plan, client.BaseURL())
			}
			f.finish(sentMsg{seq: seq, rep: rep, err: err})
		}()
		return f.listen()
	}
}

// unsentReport is the report of a plan of which nothing was sent.
func unsentReport(plan batch.Plan, target string) batch.Report {
	rep := batch.Report{Target: target, Plan: plan, Batches: len(plan.Batches())}
	for i, b := range plan.Batches() {
		rep.Unsent = append(rep.Unsent, i+1)
		for _, v := range b {
			rep.Results = append(rep.Results, batch.Result{Input: v, Outcome: batch.Unsent, Batch: i + 1})
		}
	}
	return rep
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
		s.stop()
		j := s.job
		run := newRun(msg.rep, j.started, j.target, j.ticket, j.emails)
		note := ""
		if msg.err != nil && !errors.Is(msg.err, context.Canceled) {
			note = capitalize(msg.err.Error()) + "."
		}
		return func() tea.Msg { return runDoneMsg{run: run, note: note} }
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		switch msg.String() {
		case "esc", "c", "ctrl+c":
			if !s.stopped {
				s.stopped = true
				s.stop()
				s.state.wait = "Cancelling: the batch in flight finishes, the rest stays unsent."
			}
		}
	}
	return nil
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
	fmt.Fprintln(&b, st.Muted.Render("So far: "+countsText(p.counts)))
	if p.pages > 0 && p.batch <= 1 && p.done == 0 {
		fmt.Fprintln(&b, st.Muted.Render(fmt.Sprintf("Reading the list to find the addresses' IDs: %d %s so far.", p.pages, pluralN(p.pages, "page"))))
	}
	if p.wait != "" {
		fmt.Fprintln(&b, st.Warn.Render(p.wait))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
