package ui

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

// Model is the root of the UI. It owns the screens, the header, the help
// footer and the y/N prompt, and routes each message to the screen in
// front; everything else happens in the screens.
type Model struct {
	c      *Common
	opts   Options
	keys   globalKeys
	help   help.Model
	screen screenID
	prompt *prompt
	health health
	notice string
	// screens holds every screen by its ID; the typed fields are the same
	// screens, for the root's calls to their methods.
	screens [screenCount]screen
	build   *build
	review  *review
	send    *sender
	results *results
	browse  *browse
	history *history
	check   *checker
	intake  *intake
	domains *domains
	// sending says the run in flight is the build list's: when it ends,
	// the build screen starts empty for the next ticket.
	sending    bool
	drafts     *drafts
	draftGen   int // the build list's generation the draft holds
	bodyHeight int
	// held are the keys pressed while a paste was read: they act on the
	// list the paste makes (a ctrl+s right after a paste reviews it).
	held []tea.KeyMsg
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
	runs := opts.Runs
	if runs == nil {
		// No run service given: runs are sent, not recorded.
		runs = &batch.Runs{Client: opts.Service, Source: "ui"}
	}
	c := &Common{Styles: newStyles(r), Target: opts.Target, Service: opts.Service, Runs: runs, Own: ticket.NewOwn(opts.Own), r: r, Width: 80, Height: 24,
		Checker: &batch.Checker{Client: opts.Service}, after: after}
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
		drafts:  newDrafts(opts.StateDir, opts.Target.Profile),
		build:   newBuild(c, opts.StartDir),
		review:  newReview(c, opts.Service),
		send:    newSender(c),
		results: newResults(c, opts.Clipboard),
		browse:  newBrowse(c, opts.Service),
		history: newHistory(c, opts.StateDir, opts.SyncWith),
		check:   newChecker(c),
		intake:  newIntake(c, opts.Service),
		domains: newDomains(c, opts.Service),
		notice:  opts.Notice,
	}
	if opts.Remote {
		// This machine's files are not the agent's: nothing opens or
		// writes one (the keys are off, so the help leaves them out).
		m.build.keys.Open.SetEnabled(false)
		m.build.keys.EntryOpen.SetEnabled(false)
		m.results.keys.Export.SetEnabled(false)
		m.check.keys.Export.SetEnabled(false)
		m.build.view.noFiles = true
	}
	m.build.list.protected = ticket.NewOwn(opts.Protected)
	m.screens = [screenCount]screen{scrBuild: m.build, scrReview: m.review, scrSend: m.send,
		scrResults: m.results, scrBrowse: m.browse, scrHistory: m.history, scrCheck: m.check, scrIntake: m.intake,
		scrDomains: m.domains}
	m.layout()
	return m
}

// after is tea.Tick of a message.
func after(d time.Duration, msg tea.Msg) tea.Cmd {
	return tea.Tick(d, func(time.Time) tea.Msg { return msg })
}

// front is the screen in front.
func (m *Model) front() screen { return m.screens[m.screen] }

// Init asks the service whether it answers, and whether it offers
// lookups and the list.
func (m Model) Init() tea.Cmd {
	return tea.Batch(m.probe(m.health.seq), m.checkInterrupted(), m.intake.load())
}

// Close stops the run in flight, if any, and waits until it has journaled
// what it sent (within a second): for a program that ended without its
// user quitting, such as one whose SSH connection dropped, whose run
// would otherwise go on sending in the background while the next session
// offers to resume it. A program that quit has no run left; Close is
// then nothing.
func (m Model) Close() {
	m.send.cancel()
	m.send.wait()
}

// checkInterrupted looks for a recorded run against this service with
// entries left to send: one the UI left when its terminal closed, or the
// CLI's.
// Without one, the draft a crash or a closed terminal left is offered.
func (m Model) checkInterrupted() tea.Cmd {
	runs, draft := m.c.Runs, m.loadDraft()
	return func() tea.Msg {
		ri, ok, err := runs.Interrupted()
		if err != nil || !ok {
			return draft()
		}
		return interruptedMsg{ri}
	}
}

// Update routes a message: the session's own (size, prompt, probe,
// quit), then the keys (the prompt, then the root's by input mode), then
// the flow between screens, then the screen the message is for.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if c, ok := msg.(chainMsg); ok {
		return m.chained(c)
	}
	news := m.news(msg)
	next, cmd := m.update(msg)
	nm := next.(Model)
	return nm, tea.Batch(news, cmd, nm.keepDraft())
}

func (m Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if cmd, done := m.session(msg); done {
		return m, cmd
	}
	if k, ok := msg.(tea.KeyMsg); ok {
		if m.hold(k) {
			return m, nil
		}
		cmd := m.pressed(k)
		return m, cmd
	}
	if cmd, done := m.flow(msg); done {
		return m, cmd
	}
	cmd := m.route(msg)
	if _, read := msg.(pasteReadMsg); read && m.build.reading == 0 && len(m.held) > 0 {
		cmd = m.release(cmd)
	}
	return m, cmd
}

// release hands on the keys held while a paste was read, in order and
// one by one, as keys that came together (burst); when the paste asks a
// question first (cmd), they are dropped: no key typed before it may
// answer it.
func (m *Model) release(cmd tea.Cmd) tea.Cmd {
	held := m.held
	m.held = nil
	if cmd != nil {
		m.notice = fmt.Sprintf("%d %s typed while the paste was read%s dropped: answer the question first.", len(held), pluralN(len(held), "key"), wasWere(len(held)))
		return cmd
	}
	return m.burst(held)
}

// session handles what belongs to the program as a whole.
func (m *Model) session(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.c.Width, m.c.Height = msg.Width, msg.Height
		m.layout()
	case promptMsg:
		m.prompt = msg.p
	case helpMsg:
		return m.toggleHelp(), true
	case quitMsg:
		if m.screen == scrSend {
			// Stop the send, let the batch in flight be journaled (within
			// a second), then quit.
			m.send.cancel()
			s := m.send
			return func() tea.Msg { s.wait(); return tea.Quit() }, true
		}
		return tea.Quit, true
	case supportsMsg:
		return m.heard(msg), true
	case probeMsg:
		if msg.seq != m.health.seq {
			return nil, true
		}
		return m.probe(msg.seq), true
	case interruptedMsg:
		return m.offerResume(msg.run), true
	case Protected:
		m.build.list.setProtected(ticket.NewOwn(msg))
	case PasteTooBig:
		m.notice = fmt.Sprintf("The paste was over %d MiB and was not taken; paste it in parts.", msg.Limit>>20)
	case draftSaved:
		if msg.err != nil {
			m.notice = "The unsent list is not kept as a draft: " + msg.err.Error() + "."
		}
	default:
		return nil, false
	}
	return nil, true
}

// flow moves the agent between screens: review, send, results, history.
func (m *Model) flow(msg tea.Msg) (tea.Cmd, bool) {
	if cmd, done := m.runFlow(msg); done {
		return cmd, true
	}
	return m.listFlow(msg)
}

// runFlow moves the agent through a run: review, check, send, results.
func (m *Model) runFlow(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case startReviewMsg:
		return m.startReview(), true
	case startCheckMsg:
		return m.startCheck(), true
	case startSendMsg:
		// The list goes out in a recorded run (resumable): its draft goes.
		m.sending = true
		m.drafts.remove()
		m.goTo(scrSend)
		msg.job.input = m.build.source()
		return m.send.sendPlan(msg.job, msg.plan), true
	case runDoneMsg:
		return m.runDone(msg), true
	case runFailedMsg:
		m.goTo(scrResults)
		m.notice = "The run could not be resumed: " + msg.err.Error() + "."
	case retryMsg:
		run := msg.run
		m.goTo(scrSend)
		job := sendJob{mode: run.Mode, target: m.c.Target.label(), ticket: run.Ticket, emails: run.emails, resume: run.ID}
		return m.send.resume(job), true
	case undoRunMsg:
		u := msg.undo
		m.goTo(scrSend)
		job := sendJob{mode: u.Mode, target: m.c.Target.label(), ticket: u.Of.Reference, emails: u.Emails, undoOf: u.Of.ID}
		return m.send.sendUndo(job, u), true
	case openRunMsg:
		if msg.err != nil {
			m.notice = capitalize(msg.err.Error()) + "."
			return nil, true
		}
		m.results.show(msg.run, "")
		m.goTo(scrResults)
	default:
		return nil, false
	}
	return nil, true
}

// listFlow moves the agent back to the build list, or changes it.
func (m *Model) listFlow(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case backMsg:
		m.goTo(scrBuild)
	case newBatchMsg:
		m.goTo(scrBuild)
		cmd := m.build.startOver()
		if msg.paste != nil {
			paste := *msg.paste
			return tea.Batch(cmd, func() tea.Msg { return paste }), true
		}
		return cmd, true
	case useMarkedMsg:
		return m.useMarked(msg), true
	case listReadMsg:
		return m.openList(msg), true
	case draftMsg:
		return m.offerDraft(msg.d), true
	case useSearchMsg:
		return m.useSearch(msg), true
	case restoreMsg:
		m.build.confirmed(msg)
		m.goTo(scrBuild)
	case clearMsg, deleteMsg, modeMsg:
		m.build.confirmed(msg)
	case modeChosenMsg:
		m.build.chooseMode(msg.mode)
		return m.review.open(m.build.list.mode, m.build.list, m.health.lookups, m.refusal()), true
	default:
		return nil, false
	}
	return nil, true
}

// startReview opens the review of the build list, unless it is empty.
func (m *Model) startReview() tea.Cmd {
	if m.build.list.len() == 0 {
		m.notice = "The list is empty: nothing to review. Paste a ticket, type an address or open a file."
		if m.opts.Remote {
			m.notice = "The list is empty: nothing to review. Paste a ticket or type an address."
		}
		return nil
	}
	cmd := m.review.open(m.build.list.mode, m.build.list, m.health.lookups, m.refusal())
	m.goTo(scrReview)
	return cmd
}

// startCheck opens the check of the build list, where the service offers
// look-ups.
func (m *Model) startCheck() tea.Cmd {
	if !m.health.lookups {
		m.notice = "This service offers no look-ups, so addresses cannot be checked here."
		return nil
	}
	cmd := m.check.open(m.build.list)
	m.goTo(scrCheck)
	return cmd
}

// runDone shows a run that ended on the Results screen.
func (m *Model) runDone(msg runDoneMsg) tea.Cmd {
	if m.sending {
		m.sending = false
		m.listSent(msg.run)
	}
	// The next batch is likely another ticket's: do not carry the
	// reference over.
	m.review.forgetTicket()
	m.results.show(msg.run, msg.note)
	m.goTo(scrResults)
	if msg.run.Counts[batch.Failed]+msg.run.Counts[batch.Unsent] > 0 {
		// Something failed: say in the header whether the service still
		// answers, and why not.
		return m.reprobe()
	}
	return nil
}

// offerResume asks, at start, whether to finish a run that did not.
func (m *Model) offerResume(ri batch.RunInfo) tea.Cmd {
	what := ri.Mode.String()
	if ri.Reference != "" {
		what += " for " + ri.Reference
	}
	if ri.State == batch.Paused {
		what += ", paused"
	}
	q := fmt.Sprintf("A run did not finish: %s, %d of %d entries sent, started %s. Resume it now?",
		what, ri.Sent(), ri.Entries, ri.Created.Local().Format("2006-01-02 15:04"))
	run := &Run{ID: ri.ID, Mode: ri.Mode, Ticket: ri.Reference, Target: ri.Target}
	m.notice = "An unfinished run can be resumed any time from History (h)."
	// Either way, a list left unsent is offered next.
	next := m.loadDraft()
	return askOr(q, tea.Batch(func() tea.Msg { return retryMsg{run} }, next), next)
}

// route hands a message to the screen that owns it, in front or not, so
// that a screen's work in flight completes; any other message goes to the
// screen in front.
func (m *Model) route(msg tea.Msg) tea.Cmd {
	for _, s := range m.screens {
		if s.owns(msg) {
			return s.update(msg)
		}
	}
	return m.front().update(msg)
}

// unsent says whether quitting would lose work: a list not yet sent, or a
// send in progress.
func (m *Model) unsent() bool {
	return m.screen == scrSend || m.build.list.len() > 0
}

// globalKey handles the keys of the root, by the input mode of the
// screen in front: ctrl+c always; while sending nothing else; while typing
// the function keys F1-F3 only (nobody types them into a field); else the
// help, the screens by letter and quit.
func (m *Model) globalKey(msg tea.KeyMsg) (tea.Cmd, bool) {
	if msg.Paste {
		return nil, false
	}
	k := m.keys
	mode := m.front().keyMode()
	if key.Matches(msg, k.Interrupt) {
		return m.quit(), true
	}
	switch {
	case mode == sending:
		if key.Matches(msg, k.Help) {
			return m.toggleHelp(), true
		}
		return nil, false
	case mode == typing:
		switch {
		case key.Matches(msg, k.fn.Build):
			return m.show(scrBuild), true
		case key.Matches(msg, k.fn.Browse):
			return m.show(scrBrowse), true
		case key.Matches(msg, k.fn.History):
			return m.show(scrHistory), true
		case key.Matches(msg, k.fn.Intake):
			return m.show(scrIntake), true
		case key.Matches(msg, k.fn.Domains):
			return m.show(scrDomains), true
		}
		return nil, false
	}
	switch {
	case key.Matches(msg, k.Quit):
		return m.quit(), true
	case key.Matches(msg, k.Help):
		return m.toggleHelp(), true
	case key.Matches(msg, k.Build):
		return m.show(scrBuild), true
	case key.Matches(msg, k.browseAny):
		return m.show(scrBrowse), true
	case key.Matches(msg, k.History):
		return m.show(scrHistory), true
	case key.Matches(msg, k.Intake):
		return m.show(scrIntake), true
	case key.Matches(msg, k.Domains):
		return m.show(scrDomains), true
	}
	return nil, false
}

// toggleHelp shows all keys, or the short line again.
func (m *Model) toggleHelp() tea.Cmd {
	m.help.ShowAll = !m.help.ShowAll
	m.layout()
	return nil
}

// quit asks before losing work: a send in progress (stopped and journaled
// first) or a list not sent.
func (m *Model) quit() tea.Cmd {
	switch {
	case m.screen == scrSend:
		return ask("A send is running. Cancel it and quit? (what is unsent is journaled; the run can be resumed)", func() tea.Msg { return quitMsg{} })
	case m.unsent():
		n := m.build.list.len()
		return ask(fmt.Sprintf("Quit? The %d unsent %s %s kept and offered back next time.", n, pluralN(n, "entry"), isAre(n)), func() tea.Msg { return quitMsg{} })
	}
	return tea.Quit
}

// show brings a screen to front from the keyboard; Browse needs the list
// (a service with only the batch endpoints has none).
func (m *Model) show(s screenID) tea.Cmd {
	if s == scrSend && m.screen == scrSend {
		return nil
	}
	switch s {
	case scrBrowse:
		if !m.health.lookups {
			m.notice = "This service offers no list to browse (it answered 404/405)."
			if !m.health.probed {
				m.notice = "Still asking the service what it offers; try again in a moment."
			}
			return nil
		}
		m.goTo(scrBrowse)
		return m.browse.first()
	case scrHistory:
		m.goTo(scrHistory)
		return m.history.load()
	case scrIntake:
		m.goTo(scrIntake)
		return m.intake.load()
	case scrDomains:
		m.goTo(scrDomains)
		return tea.Batch(m.domains.load(), m.domains.ticking())
	}
	m.goTo(s)
	return nil
}

func (m *Model) goTo(s screenID) {
	m.screen = s
	m.notice = ""
	m.layout()
}

// helpView is the footer: the keys of what has focus.
func (m *Model) helpView() string {
	km := m.front().help(m.keys)
	// help.Model lets a line run past its width when even the ellipsis
	// does not fit; cut every line to the terminal.
	lines := strings.Split(m.help.View(km), "\n")
	for i, l := range lines {
		lines[i] = truncate(l, m.c.Width)
	}
	return strings.Join(lines, "\n")
}

// promptHelp is the footer of the question waiting, in lines lines.
func (m *Model) promptHelp(lines int) string {
	h := m.help
	h.ShowAll = false
	out := strings.Split(h.View(m.prompt.help()), "\n")
	for i, l := range out {
		out[i] = truncate(l, m.c.Width)
	}
	for len(out) < lines {
		out = append(out, "")
	}
	return strings.Join(out[:max(lines, 1)], "\n")
}

// statusLines is the one line under the body for a notice or a prompt.
const statusLines = 1

// layout gives every screen the space left after the header, the notice
// line and the help footer.
func (m *Model) layout() {
	m.help.Width = m.c.Width
	// The body gets what the header, the status line and the help leave.
	h := m.c.Height - lipgloss.Height(m.header()) - statusLines - lipgloss.Height(m.helpView())
	w := m.c.Width
	for _, s := range m.screens {
		s.setSize(w, h)
	}
	m.bodyHeight = h
}

// View draws the header, the screen in front and the help footer.
func (m Model) View() string {
	c := m.c
	if c.Width < minWidth || c.Height < minHeight {
		return fmt.Sprintf("The terminal is %dx%d; shush needs at least %dx%d.\nEnlarge the window, or press ctrl+c to quit.", c.Width, c.Height, minWidth, minHeight)
	}
	body := m.front().render()
	body = lipgloss.NewStyle().Height(m.bodyHeight).MaxHeight(m.bodyHeight).Render(body)
	foot := m.helpView()
	if m.prompt != nil {
		// A question takes the next key: the footer shows its keys, in
		// the footer's lines.
		foot = m.promptHelp(lipgloss.Height(foot))
	}
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
	left := fmt.Sprintf("shush · %s · %s · profile %s · key %s", t.label(), m.health.state(), profile, key)
	if t.Local {
		left = fmt.Sprintf("shush · %s · %s · profile %s", t.label(), m.health.state(), profile)
	}
	if t.Agent != "" {
		// The names come from the service's database: outside text.
		left = fmt.Sprintf("shush · %s · %s · agent %s · team %s", t.label(), m.health.state(), safe.Text(t.Agent), safe.Text(t.Team))
	}
	// A run's screens name the run's mode: the list behind them may be
	// the next ticket's already.
	right := "mode: " + m.build.list.mode.String() + proposalTag(m.build.list.tk, m.build.list.mode)
	switch {
	case m.screen == scrCheck:
		right = "mode: check (sends nothing)"
	case m.screen == scrSend:
		right = "mode: " + m.send.job.mode.String()
	case m.screen == scrResults && m.results.run != nil:
		right = "mode: " + m.results.run.Mode.String()
	}
	if n, ok := m.intake.waiting(); ok && n > 0 && m.screen != scrIntake {
		// Where a narrow terminal still shows it.
		left = fmt.Sprintf("%d %s %s a look (F4) · ", n, pluralN(n, "event"), needNeeds(n)) + left
	}
	room := c.Width - lipgloss.Width(right) - 1
	left = truncate(left, room)
	gap := strings.Repeat(" ", max(c.Width-lipgloss.Width(left)-lipgloss.Width(right), 1))
	return c.Styles.Header.Render(left) + gap + c.Styles.Mode.Render(right)
}
