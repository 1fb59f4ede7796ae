package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/safe"
)

// intakeEvery is how often the queue is read again while nothing else
// asks: the header's count of the events that wait stays current.
const intakeEvery = 30 * time.Second

// intake is the Intake screen: the events the rules could not place
// (policy blocks, undetermined bounces, protected addresses), each with
// its evidence; one key suppresses the address, one ignores the event.
// The decision is the agent's (or the key's) in the trail.
type intake struct {
	c     *Common
	svc   *client.Client
	keys  intakeKeys
	table table.Model
	items []api.ReviewItem
	more  bool
	// known says the service answered the queue once; offered that it
	// has one (a service without intake answers 404).
	known, offered bool
	loading        bool
	busy           string // the ID of the item being decided
	status         string
	seq            int
	detailLines    int
}

type intakeKeys struct {
	Move, Suppress, Ignore, Reload key.Binding
}

func newIntake(c *Common, svc *client.Client) *intake {
	return &intake{c: c, svc: svc, table: c.newTable(), detailLines: 6, keys: intakeKeys{
		Move:     kbh("↑/↓", "move", "up"),
		Suppress: kb("suppress the address", "s"),
		Ignore:   kb("ignore the event", "i"),
		Reload:   kbh("ctrl+r", "reload", "ctrl+r"),
	}}
}

func (in *intake) keyMode() inputMode { return normal }

func (in *intake) setSize(w, h int) {
	cols := []table.Column{{Title: "Received", Width: 16}, {Title: "Provider", Width: 8}, {Title: "Address"}, {Title: "Status", Width: 7}, {Title: "Why it waits"}}
	rest := max(w-(16+8+7+3*2)-3*2-4, 30)
	cols[2].Width = min(rest*3/5, 40)
	cols[4].Width = rest - cols[2].Width
	in.table.SetRows(nil)
	in.table.SetColumns(cols)
	in.table.SetWidth(w)
	st := in.c.Styles
	in.table.SetHeight(max(h-lines(st.Title, st.Warn)-in.detailLines, 2))
	in.refresh()
}

func (in *intake) help(g globalKeys) help.KeyMap {
	b := []key.Binding{in.keys.Move, in.keys.Suppress, in.keys.Ignore, in.keys.Reload, g.Build, g.Help}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Browse, g.History, g.Quit}}}
}

// waiting is the header's count: the events that wait, once known.
func (in *intake) waiting() (int, bool) {
	return len(in.items), in.offered && in.known
}

// reviewMsg is a page of the queue, read for load seq.
type reviewMsg struct {
	seq   int
	items []api.ReviewItem
	more  bool
	err   error
}

func (m reviewMsg) news() (bool, bool) { return newsOf(m.err) }

// decidedMsg is the service's answer to a decision.
type decidedMsg struct {
	id   string
	item api.ReviewItem
	err  error
}

func (m decidedMsg) news() (bool, bool) { return newsOf(m.err) }

// intakeTickMsg is the turn to read the queue again.
type intakeTickMsg struct{ seq int }

// newsOf is what a request's error says of the service, for the header.
func newsOf(err error) (answered, failed bool) {
	if err == nil {
		return true, false
	}
	_, isAPI := err.(*api.Error)
	return false, !isAPI
}

// load reads the queue (the newest 100 waiting).
func (in *intake) load() tea.Cmd {
	if in.svc == nil {
		return nil
	}
	in.seq++
	in.loading = true
	svc, seq := in.svc, in.seq
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(client.Once(context.Background()), 10*time.Second)
		defer cancel()
		page, err := svc.Review(ctx, client.ReviewParams{WebhookParams: client.WebhookParams{Limit: api.MaxBatch}})
		return reviewMsg{seq: seq, items: page.Data, more: page.HasMore, err: err}
	}
}

func (in *intake) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case reviewMsg:
		return in.loaded(msg)
	case decidedMsg:
		return in.decided(msg)
	case intakeTickMsg:
		if msg.seq != in.seq || in.loading {
			return nil
		}
		return in.load()
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		switch {
		case key.Matches(msg, in.keys.Reload):
			in.status = ""
			return in.load()
		case key.Matches(msg, in.keys.Suppress):
			return in.decide(api.ReviewSuppress)
		case key.Matches(msg, in.keys.Ignore):
			return in.decide(api.ReviewIgnore)
		}
		var cmd tea.Cmd
		in.table, cmd = in.table.Update(msg)
		return cmd
	}
	return nil
}

// loaded takes a page of the queue and schedules the next read.
func (in *intake) loaded(msg reviewMsg) tea.Cmd {
	if msg.seq != in.seq {
		return nil
	}
	in.loading = false
	switch {
	case client.IsUnsupported(msg.err) || client.IsNotFound(msg.err):
		in.known, in.offered, in.items = true, false, nil
		in.status = "This service has no review queue (intake needs shush serve)."
		in.refresh()
		return nil
	case msg.err != nil:
		in.status = "The review queue could not be read: " + errorText(msg.err) + "."
	default:
		in.known, in.offered, in.items, in.more = true, true, msg.items, msg.more
		in.refresh()
	}
	return in.c.after(intakeEvery, intakeTickMsg{in.seq})
}

// decide sends the decision on the item under the cursor.
func (in *intake) decide(decision string) tea.Cmd {
	i := in.table.Cursor()
	if in.busy != "" || i < 0 || i >= len(in.items) {
		return nil
	}
	it := in.items[i]
	in.busy = it.ID
	in.status = "Sending the decision on " + safe.Text(it.Email) + "…"
	svc := in.svc
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		got, err := svc.Decide(ctx, it.ID, decision, "")
		if got.Email == "" {
			got.Email = it.Email
		}
		return decidedMsg{id: it.ID, item: got, err: err}
	}
}

// decided says what the decision did and takes the item off the queue.
func (in *intake) decided(msg decidedMsg) tea.Cmd {
	in.busy = ""
	if msg.err != nil {
		in.status = "Not decided: " + errorText(msg.err) + "."
		return nil
	}
	if msg.item.Decision == api.ReviewSuppress {
		in.status = fmt.Sprintf("Suppressed %s (entry %s); Browse can take it off again.", safe.Text(msg.item.Email), msg.item.EntryID)
	} else {
		in.status = "Ignored the event of " + safe.Text(msg.item.Email) + "; nothing was listed."
	}
	for i, it := range in.items {
		if it.ID == msg.id {
			in.items = append(in.items[:i:i], in.items[i+1:]...)
			break
		}
	}
	in.refresh()
	return nil
}

func (in *intake) refresh() {
	rows := make([]table.Row, len(in.items))
	for i, it := range in.items {
		rows[i] = table.Row{it.ReceivedAt.Local().Format("2006-01-02 15:04"), it.Provider, cell(it.Email), cell(orNone(it.Evidence.Status)), cell(it.Reason)}
	}
	in.table.SetRows(rows)
	switch c := in.table.Cursor(); {
	case len(rows) == 0:
	case c < 0:
		in.table.SetCursor(0)
	case c >= len(rows):
		in.table.SetCursor(len(rows) - 1)
	}
}

func orNone(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// details are the evidence of the item under the cursor, each field on a
// line of its own, every text from outside made safe.
func (in *intake) details(w int) []string {
	i := in.table.Cursor()
	if i < 0 || i >= len(in.items) {
		return nil
	}
	it := in.items[i]
	ev := it.Evidence
	out := []string{fmt.Sprintf("%s · %s from %s · event %s", safe.Text(it.Email), ev.Kind, it.Provider, safe.Text(orNone(ev.EventID)))}
	if ev.Status != "" || ev.ReportingMTA != "" {
		out = append(out, "status "+safe.Text(orNone(ev.Status))+" · reported by "+safe.Text(orNone(ev.ReportingMTA)))
	}
	if ev.Diagnostic != "" {
		out = append(out, "“"+safe.Text(ev.Diagnostic)+"”")
	}
	out = append(out, "why it waits: "+safe.Text(it.Reason))
	if ev.MessageID != "" {
		out = append(out, "message "+safe.Text(ev.MessageID))
	}
	for j := range out {
		out[j] = truncate(out[j], w)
	}
	return out[:min(len(out), in.detailLines)]
}

func (in *intake) render() string {
	st := in.c.Styles
	n := len(in.items)
	title := "Intake review"
	switch {
	case !in.known:
		title += " · reading the queue…"
	case !in.offered:
	case n == 0:
		title += " · nothing waits"
	default:
		more := ""
		if in.more {
			more = " (the newest 100)"
		}
		title += fmt.Sprintf(" · %d %s %s a look%s · row %d", n, pluralN(n, "event"), needNeeds(n), more, in.table.Cursor()+1)
	}
	body := in.table.View()
	if in.known && n == 0 {
		body = st.Muted.Render("No events wait for a decision: the rules placed every one.")
	}
	parts := []string{st.Title.Render(truncate(title, in.c.Width)), body}
	if d := in.details(in.c.Width); len(d) > 0 {
		parts = append(parts, st.Muted.Render(strings.Join(d, "\n")))
	}
	if in.status != "" {
		parts = append(parts, st.Warn.Render(truncate(in.status, in.c.Width)))
	}
	return lipgloss.JoinVertical(lipgloss.Left, parts...)
}

// needNeeds is the verb after a count of events.
func needNeeds(n int) string {
	if n == 1 {
		return "needs"
	}
	return "need"
}
