package ui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
)

type screenID int

const (
	scrBuild screenID = iota
	scrReview
	scrSend
	scrResults
	scrBrowse
	scrHistory
)

// Model is the root of the UI. It owns the screens, the header, the help
// footer and the y/N prompt, and routes each message to the screen in
// front; everything else happens in the screens.
type Model struct {
	c       *Common
	opts    Options
	keys    globalKeys
	help    help.Model
	screen  screenID
	prompt  *prompt
	lookups bool // the service offers lookups and the list
	probed  bool
	// down is why the service did not answer its last probe ("" when it
	// answered); the header shows it.
	down   string
	notice string

	build      *build
	review     *review
	send       *sender
	results    *results
	browse     *browse
	history    *history
	sentGen    int  // the build list's generation when it was last sent
	lastRun    *Run // the run that list went out in
	bodyHeight int
}

// New returns the UI's model.
func New(opts Options) Model {
	r := opts.Renderer
	if r == nil {
		r = lipgloss.DefaultRenderer()
	}
	// Ask the terminal for its background now, before the program reads
	// its input: a query in the middle of the run would race the reader.
	r.HasDarkBackground()
	c := &Common{Styles: newStyles(r), Target: opts.Target, Service: opts.Service, Journals: opts.JournalDir, r: r, Width: 80, Height: 24}
	h := help.New()
	h.Styles.ShortKey = c.Styles.Key
	h.Styles.FullKey = c.Styles.Key
	h.Styles.ShortDesc = c.Styles.Help
	h.Styles.FullDesc = c.Styles.Help
	h.Styles.ShortSeparator = c.Styles.Help
	h.Styles.FullSeparator = c.Styles.Help
	h.Styles.Ellipsis = c.Styles.Help
	m := Model{
		c: c, opts: opts, keys: newGlobalKeys(), help: h,
		build:   newBuild(c, opts.StartDir),
		review:  newReview(c, opts.Service),
		send:    newSender(c, opts.Service, opts.JournalDir),
		results: newResults(c, opts.Clipboard),
		browse:  newBrowse(c, opts.Service),
		history: newHistory(c, opts.StateDir),
	}
	m.layout()
	return m
}

type supportsMsg struct {
	ok  bool
	err error
}

// Init asks the service whether it answers, and whether it offers
// lookups and the list.
func (m Model) Init() tea.Cmd { return tea.Batch(m.probe(), m.checkInterrupted()) }

// probe asks the service whether it answers; the header shows the answer.
// It runs at start and after a run that something failed in.
func (m Model) probe() tea.Cmd {
	svc := m.opts.Service
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ok, err := svc.Supports(ctx)
		return supportsMsg{ok: ok, err: err}
	}
}

type quitMsg struct{}

// interruptedMsg offers, at start, to finish a run that did not.
type interruptedMsg struct{ run batch.RunInfo }

// checkInterrupted looks for a recorded run against this service with
// entries left to send: one the UI left when its terminal closed, or the
// CLI's.
func (m Model) checkInterrupted() tea.Cmd {
	dir, svc := m.opts.JournalDir, m.opts.Service
	if dir == "" || svc == nil {
		return nil
	}
	return func() tea.Msg {
		ri, ok, err := batch.Interrupted(dir, svc.BaseURL())
		if err != nil || !ok {
			return nil
		}
		if ri.State == batch.Running {
			// Cut off: its header is older than its journals.
			if exact, err := batch.Load(dir, ri.ID, nil); err == nil {
				ri = exact
			}
		}
		return interruptedMsg{ri}
	}
}

// Update routes a message: the prompt first, then global keys, then the
// screen in front.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case promptMsg:
		m.prompt = msg.p
		return m, nil
	case quitMsg:
		if m.screen == scrSend {
			// Stop the send, let the batch in flight be journaled (within
			// a second), then quit.
			m.send.cancel()
			s := m.send
			return m, func() tea.Msg { s.wait(); return tea.Quit() }
		}
		return m, tea.Quit
	case supportsMsg:
		m.down = ""
		if msg.err != nil {
			m.down = errorText(msg.err)
			m.notice = "The service does not answer: " + m.down + "."
			return m, nil
		}
		m.lookups, m.probed = msg.ok, true
		// A service without the list hides Browse from the help.
		m.keys.Browse.SetEnabled(msg.ok)
		return m, nil
	case tea.KeyMsg:
		if m.prompt != nil {
			p := m.prompt
			m.prompt = nil
			return m, p.answer(msg)
		}
		if cmd, done := m.globalKey(msg); done {
			return m, cmd
		}
	case startReviewMsg:
		if last := m.lastRun; last != nil && m.build.list.gen == m.sentGen && !msg.again {
			// Nothing is sent twice without an explicit choice.
			q := fmt.Sprintf("This list was sent at %s (%s). Review it to send it again?", last.Started.Local().Format("15:04"), countsText(last.Counts))
			if last.retryable() {
				q = fmt.Sprintf("This list was sent at %s and %d entries are left (R on its results sends only those). Review the whole list again?",
					last.Started.Local().Format("15:04"), last.Counts[batch.Failed]+last.Counts[batch.Unsent])
			}
			return m, ask(q, func() tea.Msg { return startReviewMsg{again: true} })
		}
		m.review.svc = m.opts.Service
		cmd := m.review.open(m.build.list.mode, m.build.list, m.lookups)
		m.goTo(scrReview)
		return m, cmd
	case backMsg:
		m.goTo(scrBuild)
		return m, nil
	case startSendMsg:
		m.sentGen = m.build.list.gen
		m.goTo(scrSend)
		msg.job.input = m.build.source()
		return m, m.send.start(msg.job, msg.plan)
	case runDoneMsg:
		// The run of the build list (or its resume) is what a second
		// review of the same list is asked about.
		if j := m.send.job; j.undoOf == "" && (j.resume == "" || m.lastRun != nil && j.resume == m.lastRun.ID) {
			m.lastRun = msg.run
		}
		// The next batch is likely another ticket's: do not carry the
		// reference over.
		m.review.ticket.SetValue("")
		m.results.show(msg.run, true)
		m.results.status = msg.note
		m.goTo(scrResults)
		if msg.run.Counts[batch.Failed]+msg.run.Counts[batch.Unsent] > 0 {
			// Something failed: say in the header whether the service
			// still answers, and why not.
			return m, m.probe()
		}
		return m, nil
	case runFailedMsg:
		m.goTo(scrResults)
		m.notice = "The run could not be resumed: " + msg.err.Error() + "."
		return m, nil
	case retryMsg:
		run := msg.run
		m.goTo(scrSend)
		job := sendJob{mode: run.Mode, target: m.c.Target.label(), ticket: run.Ticket, emails: run.emails, resume: run.ID}
		return m, m.send.start(job, batch.Plan{})
	case undoRunMsg:
		u := msg.undo
		m.goTo(scrSend)
		job := sendJob{mode: u.Plan.Mode, target: m.c.Target.label(), ticket: u.Of.Reference, emails: u.Emails, undoOf: u.Of.ID, input: "undo of " + u.Of.ID}
		return m, m.send.start(job, u.Plan)
	case interruptedMsg:
		ri := msg.run
		what := ri.Mode.String()
		if ri.Reference != "" {
			what += " for " + ri.Reference
		}
		q := fmt.Sprintf("A run did not finish: %s, %d of %d entries sent, started %s. Resume it now?",
			what, ri.Sent(), ri.Entries, ri.Created.Local().Format("2006-01-02 15:04"))
		run := &Run{ID: ri.ID, Mode: ri.Mode, Ticket: ri.Reference, Target: ri.Target}
		m.notice = "An unfinished run can be resumed any time from History (h)."
		return m, ask(q, func() tea.Msg { return retryMsg{run} })
	case newBatchMsg:
		m.build.list.clear()
		m.build.view.changed()
		m.build.summary, m.build.status = "", "New batch: the list is empty (u brings the last one back)."
		m.build.focus = focusEntry
		m.build.input.Focus()
		m.goTo(scrBuild)
		return m, nil
	case useMarkedMsg:
		m.build.replace(batch.RemoveIDs, msg.ids, "browse")
		m.build.status = fmt.Sprintf("%d %s from Browse, to remove by ID; r reviews.", len(msg.ids), pluralN(len(msg.ids), "entry"))
		m.goTo(scrBuild)
		return m, nil
	case openRunMsg:
		if msg.err != nil {
			m.notice = capitalize(msg.err.Error()) + "."
			return m, nil
		}
		m.results.show(msg.run, false)
		m.goTo(scrResults)
		return m, nil
	case clearMsg, deleteMsg:
		m.build.confirmed(msg)
		return m, nil
	}
	return m, m.route(msg)
}

// route hands a message to the screen in front. Messages of a screen that
// is not in front still reach it, so that its work in flight completes.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	switch msg.(type) {
	case previewMsg:
		return m.review.update(msg)
	case progressMsg, sentMsg:
		return m.send.update(msg)
	case pageMsg:
		return m.browse.update(msg)
	case historyMsg:
		return m.history.update(msg)
	case fileLoadedMsg, pasteParsedMsg:
		return m.build.update(msg)
	case exportedMsg, undoPlannedMsg:
		return m.results.update(msg)
	}
	switch m.screen {
	case scrReview:
		return m.review.update(msg)
	case scrSend:
		return m.send.update(msg)
	case scrResults:
		return m.results.update(msg)
	case scrBrowse:
		return m.browse.update(msg)
	case scrHistory:
		return m.history.update(msg)
	}
	return m.build.update(msg)
}

// capturing says whether the screen in front takes every key (a text field
// has focus, or a send is running).
func (m *Model) capturing() bool {
	switch m.screen {
	case scrReview:
		return m.review.capturing()
	case scrSend:
		return true
	case scrResults:
		return m.results.capturing()
	case scrBrowse:
		return m.browse.capturing()
	case scrHistory:
		return m.history.capturing()
	}
	return m.build.capturing()
}

// unsent says whether quitting would lose work: a list not yet sent, or a
// send in progress.
func (m *Model) unsent() bool {
	return m.screen == scrSend || (m.build.list.len() > 0 && m.build.list.gen != m.sentGen)
}

func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if msg.Paste {
		return nil, false
	}
	if msg.String() == "ctrl+c" || (!m.capturing() && key.Matches(msg, m.keys.Quit)) {
		if m.screen == scrSend && msg.String() == "ctrl+c" {
			return ask("A send is running. Cancel it and quit? (what is unsent is journaled; the run can be resumed)", func() tea.Msg { return quitMsg{} }), true
		}
		if m.unsent() {
			return ask(fmt.Sprintf("The list holds %d entries that were not sent. Quit anyway?", m.build.list.len()), func() tea.Msg { return quitMsg{} }), true
		}
		return tea.Quit, true
	}
	// A text field takes every key but the screen keys F1-F3, which no
	// one types into a field; a running send keeps its screen.
	if m.capturing() && (m.screen == scrSend || !screenKey(msg)) {
		return nil, false
	}
	switch {
	case key.Matches(msg, m.keys.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.layout()
		return nil, true
	case key.Matches(msg, m.keys.Build):
		m.goTo(scrBuild)
		return nil, true
	case msg.String() == "f2":
		if !m.lookups {
			m.notice = "This service offers no list to browse (it answered 404/405)."
			if !m.probed {
				m.notice = "Still asking the service what it offers; try again in a moment."
			}
			return nil, true
		}
		m.goTo(scrBrowse)
		return m.browse.first(), true
	case key.Matches(msg, m.keys.History):
		m.goTo(scrHistory)
		return m.history.load(), true
	}
	return nil, false
}

// screenKey reports whether a key is one of the function keys that switch
// screens.
func screenKey(msg tea.KeyMsg) bool {
	switch msg.Type {
	case tea.KeyF1, tea.KeyF2, tea.KeyF3:
		return true
	}
	return false
}

func (m *Model) goTo(s screenID) {
	m.screen = s
	m.notice = ""
	m.layout()
}

// helpView is the footer: the keys of what has focus.
func (m *Model) helpView() string {
	var km help.KeyMap
	switch m.screen {
	case scrReview:
		km = m.review.help(m.keys)
	case scrSend:
		km = m.send.help(m.keys)
	case scrResults:
		km = m.results.help(m.keys)
	case scrBrowse:
		km = m.browse.help(m.keys)
	case scrHistory:
		km = m.history.help(m.keys)
	default:
		km = m.build.help(m.keys)
	}
	// help.Model lets a line run past its width when even the ellipsis
	// does not fit; cut every line to the terminal.
	lines := strings.Split(m.help.View(km), "\n")
	for i, l := range lines {
		lines[i] = truncate(l, m.c.Width)
	}
	return strings.Join(lines, "\n")
}

// layout gives every screen the space left after the header, the notice
// line and the help footer.
func (m *Model) layout() {
	m.help.Width = m.c.Width
	h := m.c.Height - 2 - lipgloss.Height(m.helpView())
	w := m.c.Width
	m.build.setSize(w, h)
	m.review.setSize(w, h)
	m.send.setSize(w, h)
	m.results.setSize(w, h)
	m.browse.setSize(w, h)
	m.history.setSize(w, h)
	m.bodyHeight = h
}

// View draws the header, the screen in front and the help footer.
func (m Model) View() string {
	c := m.c
	if c.Width < minWidth || c.Height < minHeight {
		return fmt.Sprintf("The terminal is %dx%d; shush needs at least %dx%d.\nEnlarge the window, or press ctrl+c to quit.", c.Width, c.Height, minWidth, minHeight)
	}
	var body string
	switch m.screen {
	case scrReview:
		body = m.review.render()
	case scrSend:
		body = m.send.render()
	case scrResults:
		body = m.results.render()
	case scrBrowse:
		body = m.browse.render()
	case scrHistory:
		body = m.history.render()
	default:
		body = m.build.render()
	}
	body = lipgloss.NewStyle().Height(m.bodyHeight).MaxHeight(m.bodyHeight).Render(body)
	foot := m.helpView()
	status := ""
	switch {
	case m.prompt != nil:
		status = m.prompt.view(c)
	case m.notice != "":
		status = c.Styles.Warn.Render(truncate(m.notice, c.Width))
	}
	// The render boundary: whatever a component drew from outside text (a
	// file name in the picker), only styling reaches the terminal.
	return safe.View(lipgloss.JoinVertical(lipgloss.Left, m.header(), body, status, foot))
}

func (m *Model) header() string {
	c := m.c
	t := c.Target
	profile := t.Profile
	if profile == "" {
		profile = "default"
	}
	key := t.MaskedKey
	if key == "" {
		key = "none"
	}
	state := "…"
	switch {
	case m.down != "":
		state = "✗ not answering: " + m.down
	case m.probed:
		state = "answers"
	}
	left := fmt.Sprintf("shush · %s · %s · profile %s · key %s", t.label(), state, profile, key)
	right := "mode: " + m.build.list.mode.String()
	room := c.Width - lipgloss.Width(right) - 1
	left = truncate(left, room)
	gap := strings.Repeat(" ", max(c.Width-lipgloss.Width(left)-lipgloss.Width(right), 1))
	return c.Styles.Header.Render(left) + gap + c.Styles.Mode.Render(right)
}
