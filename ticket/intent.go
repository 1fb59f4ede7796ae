package ticket

import (
	"fmt"
	"strings"
)

// What a ticket asks: the newest mail that asks something decides (our
// own agents' mails, and a note that only passes a request on, do not);
// quoted and forwarded older mails inform when it says nothing, and a
// later mail that withdraws or narrows an earlier request wins. The
// targets are the addresses the deciding mail's words name, and those of
// the mails under it when it points at them ("see below", "these
// bounces") or names none of its own.

// Mode is what a ticket asks for.
type Mode string

// The modes a ticket may propose.
const (
	// ModeAdd: block, unsubscribe, erase, stop mail.
	ModeAdd Mode = "add"
	// ModeRemove: receive mail again, put back, unblock.
	ModeRemove Mode = "remove"
	// ModeRemoveIDs: release suppression IDs.
	ModeRemoveIDs Mode = "remove_ids"
	// ModeCheck: is it blocked, why no mail, change nothing.
	ModeCheck Mode = "check"
	// ModeUnsure: the ticket does not say, or says both.
	ModeUnsure Mode = "unsure"
)

// Changes reports whether the mode changes the list.
func (m Mode) Changes() bool { return m == ModeAdd || m == ModeRemove || m == ModeRemoveIDs }

// Said is a line of the ticket that informed the proposal: its number,
// its text, and what it says ("add", "remove", "check", "withdraw", "not
// to touch", "written out", "did you mean …").
type Said struct {
	Line int    `json:"line"`
	Text string `json:"text"`
	Says string `json:"says"`
}

// Proposal is the mode a ticket asks for, with the words and the line
// that decided it.
type Proposal struct {
	Mode Mode
	// By is the line that decided (Line 0 for none), Words the words of
	// it that did ("put me back").
	By    Evidence
	Words string
	// Why says what the ticket asks, for people: "asks to get mail
	// again".
	Why string
	// Evidence holds the lines that informed the proposal, the deciding
	// one first.
	Evidence []Said
	// Ask holds what the agent must settle before anything is sent: the
	// proposal is unsure, or an address is written out. Empty when the
	// proposal may simply be followed.
	Ask []string
}

// String is the proposal for a status line: `remove: line 6 "put me
// back"`, `unsure: the ticket does not say what to do`.
func (p Proposal) String() string {
	if p.By.Line == 0 {
		return fmt.Sprintf("%s: %s", p.Mode, p.Why)
	}
	return fmt.Sprintf("%s: line %d %q", p.Mode, p.By.Line, cut(p.Words, 50))
}

// cut shortens s to n characters.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// weighing is what the ticket's mails come to, for our own addresses.
type weighing struct {
	p Proposal
	// asker is the mail whose words decided the mode; anchor the newest
	// mail that asks or names targets; targets the mails whose words'
	// addresses are the targets. -1 for none.
	asker, anchor int
	targets       map[int]bool
	withdrawn     bool
}

// mailStatement is what a mail asks, gathered from its lines.
type mailStatement struct {
	asks ask
	// weak holds the asks said only by a lone verb ("unsubscribe",
	// "block", which may be a noun's: "a block list").
	weak               ask
	first              [5]said // the first line of each ask
	below, only, cover bool
	missing            bool // a line says mail does not arrive
	selective          bool
	subjectAsks        ask
	subjectFirst       [5]said
}

// statements gathers what each mail asks.
func (t *Ticket) statements() []mailStatement {
	out := make([]mailStatement, len(t.mails))
	fwd := t.firstForward()
	for _, s := range t.said {
		m := s.msg
		if s.fwd && fwd > 0 {
			m = fwd
		}
		st := &out[m]
		st.below = st.below || s.below
		st.only = st.only || s.only
		st.cover = st.cover || s.cover
		st.missing = st.missing || s.missing && !s.subject
		st.selective = st.selective || s.selective && !s.subject
		for a := aSuppress; a <= aWithdraw; a <<= 1 {
			if s.asks&a == 0 {
				continue
			}
			if s.subject {
				if st.subjectAsks&a == 0 {
					st.subjectFirst[bit(a)] = s
				}
				st.subjectAsks |= a
				continue
			}
			if st.asks&a == 0 {
				st.first[bit(a)] = s
				st.weak |= a & s.weak
			} else if s.weak&a == 0 {
				st.weak &^= a
			}
			st.asks |= a
		}
	}
	return out
}

// firstForward is the first forwarded mail (the one a "FW:" subject
// belongs to), 0 for none.
func (t *Ticket) firstForward() int {
	for i := 1; i < len(t.mails); i++ {
		if t.mails[i].forward || t.mails[i].depth > 0 {
			return i
		}
	}
	return 0
}

// ours reports a mail our own agents wrote.
func (t *Ticket) ours(m int, own Own) bool {
	from := t.mails[m].from
	return from != "" && t.isOurs(from, own)
}

// isOurs reports one of our own addresses: in own or, when no own
// addresses are configured, at the domain of the address the ticket was
// sent to (our support mailbox's), which only our own people write from.
func (t *Ticket) isOurs(v string, own Own) bool {
	if own.Has(v) {
		return true
	}
	at := strings.LastIndexByte(v, '@')
	if at < 0 || !own.Empty() {
		return false
	}
	for to := range t.sentTo {
		if i := strings.LastIndexByte(to, '@'); i >= 0 && to[i+1:] == v[at+1:] && to != v {
			return true
		}
	}
	return false
}

// weigh finds the deciding mail, the mode it asks for and the target
// mails.
func (t *Ticket) weigh(own Own) weighing {
	sts := t.statements()
	w := weighing{asker: -1, anchor: -1, targets: map[int]bool{}}
	for m := range t.mails {
		if t.ours(m, own) {
			continue
		}
		st := sts[m]
		asks := st.asks | st.subjectAsks
		names := t.mails[m].named+t.mails[m].ids > 0
		if w.anchor < 0 && (asks != 0 || names) && !(st.cover && st.asks == 0) {
			w.anchor = m
		}
		if st.asks != 0 && !st.cover {
			w.asker = m // the newest mail whose words ask
			break
		}
	}
	if w.asker < 0 {
		// None asks in its words: the newest whose subject does.
		for m := range t.mails {
			if !t.ours(m, own) && sts[m].subjectAsks != 0 {
				w.asker = m
				break
			}
		}
	}
	if w.anchor < 0 {
		w.anchor = w.asker
	}
	if w.asker < 0 && w.anchor >= 0 {
		// The newest mail names targets and asks nothing: it answers an
		// older mail, ours too ("which address should we suppress?").
		for m := w.anchor + 1; m < len(t.mails) && w.asker < 0; m++ {
			if sts[m].asks|sts[m].subjectAsks != 0 {
				w.asker = m
			}
		}
	}
	t.aim(&w, sts, own)
	t.decideMode(&w, sts)
	return w
}

// aim puts the anchor's mail in the targets, and the mails under it when
// it points at them or names none of its own.
func (t *Ticket) aim(w *weighing, sts []mailStatement, own Own) {
	if w.anchor < 0 {
		return
	}
	a := w.anchor
	w.targets[a] = true
	st := sts[a]
	if w.asker > a {
		w.targets[w.asker] = true
	}
	named := t.mails[a].named+t.mails[a].ids > 0
	if named && !st.below || st.only && !st.below {
		return
	}
	for m := a + 1; m < len(t.mails); m++ {
		// Ours too when the anchor names nothing: "yes, please unblock
		// it" answers our agent's mail that names it.
		if !t.ours(m, own) || !named {
			w.targets[m] = true
		}
	}
}

// decideMode reads the mode from the asking mail (its words, else its
// subject), else from a bounce report among the targets.
func (t *Ticket) decideMode(w *weighing, sts []mailStatement) {
	if w.asker < 0 {
		t.noAsk(w)
		return
	}
	st := sts[w.asker]
	asks, first := st.asks, st.first
	if asks == 0 {
		asks, first = st.subjectAsks, st.subjectFirst
	}
	ids, addrs := t.targetCounts(w)
	switch {
	case asks&aWithdraw != 0 && asks&(aSuppress|aRelease|aRemove) == 0:
		w.withdrawn = true
		t.propose(w, ModeCheck, first[bit(aWithdraw)], "takes the request back: change nothing")
	case ids > 0 && asks&(aRelease|aRemove) != 0 && asks&aSuppress == 0:
		t.propose(w, ModeRemoveIDs, first[bit(pick(asks, aRelease, aRemove))], "asks to release suppression IDs")
	case ids > 0 && addrs == 0:
		t.propose(w, ModeUnsure, first[bit(lowest(asks))], "names suppression IDs, which can only be removed")
		w.p.Ask = append(w.p.Ask, "suppression IDs can only be removed")
	case st.selective && asks&(aSuppress|aRelease|aRemove) != 0:
		t.propose(w, ModeUnsure, first[bit(lowest(asks&^aCheck))], "picks its targets by a condition: choose them by hand")
	case asks&(aSuppress|aRelease|aRemove) != 0 && asks&(aSuppress|aRelease|aRemove) == st.weak&(aSuppress|aRelease|aRemove) && !t.bounceAmong(w):
		// Only a lone verb asks ("I clicked unsubscribe by accident").
		t.propose(w, ModeUnsure, first[bit(lowest(asks&^aCheck))], "names an action only in passing")
	case st.missing && asks&(aSuppress|aRemove) != 0 && asks&aRelease == 0:
		// "No mails arrive any more" beside a stop: which is it?
		t.propose(w, ModeUnsure, first[bit(pick(asks, aSuppress, aRemove))], "says mail does not arrive and asks to stop it")
	case asks&aRelease != 0 && asks&(aSuppress|aRemove) != 0 && st.weak&(aSuppress|aRemove) != 0 && st.weak&aRelease == 0:
		// "I meant to unsubscribe my old address; put this one back": a
		// lone verb gives way to a phrase that asks the other way.
		t.propose(w, ModeRemove, first[bit(aRelease)], "asks to get mail again")
	case asks&aRelease != 0 && asks&aSuppress != 0 && st.weak&aRelease != 0 && st.weak&aSuppress == 0:
		t.propose(w, ModeAdd, first[bit(aSuppress)], "asks to get no more mail")
	case asks&aRelease != 0 && asks&aSuppress != 0:
		t.propose(w, ModeUnsure, first[bit(aRelease)], "asks both ways")
		w.p.Evidence = append(w.p.Evidence, t.saying(first[bit(aSuppress)], "add"))
		w.p.Ask = append(w.p.Ask, "the ticket asks both to stop mail and to get it again")
	case asks&aRelease != 0:
		t.propose(w, ModeRemove, first[bit(aRelease)], "asks to get mail again")
	case asks&(aSuppress|aRemove) != 0:
		t.propose(w, ModeAdd, first[bit(pick(asks, aSuppress, aRemove))], "asks to get no more mail")
	default:
		t.propose(w, ModeCheck, first[bit(aCheck)], "only asks whether they are blocked")
	}
}

// bounceAmong reports a bounce report among the target mails.
func (t *Ticket) bounceAmong(w *weighing) bool {
	for m := range w.targets {
		if t.mails[m].bounce {
			return true
		}
	}
	return false
}

// noAsk is the proposal of a ticket whose words ask nothing: a bounce
// report's recipients are to be added; anything else is unsure.
func (t *Ticket) noAsk(w *weighing) {
	for m := range w.targets {
		if t.mails[m].bounce && t.mails[m].named > 0 {
			w.p = Proposal{Mode: ModeAdd, Why: "a bounce report: its recipients could not be reached"}
			if l := t.bounceLine(m); l > 0 {
				w.p.By, w.p.Words = t.evidence(l), t.lines[l]
				w.p.Evidence = []Said{{Line: l, Text: t.lines[l], Says: "add"}}
			}
			return
		}
	}
	w.p = Proposal{Mode: ModeUnsure, Why: "the ticket does not say what to do"}
	if t.words == 0 {
		w.p.Why = "no words: a list of addresses"
	}
	w.p.Ask = append(w.p.Ask, w.p.Why)
}

// bounceLine is the line that made mail m a bounce report, 0 for none.
func (t *Ticket) bounceLine(m int) int {
	best := 0
	for n, text := range t.lines {
		var ws []word
		ws = wordsOf(ws, text)
		if c, _ := firstPhrase(lang.trees[inWords], ws); c == cBounce && (best == 0 || n < best) {
			best = n
		}
	}
	return best
}

// targetCounts counts the IDs and addresses the target mails' words name.
func (t *Ticket) targetCounts(w *weighing) (ids, addrs int) {
	for m := range w.targets {
		ids += t.mails[m].ids
		addrs += t.mails[m].named
	}
	return ids, addrs
}

// pick is a if asks has it, else b.
func pick(asks, a, b ask) ask {
	if asks&a != 0 {
		return a
	}
	return b
}

// lowest is the lowest bit of asks.
func lowest(asks ask) ask {
	for a := aSuppress; a <= aWithdraw; a <<= 1 {
		if asks&a != 0 {
			return a
		}
	}
	return aCheck
}

// propose sets the proposal from the line s.
func (t *Ticket) propose(w *weighing, mode Mode, s said, why string) {
	w.p = Proposal{Mode: mode, By: t.evidence(s.line), Why: why}
	w.p.Words = s.words[bit(lowest(s.asks))]
	for a := aSuppress; a <= aWithdraw; a <<= 1 {
		if s.asks&a != 0 && modeOf(a) == mode {
			w.p.Words = s.words[bit(a)]
			break
		}
	}
	if w.p.Words == "" {
		w.p.Words = t.lines[s.line]
	}
	w.p.Evidence = append(w.p.Evidence, t.saying(s, string(mode)))
	if mode == ModeUnsure {
		w.p.Ask = append(w.p.Ask, why)
	}
}

// modeOf is the mode an ask proposes.
func modeOf(a ask) Mode {
	switch a {
	case aSuppress, aRemove:
		return ModeAdd
	case aRelease:
		return ModeRemove
	}
	return ModeCheck
}

func (t *Ticket) saying(s said, says string) Said {
	return Said{Line: s.line, Text: t.lines[s.line], Says: says}
}

// Propose is the mode the ticket asks for, for our own addresses (a mail
// our agents wrote does not decide), with its evidence: the deciding line
// first, then every line that says not to touch an address, that writes
// one out, or that names one with a likely typo.
func (t *Ticket) Propose(own Own) Proposal {
	w := t.weigh(own)
	t.notes(&w, own)
	return w.p
}

// notes adds to the proposal what else the agent should see: addresses the
// words say not to touch, written out, or with a likely typo.
func (t *Ticket) notes(w *weighing, own Own) {
	written := 0
	for _, v := range t.order {
		rec := t.records[v]
		for _, o := range rec.occ {
			switch {
			case o.zone == zExcept && w.targets[o.msg]:
				w.p.Evidence = append(w.p.Evidence, Said{Line: o.line, Text: t.lines[o.line], Says: "not to touch " + v})
			case o.zone == zWritten && w.targets[o.msg]:
				written++
				w.p.Evidence = append(w.p.Evidence, Said{Line: o.line, Text: t.lines[o.line], Says: "written out: " + v + " — check"})
			default:
				continue
			}
			break
		}
		if hint, ok := Hint(v); ok && !own.Has(v) {
			w.p.Evidence = append(w.p.Evidence, Said{Line: rec.occ[0].line, Text: t.lines[rec.occ[0].line], Says: "did you mean " + hint + "? (" + v + " is sent as written)"})
		}
	}
	if written > 0 {
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("%d %s written out in words: check and take in by hand", written, plural(written, "address is", "addresses are")))
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Contradicts reports whether sending the ticket in mode (the command's,
// the agent's) goes against its words, and says so in one sentence naming
// the ticket's words and line.
func (p Proposal) Contradicts(mode Mode) (string, bool) {
	if p.Mode == ModeUnsure || p.Mode == mode {
		return "", false
	}
	if p.Mode == ModeRemoveIDs && mode == ModeRemove || p.Mode == ModeRemove && mode == ModeRemoveIDs {
		return "", false // the same way; the entries say which
	}
	words := strings.TrimSpace(p.Words)
	return fmt.Sprintf("the ticket %s (line %d: %q), not to %s", p.Why, p.By.Line, cut(words, 60), verb(mode)), true
}

// verb says what a mode does, for a sentence.
func verb(m Mode) string {
	switch m {
	case ModeAdd:
		return "add it to the list"
	case ModeRemove, ModeRemoveIDs:
		return "take it off the list"
	}
	return "check it"
}
