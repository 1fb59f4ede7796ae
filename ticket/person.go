package ticket

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A request may leave someone out by their name, not their address
// ("unblock these three, except Claire", "sauf JP", "keep Sam blocked").
// Right after "except" (or its kin), a name that is a piece of exactly one
// listed address leaves that address out; any other such line makes the
// review ask, since which address is theirs a person must say.

// notePeople keeps the name-like pieces of an address's local part
// ("claire" and "n" of claire.n, "jp" and "martin" of jp.martin): a word
// of a later line that is one may name its owner.
func (r *Reader) notePeople(local string) {
	if r.st.people == nil {
		r.st.people = map[string]string{}
	}
	for _, p := range strings.FieldsFunc(local, func(c rune) bool { return !unicode.IsLetter(c) }) {
		if len(p) < 2 || len(r.st.people) >= maxLocals {
			continue
		}
		k := folded(p)
		if was, ok := r.st.people[k]; ok && !strings.EqualFold(was, local) {
			r.st.people[k] = "" // several addresses have it
			continue
		}
		r.st.people[k] = local
	}
}

// leavesOutPerson reads a line that names no address and leaves out or
// keeps a person whose name is a piece of an address named before
// ("Except Priya", "Not Claire though", "skip JP", "Sam should stay
// blocked"). It leaves out the one address a plain exception names, and
// reports a line whose person the review must choose by hand. A name
// right after an exception that no address read so far has ("block all
// of them except Rosa:" over the list) waits for the end of the ticket
// (Reader.namesLater).
func (r *Reader) leavesOutPerson(l *line, ms []match) (ask, named bool) {
	if len(l.toks) > 0 || !leavesOut(l, ms) {
		return false, false
	}
	var sure, later []string
	for i, w := range l.ws {
		c, _ := utf8.DecodeRuneInString(w.s)
		if !unicode.IsUpper(c) {
			continue
		}
		local, ok := r.st.people[folded(w.s)]
		switch {
		case !ok && surnameNext(l.ws, i):
			// "Pauline Girard": the surname names her.
		case !ok && exceptedName(l.ws, ms, i):
			later = append(later, folded(w.s))
		case !ok:
		case local == "" || !exceptedName(l.ws, ms, i):
			return true, false
		default:
			sure = append(sure, local)
		}
	}
	for _, local := range sure {
		r.leaveOut(local, l.n, l.msg)
	}
	if len(sure) > 0 {
		r.tk.keep(l.n, l.t)
	}
	if len(later) > 0 {
		r.st.later = append(r.st.later, namedLater{names: later, line: l.n, msg: l.msg})
		r.tk.keep(l.n, l.t)
	}
	return false, len(sure)+len(later) > 0
}

// namedLater is a line that leaves out people by names no address read
// before it has.
type namedLater struct {
	names     []string
	line, msg int
}

// leaveOut leaves out the address of local part local, for line n of
// mail msg.
func (r *Reader) leaveOut(local string, n, msg int) {
	r.tk.partials = append(r.tk.partials, partial{local: local, occurrence: occurrence{zone: zExcept, msg: msg, line: n}})
}

// namesLater settles, at the end of the ticket, the names left out before
// the addresses were read: a name that is a piece of exactly one address
// leaves it out; any other makes the review choose by hand.
func (r *Reader) namesLater() {
	for _, nl := range r.st.later {
		var sure []string
		for _, name := range nl.names {
			local, ok := r.st.people[name]
			if !ok || local == "" {
				sure = nil
				r.pickedByHand(nl.line, nl.msg)
				break
			}
			sure = append(sure, local)
		}
		for _, local := range sure {
			r.leaveOut(local, nl.line, nl.msg)
		}
	}
}

// picksByHand reports a line that picks its targets in a way the rule
// cannot follow (Reader.vague, leavesOutPerson); a line that leaves out
// a listed person by their name has said whom.
func (r *Reader) picksByHand(l *line) bool {
	ask, named := r.leavesOutPerson(l, r.ms)
	return ask || !named && r.vague(l, r.ms)
}

// exceptedName reports the word i of a line right after an exception
// ("except Priya", "except for Priya", "sauf JP", "menos a Marta").
func exceptedName(ws []word, ms []match, i int) bool {
	k := i - 1
	if k > 0 && surnameNext(ws, k) && !exceptWords[folded(ws[k].s)] {
		k-- // "except Pauline Girard": her first name before
	}
	for k >= 0 && nameLinks[folded(ws[k].s)] {
		k--
	}
	if k < 0 || ws[k].ends || ws[k].clause {
		return false
	}
	for _, m := range ms {
		if (m.class == cExcept || m.class == cExclude) && !m.negated && m.end == k+1 {
			return true
		}
	}
	return exceptWords[folded(ws[k].s)]
}

// surnameNext reports a capitalized word i followed, in its clause, by
// another: a first name before a surname ("Pauline Girard").
func surnameNext(ws []word, i int) bool {
	if i+1 >= len(ws) || ws[i].clause || ws[i].ends {
		return false
	}
	a, _ := utf8.DecodeRuneInString(ws[i].s)
	b, _ := utf8.DecodeRuneInString(ws[i+1].s)
	next := ws[i+1]
	return unicode.IsUpper(a) && unicode.IsUpper(b) && utf8.RuneCountInString(next.s) > 1 && next.off == ws[i].off+len(ws[i].s)+1 && !strings.Contains(next.s, "@")
}

// nameLinks are the short words between an exception and its name
// ("except for Priya", "sauf à celle de Pauline", "salvo la de Marta").
var nameLinks = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("for a of the one from für von voor van per para à celle celui de la le l' quella quello di aquela aquele do da") {
		m[folded(s)] = true
	}
	return m
}()

// exceptWords are single words that leave out what follows.
var exceptWords = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("except excepting apart sauf hormis excepté außer ausser behalve menos excepto salvo tranne eccetto exceto") {
		m[folded(s)] = true
	}
	return m
}()

// leavesOut reports a line that says, in a phrase of the books or in a
// word of leaving out, that something is left out or kept.
func leavesOut(l *line, ms []match) bool {
	for _, m := range ms {
		switch m.class {
		case cExcept, cExclude, cNotSuppress, cExceptAfter, cWaveOff:
			return true
		}
	}
	for _, w := range l.ws {
		if leaveOutWords[folded(w.s)] {
			return true
		}
	}
	return false
}

// leaveOutWords are words that leave someone out or keep them as they
// are, in the languages read.
var leaveOutWords = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("not except but skip leave keep stay stays remain " +
		"pas sauf hormis excepté laisser laissez garder gardez reste " +
		"nicht außer ausser ohne lassen behalten bleibt bleiben " +
		"niet behalve zonder laat houd houden blijft " +
		"no menos salvo excepto dejar dejen mantener mantengan queda " +
		"non tranne eccetto salvo lasciare lasciate tenere resta " +
		"não exceto menos salvo deixar deixem manter mantenham fica") {
		m[folded(s)] = true
	}
	return m
}()
