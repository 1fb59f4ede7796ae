package ui

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// buildFocus is who gets the keys on the Build screen.
type buildFocus int

const (
	focusEntry  buildFocus = iota // the entry field under the list
	focusList                     // the list itself
	focusEdit                     // editing one row in place
	focusFilter                   // typing the filter
	focusPicker                   // the file picker
)

// Rapid input: Enter presses closer together than this are one plain
// (unbracketed) paste, and their summary adds up.
const pasteGap = 150 * time.Millisecond

// build is the Build screen: the list, the entry field and the file picker.
type build struct {
	c      *Common
	keys   buildKeys
	list   *entries
	view   listView
	focus  buildFocus
	back   buildFocus      // where Esc in the picker returns to
	input  textinput.Model // the entry field, also used to edit a row
	filter textinput.Model
	picker picker

	editing  int // row being edited
	summary  string
	status   string
	agg      addResult
	aggFrom  string
	lastLine time.Time
	now      func() time.Time
	loadSeq  int
	// reading counts the pastes being read; keys wait for them.
	reading int
}

func newTextInput(c *Common, placeholder string) textinput.Model {
	ti := textinput.New()
	ti.Placeholder = placeholder
	ti.Prompt = "> "
	ti.CharLimit = 4096
	ti.Cursor.SetMode(cursor.CursorStatic)
	ti.PromptStyle = c.Styles.Prompt
	ti.PlaceholderStyle = c.Styles.Muted
	ti.TextStyle = c.Styles.Row
	ti.Cursor.Style = c.r.NewStyle().Reverse(true)
	ti.Cursor.TextStyle = c.Styles.Row
	return ti
}

func newBuild(c *Common, startDir string) *build {
	l := newEntries(batch.Add)
	b := &build{c: c, keys: newBuildKeys(), list: l, view: newListView(l), now: time.Now}
	b.input = newTextInput(c, "paste a ticket or type an address, then Enter")
	b.input.Focus()
	b.filter = newTextInput(c, "filter")
	b.filter.Prompt = "/ "
	b.picker = newPicker(c, startDir)
	return b
}

func (b *build) setSize(w, h int) {
	// The list box takes what is left after its border, the title line,
	// the entry field, the summary and the status line.
	st := b.c.Styles
	frameW, frameH := st.Box.GetFrameSize()
	b.view.setSize(w-frameW, h-frameH-lines(st.Title, lipgloss.NewStyle(), st.Header, st.Muted))
	b.input.Width = w - 4
	b.filter.Width = w - 4
	b.picker.setSize(w, h)
}

func (b *build) help(g globalKeys) help.KeyMap {
	switch b.focus {
	case focusList:
		return b.keys.listHelp(g, b.view.filter != "")
	case focusEdit:
		return fieldHelp("save row", "cancel")
	case focusFilter:
		return fieldHelp("keep filter", "clear filter")
	case focusPicker:
		return b.picker.help()
	}
	return b.keys.entryHelp(g, b.input.Value() == "")
}

// startOver empties the list for a new batch (u brings it back) and
// puts the cursor in the entry field.
func (b *build) startOver() tea.Cmd {
	b.list.clear()
	b.list.setMode(batch.Add, b.c.Own) // a new ticket starts in add mode
	b.view.changed()
	b.summary, b.status = "", "New batch: the list is empty (u brings the last one back)."
	b.focus = focusEntry
	return b.input.Focus()
}

// nextTicket empties the list, in add mode, once it went out: the run
// keeps it, and nothing of it is appended to or sent under the next
// ticket (it has no undo to bring it back; History's o does).
func (b *build) nextTicket() {
	gen, protected := b.list.gen, b.list.protected
	*b.list = *newEntries(batch.Add)
	b.list.gen, b.list.protected = gen+1, protected
	b.view.changed()
	b.summary, b.agg, b.aggFrom = "", addResult{}, ""
	b.status = "Sent. The list is empty for the next ticket (the sent one is in History, h; o there opens it as a new list)."
	b.focus = focusEntry
	b.input.Focus()
}

// useMarked makes the entries marked in Browse the list, to remove by ID.
func (b *build) useMarked(ids []string) {
	b.replace(batch.RemoveIDs, ids, "browse")
	b.status = fmt.Sprintf("%d %s from Browse, to remove by ID; r reviews.", len(ids), pluralN(len(ids), "entry"))
}

// useSearch makes every match of a Browse search the list, to remove by
// address (the review checks each, and removes what it finds by ID).
func (b *build) useSearch(s api.Search, emails []string) {
	b.replace(batch.RemoveEmails, emails, "browse search "+s.String())
	b.list.search = fmt.Sprintf("%s, %d %s when read", s.Describe(), len(emails), pluralN(len(emails), "entry"))
	b.status = fmt.Sprintf("%d %s from Browse (%s), to remove; r reviews.", len(emails), pluralN(len(emails), "address"), s.Describe())
}

// source says where the list's entries came from, for the run's record.
func (b *build) source() string {
	if b.aggFrom == "" {
		return "typed"
	}
	return b.aggFrom
}

func (b *build) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case fileLoadedMsg:
		return b.fileLoaded(msg)
	case pasteReadMsg:
		b.reading = max(b.reading-1, 0)
		return b.pasteRead(msg)
	case pasteMsg:
		b.pasted(msg)
		return nil
	case tea.KeyMsg:
		return b.key(msg)
	}
	if b.focus == focusPicker {
		return b.pickerUpdate(msg)
	}
	return nil
}

// pasted puts a paste read where the agent said: a new list (fresh), the
// list as it is, or nowhere (drop).
func (b *build) pasted(msg pasteMsg) {
	switch {
	case msg.drop:
		b.status = "The paste was not taken: the list is as it was."
	case msg.fresh:
		b.freshPaste(msg.read, msg.kept)
	default:
		b.addPaste(msg.read)
	}
}

// freshPaste makes a paste read a new list, in the mode its ticket
// proposes; kept says what the list held. It replaces the list only with
// a paste that holds a valid entry (keys a slow link sent together may
// read as a paste); the clear, the mode and the rows are one step for u,
// which brings the list before back with its ticket.
func (b *build) freshPaste(read pasteReadMsg, kept string) {
	if _, items, _ := b.pasteFor(read, true); !slices.ContainsFunc(items, batch.Item.Valid) {
		b.summary = fmt.Sprintf("The paste holds no valid %s: the list is as it was (n at the question adds the paste to it, to see why).", noun(b.list.mode))
		b.status = ""
		return
	}
	since := b.list.gen
	b.list.clear()
	b.view.changed()
	b.addPaste(read)
	b.list.squash("new list", since)
	// The status line keeps what the ticket proposes; the summary says
	// what the new list replaced.
	b.summary = "A new list for this paste (u brings back " + kept + "). " + b.summary
}

func (b *build) key(msg tea.KeyMsg) tea.Cmd {
	// A bracketed paste is one message; it must be looked at before any
	// binding (key.Matches never fires on it, and stringifying a big paste
	// for each binding is slow).
	if msg.Paste {
		switch b.focus {
		case focusEdit:
			var cmd tea.Cmd
			b.input, cmd = b.input.Update(msg)
			return cmd
		case focusFilter:
			var cmd tea.Cmd
			b.filter, cmd = b.filter.Update(msg)
			b.view.setFilter(b.filter.Value())
			return cmd
		case focusPicker:
			return nil
		}
		return b.paste(string(msg.Runes))
	}
	switch b.focus {
	case focusEntry:
		return b.entryKey(msg)
	case focusEdit:
		return b.editKey(msg)
	case focusFilter:
		return b.filterKey(msg)
	case focusPicker:
		return b.pickerUpdate(msg)
	}
	return b.listKey(msg)
}

// paste reads a pasted text off the screen's thread (pasteRead follows).
func (b *build) paste(text string) tea.Cmd {
	if lines := strings.Count(text, "\n") + strings.Count(text, "\r") + 1; lines >= 2000 {
		b.status = fmt.Sprintf("Reading %d pasted lines…", lines)
	}
	b.reading++
	return readPaste(text, "paste", b.list.mode, b.c.Own)
}

// pasteRead puts a paste read on the list. A paste onto an unsent list
// that came from a ticket (a paste, a file, a run) asks first, unless both
// name the same ticket reference: it is likely another ticket's, and a new
// list is the default (Enter, and any key but n and Esc); n adds it to
// this one, Esc drops it. Rows typed by hand do not ask: a ticket pasted
// after them is what they were typed for.
func (b *build) pasteRead(read pasteReadMsg) tea.Cmd {
	l := b.list
	p := read.paste
	if n := l.len(); l.fromTicket() && !(p.HasReference && l.hasRef && p.Reference.Value == l.ref.Value) {
		of := "another paste"
		if l.hasRef {
			of = "ticket " + l.ref.Value
		}
		kept := fmt.Sprintf("the %d unsent %s of %s", n, pluralN(n, "entry"), of)
		return choose("New list for this paste? enter/y: new list · n: add it to "+kept+" · esc: drop the paste", "",
			kbh("enter/y", "new list", "enter", "y"),
			func() tea.Msg { return pasteMsg{read: read, fresh: true, kept: kept} },
			answer{keys: kbh("n", "add it to the list", "n", "N"), do: func() tea.Msg { return pasteMsg{read: read} }},
			answer{keys: kbh("esc", "drop the paste", "esc"), do: func() tea.Msg { return pasteMsg{drop: true} }})
	}
	b.addPaste(read)
	return nil
}

// pasteMsg is a paste read that the agent said where to put: a new list
// (fresh; kept says what the list held), the list as it is, or nowhere
// (drop).
type pasteMsg struct {
	read        pasteReadMsg
	fresh, drop bool
	kept        string
}

// pasteFor is the mode a paste read goes onto the list in, with its
// entries and their roles in that mode: onto an empty list (empty) the
// mode its ticket proposes, unless the agent chose the mode by hand;
// onto rows the list's mode (the review asks when the ticket says
// otherwise).
func (b *build) pasteFor(read pasteReadMsg, empty bool) (batch.Mode, []batch.Item, []ticket.Decision) {
	mode, items, roles := read.mode, read.items, read.roles
	if !empty || b.list.tk.chosen {
		mode = b.list.mode
	}
	if mode != read.mode {
		items = read.paste.Items(mode)
		roles = read.paste.Roles(items, b.c.Own)
	}
	return mode, items, roles
}

// addPaste puts a paste read on the list: onto an empty list in the mode
// its ticket proposes (and says why), onto rows in the list's mode.
func (b *build) addPaste(read pasteReadMsg) {
	l := b.list
	mode, items, roles := b.pasteFor(read, l.len() == 0)
	if mode != l.mode {
		l.setMode(mode, b.c.Own)
		b.view.changed()
	}
	var t *pasted
	if read.paste.Ticket != nil {
		// Free text: a mode switch reads it again (a list of one entry a
		// line is read again from its rows).
		t = &pasted{paste: read.paste, prop: read.prop}
	}
	b.addRead(items, roles, read.source, read.paste.Lines, t)
	l.noteReference(read.paste.Reference, read.paste.HasReference)
	if t != nil && t.prop.Mode != "" {
		b.status = proposalStatus(l.tk.proposal, l.mode)
	}
}

// addItems puts items on the list and writes the one-line summary; our
// own addresses are left out.
func (b *build) addItems(items []batch.Item, source string, lines int) {
	b.addRead(items, ownRoles(items, b.c.Own), source, lines, nil)
}

// ownRoles leaves our own addresses out of items that are no ticket's.
func ownRoles(items []batch.Item, own ticket.Own) []ticket.Decision {
	if own.Empty() {
		return nil
	}
	var tk *ticket.Ticket
	roles := make([]ticket.Decision, len(items))
	for i, it := range items {
		if it.Valid() && own.Has(it.Value) {
			roles[i] = tk.OwnDecision(it.Line)
		}
	}
	return roles
}

// addRead puts items read from a paste (t, when it is kept for a mode
// switch) or a file on the list and writes the one-line summary.
func (b *build) addRead(items []batch.Item, roles []ticket.Decision, source string, lines int, t *pasted) {
	// Whom a ticket is about: our own addresses and those it is not
	// about are left out (greyed, with the reason), the requester who
	// asks for themselves is taken in; t flips one.
	r := b.list.addFrom(items, roles, source, t)
	b.view.refilter()
	if len(items) > 0 {
		b.view.cursor = b.view.count() - 1
		b.view.clamp()
	}
	b.agg, b.aggFrom = r, source
	b.summary = summarize(source, r)
	if len(items) == 0 {
		b.summary = fmt.Sprintf("Found no %s in the %s.", pluralN(2, noun(b.list.mode)), source)
	}
	b.status = ""
}

func summarize(what string, r addResult) string {
	if what == "paste" || what == "typed" {
		// A file name keeps its case.
		what = capitalize(what)
	}
	s := fmt.Sprintf("%s: %d added, %d skipped as duplicates, %d invalid.", what, r.added, r.duplicates, r.invalid)
	if r.leftOut > 0 {
		s += fmt.Sprintf(" %d left out (greyed; t flips one).", r.leftOut)
	}
	return s
}

func (b *build) entryKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, b.keys.AddLine):
		line := b.input.Value()
		b.input.SetValue("")
		items := parseTyped(line, b.list.mode)
		if len(items) == 0 {
			return nil
		}
		now := b.now()
		rapid := now.Sub(b.lastLine) < pasteGap && b.aggFrom == "typed"
		b.lastLine = now
		prev := b.agg
		b.addItems(items, "typed", 1)
		if rapid {
			// A plain paste: one Enter per line. Sum the lines up so the
			// summary speaks for the whole paste.
			b.agg.merge(prev)
			b.summary = summarize("paste", b.agg)
		}
		return nil
	case key.Matches(msg, b.keys.Leave):
		b.input.Blur()
		b.focus = focusList
		return nil
	case key.Matches(msg, b.keys.Help) && b.input.Value() == "":
		// Nobody starts an address with "?": in the empty field it is
		// the help, as everywhere outside a text field.
		return func() tea.Msg { return helpMsg{} }
	case key.Matches(msg, b.keys.EntryOpen):
		return b.openPicker()
	case key.Matches(msg, b.keys.EntryReview):
		return func() tea.Msg { return startReviewMsg{} }
	}
	var cmd tea.Cmd
	b.input, cmd = b.input.Update(msg)
	return cmd
}

func (b *build) listKey(msg tea.KeyMsg) tea.Cmd {
	if b.moveKey(msg) {
		return nil
	}
	k := b.keys
	switch {
	case key.Matches(msg, k.Edit):
		b.edit()
	case key.Matches(msg, k.Delete):
		return b.deleteRows()
	case key.Matches(msg, k.Filter):
		b.focus = focusFilter
		b.filter.Focus()
	case key.Matches(msg, k.ShowAll):
		// Esc leaves a kept filter (nothing without one).
		b.filter.SetValue("")
		b.view.setFilter("")
	case key.Matches(msg, k.Undo):
		b.undo()
	case key.Matches(msg, k.Clear):
		if b.list.len() == 0 {
			return nil
		}
		n := b.list.len()
		return ask(fmt.Sprintf("Clear all %d entries?", n), func() tea.Msg { return clearMsg{} })
	case key.Matches(msg, k.Check):
		return func() tea.Msg { return startCheckMsg{} }
	case key.Matches(msg, k.Flip):
		if b.view.count() > 0 {
			i := b.view.row(b.view.cursor)
			b.status = flipRow(b.list, i, fmt.Sprintf("Row %d", i+1))
		}
	case key.Matches(msg, k.Mode):
		return b.switchMode()
	case key.Matches(msg, k.Type):
		b.focus = focusEntry
		b.input.Focus()
	case key.Matches(msg, k.Open):
		return b.openPicker()
	case key.Matches(msg, k.Review):
		return func() tea.Msg { return startReviewMsg{} }
	}
	return nil
}

// moveKey moves the cursor or the selection in the list; it reports
// whether msg was such a key.
func (b *build) moveKey(msg tea.KeyMsg) bool {
	k := b.keys
	page := max(b.view.height-1, 1)
	switch {
	case key.Matches(msg, k.Up):
		b.view.move(-1)
	case key.Matches(msg, k.Down):
		b.view.move(1)
	case key.Matches(msg, k.PageUp):
		b.view.move(-page)
	case key.Matches(msg, k.PageDown):
		b.view.move(page)
	case key.Matches(msg, k.Top):
		b.view.top()
	case key.Matches(msg, k.Bottom):
		b.view.bottom()
	case key.Matches(msg, k.Select):
		b.view.toggle()
		b.view.move(1)
	case key.Matches(msg, k.SelectAll):
		b.view.selectAll()
	default:
		return false
	}
	return true
}

// edit puts the row under the cursor in the field, to edit.
func (b *build) edit() {
	i := b.view.current()
	if i < 0 {
		return
	}
	b.editing = i
	b.focus = focusEdit
	b.input.SetValue(b.list.rows[i].Raw)
	b.input.CursorEnd()
	b.input.Focus()
	b.status = fmt.Sprintf("Editing row %d: Enter saves, Esc cancels.", i+1)
}

// switchMode switches the list to the next mode; rows already read are
// read anew once the agent says yes.
func (b *build) switchMode() tea.Cmd {
	next := nextMode(b.list.mode)
	if n := b.list.len(); n > 0 {
		// The rows were read for this mode; another reads them anew
		// (a pasted ticket's rows from the ticket).
		what := fmt.Sprintf("the %d %s", n, pluralN(n, "row"))
		if b.list.tk.isTicket() {
			what = "the ticket"
		}
		return ask(fmt.Sprintf("Read %s again as %s? (u switches back)", what, next),
			func() tea.Msg { return modeMsg{next} })
	}
	b.setMode(next)
	return nil
}

func (b *build) deleteRows() tea.Cmd {
	rows := b.view.targets()
	switch len(rows) {
	case 0:
		return nil
	case 1:
		n := b.list.remove(rows)
		b.view.changed()
		b.status = fmt.Sprintf("Deleted %d row (u undoes).", n)
		return nil
	}
	sel := rows
	return ask(fmt.Sprintf("Delete the %d selected rows?", len(rows)), func() tea.Msg { return deleteMsg{sel} })
}

// confirmed carries out a change the agent said yes to.
func (b *build) confirmed(msg tea.Msg) {
	switch msg := msg.(type) {
	case modeMsg:
		b.setMode(msg.mode)
	case restoreMsg:
		b.setList(msg.mode, msg.items, msg.roles, "restored")
		b.list.noteReference(msg.ref, msg.ref.Value != "")
		b.status = msg.note
	case clearMsg:
		b.list.clear()
		b.view.changed()
		b.status = "Cleared the list (u undoes)."
	case deleteMsg:
		n := b.list.remove(msg.rows)
		b.view.changed()
		b.status = fmt.Sprintf("Deleted %d rows (u undoes).", n)
	}
}

func (b *build) setMode(m batch.Mode) {
	b.list.setMode(m, b.c.Own)
	b.list.tk.chosen = true // the agent's own choice
	b.view.changed()
	b.status = "Mode: " + m.String() + "."
	if b.list.invalid() > 0 {
		b.status += fmt.Sprintf(" %d rows are not valid in this mode.", b.list.invalid())
	}
}

// undo takes the list's last change back. Undoing a new list for a
// paste puts the list before it back: the summary of the paste that made
// it (and what u would bring back) no longer holds.
func (b *build) undo() {
	what, ok := b.list.undoLast()
	switch {
	case !ok:
		b.status = "Nothing to undo."
	default:
		b.status = "Undid " + what + "."
	}
	if what == "new list" {
		b.summary = ""
	}
	b.view.changed()
}

// chooseMode is the agent's answer to the review's question for the mode:
// the list is read anew for it, and the answer holds for it.
func (b *build) chooseMode(m batch.Mode) {
	if m != b.list.mode {
		b.list.setMode(m, b.c.Own)
		b.view.changed()
	}
	b.list.tk.answered, b.list.tk.hasAnswer = m, true
	b.status = "Mode: " + m.String() + ", as you chose."
}

// replace loads values into the list for a new batch in a given mode (from
// Browse).
func (b *build) replace(m batch.Mode, values []string, source string) {
	items := make([]batch.Item, 0, len(values))
	for i, v := range values {
		items = append(items, batch.NewItem(m, i+1, v))
	}
	b.setList(m, items, nil, source)
}

// setList makes items the list, in mode m (u brings the one before back);
// roles, when given, are their decisions as they were.
func (b *build) setList(m batch.Mode, items []batch.Item, roles []ticket.Decision, source string) {
	replaced, since := b.list.len() > 0, b.list.gen
	defer func() {
		if replaced {
			b.list.squash("replace", since) // one u brings the list before back
		}
	}()
	b.list.clear()
	b.list.mode = m
	b.list.seen = map[string]int{}
	if roles != nil {
		r := b.list.add(items, roles, source)
		b.view.refilter()
		b.agg, b.aggFrom = r, source
		b.summary = summarize(source, r)
	} else {
		b.addItems(items, source, len(items))
	}
	b.view.changed()
	b.focus = focusList
	b.input.Blur()
}

func (b *build) editKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, fieldKeys.Submit):
		problem, ok := b.list.edit(b.editing, b.input.Value())
		if !ok {
			b.status = capitalize(problem) + "."
			return nil
		}
		b.input.SetValue("")
		b.input.Blur()
		b.focus = focusList
		b.view.refilter()
		if problem != "" {
			b.status = fmt.Sprintf("Row %d saved, but it is not valid: %s.", b.editing+1, problem)
		} else {
			b.status = fmt.Sprintf("Row %d saved.", b.editing+1)
		}
		return nil
	case key.Matches(msg, fieldKeys.Cancel):
		b.input.SetValue("")
		b.input.Blur()
		b.focus = focusList
		b.status = ""
		return nil
	}
	var cmd tea.Cmd
	b.input, cmd = b.input.Update(msg)
	return cmd
}

func (b *build) filterKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, fieldKeys.Submit):
		b.filter.Blur()
		b.focus = focusList
		return nil
	case key.Matches(msg, fieldKeys.Cancel):
		b.filter.SetValue("")
		b.filter.Blur()
		b.view.setFilter("")
		b.focus = focusList
		return nil
	}
	var cmd tea.Cmd
	b.filter, cmd = b.filter.Update(msg)
	b.view.setFilter(b.filter.Value())
	return cmd
}

func (b *build) render() string {
	st := b.c.Styles
	if b.focus == focusPicker {
		return b.picker.view()
	}
	l := b.list
	title := fmt.Sprintf("List · %d %s · %d valid · %d invalid", l.len(), pluralN(l.len(), "entry"), l.valid, l.invalid())
	if n := l.leftOut(); n > 0 {
		title += fmt.Sprintf(" · %d left out", n)
	}
	if n := len(b.view.selected); n > 0 {
		title += fmt.Sprintf(" · %d selected", n)
	}
	if b.view.filter != "" {
		title += fmt.Sprintf(" · filter %q: %d shown", b.view.filter, b.view.count())
	}
	box := st.Box
	if b.focus == focusList || b.focus == focusFilter {
		box = st.Focused
	}
	frameW, _ := box.GetFrameSize()
	body := lipgloss.JoinVertical(lipgloss.Left,
		st.Title.Render(truncate(title, b.c.Width-frameW)),
		b.view.view(b.c, b.focus == focusList || b.focus == focusFilter),
	)
	boxed := box.Width(b.c.Width - 2).Render(body)

	var field string
	switch b.focus {
	case focusFilter:
		field = b.filter.View()
	default:
		field = b.input.View()
	}
	return lipgloss.JoinVertical(lipgloss.Left, boxed, field,
		st.Header.Render(truncate(b.summary, b.c.Width)),
		st.Muted.Render(truncate(b.status, b.c.Width)))
}
