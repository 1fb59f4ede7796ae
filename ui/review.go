package ui

import (
	"context"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

type reviewFocus int

const (
	focusConfirm reviewFocus = iota
	focusTicket
	focusNote    // an addition's note for each entry
	focusExpires // an addition's expiry
	focusPeople  // the Requester section: ↑/↓ choose a row, t flips it
)

// review is the Review screen: what will be sent where, what is left out
// and why, the preview of a removal, and the confirmation.
type review struct {
	keys    reviewKeys
	c       *Common
	svc     *client.Client
	mode    batch.Mode
	list    *entries
	values  []string
	invalid []batch.Item
	left    []batch.LeftOut
	plan    batch.Plan
	// people are the list's rows the rule decided about (the Requester
	// section), the one under the cursor at person.
	people []int
	person int
	// offered is the reference put in the ticket field from the ticket
	// (offerReference), and where it was found; an agent's own stays.
	offered, offeredFrom string
	// note says what the last flip did.
	note    string
	lookups bool
	preview *preview
	seq     int
	ticket  textinput.Model
	// entryNote and expires are what an addition says of each entry it
	// lists; the note is the ticket's reference until the agent edits it
	// (noteEdited).
	entryNote  textinput.Model
	expires    textinput.Model
	noteEdited bool
	confirm    textinput.Model
	focus      reviewFocus
	offset     int
	only       previewFilter
	err        string
	height     int
	// refusal says why the service would refuse to change the list with
	// this key ("" when nothing says it would).
	refusal string
}

// preview is the lookup of every entry of a removal (batch.Lookup); a
// removal by address then goes by the IDs it found (Plan.Found), and the
// undo of a removal by ID adds back the addresses it found.
type preview struct {
	seq     int
	done    int
	lookups []batch.Found
	found   int
	missing int
	failed  int
}

func (p *preview) complete() bool { return p.done == len(p.lookups) }

func newReview(c *Common, svc *client.Client) *review {
	r := &review{c: c, svc: svc, keys: newReviewKeys()}
	r.ticket = newTextInput(c, "ticket reference (optional)")
	r.ticket.Prompt = "Ticket: "
	r.ticket.CharLimit = 200
	r.entryNote = newTextInput(c, "why they are listed, kept with each entry (optional)")
	r.entryNote.Prompt = "Note: "
	r.entryNote.CharLimit = api.MaxNote
	r.expires = newTextInput(c, "never (or 30d, 12h, 2026-12-31)")
	r.expires.Prompt = "Expires: "
	r.expires.CharLimit = 40
	r.confirm = newTextInput(c, "")
	return r
}

// open lays out the review of the build list and starts the preview of a
// removal; refusal says why the service would refuse to change the list
// with this key, which the review says before anything is typed.
func (r *review) open(mode batch.Mode, l *entries, lookups bool, refusal string) tea.Cmd {
	r.mode, r.lookups, r.list, r.refusal = mode, lookups, l, refusal
	r.replan()
	r.person = 0
	if l.hasRef {
		r.offerReference(l.ref)
	}
	r.err, r.note, r.offset, r.preview, r.only = "", "", 0, nil, showAll
	r.confirm.SetValue("")
	r.confirm.Prompt = fmt.Sprintf("Type %q and press Enter to send: ", r.word())
	r.focus = focusConfirm
	r.confirm.Focus()
	r.ticket.Blur()
	r.entryNote.Blur()
	r.expires.Blur()
	r.followTicket()
	if r.previews() {
		return r.startPreview()
	}
	return nil
}

// replan makes the plan of the list as it stands: batch's values (valid,
// distinct) and the invalid entries it leaves out; the addresses the rule
// (or the agent's flip) leaves out stay out, and go with the run with
// their reasons.
func (r *review) replan() {
	l := r.list
	items := make([]batch.Item, 0, len(l.rows))
	r.left = nil // a plan sent holds the last one
	for _, e := range l.rows {
		if e.left(r.mode) {
			r.left = append(r.left, batch.LeftOut{Item: e.Item, Decision: e.rule(r.mode)})
			continue
		}
		items = append(items, e.Item)
	}
	r.plan = batch.NewPlan(r.mode, items)
	r.plan.LeftOut = r.left
	r.values, r.invalid = r.plan.Values, r.plan.Invalid
	r.people = people(l)
	r.person = min(r.person, max(len(r.people)-1, 0))
}

// offerReference puts the reference a ticket names in the ticket field,
// unless the agent typed one of their own there; they may edit it.
func (r *review) offerReference(ref batch.Reference) {
	if v := strings.TrimSpace(r.ticket.Value()); v != "" && v != r.offered {
		return
	}
	r.ticket.SetValue(ref.Value)
	r.ticket.CursorEnd()
	r.offered, r.offeredFrom = ref.Value, ref.Where()
	if ref.Source == fromRun {
		r.offeredFrom = "the run it was sent in, " + ref.Text
	}
	r.followTicket()
}

// followTicket makes the note the ticket's reference while the agent has
// not written one of their own.
func (r *review) followTicket() {
	if !r.noteEdited {
		r.entryNote.SetValue(strings.TrimSpace(r.ticket.Value()))
		r.entryNote.CursorEnd()
	}
}

// forgetTicket empties the ticket field, the note and the expiry: the next
// batch is likely another ticket's.
func (r *review) forgetTicket() {
	r.ticket.SetValue("")
	r.offered, r.offeredFrom = "", ""
	r.noteEdited = false
	r.entryNote.SetValue("")
	r.expires.SetValue("")
}

// maxAddPreview is the most addresses an addition's review looks up one by
// one; a larger set is sent without (its results say which were listed).
const maxAddPreview = 2000

// previews says whether the review looks every entry up: a removal (to
// remove by ID and show what goes), an addition of up to maxAddPreview
// addresses (to show which are new and which already listed).
func (r *review) previews() bool {
	if !r.lookups || len(r.values) == 0 {
		return false
	}
	return removes(r.mode) || len(r.values) <= maxAddPreview
}

func (r *review) word() string {
	if removes(r.mode) {
		return "remove"
	}
	return "add"
}

func (r *review) setSize(w, h int) {
	r.height = h
	r.ticket.Width = w - 12
	r.entryNote.Width = w - 10
	r.expires.Width = w - 12
	r.confirm.Width = 12
}

// reviewKeys are the Review screen's bindings.
type reviewKeys struct {
	Send, Back, SendNow, Switch, Up, Down, Again, Filter, Flip key.Binding
}

func newReviewKeys() reviewKeys {
	return reviewKeys{
		Send:    kbh("enter", "send (after typing the word)", "enter"),
		Back:    kbh("esc", "back", "esc"),
		SendNow: kbh("ctrl+s", "send", "ctrl+s"),
		Switch:  kbh("tab", "ticket", "tab", "shift+tab"),
		Up:      kbh("↑/↓", "scroll", "up"),
		Down:    key.NewBinding(key.WithKeys("down")),
		Again:   kbh("ctrl+p", "look up again", "ctrl+p"),
		Filter:  kbh("ctrl+f", "new/listed/all", "ctrl+f"),
		Flip:    kb("take in / leave out", "t"),
	}
}

func (r *review) help(g globalKeys) help.KeyMap {
	k := r.keys
	send := k.Send
	send.SetHelp("enter", "send (after typing "+r.word()+")")
	b := []key.Binding{send, k.Back}
	if r.mode == batch.Add {
		b = append(b, k.SendNow)
	}
	sw := k.Switch
	switch {
	case r.mode == batch.Add && len(r.people) > 0:
		sw.SetHelp("tab", "ticket/note/expiry/requester")
	case r.mode == batch.Add:
		sw.SetHelp("tab", "ticket/note/expiry")
	case len(r.people) > 0:
		sw.SetHelp("tab", "ticket/requester")
	}
	b = append(b, sw)
	switch {
	case r.focus == focusPeople:
		up := k.Up
		up.SetHelp("↑/↓", "choose")
		b = append(b, up, k.Flip)
	case r.preview != nil:
		b = append(b, k.Up, k.Filter, k.Again)
	}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Quit}}}
}

type previewMsg struct {
	seq     int
	start   int
	lookups []batch.Found
}

const previewChunk = 64

func (r *review) startPreview() tea.Cmd {
	r.seq++
	r.preview = &preview{seq: r.seq, lookups: make([]batch.Found, len(r.values))}
	return r.lookup(0)
}

// lookup resolves the next chunk of the preview: addresses with the
// checker (a bulk request's worth, or a few look-ups at a time), IDs a few
// look-ups at a time.
func (r *review) lookup(start int) tea.Cmd {
	size := previewChunk
	if r.mode != batch.RemoveIDs {
		size = r.c.Checker.ChunkSize()
	}
	end := min(start+size, len(r.values))
	vals := append([]string(nil), r.values[start:end]...)
	svc, seq, byID, k := r.svc, r.seq, r.mode == batch.RemoveIDs, r.c.Checker
	return func() tea.Msg {
		if byID {
			return previewMsg{seq: seq, start: start, lookups: lookUp(svc, vals)}
		}
		return previewMsg{seq: seq, start: start, lookups: checkUp(k, vals)}
	}
}

// checkUp checks vals with the checker; an address whose check failed
// carries the error.
func checkUp(k *batch.Checker, vals []string) []batch.Found {
	got, err := k.Check(context.Background(), vals)
	for i := len(got); i < len(vals); i++ {
		got = append(got, batch.Found{Input: vals[i], Err: err})
	}
	return got
}

// lookUp looks vals up, a few requests at a time; an entry whose look-up
// failed carries the error.
func lookUp(svc *client.Client, vals []string) []batch.Found {
	got, err := batch.Lookup(context.Background(), svc, vals, 4)
	if err != nil {
		// Lookup stops at a service without lookups: what it did not
		// reach failed the same way.
		for i := range got {
			if got[i].Input == "" {
				got[i] = batch.Found{Input: vals[i], Err: err}
			}
		}
	}
	return got
}

func (r *review) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case previewMsg:
		p := r.preview
		if p == nil || msg.seq != p.seq {
			return nil
		}
		for k, f := range msg.lookups {
			p.lookups[msg.start+k] = f
			switch {
			case f.Err != nil:
				p.failed++
			case f.Listed:
				p.found++
			default:
				p.missing++
			}
		}
		p.done = msg.start + len(msg.lookups)
		if !p.complete() {
			return r.lookup(p.done)
		}
		return nil
	case tea.KeyMsg:
		return r.key(msg)
	}
	return nil
}

func (r *review) key(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	if r.focus != focusPeople || !key.Matches(msg, k.Flip) {
		r.note = ""
	}
	if !msg.Paste {
		switch {
		case key.Matches(msg, k.Back):
			r.seq++ // a preview still running is now stale
			return func() tea.Msg { return backMsg{} }
		case key.Matches(msg, k.Switch):
			return r.switchFocus()
		case r.focus == focusPeople:
			return r.peopleKey(msg)
		case key.Matches(msg, k.Up):
			r.offset = max(r.offset-1, 0)
			return nil
		case key.Matches(msg, k.Down):
			r.offset++
			return nil
		case key.Matches(msg, k.Filter) && r.preview != nil:
			r.only, r.offset = (r.only+1)%filterCount, 0
			return nil
		case key.Matches(msg, k.Again):
			if r.previews() {
				return r.startPreview()
			}
			return nil
		case key.Matches(msg, k.SendNow) && r.mode == batch.Add:
			return r.send()
		case key.Matches(msg, k.Send):
			if r.focus != focusConfirm {
				r.focus = focusConfirm
				r.ticket.Blur()
				r.entryNote.Blur()
				r.expires.Blur()
				return r.confirm.Focus()
			}
			if strings.TrimSpace(strings.ToLower(r.confirm.Value())) != r.word() {
				r.err = fmt.Sprintf("Type %q to send; nothing was sent.", r.word())
				return nil
			}
			return r.send()
		}
	}
	var cmd tea.Cmd
	switch r.focus {
	case focusTicket:
		r.ticket, cmd = r.ticket.Update(msg)
		r.followTicket()
	case focusNote:
		before := r.entryNote.Value()
		r.entryNote, cmd = r.entryNote.Update(msg)
		r.noteEdited = r.noteEdited || r.entryNote.Value() != before
	case focusExpires:
		r.expires, cmd = r.expires.Update(msg)
	default:
		r.confirm, cmd = r.confirm.Update(msg)
	}
	return cmd
}

// switchFocus moves on: the confirmation, the ticket field, an
// addition's note and expiry, the Requester section (when the ticket has
// one), the confirmation again.
func (r *review) switchFocus() tea.Cmd {
	r.confirm.Blur()
	r.ticket.Blur()
	r.entryNote.Blur()
	r.expires.Blur()
	add := r.mode == batch.Add
	switch {
	case r.focus == focusConfirm:
		r.focus = focusTicket
		return r.ticket.Focus()
	case r.focus == focusTicket && add:
		r.focus = focusNote
		return r.entryNote.Focus()
	case r.focus == focusNote:
		r.focus = focusExpires
		return r.expires.Focus()
	case (r.focus == focusTicket || r.focus == focusExpires) && len(r.people) > 0:
		r.focus = focusPeople
		return nil
	}
	r.focus = focusConfirm
	return r.confirm.Focus()
}

// peopleKey handles a key in the Requester section: ↑/↓ choose a row, t
// flips it and the plan (and its preview) follow.
func (r *review) peopleKey(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	switch {
	case key.Matches(msg, k.Up):
		r.person = max(r.person-1, 0)
	case key.Matches(msg, k.Down):
		r.person = min(r.person+1, max(len(r.people)-1, 0))
	case key.Matches(msg, k.Flip) && len(r.people) > 0:
		i := r.people[r.person]
		r.note = flipRow(r.list, i, r.list.rows[i].Value)
		r.seq++ // a preview still running is of the old plan
		r.replan()
		r.preview = nil
		if r.previews() {
			return r.startPreview()
		}
	}
	return nil
}

// send builds the run and hands it to the Send screen.
func (r *review) send() tea.Cmd {
	if r.refusal != "" {
		r.err = "Nothing was sent: the service would refuse this key (see above)."
		return nil
	}
	if len(r.values) == 0 {
		r.err = "There is nothing valid to send."
		return nil
	}
	p := r.preview
	if p != nil && !p.complete() {
		r.err = "Wait for the preview to finish."
		return nil
	}
	if p != nil && p.failed > 0 {
		r.err = fmt.Sprintf("%d lookups failed; press ctrl+p to look them up again before sending.", p.failed)
		return nil
	}
	plan := r.plan
	job := sendJob{mode: r.mode, target: r.c.Target.label(), ticket: strings.TrimSpace(r.ticket.Value())}
	if job.ticket != "" {
		// The ticket goes out with every request of the run
		// (Shush-Reference), and the service keeps it in its trail.
		if err := api.ValidReference(job.ticket); err != nil {
			r.err = "Ticket: " + err.Error() + "; nothing was sent."
			return nil
		}
	}
	if r.mode == batch.Add {
		job.note = strings.TrimSpace(r.entryNote.Value())
		if err := api.ValidNote(job.note); err != nil {
			r.err = "Note: " + err.Error() + "; nothing was sent."
			return nil
		}
		exp, err := batch.ParseExpiry(r.expires.Value())
		if err != nil {
			r.err = "Expires: " + err.Error() + "; nothing was sent."
			return nil
		}
		job.expires = exp
	}
	if p != nil {
		// The preview's look-ups: a removal by address removes the found
		// entries by ID, a removal by ID learns their addresses and
		// origins (for the results and an undo).
		plan.Found = make(map[string]batch.Found, len(p.lookups))
		if r.mode == batch.RemoveIDs {
			job.emails = make(map[string]string, p.found)
		}
		for _, f := range p.lookups {
			if job.emails != nil && f.Listed {
				job.emails[f.Input] = f.Entry.Email
			}
			plan.Found[f.Input] = f
		}
	}
	return func() tea.Msg { return startSendMsg{job: job, plan: plan} }
}

func (r *review) render() string {
	st := r.c.Styles
	w := r.c.Width
	var b strings.Builder
	line := func(s string) { b.WriteString(truncate(s, w)); b.WriteByte('\n') }
	line(st.Title.Render("Review · " + r.mode.String()))
	if r.refusal != "" {
		line(st.Bad.Render(r.refusal))
	}
	batches := batch.BatchCount(len(r.values))
	line(fmt.Sprintf("%d %s in %d %s of up to %d → %s", len(r.values), pluralN(len(r.values), noun(r.mode)), batches, pluralN(batches, "batch"), api.MaxBatch, r.c.Target.label()))
	if r.list.search != "" {
		line(st.Header.Render("From Browse's search: " + r.list.search))
	}
	if n := len(r.invalid); n > 0 {
		line(st.Invalid.Render(fmt.Sprintf("Excluded: %d invalid %s, never sent:", n, pluralN(n, "entry"))))
		for _, e := range r.invalid[:min(n, 3)] {
			line(st.Invalid.Render(fmt.Sprintf("  %s — %s", e.Raw, e.Problem)))
		}
		if n > 3 {
			line(st.Muted.Render(fmt.Sprintf("  … and %d more (in the list, the filter ! shows them)", n-3)))
		}
	} else if len(r.people) == 0 {
		line(st.Muted.Render("Excluded: nothing."))
	}
	r.peopleView(line)
	used := strings.Count(b.String(), "\n")
	rest := r.height - used - 5
	switch {
	case r.mode == batch.RemoveEmails && !r.lookups:
		line(st.Warn.Render("This service offers no lookups: addresses are removed as they are, without a preview."))
	case r.preview != nil:
		b.WriteString(r.previewView(rest))
	}
	switch {
	case removes(r.mode) && len(r.values) > 0:
		n := len(r.values)
		if r.preview != nil {
			n = r.preview.found
		}
		line(st.Warn.Render(fmt.Sprintf("This removes %d %s from the list.", n, pluralN(n, "entry"))))
	case r.mode == batch.Add && r.preview != nil && r.preview.complete():
		p := r.preview
		stay := "stay as they are"
		if p.found == 1 {
			stay = "stays as it is"
		}
		line(st.Warn.Render(fmt.Sprintf("This adds %d new %s; %d already listed %s.", p.missing, pluralN(p.missing, "entry"), p.found, stay)))
	case r.mode == batch.Add && len(r.values) > maxAddPreview && r.lookups:
		line(st.Muted.Render(fmt.Sprintf("Too many to look up one by one (%d); the results will say which were already listed.", len(r.values))))
	}
	body := strings.TrimSuffix(b.String(), "\n")
	foot := []string{r.ticket.View()}
	if r.mode == batch.Add {
		foot = append(foot, r.entryNote.View(), r.expires.View(), r.confirm.View()+st.Muted.Render("  (or ctrl+s)"))
	} else {
		foot = append(foot, r.confirm.View())
	}
	switch {
	case r.err != "":
		foot = append(foot, st.Bad.Render(truncate(r.err, w)))
	case r.note != "":
		foot = append(foot, st.Muted.Render(truncate(r.note, w)))
	case r.focus == focusNote:
		foot = append(foot, st.Muted.Render(truncate("The note is kept with each entry the run lists; an entry already listed keeps its own.", w)))
	case r.focus == focusExpires:
		foot = append(foot, st.Muted.Render(truncate("The entries leave the list then (counted by the service's clock); an entry already listed keeps a later expiry.", w)))
	case r.offeredFrom != "" && r.offered != "" && strings.TrimSpace(r.ticket.Value()) == r.offered:
		foot = append(foot, st.Muted.Render(truncate("The ticket reference is from "+r.offeredFrom+" (tab to edit it).", w)))
	default:
		foot = append(foot, "")
	}
	h := r.height - len(foot)
	return lipgloss.JoinVertical(lipgloss.Left, lipgloss.NewStyle().Height(h).MaxHeight(h).Render(body), strings.Join(foot, "\n"))
}

// maxPeopleShown is the most rows the Requester section shows at once.
const maxPeopleShown = 4

// peopleView draws the Requester section: whom the ticket is about as the
// rule decided, each row with its reason and the line that decided, the
// requester's line quoted; with the section in focus, the row t flips.
func (r *review) peopleView(line func(string)) {
	if len(r.people) == 0 {
		return
	}
	st := r.c.Styles
	rows := r.list.rows
	head := "Requester: none named in the ticket"
	if e := rows[r.people[0]]; e.role.Requester {
		head = "Requester: " + e.Value
		if ev := e.rule(r.mode).By.String(); ev != "" {
			head += " (" + ev + ")"
		}
	}
	taken := len(r.people) - len(r.left) // only decided rows are left out
	hint := "tab: choose, t: take in / leave out"
	if r.focus == focusPeople {
		hint = "↑/↓ choose, t: take in / leave out"
	}
	line(st.Header.Render(head))
	first := max(0, min(r.person-maxPeopleShown+1, len(r.people)-maxPeopleShown))
	for k := first; k < min(first+maxPeopleShown, len(r.people)); k++ {
		e := rows[r.people[k]]
		d := e.rule(r.mode)
		mark, style := "✓", st.Row
		if d.Leave {
			mark, style = "↷", st.Muted
		}
		cursor := " "
		if r.focus == focusPeople && k == r.person {
			cursor = ">"
		}
		s := fmt.Sprintf("%s %s %s — %s", cursor, mark, e.Value, d.Text())
		if d.By.Line > 0 {
			s += fmt.Sprintf(" (line %d)", d.By.Line)
		}
		line(style.Render(s))
	}
	if n := len(r.people) - first - maxPeopleShown; n > 0 {
		line(st.Muted.Render(fmt.Sprintf("  … and %d more (↓)", n)))
	}
	line(st.Muted.Render(fmt.Sprintf("  Left out: %d, taken in: %d · %s", len(r.left), taken, hint)))
}

func (r *review) previewView(height int) string {
	st := r.c.Styles
	p := r.preview
	var b strings.Builder
	w := r.c.Width
	if !p.complete() {
		fmt.Fprintf(&b, "Looking up %d of %d…\n", p.done, len(p.lookups))
	}
	head := fmt.Sprintf("Preview: %d on the list · %d not on the list", p.found, p.missing)
	if r.mode == batch.Add {
		head = fmt.Sprintf("Preview: %d new · %d already listed", p.missing, p.found)
	}
	if p.failed > 0 {
		head += fmt.Sprintf(" · %d lookups failed", p.failed)
	}
	var shown []int
	for i, f := range p.lookups[:p.done] {
		if r.only.keeps(f) {
			shown = append(shown, i)
		}
	}
	if r.only != showAll {
		head += fmt.Sprintf(" · showing %s (%d; ctrl+f: next)", r.only.name(r.mode), len(shown))
	}
	b.WriteString(st.Header.Render(truncate(head, w)) + "\n")
	rows := max(height-2, 1)
	r.offset = min(r.offset, max(len(shown)-rows, 0))
	for _, i := range shown[r.offset:min(r.offset+rows, len(shown))] {
		f, v := p.lookups[i], r.values[i]
		e := f.Entry
		var s string
		switch {
		case f.Err != nil:
			s = st.Bad.Render(truncate(fmt.Sprintf("  ! %s  lookup failed: %s", v, errorText(f.Err)), w))
		case !f.Listed && r.mode == batch.Add:
			s = truncate(fmt.Sprintf("  + %s  new", v), w)
		case !f.Listed:
			s = st.Muted.Render(truncate(fmt.Sprintf("  - %s  not on the list", v), w))
		default:
			s = fmt.Sprintf("  ✓ %s  %s  added %s  ", e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			// What room is left shows the end of the ID, which tells entries
			// apart (shortID).
			s += shortID(e.ID, max(w-lipgloss.Width(s), shortIDWidth))
			if r.mode == batch.RemoveIDs {
				s = fmt.Sprintf("  ✓ %s  %s  %s  added %s", e.ID, e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			}
			s = truncate(s, w)
		}
		b.WriteString(s + "\n")
	}
	return b.String()
}

// previewFilter is which entries the preview shows: ctrl+f steps through
// them.
type previewFilter int

const (
	showAll previewFilter = iota
	showListed
	showMissing
	showFailed
	filterCount
)

func (f previewFilter) keeps(x batch.Found) bool {
	switch f {
	case showListed:
		return x.Err == nil && x.Listed
	case showMissing:
		return x.Err == nil && !x.Listed
	case showFailed:
		return x.Err != nil
	}
	return true
}

func (f previewFilter) name(m batch.Mode) string {
	switch f {
	case showListed:
		if m == batch.Add {
			return "the already listed"
		}
		return "those on the list"
	case showMissing:
		if m == batch.Add {
			return "the new"
		}
		return "those not on the list"
	case showFailed:
		return "the failed look-ups"
	}
	return "all"
}

func (t Target) label() string {
	if t.Label == "" {
		return "local list"
	}
	return t.Label
}
