package ticket

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A request may leave someone out by their name, not their address
// ("unblock these three, except Claire", "sauf JP", "keep Sam blocked"):
// which address is theirs, a person must say, so the review asks.

// notePeople keeps the name-like pieces of an address's local part
// ("claire" and "n" of claire.n, "jp" and "martin" of jp.martin): a word
// of a later line that is one may name its owner.
func (r *Reader) notePeople(local string) {
	if r.st.people == nil {
		r.st.people = map[string]bool{}
	}
	for _, p := range strings.FieldsFunc(local, func(c rune) bool { return !unicode.IsLetter(c) }) {
		if len(p) >= 2 && len(r.st.people) < maxLocals {
			r.st.people[folded(p)] = true
		}
	}
}

// leavesOutPerson reports a line that names no address and leaves out or
// keeps a person whose name is a piece of an address named before
// ("Not Claire though", "skip JP", "Sam should stay blocked").
func (r *Reader) leavesOutPerson(l *line, ms []match) bool {
	if len(r.st.people) == 0 || len(l.toks) > 0 || !leavesOut(l, ms) {
		return false
	}
	for _, w := range l.ws {
		c, _ := utf8.DecodeRuneInString(w.s)
		if unicode.IsUpper(c) && r.st.people[folded(w.s)] {
			return true
		}
	}
	return false
}

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
