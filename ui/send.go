package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/progress"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
)

// sender is the Send screen: it sends a run's batches one after another,
// shows progress by batch and entry and any wait for the rate limit, and
// on cancel stops after the batch in flight.
type sender struct {
	c       *Common
	svc     Service
	run     *Run
	seq     int
	next    int // next batch to send
	done    int // batches answered
	sent    int // entries answered
	total   int
	ctx     context.Context
	stop    context.CancelFunc
	stopped bool
	wait    string
	bar     progress.Model
	slack   time.Duration
}

func newSender(c *Common, svc Service, slack time.Duration) *sender {
	bar := progress.New(progress.WithoutPercentage(), progress.WithColorProfile(c.r.ColorProfile()), progress.WithSolidFill("#7D56F4"))
	return &sender{c: c, svc: svc, bar: bar, slack: slack}
}

func (s *sender) setSize(w, h int) { s.bar.Width = max(w-2, 10) }

func (s *sender) help(g globalKeys) help.KeyMap {
	b := []key.Binding{kbh("esc/c", "cancel after the batch in flight", "esc", "c")}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

// batchDoneMsg is a batch's answer; seq ties it to its run.
type batchDoneMsg struct {
	seq    int
	batch  int
	sentAt time.Time
	data   []api.Suppression
	err    error
}

// waitMsg reports the client waiting before a request of the run.
type waitMsg struct {
	seq  int
	info api.WaitInfo
	ch   chan tea.Msg
}

// runDoneMsg says a run has ended (finished or cancelled).
type runDoneMsg struct{ run *Run }

// start sends the run's batches from the first one.
func (s *sender) start(run *Run) tea.Cmd {
	s.seq++
	s.run, s.next, s.done, s.sent, s.stopped, s.wait = run, 0, 0, 0, false, ""
	s.total = run.entries()
	s.ctx, s.stop = context.WithCancel(context.Background())
	return s.sendNext()
}

// sendNext starts the next batch in a goroutine and listens for its waits
// and its answer. The request itself is detached from cancellation so that
// a cancel lets it finish and its outcome is known.
func (s *sender) sendNext() tea.Cmd {
	if s.next >= len(s.run.batches) || s.stopped {
		return s.finish()
	}
	b := s.next
	s.next++
	idx := s.run.batches[b]
	values := make([]string, len(idx))
	for k, i := range idx {
		values[k] = s.run.Results[i].Value
	}
	svc, mode, byID, seq, ctx := s.svc, s.run.mode, s.run.byID, s.seq, s.ctx
	ch := make(chan tea.Msg, 8)
	go func() {
		wctx := api.WithWaits(api.Detach(ctx), func(w api.WaitInfo) {
			// Keep a slot for the answer, so that the goroutine never
			// blocks on a channel nobody reads any more.
			if len(ch) < cap(ch)-1 {
				ch <- waitMsg{seq: seq, info: w, ch: ch}
			}
		})
		sentAt := time.Now()
		data, err := sendBatch(wctx, svc, mode, byID, values)
		ch <- batchDoneMsg{seq: seq, batch: b, sentAt: sentAt, data: data, err: err}
	}()
	return listen(ch)
}

func listen(ch chan tea.Msg) tea.Cmd {
	return func() tea.Msg { return <-ch }
}

func (s *sender) finish() tea.Cmd {
	if s.stop != nil {
		s.stop()
	}
	run := s.run
	run.count()
	return func() tea.Msg { return runDoneMsg{run: run} }
}

func (s *sender) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case waitMsg:
		if msg.seq != s.seq {
			return nil
		}
		s.wait = fmt.Sprintf("Waiting %s: %s.", msg.info.Delay.Round(100*time.Millisecond), msg.info.Reason)
		return listen(msg.ch)
	case batchDoneMsg:
		if msg.seq != s.seq {
			return nil
		}
		s.wait = ""
		cutoff := msg.sentAt.Add(-s.slack)
		if sk, ok := s.svc.(interface{ ClockSkew() time.Duration }); ok {
			// IDs carry the service's clock.
			cutoff = cutoff.Add(sk.ClockSkew())
		}
		s.run.settleAt(msg.batch, cutoff, msg.data, msg.err)
		s.done++
		s.sent += len(s.run.batches[msg.batch])
		return s.sendNext()
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		switch msg.String() {
		case "esc", "c", "ctrl+c":
			if !s.stopped {
				s.stopped = true
				s.stop()
				s.wait = "Cancelling: the batch in flight finishes, the rest stays unsent."
			}
		}
	}
	return nil
}

func (s *sender) render() string {
	st := s.c.Styles
	r := s.run
	var b strings.Builder
	fmt.Fprintln(&b, st.Title.Render(fmt.Sprintf("Sending · %s → %s", r.mode, r.Target)))
	if r.Ticket != "" {
		fmt.Fprintln(&b, "Ticket: "+r.Ticket)
	}
	fmt.Fprintln(&b)
	pct := 0.0
	if s.total > 0 {
		pct = float64(s.sent) / float64(s.total)
	}
	fmt.Fprintln(&b, s.bar.ViewAs(pct))
	fmt.Fprintf(&b, "Batch %d of %d · %d of %d entries answered\n", min(s.done+1, len(r.batches)), len(r.batches), s.sent, s.total)
	c := r.Counts
	fmt.Fprintln(&b, st.Muted.Render("So far: "+c.String()))
	if s.wait != "" {
		fmt.Fprintln(&b, st.Warn.Render(s.wait))
	}
	return strings.TrimSuffix(b.String(), "\n")
}
