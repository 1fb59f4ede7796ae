package ui

import (
	"slices"
	"strings"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// entry is one row of the address list: batch's item (raw text, the
// normalized value, why it is invalid, its line) and where it came from:
// "paste", "typed", a file name, "browse".
type entry struct {
	batch.Item
	source string
	// role is what the rule of whom a ticket is about makes of the
	// address, before a mode's direction (batch.Roles: our own address,
	// the requester who asks or not, a signature's); flipped says the
	// agent turned the decision around (t).
	role    ticket.Decision
	flipped bool
	// protected says the team protects the address (GET /team): no
	// addition sends it, whatever the rule or the agent says.
	protected bool
	// paste is the ticket the row was read from (1-based in the list's
	// tickets), 0 for a row typed, loaded or restored: a mode switch
	// reads that ticket again, not the row.
	paste int
}

// rule is the decision about the entry in a batch of mode.
func (e entry) rule(m batch.Mode) ticket.Decision {
	if e.protected && adds(m) {
		return ticket.Decision{Reason: ticket.ReasonProtected, Leave: true}
	}
	d := e.role.For(m.Direction())
	if e.flipped {
		d = d.Flip()
	}
	return d
}

// left reports whether the entry is valid and left out of a batch of
// mode.
func (e entry) left(m batch.Mode) bool { return e.Valid() && e.rule(m).Leave }

// addResult counts what an addition did, for the one-line summary.
type addResult struct {
	added, duplicates, invalid, leftOut int
}

func (r *addResult) merge(o addResult) {
	r.leftOut += o.leftOut
	r.added += o.added
	r.duplicates += o.duplicates
	r.invalid += o.invalid
}

// undoStep restores the list as it was before one change. Changes that only
// append keep a prefix of the same backing array; changes that delete build
// a new array and keep the old one; an edit is undone by writing the old row
// back. Applied strictly last-in first-out, the three never disturb each
// other, so a change costs at most one copy of the list and often none.
type undoStep struct {
	label string
	rows  []entry // the list to go back to, when set
	mode  batch.Mode
	at    int // the row an edit changed, when old is set
	old   *entry
	// removed are the rows a delete took out: undoing it puts their values
	// back in the set without rebuilding it.
	removed []entry
	// appended: the change only added rows after rows; undoing it takes
	// their values out of the set.
	appended bool
	// cleared: the change emptied the list; undoing it puts back the
	// ticket the list was of, with its rows.
	cleared bool
	ref     ticket.Reference
	hasRef  bool
	search  string
	// tickets is what the list knew of its tickets before the change.
	tickets tickets
	// gen is the list's generation before the change.
	gen int
}

// isTicket reports whether a ticket with words was pasted onto the list.
func (t tickets) isTicket() bool {
	for _, p := range t.pasted {
		if p.paste.Ticket != nil && p.paste.Ticket.IsTicket() {
			return true
		}
	}
	return false
}

// tickets are the tickets pasted onto a list and what they propose.
type tickets struct {
	// pasted holds each paste read as a ticket (a row's paste indexes
	// it), with its proposal.
	pasted []pasted
	// proposal is what the list's tickets ask, when has: the one
	// ticket's proposal, unsure when two disagree.
	proposal ticket.Proposal
	has      bool
	// chosen says the agent chose the list's mode by hand (m) since the
	// proposal; answered is the mode they gave the review's question,
	// when hasAnswer.
	chosen    bool
	answered  batch.Mode
	hasAnswer bool
}

// pasted is one paste read as a ticket.
type pasted struct {
	paste *batch.Paste
	prop  ticket.Proposal
}

// snapshot is the tickets as they are, safe to keep in an undo step.
func (t tickets) snapshot() tickets {
	t.pasted = t.pasted[:len(t.pasted):len(t.pasted)]
	return t
}

// entries is the address list: plain data, with a set of the values on it
// for de-duplication, and an undo stack.
type entries struct {
	rows  []entry
	seen  map[string]int // normalized value → how many rows hold it
	mode  batch.Mode
	undo  []undoStep
	valid int
	gen   int // bumped by every change, to tell a sent list from a changed one
	// ref is the ticket reference the last ticket put on the list names
	// (ticket.FindReference), when hasRef: the review offers it.
	ref    ticket.Reference
	hasRef bool
	// search says what a Browse search put on the list ("everyone at
	// firm.example, 37 entries when read"); the review says it.
	search string
	// protected is the team's protected addresses and domains.
	protected ticket.Own
	// tk is the tickets pasted onto the list.
	tk tickets
}

// noteReference keeps the reference a ticket names for the review.
func (l *entries) noteReference(ref ticket.Reference, ok bool) {
	if ok {
		l.ref, l.hasRef = ref, true
	}
}

func newEntries(mode batch.Mode) *entries {
	return &entries{seen: map[string]int{}, mode: mode}
}

func (l *entries) len() int { return len(l.rows) }

// setProtected marks the rows the team protects, now and from now on.
func (l *entries) setProtected(o ticket.Own) {
	l.protected = o
	for i := range l.rows {
		e := &l.rows[i]
		e.protected = e.Valid() && o.Has(e.Value)
	}
}

// fromTicket reports whether some row came from more than typing: a
// paste, a file, Browse, a run or a draft.
func (l *entries) fromTicket() bool {
	for _, e := range l.rows {
		if e.source != "typed" {
			return true
		}
	}
	return false
}

func (l *entries) invalid() int { return len(l.rows) - l.valid }

const maxUndo = 50

func (l *entries) push(s undoStep) {
	s.tickets = l.tk.snapshot()
	s.gen = l.gen
	l.gen++
	if len(l.undo) == maxUndo {
		l.undo = append(l.undo[:0:0], l.undo[1:]...)
	}
	l.undo = append(l.undo, s)
}

// add appends the items that are not already on the list; roles (one per
// item, or nil) are the rule's (batch.Paste.Roles).
func (l *entries) add(items []batch.Item, roles []ticket.Decision, source string) addResult {
	return l.addFrom(items, roles, source, nil)
}

// addFrom is add of rows read from a ticket t (nil for none), which the
// list keeps for a mode switch and the proposal.
func (l *entries) addFrom(items []batch.Item, roles []ticket.Decision, source string, t *pasted) addResult {
	prior := l.tk.snapshot()
	from := 0
	if t != nil {
		from = l.addTicket(t.paste, t.prop)
	}
	var r addResult
	before := l.rows[:len(l.rows):len(l.rows)]
	// Room for them all at once: a paste of 100,000 rows grows the list
	// once, not twenty times (before keeps the old rows).
	l.rows = slices.Grow(l.rows, len(items))
	if len(l.seen) == 0 {
		l.seen = make(map[string]int, len(items))
	}
	for k, it := range items {
		if it.Problem == "" {
			if l.seen[it.Value] > 0 {
				r.duplicates++
				continue
			}
			l.seen[it.Value]++
			l.valid++
			r.added++
		} else {
			r.invalid++
		}
		e := entry{Item: it, source: source, paste: from, protected: it.Valid() && l.protected.Has(it.Value)}
		if roles != nil {
			e.role = roles[k]
			if e.left(l.mode) {
				r.leftOut++
			}
		}
		l.rows = append(l.rows, e)
	}
	if r.added+r.invalid > 0 {
		// The three-index slice above makes the next append copy rather
		// than write into rows the snapshot shares.
		l.push(undoStep{label: "add " + source, rows: before, mode: l.mode, appended: true})
		l.undo[len(l.undo)-1].tickets = prior
	}
	return r
}

// edit replaces row i with a new raw text; it refuses a value that another
// row already holds.
func (l *entries) edit(i int, raw string) (problem string, ok bool) {
	raw = strings.TrimSpace(raw)
	old := l.rows[i]
	it := batch.NewItem(l.mode, old.Line, raw)
	if it.Valid() && it.Value != old.Value && l.seen[it.Value] > 0 {
		return it.Value + " is already on the list", false
	}
	l.forget(old)
	e := entry{Item: it, source: old.source, protected: it.Valid() && l.protected.Has(it.Value)}
	p := it.Problem
	l.remember(e)
	l.rows[i] = e
	l.push(undoStep{label: "edit", at: i, old: &old, mode: l.mode})
	return p, true
}

func (l *entries) forget(e entry) {
	if e.Valid() {
		l.seen[e.Value]--
		if l.seen[e.Value] <= 0 {
			delete(l.seen, e.Value)
		}
		l.valid--
	}
}

func (l *entries) remember(e entry) {
	if e.Valid() {
		l.seen[e.Value]++
		l.valid++
	}
}

// remove deletes the rows whose indices are in del (sorted or not).
func (l *entries) remove(del map[int]bool) int {
	if len(del) == 0 {
		return 0
	}
	kept := make([]entry, 0, len(l.rows)-len(del))
	var removed []entry
	for i, e := range l.rows {
		if del[i] {
			l.forget(e)
			removed = append(removed, e)
			continue
		}
		kept = append(kept, e)
	}
	n := len(removed)
	l.push(undoStep{label: "delete", rows: l.rows, mode: l.mode, removed: removed})
	l.rows = kept
	return n
}

// clear empties the list.
func (l *entries) clear() {
	if len(l.rows) == 0 {
		return
	}
	l.push(undoStep{label: "clear", rows: l.rows, mode: l.mode, cleared: true, ref: l.ref, hasRef: l.hasRef, search: l.search})
	l.rows = nil
	l.ref, l.hasRef, l.search = ticket.Reference{}, false, ""
	l.tk = tickets{chosen: l.tk.chosen}
	l.seen = map[string]int{}
	l.valid = 0
}

// squash makes the changes since the list's generation since (a clear,
// then a mode and rows) one undo step, named label: undoing it puts the
// list before the first of them back.
func (l *entries) squash(label string, since int) {
	i := slices.IndexFunc(l.undo, func(s undoStep) bool { return s.gen >= since })
	if i < 0 {
		return
	}
	l.undo = l.undo[:i+1]
	l.undo[i].label = label
}

// setMode reads the list anew for another mode: a row of a pasted ticket
// from its ticket (the ticket's IDs become rows in a removal by ID, its
// addresses in the other modes, each with its role for own), any other
// row from its text.
func (l *entries) setMode(m batch.Mode, own ticket.Own) {
	if m == l.mode {
		return
	}
	l.push(undoStep{label: "mode", rows: l.rows, mode: l.mode})
	l.mode = m
	rows := make([]entry, 0, len(l.rows))
	read := map[int]bool{}
	seen := map[string]bool{}
	for _, e := range l.rows {
		if e.paste > 0 {
			if !read[e.paste] {
				read[e.paste] = true
				rows = l.reread(rows, e.paste, e.source, own, seen)
			}
			continue
		}
		e.Item = batch.NewItem(m, e.Line, e.Raw)
		if e.Valid() {
			seen[e.Value] = true
		}
		rows = append(rows, e)
	}
	l.rows = rows
	l.reindex()
}

// reread appends the rows ticket k of the list makes in the list's mode,
// each value once.
func (l *entries) reread(rows []entry, k int, source string, own ticket.Own, seen map[string]bool) []entry {
	p := l.tk.pasted[k-1].paste
	items := p.Items(l.mode)
	roles := p.Roles(items, own)
	for i, it := range items {
		if it.Valid() {
			if seen[it.Value] {
				continue
			}
			seen[it.Value] = true
		}
		e := entry{Item: it, source: source, paste: k, protected: it.Valid() && l.protected.Has(it.Value)}
		if roles != nil {
			e.role = roles[i]
		}
		rows = append(rows, e)
	}
	return rows
}

// addTicket keeps a paste read as a ticket and what it proposes, and
// returns its index for the rows read from it. Two tickets that propose
// different modes make the list unsure.
func (l *entries) addTicket(p *batch.Paste, prop ticket.Proposal) int {
	l.tk.pasted = append(l.tk.pasted, pasted{paste: p, prop: prop})
	switch {
	case prop.Mode == "":
		return len(l.tk.pasted) // a list: it proposes nothing
	case !l.tk.has:
		l.tk.proposal, l.tk.has = prop, true
	case l.tk.proposal.Mode != prop.Mode:
		l.tk.proposal = ticket.Proposal{Mode: ticket.ModeUnsure, Why: "the list's tickets ask different things",
			Ask: []string{"the list's tickets ask different things"}}
	}
	l.tk.hasAnswer = false
	return len(l.tk.pasted)
}

// undoLast reverts the last change and says what it was.
func (l *entries) undoLast() (string, bool) {
	if len(l.undo) == 0 {
		return "", false
	}
	s := l.undo[len(l.undo)-1]
	l.undo = l.undo[:len(l.undo)-1]
	l.gen++
	l.mode = s.mode
	l.tk = s.tickets
	if s.old != nil {
		l.forget(l.rows[s.at])
		l.rows[s.at] = *s.old
		l.remember(*s.old)
		return s.label, true
	}
	if s.appended {
		for _, e := range l.rows[len(s.rows):] {
			l.forget(e)
		}
		l.rows = s.rows
		return s.label, true
	}
	l.rows = s.rows
	if s.cleared {
		l.ref, l.hasRef, l.search = s.ref, s.hasRef, s.search
	}
	if s.removed != nil {
		for _, e := range s.removed {
			l.remember(e)
		}
		return s.label, true
	}
	l.reindex()
	return s.label, true
}

// reindex rebuilds the duplicate set. Rows that repeat a value (possible
// only after a mode change) are flagged so that each value is sent once.
func (l *entries) reindex() {
	l.seen = make(map[string]int, len(l.rows))
	l.valid = 0
	for i, e := range l.rows {
		if !e.Valid() {
			continue
		}
		if l.seen[e.Value] > 0 {
			l.rows[i].Problem = "duplicate of an earlier row"
			continue
		}
		l.seen[e.Value]++
		l.valid++
	}
}

// leftOut counts the valid rows that are not sent.
func (l *entries) leftOut() int {
	n := 0
	for _, e := range l.rows {
		if e.left(l.mode) {
			n++
		}
	}
	return n
}

// flip turns the rule's decision about row i around (the agent read the
// ticket and knows better): a row left out is sent, one the rule took in
// is left out. Our own addresses, and rows the rule says nothing about,
// do not flip.
func (l *entries) flip(i int) bool {
	e := l.rows[i]
	if !e.Valid() || !e.role.Decided() || e.role.Fixed() {
		return false
	}
	old := e
	l.rows[i].flipped = !e.flipped
	label := "take in"
	if l.rows[i].left(l.mode) {
		label = "leave out"
	}
	l.push(undoStep{label: label, at: i, old: &old, mode: l.mode})
	return true
}
