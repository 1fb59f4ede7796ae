package ui

import (
	"strings"

	"github.com/shushlist/shush/batch"
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
	role    batch.Decision
	flipped bool
	// protected says the team protects the address (GET /team): no
	// addition sends it, whatever the rule or the agent says.
	protected bool
}

// rule is the decision about the entry in a batch of mode.
func (e entry) rule(m batch.Mode) batch.Decision {
	if e.protected && m == batch.Add {
		return batch.Decision{Reason: batch.ReasonProtected, Leave: true}
	}
	d := e.role.For(m)
	if e.flipped {
		d = d.Flip()
	}
	return d
}

// sends reports whether the entry goes into a batch of mode.
func (e entry) sends(m batch.Mode) bool { return e.Valid() && !e.rule(m).Leave }

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
	ref     batch.Reference
	hasRef  bool
	search  string
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
	// (batch.FindReference), when hasRef: the review offers it.
	ref    batch.Reference
	hasRef bool
	// search says what a Browse search put on the list ("everyone at
	// firm.example, 37 entries when read"); the review says it.
	search string
	// protected is the team's protected addresses and domains.
	protected batch.Own
}

// noteReference keeps the reference a ticket names for the review.
func (l *entries) noteReference(ref batch.Reference, ok bool) {
	if ok {
		l.ref, l.hasRef = ref, true
	}
}

func newEntries(mode batch.Mode) *entries {
	return &entries{seen: map[string]int{}, mode: mode}
}

func (l *entries) len() int { return len(l.rows) }

// setProtected marks the rows the team protects, now and from now on.
func (l *entries) setProtected(o batch.Own) {
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
	l.gen++
	if len(l.undo) == maxUndo {
		l.undo = append(l.undo[:0:0], l.undo[1:]...)
	}
	l.undo = append(l.undo, s)
}

// add appends the items that are not already on the list; roles (one per
// item, or nil) are the rule's (batch.Roles).
func (l *entries) add(items []batch.Item, roles []batch.Decision, source string) addResult {
	var r addResult
	before := l.rows[:len(l.rows):len(l.rows)]
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
		e := entry{Item: it, source: source, protected: it.Valid() && l.protected.Has(it.Value)}
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
	l.ref, l.hasRef, l.search = batch.Reference{}, false, ""
	l.seen = map[string]int{}
	l.valid = 0
}

// squash makes the last two changes (a clear, then rows added) one undo
// step, named label: undoing it puts the list before the clear back.
func (l *entries) squash(label string) {
	if n := len(l.undo); n >= 2 && l.undo[n-1].appended {
		l.undo = l.undo[:n-1]
		l.undo[n-2].label = label
	}
}

// setMode revalidates every row for a new mode (an address is not an ID).
func (l *entries) setMode(m batch.Mode) {
	if m == l.mode {
		return
	}
	l.push(undoStep{label: "mode", rows: l.rows, mode: l.mode})
	l.mode = m
	rows := make([]entry, len(l.rows))
	for i, e := range l.rows {
		e.Item = batch.NewItem(m, e.Line, e.Raw)
		rows[i] = e
	}
	l.rows = rows
	l.reindex()
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

// values are the valid values of the list, in order.
func (l *entries) values() []string {
	out := make([]string, 0, l.valid)
	for _, e := range l.rows {
		if e.sends(l.mode) {
			out = append(out, e.Value)
		}
	}
	return out
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
