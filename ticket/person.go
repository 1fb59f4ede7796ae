package ticket

import (
	"slices"
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
	for _, p := range localPieces(local) {
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

// localPieces are the runs of letters of a local part.
func localPieces(local string) []string {
	return strings.FieldsFunc(local, func(c rune) bool { return !unicode.IsLetter(c) })
}

// noteCopiedName keeps, of the local part of an address a Cc: line
// copies, the pieces its name beside it spells as a person's name
// ("Horváth Péter <horvath.peter@…>"), not a team's ("IT Team <it@…>"):
// a line that keeps that person by name keeps that address
// (peopleNarrowed).
func (r *Reader) noteCopiedName(local, name string) {
	pieces := localPieces(folded(local))
	for _, w := range strings.Fields(name) {
		w = strings.Trim(w, "\"'")
		if k := folded(w); capitalised(w) && slices.Contains(pieces, k) && len(r.st.copiedPeople) < maxLocals {
			if r.st.copiedPeople == nil {
				r.st.copiedPeople = map[string]string{}
			}
			v := local
			if was, ok := r.st.copiedPeople[k]; ok && was != local {
				v = "" // several copied people have it
			}
			r.st.copiedPeople[k] = v
		}
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
	if len(l.toks) > 0 {
		return false, r.exceptsNamedHere(l, ms)
	}
	if !leavesOut(l, ms) {
		return false, false
	}
	var sure, later []string
	for i := speakerEnd(l); i < len(l.ws); i++ {
		switch kind, local := r.personWord(l, ms, i); kind {
		case pAsk:
			return true, false
		case pLater:
			later = append(later, local)
		case pSure:
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

// exceptsNamedHere leaves out, on a line that names addresses, the one
// address a name right after an exception is a piece of ("… e
// rodrigo.alves@… — menos o Rodrigo, que saiu"): a plain exception
// names whom it leaves out; anything less sure is for the line's other
// readings. It reports whether it left one out.
func (r *Reader) exceptsNamedHere(l *line, ms []match) bool {
	left := false
	for i, w := range l.ws {
		if strings.Contains(w.s, "@") {
			continue
		}
		local := r.st.people[folded(w.s)]
		if !capitalized(w.s) {
			local = r.wholeLocal(w.s)
		}
		if local != "" && exceptedName(l.ws, ms, i) {
			r.leaveOut(local, l.n, l.msg)
			r.tk.keep(l.n, l.t)
			left = true
		}
	}
	return left
}

// wholeLocal is the local part of the one address read so far that word
// w in lower case is the whole of ("except p.ramos@ and the tech-leads
// list"), "" for none.
func (r *Reader) wholeLocal(w string) string {
	if !isLocalWord(w) {
		return ""
	}
	k := folded(w)
	first, _, _ := strings.Cut(k, "-")
	first, _, _ = strings.Cut(first, ".")
	first, _, _ = strings.Cut(first, "_")
	if local := r.st.people[first]; local != "" && folded(local) == k {
		return local
	}
	return ""
}

// What a word of a line that leaves someone out says of a person.
const (
	pNone  = iota
	pAsk   // names a listed person the rule cannot leave out by itself
	pLater // a name right after an exception no address read so far has
	pSure  // a name right after an exception, a piece of one address
)

// personWord reads word i of a line that leaves someone out: a
// capitalized name, and whose address it may be (for pSure, the local
// part; for pLater, the name folded).
func (r *Reader) personWord(l *line, ms []match, i int) (int, string) {
	w := l.ws[i].s
	c, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(c) {
		return pNone, ""
	}
	local, ok := r.st.people[folded(w)]
	switch {
	case !ok && surnameNext(l.ws, i):
		// "Pauline Girard": the surname names her.
	case !ok && exceptedName(l.ws, ms, i):
		return pLater, folded(w)
	case !ok:
	case local != "" && exceptedName(l.ws, ms, i):
		return pSure, local
	case local != "" && r.pronounLeftOut(l, ms, i):
		return pSure, local
	case leavesOutIn(l, ms, i) && !saysLocal(l, local, i):
		return pAsk, ""
	}
	// "The first is reception. No toquéis nada más": a name and a
	// leaving out in two sentences.
	return pNone, ""
}

// saysLocal reports a line that names the local part local itself ("Tom
// Smit toch nog blijft, dus t.smit graag laten staan"): whom it leaves
// out, it says.
func saysLocal(l *line, local string, name int) bool {
	for k, w := range l.ws {
		if k != name && k != name+1 && local != "" && strings.EqualFold(strings.TrimSuffix(w.s, "@"), local) {
			return true
		}
	}
	return false
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

// narrowedToPeople keeps the names a line of words narrows a request to
// ("so it's only Marta who needs to come off", "nur noch Jonas bitte")
// or keeps out of it ("Luis se queda", "Lena bleibt"): a name right after
// an "only", or right before a word that keeps. The end of the ticket
// settles them (peopleNarrowed) against the addresses read by then.
func (r *Reader) narrowedToPeople(l *line, ms []match) {
	for _, m := range ms {
		if m.negated {
			continue
		}
		switch {
		case m.class == cOnly && m.end < len(l.ws) && !l.ws[m.end-1].ends && !l.ws[m.end-1].clause:
			r.namesAfter(l, m.end)
		case m.class == cExceptAfter && m.first > 0 && !l.ws[m.first-1].ends && !l.ws[m.first-1].clause:
			r.narrowedTo(l, keptNameBefore(l, m.first), false)
		}
	}
}

// keptNameBefore is the word right before a keeping phrase at word at
// ("Luis se queda"), or, when that is no name, the last name before it in
// its sentence ("paní Dvořáková se vrací dřív, takže její adresu prosím
// nechte"): the person whose address is kept.
func keptNameBefore(l *line, at int) int {
	if capitalised(l.ws[at-1].s) {
		return at - 1
	}
	from, _ := sentence(l.ws, l.ws[at].off)
	for k := at - 2; k > from; k-- {
		if capitalised(l.ws[k].s) && !l.ws[k-1].ends {
			return k
		}
	}
	return at - 1
}

// namesAfter keeps the names from word i of line l on, past the short
// words that link them to an "only" ("nur an Jonas und Petra", "just
// Priya, Dev and Sam"), as the people the line narrows a request to.
func (r *Reader) namesAfter(l *line, i int) {
	for i < len(l.ws)-1 && (nameLinks[folded(l.ws[i].s)] || onlyLinks[folded(l.ws[i].s)]) && !l.ws[i].ends && !l.ws[i].clause {
		i++
	}
	for ; i < len(l.ws) && (capitalised(l.ws[i].s) || isLocalWord(l.ws[i].s)); i++ {
		r.narrowedTo(l, i, true)
		if surnameNext(l.ws, i) {
			i++
		}
		if l.ws[i].ends {
			return
		}
		if i+2 < len(l.ws) && nameAnds[folded(l.ws[i+1].s)] && !l.ws[i+1].clause {
			i++
		} else if !l.ws[i].clause {
			return
		}
	}
}

// onlyLinks are the words between an "only" and the names it narrows to,
// besides nameLinks: "nur an Jonas", "just to Priya", "solo a Ana".
var onlyLinks = map[string]bool{"an": true, "to": true, "at": true, "is": true, "it's": true, "für": true, "per": true, "para": true, "pour": true, "voor": true, "naar": true, "til": true, "till": true}

// narrowedTo keeps word i of line l, when it may be a name, as a person
// the line narrows the request to (only) or keeps out of it. A word in
// lower case after an "only" ("Vain info.") may be a whole local part.
func (r *Reader) narrowedTo(l *line, i int, only bool) {
	w := l.ws[i].s
	if strings.Contains(w, "@") {
		return
	}
	if name := capitalised(w); name || only && isLocalWord(w) {
		r.st.narrowed = append(r.st.narrowed, narrowedName{name: folded(w), only: only, whole: !name, line: l.n, msg: l.msg})
		r.tk.keep(l.n, l.t)
	}
}

// isLocalWord reports a word in lower case that may be an address's
// local part ("info", "ventas"), not a short word of the language.
func isLocalWord(w string) bool {
	return len(w) >= 3 && strings.ToLower(w) == w && strings.IndexFunc(w, func(c rune) bool { return !unicode.IsLetter(c) && c != '.' && c != '-' && c != '_' }) < 0
}

// narrowedName is a name a line narrows a request to, or keeps out of it;
// whole: a word in lower case, which names an address only as its whole
// local part.
type narrowedName struct {
	name        string
	only, whole bool
	line, msg   int
}

// peopleNarrowed settles the names lines narrowed a request to or kept
// out of it. A name that is a piece of an address makes its mail one
// that narrows; of exactly one address, an "only" narrows the request to
// it, as "just marta.k@… please" would, and a keeping leaves it out.
// A name of several addresses is for the review.
func (r *Reader) peopleNarrowed() {
	for _, n := range r.st.narrowed {
		local, ok := r.st.people[n.name]
		if !ok && !n.only {
			local, ok = r.st.copiedPeople[n.name]
		}
		if !ok || n.whole && folded(local) != n.name {
			continue
		}
		r.tk.mails[n.msg].narrows = true
		switch {
		case local == "":
			r.tk.mails[n.msg].narrowsAmbiguous = true
		case n.only:
			r.tk.partials = append(r.tk.partials, partial{local: local, occurrence: occurrence{zone: zBody, msg: n.msg, line: n.line, only: nBare}})
			r.tk.mails[n.msg].named++
			r.notAboutWriter(n.line, n.msg)
		default:
			r.leaveOut(local, n.line, n.msg)
		}
	}
}

// notAboutWriter makes what line n of mail msg says about no one but
// the person it names: "bei uns, also bitte nur Jonas austragen" is not
// the writer's "uns austragen".
func (r *Reader) notAboutWriter(n, msg int) {
	for k := len(r.tk.said) - 1; k >= 0; k-- {
		if s := &r.tk.said[k]; s.line == n && s.msg == msg {
			s.self = sNone
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

// speakerEnd is the first word after a chat turn's time and speaker
// ("[10:04] Ana Ruiz: no, gracias"): the name that says who speaks is no
// person the turn leaves out. 0 when the line has no such label.
func speakerEnd(l *line) int {
	t := l.t
	if !strings.HasPrefix(t, "[") {
		return 0 // "Exceto a Marta: ela fica connosco" is no chat's turn
	}
	if i := strings.Index(t, "] "); i > 0 && i < 24 {
		t = t[i+2:]
	} else {
		return 0
	}
	i := strings.Index(t, ": ")
	if i <= 0 || i > 40 || len(strings.Fields(t[:i])) > 4 || !capitalized(strings.TrimLeft(t, " ")) {
		return 0
	}
	end := len(l.t) - len(t) + i
	for k, w := range l.ws {
		if w.off > end {
			return k
		}
	}
	return 0
}

// exceptedName reports the word i of a line right after an exception
// ("except Priya", "except for Priya", "sauf JP", "menos a Marta").
func exceptedName(ws []word, ms []match, i int) bool {
	k := beforeName(ws, i)
	if k < 0 || ws[k].ends || ws[k].clause {
		return false
	}
	if k > 0 && nameAnds[folded(ws[k].s)] && (capitalized(ws[k-1].s) || strings.HasSuffix(ws[k-1].s, "@")) && !ws[k-1].clause && !ws[k-1].ends {
		// "except Dan and Eleni", "except p.ramos@ and the tech-leads
		// list": the second is left out as the first.
		return exceptedName(ws, ms, k-1)
	}
	for _, m := range ms {
		if (m.class == cExcept || m.class == cExclude) && !m.negated && m.end == k+1 {
			return true
		}
	}
	return exceptWords[folded(ws[k].s)]
}

// beforeName is the word before the name at word i, past her first name
// and the short words that link it to an exception ("except for
// Pauline Girard"); -1 for none.
func beforeName(ws []word, i int) int {
	k := i - 1
	if k > 0 && surnameNext(ws, k) && !exceptWords[folded(ws[k].s)] {
		k-- // "except Pauline Girard": her first name before
	}
	for k >= 0 && nameLinks[folded(ws[k].s)] {
		k--
	}
	return k
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
	for _, s := range strings.Fields("for a of the one from für von voor van per para à celle celui de la le l' quella quello di aquela aquele do da o el il") {
		m[folded(s)] = true
	}
	return m
}()

// nameAnds join a second name to the first after an exception ("except
// Dan and Eleni", "sauf Luc et Anne", "außer Jan und Eva").
var nameAnds = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("and und et y e en och og oraz") {
		m[s] = true
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
	return leavesOutBetween(l, ms, 0, len(l.ws))
}

// leavesOutIn is leavesOut in the sentence around word i.
func leavesOutIn(l *line, ms []match, i int) bool {
	from, to := sentence(l.ws, l.ws[i].off)
	return leavesOutBetween(l, ms, from, to)
}

// leavesOutBetween is leavesOut in the words from to to.
func leavesOutBetween(l *line, ms []match, from, to int) bool {
	for _, m := range ms {
		switch m.class {
		case cExcept, cExclude, cNotSuppress, cExceptAfter, cWaveOff:
			if m.first >= from && m.first < to {
				return true
			}
		}
	}
	for i := from; i < to; i++ {
		if leaveOutWords[folded(l.ws[i].s)] && !insideRequest(ms, i) {
			return true
		}
	}
	return false
}

// insideRequest reports word i inside a phrase that asks something ("Mr
// Murphy has asked not to get them any more": its "not" is the request's,
// not a person left out).
func insideRequest(ms []match, i int) bool {
	for _, m := range ms {
		if w := classWays[m.class]; !m.negated && m.first <= i && i < m.end && (w.ask != 0 || w.self != sNone) {
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

// pronounLeftOut reports the name at word i the one person its sentence
// names, left out there by a pronoun beside a leaving out ("Karin … so
// leave her be", "så henne kan ni låta vara", "lasst sie bitte drauf").
func (r *Reader) pronounLeftOut(l *line, ms []match, i int) bool {
	from, to := sentence(l.ws, l.ws[i].off)
	return r.onlyPersonIn(l, i, from, to) && pronounBeside(l, ms, i, from, to)
}

// onlyPersonIn reports the name at word i the only person the words
// from to to name (her surname may follow): with another, whom "her"
// means, a person says.
func (r *Reader) onlyPersonIn(l *line, i, from, to int) bool {
	for k := from; k < to; k++ {
		if k != i && k != i+1 && capitalized(l.ws[k].s) && r.st.people[folded(l.ws[k].s)] != "" {
			return false
		}
	}
	return true
}

// pronounBeside reports a leaving out after word i, among the words from
// to to, with a pronoun for its object: right after it ("leave her be")
// or right before one that leaves out what stands before it ("henne kan
// ni låta vara").
func pronounBeside(l *line, ms []match, i, from, to int) bool {
	for _, m := range ms {
		if m.negated || m.first < from || m.first >= to || m.first <= i {
			continue
		}
		switch m.class {
		case cExcept, cExclude:
			if m.end < to && objectPronoun[folded(l.ws[m.end].s)] {
				return true
			}
		case cExceptAfter, cWaveOff:
			if pronounObject(l.ws, m.first, from) {
				return true
			}
		}
	}
	return false
}

// pronounObject reports what a phrase at word at that keeps what stands
// before it keeps, among the words from from: a pronoun right before it
// or one word before that ("ona kesinlikle dokunmayın"), or "that
// address" ("…, o adres kalsın", "that address can stay"), the one
// address of the sentence's name.
func pronounObject(ws []word, at, from int) bool {
	switch {
	case at > from && objectPronoun[folded(ws[at-1].s)]:
		return true
	case at <= from+1:
		return false
	case objectPronoun[folded(ws[at-2].s)] && !ws[at-2].clause && !capitalized(ws[at-1].s):
		return true
	}
	return demonstrative[folded(ws[at-2].s)] && phraseBooks().has("mailbox", ws[at-1].s)
}

// demonstrative are the books' words for "that" and "this" before a
// noun.
var demonstrative = wordSet("that this diese dieser dieses jene die das det den dette denne denna detta ten tento tato to ta o bu şu esa ese esta este aquella essa esse aquela cette ce cet quella quello questa questo deze dit dat ez az acea aceasta această acel αυτή αυτό αυτήν εκείνη tämä se ta tuo ten")

// objectPronoun are the books' words for her, him and them as an object.
var objectPronoun = wordSet("her him them henne honom dem hende ham hana hänet heidät ihn ihr sie ihnen la le lo les lui leur ella ele ela eles elas hem haar hen jego ją ich ho ji je őt őket ea el ei pe την τον τους τις onu onları ona onlara")
