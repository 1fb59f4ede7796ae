package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

type reviewFocus int

const (
	focusConfirm reviewFocus = iota
	focusTicket
	focusNote    // an addition's note for each entry
	focusExpires // an addition's expiry
	focusPeople  // the Requester section: ↑/↓ choose a row, t flips it
	focusMode    // the question for the mode: 1, 2, 3 or 4 answers it
)

// review is the Review screen: what will be sent where, what is left out
// and why, the preview of a removal, and the confirmation.
type review struct {
	// complaintsOK is the preview (its seq) whose complaints the agent
	// agreed to remove, at the second confirmation.
	complaintsOK int
	keys         reviewKeys
	c            *Common
	svc          *client.Client
	mode         batch.Mode
	list         *entries
	values       []string
	invalid      []batch.Item
	// again are the invalid entries that name an entry the preview
	// found by another row (an address beside its ID): not sent apart,
	// shown once (once.go).
	again []batch.Item
	left  []batch.LeftOut
	plan  *batch.Input
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
	// question says why the mode must be chosen before anything is sent
	// (modeQuestion), "" once it need not.
	question string
}

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
	} else if r.offered != "" && strings.TrimSpace(r.ticket.Value()) == r.offered {
		// The reference offered for another list (reviewed, left with
		// esc, then replaced by a ticket that names none) is not this
		// list's; one the agent typed stays.
		r.ticket.SetValue("")
		r.offered, r.offeredFrom = "", ""
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
	if r.question = modeQuestion(l.tk, mode); r.question != "" {
		// Nothing is sent, by any key, until the agent says the mode.
		r.focus = focusMode
		r.confirm.Blur()
	}
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
	r.plan = batch.NewInput(r.mode, items)
	r.plan.LeftOut = r.left
	r.values, r.invalid, r.again = slices.Collect(r.plan.Values()), r.plan.Invalid, nil
	r.people = people(l)
	r.person = min(r.person, max(len(r.people)-1, 0))
}

// offerReference puts the reference a ticket names in the ticket field,
// unless the agent typed one of their own there; they may edit it.
func (r *review) offerReference(ref ticket.Reference) {
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
	if r.mode == batch.Erase {
		return "erase"
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
	// The answers to the question for the mode.
	AsAdd, AsRemove, AsRemoveIDs, AsCheck, AsErase key.Binding
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

		// Digits: no word typed to confirm a send ("add", "remove") holds
		// one, so a habit never answers the question.
		AsAdd:       kb("add", "1"),
		AsRemove:    kb("remove by address", "2"),
		AsRemoveIDs: kb("remove by ID", "3"),
		AsCheck:     kbh("4/c", "check, send nothing", "4", "c"),
		AsErase:     kb("erase", "5"),
	}
}

func (r *review) help(g globalKeys) help.KeyMap {
	k := r.keys
	if r.focus == focusMode {
		// Keys that come together reach the question as one text, which
		// answers nothing (keyMode): only the function keys move on.
		b := []key.Binding{k.AsAdd, k.AsRemove, k.AsRemoveIDs, k.AsCheck, k.AsErase, k.Back}
		return keyMap{short: b, full: [][]key.Binding{b, {g.fn.Build, g.fn.Browse, g.fn.History, g.Interrupt}}}
	}
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
		filter := k.Filter
		if removes(r.mode) {
			filter.SetHelp("ctrl+f", "listed/not/all")
		}
		b = append(b, k.Up, filter, k.Again)
	}
	if r.keyMode() == typing {
		// A text field has focus: q and ? are its text.
		return keyMap{short: b, full: [][]key.Binding{b, {g.fn.Build, g.fn.Browse, g.fn.History, g.Interrupt}}}
	}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Build, g.Browse, g.History, g.Help, g.Quit}}}
}

func (r *review) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case complaintsOKMsg:
		if r.preview == nil || msg.seq != r.preview.seq {
			return nil
		}
		r.complaintsOK = msg.seq
		return r.send()
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
		r.invalid, r.again = p.listed().apart(r.plan.Invalid)
		return nil
	case tea.KeyMsg:
		return r.key(msg)
	}
	return nil
}

func (r *review) key(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	if r.focus == focusMode {
		return r.modeKey(msg)
	}
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
		case key.Matches(msg, k.SendNow) && r.mode == batch.Add:
			return r.send()
		case r.focus == focusPeople && !key.Matches(msg, k.Send):
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
	return r.fieldKey(msg)
}

// fieldKey gives a key (or a paste) to the field with focus.
func (r *review) fieldKey(msg tea.KeyMsg) tea.Cmd {
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
	case focusPeople:
		// A list, not a field: a paste here is no one's text.
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

// modeKey answers the question for the mode: 1, 2, 3 send the list in that
// mode (read anew for it), 4 or c checks it instead; every other key, Enter
// and ctrl+s too, sends nothing and says so.
func (r *review) modeKey(msg tea.KeyMsg) tea.Cmd {
	k := r.keys
	chosen := func(m batch.Mode) tea.Cmd { return func() tea.Msg { return modeChosenMsg{m} } }
	switch {
	case msg.Paste:
	case key.Matches(msg, k.Back):
		r.seq++
		return func() tea.Msg { return backMsg{} }
	case key.Matches(msg, k.AsAdd):
		return chosen(batch.Add)
	case key.Matches(msg, k.AsRemove):
		return chosen(batch.RemoveEmails)
	case key.Matches(msg, k.AsRemoveIDs):
		return chosen(batch.RemoveIDs)
	case key.Matches(msg, k.AsCheck):
		return func() tea.Msg { return startCheckMsg{} }
	case key.Matches(msg, k.AsErase):
		return chosen(batch.Erase)
	}
	r.err = "Choose the mode first: 1 add, 2 remove by address, 3 remove by ID, 4 check, 5 erase; nothing was sent."
	return nil
}

// send builds the run and hands it to the Send screen.
func (r *review) send() tea.Cmd {
	if r.question != "" {
		r.err = "Choose the mode first: 1 add, 2 remove by address, 3 remove by ID, 4 check; nothing was sent."
		return nil
	}
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
	if cmd := r.confirmComplaints(); cmd != nil {
		return cmd
	}
	// The send's plan: the review's, with the invalid entries and the
	// look-ups as they stand now.
	plan := *r.plan
	plan.Invalid = r.invalid
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
	return func() tea.Msg { return startSendMsg{job: job, plan: &plan} }
}

// complaintsOKMsg is the agent's yes to removing the complaints of the
// preview seq.
type complaintsOKMsg struct{ seq int }

// confirmComplaints asks a second time before a removal takes entries of
// origin complaint off the list, naming them: a complaint is a recipient
// who told their mailbox provider the mail was unwanted (the team may
// also require the override permission; the service decides that).
func (r *review) confirmComplaints() tea.Cmd {
	p := r.preview
	if !removes(r.mode) || p == nil || r.complaintsOK == p.seq {
		return nil
	}
	var names []string
	for _, f := range p.lookups {
		if f.Listed && f.Entry.Origin == api.OriginComplaint {
			names = append(names, safe.Text(f.Entry.Email))
		}
	}
	if len(names) == 0 {
		return nil
	}
	seq := p.seq
	yes := func() tea.Msg { return complaintsOKMsg{seq} }
	if len(names) == 1 {
		return ask(fmt.Sprintf("%s is on the list from a complaint (the recipient marked mail as spam). Remove it anyway?", names[0]), yes)
	}
	shown := strings.Join(names[:min(len(names), 3)], ", ")
	if len(names) > 3 {
		shown += fmt.Sprintf(" and %d more", len(names)-3)
	}
	return ask(fmt.Sprintf("%d entries are on the list from complaints (%s). Remove them anyway?", len(names), shown), yes)
}

func (t Target) label() string {
	if t.Label == "" {
		return "local list"
	}
	return t.Label
}
