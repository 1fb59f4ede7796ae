package ticket

import (
	"github.com/shushlist/shush/api"
	"iter"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What a line of words asks, and where its addresses stand: a request
// about the writer themselves, what it asks of the addresses it names,
// where the answer is to go, what it says not to touch.

// selfWay is which way a writer asks about themselves.
type selfWay uint8

const (
	sNone     selfWay = iota
	sSuppress         // no more mail
	sRelease          // mail again
	sAsk              // names themselves, no way (or only asks)
)

// ask is what a line asks of the addresses it names (a bit each).
type ask uint8

const (
	aSuppress ask = 1 << iota // add: unsubscribe, block
	aRelease                  // remove: put back, unblock
	aCheck                    // only asks
	aRemove                   // remove, delete: add, unless IDs or a suppression list
	aWithdraw                 // takes an earlier request back
)

// said is a line of mail msg that asks.
type said struct {
	msg, line int
	self      selfWay
	colleague bool
	// bare marks a line that is a request and nothing else
	// ("Unsubscribe"), which is about the writer only if their mail
	// names no other address.
	bare bool
	// subject: a Subject: line; fwd: a forward's ("FW: …"), whose words
	// are the forwarded mail's; reply: a reply's ("Re: …"), whose words
	// are the mail answered.
	subject, fwd, reply bool
	asks                ask
	// weak holds the asks the line says only with a lone verb.
	weak ask
	// missing: it says mail does not arrive, which its writer wants.
	missing bool
	// selective: it picks its targets by a condition; byCondition: by
	// one that is no place in a list ("the ones marked spam report").
	selective, byCondition bool
	// keepsSome: it says some mail is still wanted ("the invoices yes").
	keepsSome bool
	// keepsAll: a sentence of it that names no address ends saying to
	// change nothing ("… so please don't touch anything").
	keepsAll bool
	// gone: it says an address no longer exists or is read; back: that
	// one works again.
	gone, back bool
	// hesitates: it does not know which address is meant; corrects: it
	// corrects an address it names ("… — sorry, OldPost.example").
	hesitates, corrects bool
	// noSay: it says the writer has no say for the person a change is
	// for: they do not know of it, or are the writer's ex-partner.
	noSay bool
	// attached: it points at an attachment for its addresses; disputes:
	// it disputes what a mail of ours says.
	attached, disputes bool
	// later: its writer will decide or answer later ("I'll ask him
	// tonight", "vi faccio sapere"), or asks us what to do, in a
	// sentence that asks no change (laterAlone).
	later bool
	// stopTold: its stops are told in sentences that ask nothing, beside
	// a release asked outright (stopTold): beside suppression IDs, the
	// release is the request.
	stopTold bool
	// ordinal: it picks targets by their place in a list ("los dos
	// primeros").
	ordinal bool
	// someone: it asks about one other person's address without naming
	// it ("stop sending to her address").
	someone bool
	// oneOf: it asks about one of the ticket's addresses by a word that
	// does not say which ("block the old one", "quello vecchio").
	oneOf bool
	// describes: it picks its target by a description ("the old one",
	// "den gamle adressen"), which the ticket may give an address of its
	// own (Ticket.described).
	describes bool
	// ifListed: it picks its targets by whether they are blocked ("if
	// they are, please unblock both"): for a release, that is what a
	// release does anyway.
	ifListed bool
	// bySplit: it picks a bounce report's recipients by hard or soft
	// failure ("the hard bounces only", "the second one is only a full
	// mailbox, leave it"), which the report's statuses say.
	bySplit bool
	// thisOne: it asks a change for "this address" without naming it,
	// and its mail's words name more than one (thisAddress).
	thisOne bool
	// behalf: its writer acts for someone else ("on behalf of my
	// client"), so a request in their mail that names nobody is not
	// about them.
	behalf bool
	// forgets: it holds a phrase about being forgotten ("delete all my
	// data"), read when the ticket asks to stop mail.
	forgets bool
	// names: the line names addresses or IDs of its own.
	names bool
	// keepsWriter: a sentence of it keeps the address the writer writes
	// from ("the one I'm writing from is fine"); exceptsWriter: one
	// leaves the writer out ("… but not me").
	keepsWriter, exceptsWriter bool
	// notSelf: a phrase of it speaks of mail someone else receives
	// ("she's still getting your reminders", "we keep getting these
	// bounces").
	notSelf bool
	// onlyWriter: after an address it names, it narrows the request to
	// the writer ("jess@… gets everything, it's just me"); onlyMe: it
	// says "only me" anywhere ("so only my address off, thanks").
	onlyWriter, onlyMe bool
	// keepsUnnamed: a sentence of it in the first person that names no
	// address and no one else says mail is to keep coming ("I love the offers and want to
	// keep getting them"), and nothing after it in the line asks a change.
	keepsUnnamed bool
	// below: it points at what is forwarded or quoted under it; only:
	// it narrows the request to what it names; cover: a note passing a
	// request on.
	below, only, cover bool
	// words holds the words of the first phrase of each ask, by bit.
	words [5]string
	// question: a phrase of it asks whether someone is blocked (not
	// only "change nothing").
	question bool
	// kept are the addresses of a sentence that says to change nothing
	// ("buchhaltung@… stays as it is, nothing should change there").
	kept []string
	// turn: words at a clause's start turn from what was to what is
	// asked now ("but now", "ma ora"); early holds the stops before the
	// first, late those after it (all of them on a line without one),
	// but stops beside a mistake, which are history ("I accidentally
	// unsubscribed"); releaseLate: mail again is asked after it.
	turn        bool
	early, late ask
	releaseLate bool
	// slip holds the stops told beside a mistake.
	slip ask
	// namedEarly and namedLate are the addresses the line names before
	// and after its turn (all in namedLate on a line without one).
	namedEarly, namedLate []string
}

// classWays says which way a class asks about the writer, and what it
// asks of anyone.
var classWays = [classCount]way{
	cSuppressMe: {sSuppress, aSuppress, false}, cReleaseMe: {sRelease, aRelease, false},
	cCheckMe: {sAsk, aCheck, false}, cMissingMe: {sRelease, aCheck, false}, cMissing: {ask: aCheck}, cRemoveMe: {sAsk, aRemove, false}, cMe: {sAsk, 0, false}, cFromHere: {sAsk, 0, false},
	cSuppressUs: {sSuppress, aSuppress, true}, cReleaseUs: {sRelease, aRelease, true}, cUs: {sAsk, 0, true},
	cSuppress: {ask: aSuppress}, cRelease: {ask: aRelease}, cCheck: {ask: aCheck}, cKeepAll: {ask: aCheck}, cRemove: {ask: aRemove},
	cWithdraw: {ask: aWithdraw},
}

// words reads a line of a mail's words: what it asks, where its answer
// goes, and where its addresses stand.
func (r *Reader) words(l *line, subject bool) {
	r.ms = phraseBooks().trees[inWords].find(r.ms, l.ws, phraseBooks().trees[negations])
	if !subject && len(l.toks) == 1 && cellRow(l) {
		r.ms = rowMatches(l, r.ms)
	}
	if !subject {
		r.ms = withdrawnObjects(l.ws, r.ms)
		r.ms = notBeforeName(r.ms, l.ws)
		r.goesOnAbove(l)
	}
	s := said{msg: l.msg, line: l.n, subject: subject, names: len(l.toks) > 0}
	if subject {
		r.subjectKind(l, &s)
	}
	s.read(r.ms, l)
	s.picks(l)
	s.bareRequest(l, subject)
	s.someoneElse(l, r.ms)
	s.erasure(l, subject)
	if !subject {
		r.bothWithWriter(l, &s)
		r.bodyLine(l, &s)
	}
	r.noteSaid(l, &s, subject)
}

// bothWithWriter reads a change asked for "both" on a line that names no
// address, in a mail whose words named one address before it, not the
// writer's: "… not only to this address, but to my old one, old@…" and
// then "please stop sending to both": that one and the writer's.
func (r *Reader) bothWithWriter(l *line, s *said) {
	from := r.tk.mails[l.msg].from
	if s.self != sNone || s.asks&changing == 0 || len(l.toks) > 0 || from == "" || !namesBoth(l.ws) {
		return
	}
	named, at := 0, 0
	for _, v := range r.tk.order {
		if k := slices.IndexFunc(r.tk.records[v].occ, func(o occurrence) bool { return o.msg == l.msg && o.zone == zBody }); k >= 0 {
			if v == from {
				return
			}
			named, at = named+1, r.tk.records[v].occ[k].line
		}
	}
	if named == 1 {
		s.self = sAsk
		if r.tk.bothOf == nil {
			r.tk.bothOf = map[int]int{}
		}
		r.tk.bothOf[l.n] = at
	}
}

// goesOnAbove reads a body line with the line above whose sentence it
// goes on: the words that leave out the address before them, a phrase
// begun above, a question mark that asks what the line above said.
func (r *Reader) goesOnAbove(l *line) {
	runsOn := len(r.wrap) > 0 && r.wrapAt == l.above() && r.wrapMsg == l.msg
	if runsOn {
		r.leaveAbove(l)
		l.requestAbove = endsWithRequest(r.wrap)
	}
	r.ms = r.runOn(l, r.ms)
	if runsOn && firstStop(l.t) == '?' {
		r.askedAbove(l)
	}
}

// subjectKind notes whether a subject line forwards or answers a mail
// ("Fwd: …", "Re: …"); a forwarding subject marks its mail.
func (r *Reader) subjectKind(l *line, s *said) {
	s.fwd = isForwardSubject(l.t[strings.IndexByte(l.t, ':')+1:])
	s.reply = isReplySubject(l.t[strings.IndexByte(l.t, ':')+1:])
	l.replySubject = s.reply && !s.fwd
	if ml := r.mailOf(l); s.fwd && ml != nil {
		ml.forwards = true
	}
}

// picks notes a line that picks some of the addresses it asks about in
// a way the rule cannot follow (selective), and takes a row of an
// entry's cells for no request at all.
func (s *said) picks(l *line) {
	if s.asks&changing != 0 && fragmentPicks(l) {
		// "deixar de enviar para o endereço com o \"+loja\"" beside
		// joana.pires@… and joana.pires+loja@…: one of them, by a piece.
		s.selective = true
	}
	if s.ordinal && !strings.HasSuffix(strings.TrimSpace(l.t), ":") {
		// "nur die ersten beiden Adressen:" over the two says which.
		s.selective = true
	}
	if idRow(l) {
		// "3f6d…   hard bounce   31 Oct": the entry's cells, not a request.
		s.asks, s.weak, s.self = 0, 0, sNone
	}
}

// someoneElse notes a line that asks a change for an address it names
// by no address of its own: someone's, one of them, this one.
func (s *said) someoneElse(l *line, ms []match) {
	changes := s.asks&changing != 0
	// "… utom Ingrid som … behåller sin adress": whose address, the
	// name left out says.
	s.someone = changes && someoneUnnamed(l) && !leavesOutName(l, ms)
	// "Nein, nur die private.": an answer that narrows to one by a
	// description.
	s.oneOf = (changes || s.only) && oneOfUnnamed(l)
	s.thisOne = changes && len(l.toks) == 0 && !strings.HasSuffix(strings.TrimSpace(l.t), ":") && thisAddress.MatchString(l.t)
	if s.someone && (s.self == sSuppress || s.self == sRelease) {
		// "We keep getting these for our old intern's address. Can you
		// stop sending to it?": about that address, not the writer.
		s.self = sNone
	}
}

// leavesOutName reports a phrase that leaves out what follows, right
// before a name ("utom Ingrid", "except Anna").
func leavesOutName(l *line, ms []match) bool {
	return slices.ContainsFunc(ms, func(m match) bool {
		if (m.class != cExclude && m.class != cExcept) || m.negated || m.end >= len(l.ws) {
			return false
		}
		w := l.ws[m.end].s
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsUpper(r) && isNameWord(w) // a name, not "the"
	})
}

// noteSaid records what line l says, if anything, marks a bounce's
// words and places the line's tokens; a body line that picks its
// targets by hand is kept for the review.
func (r *Reader) noteSaid(l *line, s *said, subject bool) {
	if l.msg > 0 && !subject && len(phraseBooks().trees[stopNotices].find(nil, l.ws, phraseBooks().trees[negations])) > 0 {
		r.tk.mails[l.msg].stopNotice = true
	}
	if !subject {
		r.notePointers(l)
	}
	if s.says() {
		r.tk.said = append(r.tk.said, *s)
		r.tk.keep(l.n, l.t)
	}
	if !s.fwd {
		r.markBounce(l, r.ms)
	}
	r.placeTokens(l, r.ms)
	r.footerAddress(l)
	if !subject && len(l.toks) == 0 {
		r.narrowedToPeople(l, r.ms)
	}
	if !subject && r.picksByHand(l) {
		r.tk.keep(l.n, l.t)
		r.pickedByHand(l.n, l.msg)
	}
}

// notePointers notes a line that says where the address a request means
// is not ("I'm writing from my work email") or is ("it's the one in my
// signature").
func (r *Reader) notePointers(l *line) {
	said := func(c class) bool {
		return slices.ContainsFunc(r.ms, func(m match) bool { return m.class == c && !m.negated })
	}
	if r.tk.mails[l.msg].elsewhere == 0 && said(cElsewhere) {
		r.tk.mails[l.msg].elsewhere = l.n
		r.tk.keep(l.n, l.t)
	}
	if said(cInSignature) {
		r.tk.sigPoints = append(r.tk.sigPoints, occurrence{zone: zBody, msg: l.msg, line: l.n})
		r.tk.keep(l.n, l.t)
	}
}

// footerAddress notes the address right after our footer's words that
// say where our mail went ("This email was sent to x@…").
func (r *Reader) footerAddress(l *line) {
	at := sentToAt(l.ws, r.ms)
	if at < 0 || len(r.tk.footerTo) >= maxRecords {
		return
	}
	if v := normalized(strings.Trim(l.ws[at].s, "<>()[]\"'.,;:")); v != "" {
		r.tk.footerTo = append(r.tk.footerTo, person{value: v, msg: l.msg, line: l.n})
	}
}

// erasure reads a phrase of the books' [erasure] on line l: it asks to
// be forgotten. On a line of words that asks no change ("I want my email
// address and any personal data you hold about me erased") being
// forgotten is the request, and an erased address stays blocked; a
// labelled field names a topic ("Conversa: Pedido de apagamento de
// dados").
func (s *said) erasure(l *line, subject bool) {
	for _, m := range phraseBooks().trees[erasures].find(nil, l.ws, phraseBooks().trees[negations]) {
		if m.class != cErasure {
			continue
		}
		s.forgets = true
		if !m.negated && !subject && s.asks&changing&^s.weak == 0 && !labelled(l.t) {
			s.noteAsk(aSuppress, phraseText(l, m), false)
		}
		return
	}
}

// bodyLine reads what a line of a mail's body (not its subject) says of
// its mail: a story told, mail missing across a wrapped line, words no
// book reads around an address.
func (r *Reader) bodyLine(l *line, s *said) {
	if toldOnly(l, r.ms) {
		r.tk.mails[l.msg].story = true
	}
	if s.asks == 0 && s.self == sNone && unreadAround(l) {
		r.tk.mails[l.msg].unread = true
	}
}

// pickedByHand marks line n of mail msg as one that picks its targets in a
// way the rule cannot follow (selective): the review asks.
func (r *Reader) pickedByHand(n, msg int) {
	for k := len(r.tk.said) - 1; k >= 0 && r.tk.said[k].line >= n; k-- {
		if r.tk.said[k].line == n && r.tk.said[k].msg == msg {
			r.tk.said[k].selective = true
			return
		}
	}
	r.tk.said = append(r.tk.said, said{msg: msg, line: n, selective: true})
}

// vague reports a line that leaves out something it names by no address
// ("everyone except the people at our own domain", "all but the new
// one") or narrows a request to, or keeps, an address named by a plain
// word ("block info only", "keep sales"): which addresses are meant, a
// person must say.
func (r *Reader) vague(l *line, ms []match) bool {
	for _, m := range ms {
		// "… but NOT mine" keeps the writer's (keepsWriter).
		if m.class == cExclude && !m.negated && !r.addressAt(l, m.end) && !toldAside(l, ms, m) && !onlyMe(l.ws, m.end) {
			return true
		}
	}
	for i, w := range l.ws {
		local, ok := r.st.locals[folded(w.s)]
		if ok && !local && !strings.Contains(w.s, "@") && !besideItsAddress(l.ws, i) && (narrowing(l, ms, w.off) == nAsked || excepted(l.ws, ms, w.off) && !mailboxBeside(l.ws, i)) {
			return true
		}
	}
	return false
}

// toldAside reports an exclusion of the "but not" kind ("ma non", "pero
// no", "aber nicht") inside a sentence that asks nothing ("… ma non ho
// mai chiesto di iscrivermi"): it turns the sentence's own words around
// and leaves nothing out of a list. One that begins its sentence ("But
// not the ones at our domain.") still leaves something out.
func toldAside(l *line, ms []match, m match) bool {
	if !negatedPhrase(l.ws[m.first:m.end]) || m.first == 0 || l.ws[m.first-1].ends {
		return false
	}
	return !asksAround(l.ws, ms, l.ws[m.first].off)
}

// negatedPhrase reports a phrase one of whose words is a negation ("but
// not").
func negatedPhrase(ws []word) bool {
	for k := range ws {
		if c, n := phraseBooks().trees[negations].at(ws, k); c == cNegation && k+n <= len(ws) {
			return true
		}
	}
	return false
}

// besideItsAddress reports a word right before or after the address
// whose local part it is ("my partner partner@…": the address says it).
func besideItsAddress(ws []word, i int) bool {
	for _, k := range []int{i - 1, i + 1} {
		if k >= 0 && k < len(ws) && strings.EqualFold(localPart(ws[k].s), ws[i].s) {
			return true
		}
	}
	return false
}

// addressAt reports an address (or the distinctive local part of one)
// as the word i of the line, or the word after a short one ("except for
// x@…").
func (r *Reader) addressAt(l *line, i int) bool {
	for k := i; k < min(i+4, len(l.ws)); k++ {
		w := l.ws[k].s
		if r.st.locals[folded(w)] || addressOrID(w) {
			return true
		}
		if _, ok := r.st.locals[folded(strings.TrimSuffix(w, "@"))]; ok && strings.HasSuffix(w, "@") {
			return true // "außer vertrieb@", under vertrieb@… named above
		}
		if k+1 < len(l.ws) && l.ws[k+1].opens && isNameWord(w) && !l.ws[k].ends {
			continue // "Behalve Sanne (s.bos@)"
		}
		if !shortWord(w) && !phraseBooks().has("mailbox", w) || l.ws[k].clause || l.ws[k].ends {
			break
		}
	}
	return false
}

// addressOrID reports a word that is an address or a suppression ID
// ("but not 1a2b…"), in its brackets or punctuation.
func addressOrID(w string) bool {
	v := strings.Trim(w, "<>()[]\"'.,;:")
	return strings.Contains(w, "@") && normalized(v) != "" || suppressionID(v)
}

// bareRequest notes a line that is a request and nothing else
// ("Unsubscribe", "Subject: STOP"): about the writer.
func (s *said) bareRequest(l *line, subject bool) {
	if s.self != sNone || s.colleague || len(l.toks) > 0 {
		return
	}
	ws := l.ws
	if subject {
		ws = ws[min(1, len(ws)):]
	}
	if w, ok := bareRequest(ws); ok {
		s.self, s.bare = w, true
		s.noteAsk(selfAsks(w), l.t, false)
	}
}

// nounUse reports a phrase of one word that stands as a noun: after an
// English possessive ("his own unsubscribe from January" tells of one),
// or capitalized in the middle of a sentence after a determiner, as a
// German noun: "diese beiden Sperren" names blocks, it asks none
// ("sperren").
func nounUse(l *line, m match) bool {
	if m.end-m.first != 1 || m.first == 0 || m.runOn != "" {
		return false
	}
	w, prev := l.ws[m.first], l.ws[m.first-1]
	if prev.ends {
		return false
	}
	if possessive(prev.s) && classWays[m.class].ask&changing != 0 {
		// "Tom Grant's own unsubscribe from January", "my unsubscribe".
		return true
	}
	r, _ := utf8.DecodeRuneInString(w.s)
	return unicode.IsUpper(r) && determinedAt(l.ws, m.first, determiners) || labelUse(l.ws, m)
}

// determinedAt reports a determiner of the set before word i, or one
// before a place word before it: "die dritte Sperre", "the third block".
func determinedAt(ws []word, i int, set map[string]bool) bool {
	if i == 0 || ws[i-1].ends {
		return false
	}
	if set[folded(ws[i-1].s)] {
		return true
	}
	p := placeOf(ws[i-1])
	return i >= 2 && p >= placeFirst && p <= placeLast && !ws[i-2].ends && set[folded(ws[i-2].s)]
}

// labelUse reports a one-word phrase between an article and a word for
// an entry ("the resubscribe one", "the unsubscribe rows") or the entry
// itself ("the third block c4d07a55-…"): a label of rows, not a request.
func labelUse(ws []word, m match) bool {
	return m.end-m.first == 1 && m.end < len(ws) && !ws[m.first].clause && determinedAt(ws, m.first, labelArticles) &&
		(entryWords[folded(ws[m.end].s)] || addressOrID(ws[m.end].s))
}

// labelArticles and entryWords frame a label: "the … one".
var (
	labelArticles = wordSet("the this that these those")
	entryWords    = wordSet("one ones row rows entry entries line lines")
)

// possessive reports an English word that owns the noun after it: "my",
// "own", "Tom's".
func possessive(w string) bool {
	f := strings.ReplaceAll(folded(w), "’", "'")
	return possessives[f] || strings.HasSuffix(f, "'s") && !contractions[f]
}

// contractions end in "'s" and own nothing: "it's just me".
var contractions = map[string]bool{"it's": true, "that's": true, "he's": true, "she's": true, "what's": true, "there's": true,
	"here's": true, "who's": true, "let's": true, "where's": true, "how's": true}

// possessives stand before an English noun.
var possessives = map[string]bool{"my": true, "his": true, "her": true, "their": true, "your": true, "our": true, "own": true, "its": true}

// determiners stand before a German noun.
var determiners = map[string]bool{"die": true, "diese": true, "dieser": true, "diesen": true, "den": true, "der": true, "das": true, "beiden": true,
	"zwei": true, "drei": true, "alle": true, "ihre": true, "unsere": true, "keine": true, "welche": true, "solche": true, "mehrere": true, "einige": true, "eine": true, "ein": true}

// says reports whether the line says anything the rule reads: a request,
// or something it tells of the addresses and mail a request means.
func (s *said) says() bool {
	return s.requests() || s.tells()
}

// requests reports a line that asks something: of anyone, about the
// writer or a colleague, for someone the writer acts for, or to be
// forgotten.
func (s *said) requests() bool {
	return s.asks != 0 || s.self != sNone || s.colleague || s.behalf || s.forgets
}

// tells reports a line that says which addresses a request means (those
// below, only some, picked by a condition, a request passed on), leaves
// it open (it hesitates, decides later, has no say), or tells of the mail and the
// addresses themselves (mail missing, the writer's or some mail kept, an
// address gone or back).
func (s *said) tells() bool {
	return s.below || s.only || s.cover || s.selective || s.hesitates || s.corrects || s.later ||
		s.missing || s.keepsWriter || s.keepsSome || s.gone || s.back || s.noSay || s.attached || s.disputes
}

// read notes what the phrases of a line say.
func (s *said) read(ms []match, l *line) {
	// slips: what the line says happened by mistake, read once for the
	// way of its phrases and for its history.
	slips := phraseBooks().trees[mistakes].find(nil, l.ws, phraseBooks().trees[negations])
	request, notSuppress := s.readPhrases(ms, l, slips)
	s.later = laterAlone(l, ms)
	// "… got suppressed after hard bounces. Could you release these
	// suppression IDs please?": the stop is told, the release asked.
	s.stopTold = s.asks&aSuppress != 0 && s.asks&aRelease != 0 && stopTold(l, ms)
	if notSuppress != "" && onlyNames(l, ms) {
		// "Please do not unsubscribe me, only intern@…"; not "don't
		// block mine. … Just the other two please.", whose "only" names
		// none.
		s.noteAsk(aSuppress, notSuppress, false)
	}
	s.readWhose(l, ms, request)
	if s.keepsSome && strings.Contains(l.t, "@") {
		// "die Rechnungen brauchen wir weiter auf info@": the mail kept
		// is another address's, which the words leave out or aside.
		s.keepsSome = false
	}
	s.history(l, ms, slips)
	s.takenBack(l, ms)
	s.corrects = correctsAddress(l)
	s.listedNotSelf(len(l.toks) == 0 && strings.HasSuffix(l.t, ":"), ms)
	s.keepsWriter = keepsWriter(l, ms)
	s.exceptsWriter = exceptsWriter(l, ms)
	s.ownStays(l)
	s.whoseAfterAll(l, ms)
}

// selfOnlyFromHere reports a line whose only words about its writer name
// the address they write from ("this address here").
func selfOnlyFromHere(l *line, ms []match) bool {
	from := false
	for _, m := range ms {
		switch {
		case m.negated:
		case m.class == cFromHere:
			from = true
		case classWays[m.class].self != sNone, m.class == cOnly && onlyMe(l.ws, m.end):
			return false
		}
	}
	return from
}

// whoseAfterAll settles, once the line is read, that what it says of
// its writer is not about the address they write from: mail received
// at an address it names, where to write, a change asked of others.
func (s *said) whoseAfterAll(l *line, ms []match) {
	if s.self == sSuppress && receivedAt(l, ms) {
		// "We keep getting the reminders at dispatch@…": the address
		// that gets them is the one named, not the writer's.
		s.self = sNone
	}
	if s.self == sAsk && s.asks&changing == 0 && selfOnlyFromHere(l, ms) {
		// "Alles weitere bitte an diese Adresse hier": where to write,
		// no request about the address the writer writes from.
		s.self = sNone
	}
	if s.self == sAsk && s.asks&changing != 0 && !meBesideChange(l, ms) {
		// "Two hard bounces came back to my inbox. … Can you put them
		// on the suppression list?": the writer tells where the mail
		// came; the request is about others.
		s.self = sNone
	}
}

// correctsAddress reports a line that corrects an address it names a few
// words on ("My email is Margaret.Ellis@OldPsot.example — sorry,
// OldPost.example", "anna@gmial.com, I mean gmail.com"): which is meant,
// a person says, the rule does not spell it.
func correctsAddress(l *line) bool {
	for _, f := range l.toks {
		if f.Kind != Address {
			continue
		}
		at := l.wordIndex(f.off + len(f.Raw))
		for i := at; i < len(l.ws) && i < at+6; i++ {
			if !correctionWords[folded(l.ws[i].s)] {
				continue
			}
			for k := i + 1; k < len(l.ws) && k < i+5; k++ {
				if w := l.ws[k].s; strings.Contains(w, ".") && strings.IndexFunc(w, unicode.IsLetter) >= 0 && !strings.HasSuffix(w, ".") && len(w) > 3 {
					return true
				}
			}
		}
	}
	return false
}

// correctionWords say the writer corrects what they just wrote.
var correctionWords = wordSet(`sorry oops typo correction meant mean err sry pardon perdón perdona disculpa digo corrijo entschuldigung korrektur désolé plutôt scusa scusate cioè intendevo desculpa desculpe bedoel oeps correctie förlåt ursäkta menar undskyld beklager anteeksi tarkoitan przepraszam poprawka promiňte oprava özür yani bocsánat elnézést scuze adică συγγνώμη`)

// withdrawnObjects drops the changes a phrase that takes a request back
// names as what it takes back, right after it in its clause ("Glem det
// jeg skrev på lørdag om å melde meg av", "ignore my mail from Saturday
// asking you to unsubscribe me"): they are history. A change after a
// comma or a conjunction ("never mind, just unsubscribe me", "forget
// my last mail and unsubscribe me") is asked.
func withdrawnObjects(ws []word, ms []match) []match {
	back := -1
	return slices.DeleteFunc(ms, func(m match) bool {
		switch {
		case m.negated:
		case m.class == cWithdraw:
			back = m.end
		case back >= 0 && classWays[m.class].ask&changing != 0 && m.first >= back && m.first-back <= 8 && !partedAt(ws, back, m.first):
			return true
		}
		return false
	})
}

// partedAt reports a clause's end or a conjunction among the words from
// i up to before j.
func partedAt(ws []word, i, j int) bool {
	for k := max(i-1, 0); k < j; k++ {
		if ws[k].ends || ws[k].clause || k >= i && conjunctions[folded(ws[k].s)] {
			return true
		}
	}
	return false
}

// conjunctions join a second request to the first in the books'
// languages ("and", "und", "og", "et", "y", "e", "en", "och", "ja").
var conjunctions = wordSet("and but then und aber dann og men så et mais puis y pero e ma en maar och ja mutta és de și dar και αλλά ve ama ale oraz")

// takenBack reads a line whose last word takes its request back, in a
// sentence after the last one that asks a change ("Please stop sending
// to x@…. Actually, never mind, I'll sort it myself."): it asks nothing
// to change.
func (s *said) takenBack(l *line, ms []match) {
	if s.asks&aWithdraw == 0 || s.asks&changing == 0 {
		return
	}
	last, back := -1, -1
	for _, m := range ms {
		switch {
		case m.negated:
		case m.class == cWithdraw:
			back = m.first
		case classWays[m.class].ask&changing != 0:
			last = m.first
		}
	}
	if back > last && last >= 0 {
		if from, _ := sentence(l.ws, l.ws[back].off); from > last {
			s.asks, s.weak, s.self = s.asks&^changing, s.weak&^changing, sNone
		}
	}
}

// meBesideChange reports a phrase naming the writer in a sentence that
// asks a change, "only me" among them ("βγάλτε από τη λίστα μόνο
// εμένα").
func meBesideChange(l *line, ms []match) bool {
	for _, m := range ms {
		if m.negated || classWays[m.class].self == sNone && !(m.class == cOnly && onlyMe(l.ws, m.end)) {
			continue
		}
		from, to := sentence(l.ws, l.ws[m.first].off)
		if changesIn(ms, from, to) || bothNext(l, ms, to) {
			return true
		}
	}
	return false
}

// bothNext reports a change asked for "both" in the sentence that begins
// at word at ("… this one, the one I'm writing from, and my old address,
// old@…. Please delete the data for both."): the writer's is one of them.
func bothNext(l *line, ms []match, at int) bool {
	if at >= len(l.ws) {
		return false
	}
	from, to := sentence(l.ws, l.ws[at].off)
	return changesIn(ms, from, to) && namesBoth(l.ws[from:to])
}

// readPhrases notes the way, the addresses kept, the question and the
// flag of each phrase of a line that is meant (not negated, not a quoted
// label, not a noun). It reports whether a phrase asks something, and
// the words of the last that says not to stop mail ("do not
// unsubscribe me").
func (s *said) readPhrases(ms []match, l *line, slips []match) (request bool, notSuppress string) {
	for _, m := range ms {
		if !meant(l, ms, m) {
			continue
		}
		request = s.readWay(m, ms, l, slips) || request
		if m.class == cSelective && s.followsPick(l, m) {
			continue
		}
		switch {
		case m.class == cNotSuppress:
			notSuppress = phraseText(l, m)
		case m.class == cKeepAll:
			s.kept = keptBy(l, m, s.kept)
			s.keepsAll = s.keepsAll || endsKeepingAll(l, ms, m)
		case m.class == cCheck, m.class == cCheckMe:
			s.question = true
		}
		s.readFlag(m.class)
		s.readKeeping(ms, l, m)
	}
	return request, notSuppress
}

// readKeeping notes a phrase that narrows the request to the writer
// ("just me") or keeps mail coming where the sentence names no address.
func (s *said) readKeeping(ms []match, l *line, m match) {
	switch {
	case m.class == cWaveOff:
		from, to := sentence(l.ws, l.ws[m.first].off)
		s.keepsUnnamed = s.keepsUnnamed || !addressBetween(l.ws, from, to) && !asksAfter(ms, m) && namesFirstPerson(l.ws[from:to]) && !othersIn(ms, from, to)
	case m.class == cOnly && onlyMe(l.ws, m.end):
		if s.self == sNone {
			s.self = sAsk // "Just me please, not the whole team"
		}
		// "my manager uses it too, jess@…, she's fine, it's just me"
		s.onlyWriter = s.onlyWriter || addressBetween(l.ws, 0, m.first)
		s.onlyMe = true
	}
}

// followsPick reports a selective phrase m the rule follows or that
// picks no target (pickFollowed); of one it cannot follow, it notes
// whether it picks by a condition rather than a place in a list.
func (s *said) followsPick(l *line, m match) bool {
	if s.pickFollowed(l, m) {
		return true
	}
	s.byCondition = s.byCondition || !namesPlace(l.ws[m.first:m.end])
	return false
}

// namesPlace reports words that name a place in a list ("just the
// first two"), not a condition ("the ones marked spam report").
func namesPlace(ws []word) bool {
	from, at, _ := placesNamed(ws)
	return from != 0 || at != 0
}

// endsKeepingAll reports a keep-all phrase m that ends its sentence, but
// for request words ("ne touchez à rien svp."), in a sentence that names
// no address: it says to change nothing at all, not nothing else.
func endsKeepingAll(l *line, ms []match, m match) bool {
	from, to := sentence(l.ws, l.ws[m.first].off)
	if addressBetween(l.ws, from, to) || slices.ContainsFunc(ms, func(o match) bool { return o.first >= from && o.first < to && namesWhose(o.class) }) {
		// "Omaan osoitteeseeni ei tarvitse tehdä mitään": nothing of
		// the writer's address, not nothing at all.
		return false
	}
	for i := m.end; i < to; i++ {
		if !slices.ContainsFunc(ms, func(r match) bool { return r.class == cRequest && r.first <= i && i < r.end }) {
			return false
		}
	}
	return true
}

// namesWhose reports a class that names whose address a sentence speaks
// of: the writer's, the writer's and colleagues', a colleague's.
func namesWhose(c class) bool {
	return c == cMe || c == cFromHere || c == cUs || c == cColleague || c == cNotMe
}

// selectsBy notes a selective phrase that picks its targets in a way the
// rule can follow or must ask about: one of them by a description, by
// whether they are listed, or a bounce report's by hard or soft failure.
func (s *said) selectsBy(l *line, m match) bool {
	switch {
	case oneOfThem.MatchString(phraseText(l, m)):
		s.describes = true
	case ifListed(l.ws[m.first:m.end]):
		s.ifListed = true
	case splitsBounces(l, m):
		s.bySplit = true
	default:
		return false
	}
	return true
}

// pickFollowed reports a selective phrase m the rule follows or that
// picks no target: one it reads (selectsBy), one that picks what stays,
// one that names its address.
func (s *said) pickFollowed(l *line, m match) bool {
	return s.selectsBy(l, m) || keptPick(l, m) || namedPick(l.ws, m)
}

// namedPick reports a description that the address it describes
// follows ("Den gamla adressen bokning@…", "the old one, old@…"): it
// names its address, it picks none.
func namedPick(ws []word, m match) bool {
	at := m.end
	if at < len(ws) && !ws[at-1].ends && phraseBooks().has("mailbox", ws[at].s) {
		at++
	}
	return at < len(ws) && !ws[at-1].ends && strings.Contains(ws[at].s, "@")
}

// keptPick reports a selective phrase in a sentence that keeps what it
// picks and asks nothing ("Pe cea personala … lasati-o cum e", the
// personal one, leave it as it is): it names what stays, not the
// targets.
func keptPick(l *line, m match) bool {
	from, to := sentence(l.ws, l.ws[m.first].off)
	asks, keeps := sentencePolarity(l.ws[from:to], true)
	return keeps && !asks
}

// meant reports a phrase that says what it says: not negated, not a
// quoted label or a noun, not what a question asks about.
func meant(l *line, ms []match, m match) bool {
	return !m.negated && !quotedLabel(l, m) && !nounUse(l, m) && !askedOf(l, ms, m)
}

// onlyMe reports a word of the books' only-me list at word i (or two,
// "a mí"), which names the writer after "only": "just me", "nur mich".
func onlyMe(ws []word, i int) bool {
	b := phraseBooks()
	return i < len(ws) && b.hasWords("only-me", ws[i]) || i+1 < len(ws) && b.hasWords("only-me", ws[i], ws[i+1])
}

// askedOf reports a phrase that asks a change inside a question that
// a check opens, with no request word in it: "Am I still unsubscribed
// from the newsletter?" asks whether the stop holds, it does not ask it.
func askedOf(l *line, ms []match, m match) bool {
	if classWays[m.class].ask&changing == 0 {
		return false
	}
	from, to := sentence(l.ws, l.ws[m.first].off)
	if !questionEnds(l, to) || opensWithRequest(l.ws[m.first:m.end]) {
		return false
	}
	opened := false
	for _, o := range ms {
		if o.first < from || o.first >= to || o.negated {
			continue
		}
		switch {
		case o.class == cRequest:
			return false
		case (o.class == cCheck || o.class == cCheckMe) && o.first < m.first:
			opened = true
		}
	}
	return opened
}

// opensWithRequest reports a phrase whose first words are a request
// ("can you add … to the suppression list").
func opensWithRequest(ws []word) bool {
	for n := 1; n <= min(3, len(ws)-1); n++ {
		if c, k := phraseBooks().trees[inWords].at(ws[:n], 0); c == cRequest && k == n {
			return true
		}
	}
	return false
}

// questionEnds reports a question mark after the sentence that ends
// before word to of the line.
func questionEnds(l *line, to int) bool {
	if to == 0 {
		return false
	}
	last := l.ws[to-1]
	rest := strings.TrimLeft(l.t[last.off+len(last.s):], ")\"' ")
	// Greek asks with ";" (or its own sign, U+037E).
	return strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "\u037e") || strings.HasPrefix(rest, ";") && greek(l.ws[:to])
}

// greek reports words of which one is written in Greek letters.
func greek(ws []word) bool {
	for _, w := range ws {
		if r, _ := utf8.DecodeRuneInString(w.s); unicode.Is(unicode.Greek, r) {
			return true
		}
	}
	return false
}

// readWhose notes whom the phrases speak of: a colleague, on a line that
// asks something or speaks of the writer; or not the writer at all ("we
// keep getting these bounces").
func (s *said) readWhose(l *line, ms []match, request bool) {
	for _, m := range ms {
		if m.class == cColleague && !m.negated && (request || s.self != sNone) && !copiedForInfo(l, ms, m) && !handsOverTo(l, ms, m) {
			s.colleague = true
		}
		if m.class == cNotSelf {
			s.self = sNone // "we keep getting these bounces": not about the writer
			s.notSelf = s.notSelf || !m.negated
		}
	}
}

// handsOverTo reports a colleague named in a sentence that hands the
// work over to them and asks no change: "Sam (cc'd) is taking over
// Daniel's routes so please make sure he keeps getting everything".
func handsOverTo(l *line, ms []match, m match) bool {
	return sentenceOnly(l, ms, m, func(c class) bool { return classWays[c].ask&changing != 0 },
		func(c class) bool { return c == cSuccessor || c == cHandsTo })
}

// copiedForInfo reports a colleague named in a sentence that says they
// are copied to be kept informed and asks nothing: "Please unsubscribe
// me. (Copying my manager for visibility.)"
func copiedForInfo(l *line, ms []match, m match) bool {
	// "zur Info" is also a cover note's words.
	return sentenceOnly(l, ms, m, func(c class) bool { return classWays[c].ask != 0 || c == cRequest },
		func(c class) bool { return c == cForInfo || c == cForwarding })
}

// sentenceOnly reports the sentence of phrase m holding a phrase of a
// class says holds and none that asks holds (the phrases negated aside).
func sentenceOnly(l *line, ms []match, m match, asks, says func(class) bool) bool {
	from, to := sentence(l.ws, l.ws[m.first].off)
	found := false
	for _, o := range ms {
		if o.first < from || o.first >= to || o.negated {
			continue
		}
		if asks(o.class) {
			return false
		}
		found = found || says(o.class)
	}
	return found
}

// stops are the asks that stop mail.
const stops = aSuppress | aRemove

// history notes where the line turns from what was to what is asked
// now, which stops it tells before and after the turn, and which it
// tells as a mistake (mailPast reads them for the mail).
func (s *said) history(l *line, ms, slips []match) {
	turn := len(l.ws)
	if at, ok := turnAt(l, ms); ok {
		turn, s.turn = at, true
	}
	s.stopsAround(l, ms, slips, turn)
	if !s.turn {
		s.late, s.early = s.late|s.early, 0
	}
	s.namedAround(l, turn)
}

// turnAt is the first word of a phrase that turns, at a clause's start,
// from what was to what is asked now ("but now", "ma ora"); ok is false
// on a line without one.
func turnAt(l *line, ms []match) (at int, ok bool) {
	for _, m := range ms {
		if m.class == cTurn && !m.negated && (m.first == 0 || l.ws[m.first-1].ends || l.ws[m.first-1].clause) {
			return m.first, true
		}
	}
	return 0, false
}

// stopsAround notes the stops the line asks before the word turn (early)
// and from it on (late), but those beside a mistake ("I accidentally
// unsubscribed"), and mail again asked from the turn on.
func (s *said) stopsAround(l *line, ms, slips []match, turn int) {
	slipped := -1 // the end of the last stop told as a mistake
	for _, m := range ms {
		a := classWays[m.class].ask
		if m.negated || quotedLabel(l, m) || nounUse(l, m) {
			continue
		}
		switch {
		case a == aRelease && m.first >= turn:
			s.releaseLate = true
		case a&stops == 0:
		case mistakeBeside(l, slips, m) || slipped >= 0 && m.first-slipped <= 4 && !stopsBetween(l, slipped-1, m.first):
			// "kom vi desværre til at afmelde vores postkasse fra jeres
			// liste": the stop's own words after it are the same slip.
			s.slip |= a
			slipped = m.end
		case m.end <= turn:
			s.early |= a
		default:
			s.late |= a
		}
	}
}

// namedAround notes the addresses the line names before its turn at
// word turn (namedEarly) and after it (namedLate, all of them on a line
// without one).
func (s *said) namedAround(l *line, turn int) {
	for _, f := range l.toks {
		switch {
		case f.Value == "":
		case s.turn && f.off < l.ws[turn].off:
			s.namedEarly = append(s.namedEarly, f.Value)
		default:
			s.namedLate = append(s.namedLate, f.Value)
		}
	}
}

// mistakeBeside reports one of a line's mistakes in the clause of the
// phrase m, in it, or a few words before or after it ("accidentally
// unsubscribed", "dado de baja … por error").
func mistakeBeside(l *line, mistakes []match, m match) bool {
	for _, k := range mistakes {
		if k.negated {
			continue
		}
		switch {
		case k.first >= m.first && k.end <= m.end:
			return true // in the phrase's gap: "mij per ongeluk op afmelden"
		case k.end <= m.first && m.first-k.end <= 3 && !stopsBetween(l, k.first, m.first):
			return true
		case k.first >= m.end && k.first-m.end <= 4 && !stopsBetween(l, m.end-1, k.first):
			return true
		}
	}
	return false
}

// stopsBetween reports a clause's end after a word of l from i up to
// (not including) j.
func stopsBetween(l *line, i, j int) bool {
	for k := max(i, 0); k < j && k < len(l.ws); k++ {
		if l.ws[k].ends || l.ws[k].clause {
			return true
		}
	}
	return false
}

// receivedAt reports a phrase of a writer who asks to get no more mail
// followed, in its sentence, by a place word and an address a few words
// on ("I keep getting your newsletter at my old address old@…", "…
// receiving your promos on info@…").
func receivedAt(l *line, ms []match) bool {
	for _, m := range ms {
		if m.negated || classWays[m.class].self != sSuppress {
			continue
		}
		_, to := sentence(l.ws, l.ws[m.first].off)
		for _, f := range l.toks {
			at := wordAt(l.ws, f.off)
			if f.Kind != Address || at < m.end || at >= to {
				continue
			}
			for k := at - 1; k >= m.end && k >= at-4; k-- {
				if placeWords[folded(l.ws[k].s)] {
					// "… at this address and at my old one, old@…",
					// "y también a la antigua, old@…": a place beside
					// the writer's, not instead of it.
					if !inAddition(l.ws, ms, k, m.end) {
						return true
					}
					break
				}
			}
		}
	}
	return false
}

// inAddition reports a place word at k that a conjunction, a "nor" or a
// word for "also" joins to words before it, after from ("weder an diese
// Adresse noch an meine alte (x@…)").
func inAddition(ws []word, ms []match, k, from int) bool {
	if k <= from {
		return false
	}
	w := folded(ws[k-1].s)
	return conjunctions[w] || norWords[w] || slices.ContainsFunc(ms, func(a match) bool { return a.class == cAlso && a.end == k })
}

// norWords join a second place to a first one a "neither" opened.
var norWords = wordSet("nor noch ni ani né nem")

// placeWords say where mail arrives ("at", "on", "an", "à", "op", "på").
var placeWords = map[string]bool{"at": true, "on": true, "to": true, "an": true, "auf": true, "a": true, "en": true,
	"op": true, "pa": true, "na": true, "em": true, "su": true, "in": true, "no": true, "w": true, "ve": true, "v": true}

// keptBy adds to kept the addresses of the sentence of a phrase m that
// says to change nothing.
func keptBy(l *line, m match, kept []string) []string {
	from, to := sentence(l.ws, l.ws[m.first].off)
	lo, hi := l.ws[from].off, len(l.t)
	if to < len(l.ws) {
		hi = l.ws[to].off
	}
	for _, f := range l.toks {
		if f.Kind == Address && f.off >= lo && f.off < hi {
			kept = append(kept, f.Value)
		}
	}
	return kept
}

// aloneKept reports an ID at off that is the one ID of a sentence that
// keeps and asks nothing ("There's a third one (d05b…) but that
// person really did ask us to stop, so leave it where it is"): that ID is
// kept.
func aloneKept(l *line, ms []match, off int) bool {
	from, to := sentence(l.ws, off)
	lo, hi := l.ws[from].off, l.ws[to-1].off+len(l.ws[to-1].s)
	n := 0
	for _, f := range l.toks {
		// An address in brackets beside the ID says whose it is ("…,
		// a hard bounce (old-ops@…)"): only the IDs are counted.
		if f.off >= lo && f.off < hi && f.Kind == ID {
			n++
		}
	}
	return n == 1 && !changesIn(ms, from, to)
}

// keptInSentence reports a sentence, around the word at off, that keeps
// or leaves out what it names ("the studio address this comes from is
// fine to keep", "not the billing mailbox").
func keptInSentence(l *line, ms []match, off int) bool {
	from, to := sentence(l.ws, off)
	for _, k := range ms {
		switch {
		case k.negated || k.first < from || k.first >= to:
		case k.class == cExcept, k.class == cExceptAfter, k.class == cWaveOff, k.class == cNotSuppress, k.class == cExclude:
			return true
		}
	}
	return false
}

// keepsWriter reports a sentence of the line that names the address its
// writer writes from and keeps it or leaves it out ("this address, the
// one I'm writing from, is fine", "la dirección desde la que escribo
// puede quedarse").
func keepsWriter(l *line, ms []match) bool {
	if exceptsWriter(l, ms) {
		return true
	}
	for _, m := range ms {
		if m.class != cFromHere && m.class != cMe || m.negated {
			continue
		}
		from, to := sentence(l.ws, l.ws[m.first].off)
		if onlyBefore(ms, from, m.first) {
			continue // "Just my address, not the others": narrowed to the writer
		}
		keeps, kept, asks := sentenceKeeps(ms, from, to)
		// "You can keep sending invoices to my address" keeps the
		// writer's; "unsubscribe my address, but keep the invoices" and
		// "my inbox is fine now" do not.
		if m.class == cFromHere && keeps || m.class == cMe && (kept && !asks || ownKept(l, ms, m)) {
			return true
		}
	}
	return false
}

// keptRightAfter reports a phrase that leaves out what stands before it
// right after m ("My own address should stay blocked", "Min egen adress
// ska däremot fortsatt vara spärrad"): with the writer's "own" address
// set against the others' ("my inbox is fine now" is not), the writer's
// is kept as it is.
func keptRightAfter(ms []match, m match) bool {
	return slices.ContainsFunc(ms, func(k match) bool {
		return k.class == cExceptAfter && !k.negated && k.first >= m.end && k.first <= m.end+1
	})
}

// ownKept reports a phrase m naming the writer's own address with a
// phrase right after it that keeps it as it is (keptRightAfter).
func ownKept(l *line, ms []match, m match) bool {
	return m.class == cMe && !m.negated && ownWord(l.ws[m.first:m.end]) && keptRightAfter(ms, m)
}

// ownStays reads a line whose writer keeps their own address as it is
// (keepsWriter) and asks only a stop for themselves: "My own address
// should stay blocked – I don't want your mailings", "El correo desde el
// que os escribo no lo toquéis: ahí no quiero recibir nada" tell why it
// stays, they ask nothing to change; not "dadme de baja en x@…, la
// dirección desde la que os escribo puede quedarse", which names another.
func (s *said) ownStays(l *line) {
	if s.self == sSuppress && s.asks&changing == aSuppress && s.keepsWriter && !namesOthers(l) {
		s.self, s.asks, s.weak = sNone, s.asks&^aSuppress, s.weak&^aSuppress
	}
}

// ownWord reports a word of the books' own among ws ("my own address",
// "min egen adress", "meine eigene Adresse").
func ownWord(ws []word) bool {
	return slices.ContainsFunc(ws, func(w word) bool { return phraseBooks().has("own", w.s) })
}

// exceptsWriter reports an exclusion that names the writer ("… but NOT
// mine", "all of us except me"), or the address they write from negated
// ("… not the one I'm writing from").
func exceptsWriter(l *line, ms []match) bool {
	return slices.ContainsFunc(ms, func(m match) bool {
		return m.class == cExclude && !m.negated && onlyMe(l.ws, m.end) || m.class == cFromHere && m.negated
	})
}

// onlyBefore reports an only phrase, not negated, among the words from
// to to (not including it).
func onlyBefore(ms []match, from, to int) bool {
	for _, m := range ms {
		if m.class == cOnly && !m.negated && m.first >= from && m.first < to {
			return true
		}
	}
	return false
}

// sentenceKeeps reads the phrases that begin among the words from to to
// (not including it): keeps, one keeps or leaves out what it names
// ("except", "do not unsubscribe", "change nothing", "is fine", "no hace
// falta"); kept, one of the first three kinds; asks, one asks a change.
func sentenceKeeps(ms []match, from, to int) (keeps, kept, asks bool) {
	for _, k := range ms {
		switch {
		case k.negated || k.first < from || k.first >= to:
		case k.class == cExcept, k.class == cNotSuppress, k.class == cKeepAll:
			keeps, kept = true, true
		case k.class == cExceptAfter, k.class == cWaveOff:
			keeps = true
		case classWays[k.class].ask&changing != 0:
			asks = true
		}
	}
	return keeps, kept, asks
}

// listedNotSelf makes a line that asks of a list it points at ("Several
// of our addresses were blocked: please unblock the following") not about
// the writer: "our" speaks of the addresses listed, not of the writer's
// own. So does a line that speaks of "our addresses" and ends in a colon
// over the list ("mail no longer reaches three of our addresses:").
func (s *said) listedNotSelf(colon bool, ms []match) {
	if slices.ContainsFunc(ms, func(m match) bool { return m.class == cFromHere && !m.negated }) {
		return // "… ez, amelyikről most írok, és a régi címem, x@…": the writer's too
	}
	if s.below && s.self == sAsk && s.asks&(aSuppress|aRelease|aRemove) != 0 ||
		colon && s.self == sAsk && s.colleague {
		s.self, s.colleague = sNone, false
	}
}

// readWay notes which way a phrase asks, about the writer and of anyone;
// it reports whether the phrase asks something.
func (s *said) readWay(m match, ms []match, l *line, slips []match) bool {
	w := wayOf(m, l)
	if w.self == sSuppress && mistakeBeside(l, slips, m) {
		// "Jeg kom til at afmelde mig ved en fejl": the stop is history
		// (mailPast); the writer speaks of themselves, the way is for
		// the rest of the mail to say.
		w.self = sAsk
	}
	if w.self != sNone && (s.self == sNone || s.self == sAsk) {
		s.self = w.self
	}
	s.colleague = s.colleague || w.us
	if w.ask == 0 {
		return false
	}
	s.noteAsk(w.ask, phraseText(l, m), w.self == sNone && !w.us && passing(l, ms, m))
	return true
}

// way is what a phrase asks and of whom.
type way struct {
	self selfWay
	ask  ask
	us   bool
}

// wayOf is the way of a phrase as its line reads it: its class's, with
// the writer named beside it or another address taken for its object.
func wayOf(m match, l *line) way {
	w := classWays[m.class]
	switch {
	case w.self == sNone && !w.us:
		w = writerInGap(w, l, m)
	case w.self != sNone && w.ask != 0 && (objectBefore(l, m) || subjectBefore(l, m)):
		// "Bitte a@… nicht mehr anschreiben": the address before the
		// phrase is its object, not the writer; "they don't want any
		// more": its subject is someone else.
		w.self, w.us = sNone, false
	case w.self == sAsk && w.ask == 0 && m.class != cFromHere && namesOthers(l) && !joinedToOthers(l, m) && !mineInBrackets(l, m):
		// "Unsubscribe our addresses: a@…, b@…": the words name them;
		// "this one, the one I'm writing from, and old@…" names the
		// writer's beside.
		w.self, w.us = sNone, false
	}
	return w
}

// writerInGap is the way w of a phrase about anyone with the writer in
// its gap or as its object: "put me back on", "turn me back on"; "take
// us off your promo list", the writer and their own.
func writerInGap(w way, l *line, m match) way {
	switch {
	case namesWriterBeside(l, m):
		w.self = writerWays[w.ask]
	case writerWays[w.ask] != sNone && gapNamesUs(l, m):
		w.self, w.us = writerWays[w.ask], true
	}
	return w
}

// laterAlone reports a phrase that leaves the decision for later ("I'll
// ask him tonight", "Voi cosa consigliate?") on a line that asks no
// change, or in a question of its own that asks none: "Please
// unsubscribe Mrs Okonkwo. I'll ask her which address she signed up
// with" leaves something else for later.
func laterAlone(l *line, ms []match) bool {
	for _, m := range ms {
		if m.class != cLater || m.negated {
			continue
		}
		// On a line that asks a change, only a question of its own
		// ("Voi cosa consigliate?") leaves the request open.
		if !changesIn(ms, 0, len(l.ws)) {
			return true
		}
		from, to := sentence(l.ws, l.ws[m.first].off)
		if questionEnds(l, to) && !changesIn(ms, from, to) {
			return true
		}
		// "Nu sunt sigură ce ar trebui să facem aici: …, cel care cere
		// blocarea …": a clause of its own before a colon, which the
		// change told after it explains.
		if c := colonAfter(l, m.end-1, to); c > 0 && !changesIn(ms, from, c) {
			return true
		}
	}
	return false
}

// colonAfter is the end of the words from k to, before to, up to the
// first that a colon follows; 0 when none does.
func colonAfter(l *line, k, to int) int {
	for ; k < to; k++ {
		w := l.ws[k]
		if w.clause && strings.HasPrefix(strings.TrimLeft(l.t[w.off+len(w.s):], " "), ":") {
			return k + 1
		}
	}
	return 0
}

// changesIn reports a phrase asking a change that begins among the
// words from to to (not including it).
func changesIn(ms []match, from, to int) bool {
	for _, m := range ms {
		if !m.negated && m.first >= from && m.first < to && classWays[m.class].ask&changing != 0 {
			return true
		}
	}
	return false
}

// fragmentPicks reports a line that quotes a piece of one of its
// addresses, not a whole one ("the one with \"+loja\"", "the \"sales\"
// one"), beside another address the piece is not in: which it means,
// a person says.
func fragmentPicks(l *line) bool {
	if len(l.toks) < 2 {
		return false
	}
	for _, q := range quoted.FindAllStringSubmatch(l.t, 8) {
		frag := strings.ToLower(strings.TrimSpace(q[1]))
		if len(frag) < 3 || strings.ContainsAny(frag, " ") {
			continue
		}
		in, out := 0, 0
		for _, f := range l.toks {
			v := strings.ToLower(f.Raw)
			switch {
			case f.Value == "":
			case v == frag:
				in, out = 0, 1 // the whole address: no piece
			case strings.Contains(v, frag):
				in++
			default:
				out++
			}
		}
		if in == 1 && out > 0 {
			return true
		}
	}
	return false
}

// lineFlags are what the other classes of phrases mark a line with.
var lineFlags = map[class]func(s *said){
	cSelective:  func(s *said) { s.selective = true },
	cKeepSome:   func(s *said) { s.keepsSome = true }, // but on a line that names an address (said.read)
	cGone:       func(s *said) { s.gone = true },
	cBack:       func(s *said) { s.back = true },
	cHesitate:   func(s *said) { s.hesitates = true },
	cNoSay:      func(s *said) { s.noSay = true },
	cAttached:   func(s *said) { s.attached = true },
	cDispute:    func(s *said) { s.disputes = true },
	cOrdinal:    func(s *said) { s.ordinal = true },
	cMissing:    func(s *said) { s.missing = true },
	cMissingMe:  func(s *said) { s.missing = true },
	cBelow:      func(s *said) { s.below = true },
	cOnly:       func(s *said) { s.only = true },
	cForwarding: func(s *said) { s.cover = true },
	cBehalf:     func(s *said) { s.behalf = true },
}

// readFlag marks the line with what a phrase of class c says of it.
func (s *said) readFlag(c class) {
	if mark, ok := lineFlags[c]; ok {
		mark(s)
	}
}

// noteAsk notes that the line asks a, in words; weak says only by a lone
// verb with no address after it ("I meant to unsubscribe my old one").
func (s *said) noteAsk(a ask, words string, weak bool) {
	lone := weak
	switch {
	case s.asks&a == 0:
		s.words[bit(a)] = words
		if lone {
			s.weak |= a
		}
	case !lone:
		s.weak &^= a
	}
	s.asks |= a
}

// bit is the index of a's single bit.
func bit(a ask) int {
	n := 0
	for a > 1 {
		a >>= 1
		n++
	}
	return n
}

// selfAsks is what a bare request about the writer asks.
func selfAsks(w selfWay) ask {
	switch w {
	case sSuppress:
		return aSuppress
	case sRelease:
		return aRelease
	}
	return aRemove
}

// joinedToOthers reports "my address" joined by "and" to another
// address named after it ("both on my address and on ops@…"): the
// writer's own address beside that one, not a name for it.
func joinedToOthers(l *line, m match) bool {
	k := m.end
	if k >= len(l.ws) || !andWords[folded(l.ws[k].s)] || l.ws[m.end-1].ends {
		return false
	}
	for _, f := range l.toks {
		if f.Kind == Address && f.off > l.ws[k].off && wordAt(l.ws, f.off)-k <= 3 {
			return true
		}
	}
	return false
}

// mineInBrackets reports a phrase naming the writer in brackets right
// after an address ("l.martin@… (oui, la mienne aussi)", "jo@… (yes,
// mine too)"): that address is the writer's, among the others.
func mineInBrackets(l *line, m match) bool {
	for j := m.first; j >= max(1, m.first-2); j-- {
		if l.ws[j].opens {
			return strings.Contains(l.ws[j-1].s, "@")
		}
	}
	return false
}

// andWords join two addresses in the books' languages ("and", "or",
// "ni … ni").
var andWords = map[string]bool{"and": true, "und": true, "et": true, "y": true, "e": true, "en": true, "or": true, "nor": true, "oder": true, "noch": true, "ou": true, "ni": true, "o": true, "ne": true, "of": true, "nem": true}

// namesOthers reports a line that names an address of its own, even one
// written out in words ("My work address: mert [at] office [dot] com").
func namesOthers(l *line) bool {
	for _, f := range l.toks {
		if (f.Kind == Address || f.Kind == WrittenOut) && f.Value != "" {
			return true
		}
	}
	return false
}

// passing reports a one-word phrase the line says only in passing: no
// address on the line, no list announced (":"), no question, no request
// word before it
// ("please", "can you"), no one about themselves or a colleague ("I
// clicked unsubscribe by accident", not "Unsubscribe jane@…" or "can you
// re-enable her address?").
func passing(l *line, ms []match, m match) bool {
	if m.end-m.first > 1 || m.runOn != "" || m.first == 0 && l.requestAbove || strings.HasSuffix(l.t, ":") || strings.HasSuffix(l.t, "?") || l.carries && sentenceOpensAt(l.ws, m.first) {
		return false
	}
	return writtenOutOnly(l.toks) && !askedAround(ms, m)
}

// writtenOutOnly reports tokens that are all addresses written out in
// words ("jane at example dot com"), or none.
func writtenOutOnly(toks []token) bool {
	for _, f := range toks {
		if f.Kind != WrittenOut {
			return false
		}
	}
	return true
}

// askedAround reports a phrase of the line, not negated, in which someone
// speaks of themselves or a colleague ("my address", "her address"), or
// a request word a few words before the phrase m ("please", "can you").
func askedAround(ms []match, m match) bool {
	for _, o := range ms {
		w := classWays[o.class]
		switch {
		case o.negated:
		case w.self != sNone || w.us || o.class == cColleague:
			return true
		case o.class == cRequest && o.end <= m.first && m.first-o.end <= 3:
			return true
		case o.class == cRequest && o.first >= m.end && o.first-m.end <= 1:
			// "hiçbir şey göndermeyin lütfen", "stop it, please"
			return true
		}
	}
	return false
}

// endsWithRequest reports words that end with a request word ("… quelle
// mail ci servono di nuovo: potete" over "sbloccare quell'indirizzo").
func endsWithRequest(ws []word) bool {
	ms := phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])
	return len(ms) > 0 && ms[len(ms)-1].class == cRequest && ms[len(ms)-1].end == len(ws) && !ms[len(ms)-1].negated
}

// sentenceOpensAt reports that no sentence ends before word i of the
// line: the line's first sentence, which may go on from the line above.
func sentenceOpensAt(ws []word, i int) bool {
	for _, w := range ws[:i] {
		if w.ends {
			return false
		}
	}
	return true
}

// phraseText is the text of a match in its line.
func phraseText(l *line, m match) string {
	last := l.ws[m.end-1]
	if m.runOn != "" {
		return m.runOn + " " + l.t[l.ws[m.first].off:last.off+len(last.s)]
	}
	return l.t[l.ws[m.first].off : last.off+len(last.s)]
}

// leaveAbove leaves out the address at the end of the line above when
// this line goes on its sentence with words that leave out the address
// before them ("OJO la principal (lucia@…) la quiero seguir / recibiendo
// …, esa no la toquéis"), no other address between.
func (r *Reader) leaveAbove(l *line) {
	at := openAddress(r.wrap)
	if at < 0 || len(r.queue) == 0 || r.queue[len(r.queue)-1].n != l.above() {
		return
	}
	ws := append(slices.Clip(r.wrap), l.ws...)
	r.spans = phraseBooks().trees[inWords].find(r.spans, ws, phraseBooks().trees[negations])
	for _, m := range r.spans {
		if leavesOutBefore(ws, m, at, len(r.wrap)) {
			r.exceptLastHeld(l)
			return
		}
	}
}

// openAddress is the last word of ws that holds an address, in the
// sentence ws leaves open at its end; -1 for none.
func openAddress(ws []word) int {
	for i := len(ws) - 1; i >= 0; i-- {
		if ws[i].ends {
			return -1
		}
		if strings.Contains(ws[i].s, "@") {
			return i
		}
	}
	return -1
}

// leavesOutBefore reports a phrase m, not negated, that ends among ws
// past word above (on the line below) and leaves out the address at word
// at before it ("esa no la toquéis"), no other address between.
func leavesOutBefore(ws []word, m match, at, above int) bool {
	if m.negated || m.end <= above || m.class != cExceptAfter && m.class != cWaveOff || addressBetween(ws, at+1, m.first) {
		return false
	}
	out, ok := exceptsAt(ws, m, at)
	return out && ok
}

// exceptLastHeld leaves out the last address of the line held last, when
// it stands in the body, and keeps line l, which says so.
func (r *Reader) exceptLastHeld(l *line) {
	h := &r.queue[len(r.queue)-1]
	for i := len(h.toks) - 1; i >= 0; i-- {
		if f := &h.toks[i]; f.Kind == Address && f.Value != "" {
			if f.zone == zBody {
				f.zone = zExcept
				r.tk.mails[f.msg].named--
				r.tk.keep(l.n, l.t)
			}
			return
		}
	}
}

// addressBetween reports a word holding "@" among ws[from:to].
func addressBetween(ws []word, from, to int) bool {
	for k := from; k < to && k < len(ws); k++ {
		if strings.Contains(ws[k].s, "@") {
			return true
		}
	}
	return false
}

// firstStop is the first of ".", "!" and "?" in t, 0 for none.
func firstStop(t string) byte {
	if i := strings.IndexAny(t, ".!?"); i >= 0 {
		return t[i]
	}
	return 0
}

// askedAbove: line l ends, with a question mark, the sentence of the line
// above ("… vous pouvez la bloquer / pour de bon ?"): a verb alone there
// is asked, not said in passing, as on a line that ends in "?".
func (r *Reader) askedAbove(l *line) {
	for i := len(r.tk.said) - 1; i >= 0 && r.tk.said[i].line >= l.above(); i-- {
		if s := &r.tk.said[i]; s.line == l.above() && s.msg == l.msg {
			s.weak = 0
		}
	}
}

// wordsText is words as one text, a space between each.
func wordsText(ws []word) string {
	var b strings.Builder
	for i, w := range ws {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.s)
	}
	return b.String()
}

// markBounce marks the line's mail a bounce report when its words are a
// bounce's ("Delivery Status Notification", "could not be delivered").
func (r *Reader) markBounce(l *line, ms []match) {
	for _, m := range ms {
		if m.class == cBounce {
			r.bounceFrom(l.msg, l.n)
			r.tk.keep(l.n, l.t)
			return
		}
	}
}

// otherID reports a UUID labelled as the ID of something other than a
// suppression, by the words right before it ("Trace ID:", "request id",
// "ID de transacción"): a label of the books' [other-id] and a word for
// an ID within the three words before.
func otherID(ws []word, off int) bool {
	at := len(ws)
	for i, w := range ws {
		if w.off >= off {
			at = i
			break
		}
	}
	label, id := false, false
	for k := at - 1; k >= max(at-3, 0); k-- {
		switch w := ws[k].s; {
		case compoundID(w):
			// "Korrelations-ID", "Transaktions-ID": a label and its ID
			// word in one.
			label, id = true, true
		case phraseBooks().has("other-id", w):
			label = true
		case phraseBooks().has("id-word", w):
			id = true
		}
	}
	return label && id
}

// withoutAsides is t without the asides in brackets ("Workspace ID (in
// case you need it): " is "Workspace ID : ").
func withoutAsides(t string) string {
	var b strings.Builder
	depth := 0
	for _, c := range t {
		switch {
		case c == '(' || c == '[':
			depth++
		case (c == ')' || c == ']') && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(c)
		}
	}
	return b.String()
}

// suppressionID reports a UUID that may be a suppression's ID: the
// services make them random (version 4, the hosted one) or time-ordered
// (version 7, shush's own). One of another version (a time-based request
// or correlation ID, version 1) is always something else's.
func suppressionID(raw string) bool {
	v, err := api.NormalizeID(raw)
	return err == nil && (v[14] == '4' || v[14] == '7')
}

// compoundID reports a word that joins a label of another thing's ID to
// an ID word with a hyphen, a joining "s" between them or not
// ("Korrelations-ID", "Fehler-ID").
func compoundID(w string) bool {
	i := strings.LastIndexByte(w, '-')
	if i <= 0 || !phraseBooks().has("id-word", w[i+1:]) {
		return false
	}
	label := w[:i]
	return phraseBooks().has("other-id", label) || strings.HasSuffix(label, "s") && phraseBooks().has("other-id", label[:len(label)-1])
}

// placeTokens decides where each token of a line of words stands.
func (r *Reader) placeTokens(l *line, ms []match) {
	contactAt, writer := wordsAbout(l, ms)
	aside := asides(l, ms)
	m := &r.tk.mails[l.msg]
	kept := r.keptIDs(l, ms)
	for i := range l.toks {
		f := &l.toks[i]
		switch f.Kind {
		case ID:
			r.placeID(l, f, m, kept)
		case WrittenOut:
			f.zone = zWritten
		default:
			f.zone = besideRequest(r.placeAddress(l, ms, f, contactAt, writer), aside[f.off])
			f.only = narrowing(l, ms, f.off)
			r.countNamed(l, f)
			r.noteAddress(l, f)
		}
	}
	r.mentions(l, ms)
}

// placeID notes an ID of line l: one of something else's, apart (never a
// suppression's); else, unless the line keeps it (at an offset in kept),
// one for its mail m and the ticket.
func (r *Reader) placeID(l *line, f *token, m *mail, kept []int) {
	if labelled := otherID(wordsOf(nil, withoutAsides(l.t[:f.off])), len(l.t)); labelled || !suppressionID(f.Raw) {
		// "Trace ID: …": an ID of something else, never a
		// suppression's (Ticket.Roles leaves it out).
		if v, err := api.NormalizeID(f.Raw); err == nil && len(r.tk.otherIDs) < maxRecords {
			r.tk.otherIDs[v] = l.n
			r.tk.keep(l.n, l.t)
			if !labelled && markerOnlyBefore(l.t, f.off) && len(r.tk.oddIDs) < maxRecords {
				r.tk.oddIDs = append(r.tk.oddIDs, idAt{value: v, msg: l.msg, line: l.n})
			}
		}
		return
	}
	if slices.Contains(kept, f.off) {
		return
	}
	m.ids++
	if len(r.tk.ids) < maxRecords {
		r.tk.ids = append(r.tk.ids, idAt{value: strings.Clone(f.Raw), msg: l.msg, line: l.n})
	}
}

// noteAddress notes what an address of line l tells of the text: its
// local part (distinctive or not), the people of one in the body, and
// words in brackets after it that say not.
func (r *Reader) noteAddress(l *line, f *token) {
	if f.Value != "" && len(r.st.locals) < maxLocals {
		local := localPart(f.Value)
		r.st.locals[folded(local)] = localName(local) || r.st.locals[folded(local)]
	}
	if f.zone == zBody && f.Value != "" {
		r.notePeople(localPart(f.Value))
	}
	if f.Value != "" && bracketSaysNot(l.t, f) && len(r.tk.bracketNot) < maxRecords {
		r.tk.bracketNot = append(r.tk.bracketNot, person{f.Value, l.msg, l.n})
		r.tk.keep(l.n, l.t)
	}
}

// bracketSaysNot reports an address followed on its line by words in
// brackets that say not ("l.chen@… (esa no, Lin ha vuelto)", "(skip,
// she's back)" aside): unless they say it is no longer so ("no longer
// with us", "nicht mehr da"), what they keep is for a person to read.
func bracketSaysNot(t string, f *token) bool {
	rest := strings.TrimLeft(t[min(f.off+len(f.Raw), len(t)):], " \u00a0")
	if !strings.HasPrefix(rest, "(") {
		return false
	}
	end := strings.IndexByte(rest, ')')
	if end < 0 || strings.Contains(rest[:end], "@") {
		// "(not b@… itself)": the brackets speak of the address they
		// name, as the exceptions read.
		return false
	}
	ws := wordsOf(nil, rest[1:end])
	not := false
	for _, w := range ws {
		k := folded(w.s)
		if stillWords[k] {
			return false
		}
		not = not || skipWords[k]
	}
	c, _ := firstPhrase(phraseBooks().trees[negations], ws)
	return not || c == cNegation
}

// skipWords leave something out in a remark ("skip", "keep her",
// "auslassen", "overslaan", "vynechat").
var skipWords = map[string]bool{"skip": true, "ignore": true, "except": true, "keep": true, "behalten": true, "auslassen": true, "weglassen": true,
	"mantener": true, "garder": true, "conservare": true, "manter": true, "houden": true, "behalla": true, "behold": true, "zachowac": true, "ponechat": true,
	"uberspringen": true, "ausser": true, "excepto": true, "salvo": true, "menos": true, "sauf": true, "ignorer": true,
	"tranne": true, "eccetto": true, "saltare": true, "overslaan": true, "weglaten": true, "behalve": true, "exceto": true,
	"pular": true, "hoppa": true, "utom": true, "undtagen": true, "spring": true, "pomin": true, "pominac": true,
	"oprocz": true, "vynechat": true, "vynechte": true, "krome": true}

// stillWords turn a negation into "no longer" ("no longer", "nicht
// mehr", "ya no", "ne … plus"): a leaver's remark, not a keep.
var stillWords = map[string]bool{"longer": true, "anymore": true, "more": true, "mehr": true, "mas": true, "ya": true,
	"plus": true, "piu": true, "meer": true, "mais": true, "ja": true, "langre": true, "mer": true, "laengere": true,
	"laengre": true, "mere": true, "juz": true, "uz": true, "left": true}

// mailboxMentions keeps, as partial addresses, the words beside a word
// for a mailbox ("the info address", "l'adresse contact", "die
// Info-Adresse", "la casella ordini"): a partial resolves at the end only
// to the one address of the ticket with that local part, wherever it
// stands (an older mail below names it); one that resolves to none is
// only a word (Ticket.mailboxes).
func (r *Reader) mailboxMentions(l *line, ms []match) {
	if len(r.tk.mailboxes) >= maxLocals {
		return
	}
	keep := func(w string, off int) {
		if w == "" || strings.Contains(w, "@") || inToken(l.toks, off) || namesLocal(l, w) {
			return
		}
		o := occurrence{zone: zBody, msg: l.msg, line: l.n, only: narrowing(l, ms, off)}
		if excepted(l.ws, ms, off) || keptInSentence(l, ms, off) {
			o.zone, o.only = zExcept, nNone
		}
		r.tk.mailboxes = append(r.tk.mailboxes, partial{local: w, occurrence: o})
		r.tk.keep(l.n, l.t)
	}
	books := phraseBooks()
	for i, w := range l.ws {
		word := w.s
		if k := strings.LastIndexAny(word, "'’"); k >= 0 {
			word = word[k+len(string([]rune(word[k:])[0])):] // l'adresse, dell'indirizzo
		}
		if k := strings.LastIndexByte(word, '-'); k > 0 && books.has("mailbox", word[k+1:]) {
			keep(word[:k], w.off) // Info-Adresse
			continue
		}
		if !books.has("mailbox", word) {
			continue
		}
		if i > 0 {
			keep(l.ws[i-1].s, l.ws[i-1].off)
		}
		if i+1 < len(l.ws) {
			keep(l.ws[i+1].s, l.ws[i+1].off)
		}
	}
}

// localMentions keeps, as partial addresses, the words of a line that are
// the distinctive local part of an address read before ("block old.box
// only; new.box is our current address"), or a plain one beside a word
// for an address that the words keep ("muhasebe adresi kalsın", keep
// the muhasebe address; "our billing address is now …" names none).
func (r *Reader) localMentions(l *line, ms []match) {
	if len(r.st.locals) == 0 {
		return
	}
	for i, w := range l.ws {
		local, ok := r.st.locals[folded(w.s)]
		if strings.Contains(w.s, "@") || !ok || inToken(l.toks, w.off) {
			continue
		}
		kept := excepted(l.ws, ms, w.off)
		if !local && !(kept && mailboxBeside(l.ws, i)) {
			continue
		}
		o := occurrence{zone: zBody, msg: l.msg, line: l.n, only: narrowing(l, ms, w.off)}
		if kept {
			o.zone, o.only = zExcept, nNone
		}
		r.tk.partials = append(r.tk.partials, partial{local: w.s, occurrence: o})
		r.tk.keep(l.n, l.t)
	}
}

// mailboxBeside reports a word for an address right after word i, or
// right before it: "muhasebe adresi", "the sales address", "die Adresse
// info" name the address of that local part, plain word as it is.
func mailboxBeside(ws []word, i int) bool {
	b := phraseBooks()
	return i+1 < len(ws) && !ws[i].ends && !ws[i].clause && b.has("mailbox", ws[i+1].s) ||
		i > 0 && !ws[i-1].ends && !ws[i-1].clause && b.has("mailbox", ws[i-1].s)
}

// maxLocals is how many local parts the reader keeps to match words
// against: a ticket names far fewer; a long list stops adding.
const maxLocals = 1000

// localName reports a local part distinctive enough to name its address
// when written alone: with a dot, hyphen, underscore, plus or digit
// ("old.box", "j_smith2"), never a plain word ("info", "jane").
func localName(local string) bool {
	return len(local) >= 3 && strings.ContainsAny(local, ".-_+0123456789") && strings.IndexFunc(local, unicode.IsLetter) >= 0
}

// inToken reports a word at off inside one of the line's tokens (an
// address written out in words).
func inToken(toks []token, off int) bool {
	for _, f := range toks {
		n := len(f.Raw)
		if f.Kind == WrittenOut {
			n = len(f.Text)
		}
		if f.off <= off && off < f.off+n {
			return true
		}
	}
	return false
}

// narrowing is how the sentence of a line around off (up to a full stop
// or a semicolon) narrows the request to the address there: an "only"
// right beside it ("block old.box@… only", "just a1@… please"), with a
// request in the sentence or without, and no "also" or "too" in it.
func narrowing(l *line, ms []match, off int) narrow {
	if !l.hasOnly(ms) {
		return nNone
	}
	at := l.wordIndex(off)
	if at >= len(l.ws) {
		return nNone
	}
	from, to := l.span(at)
	only, asks := false, false
	for _, m := range ms {
		if m.negated || m.first < from || m.first >= to {
			continue
		}
		if m.class == cAlso {
			return nNone
		}
		only = only || m.class == cOnly && beside(m, at)
		asks = asks || classWays[m.class].ask&changing != 0
	}
	switch {
	case !only:
		return nNone
	case asks:
		return nAsked
	}
	return nBare
}

// beside reports the phrase m right beside word at: two words before it
// at most, or three after.
func beside(m match, at int) bool {
	return at >= m.end && at-m.end <= 2 || m.first > at && m.first-at <= 3
}

// hasOnly reports an "only" among the line's phrases (noted once).
func (l *line) hasOnly(ms []match) bool {
	if l.onlyKnown == 0 {
		l.onlyKnown = 1
		for _, m := range ms {
			if m.class == cOnly && !m.negated {
				l.onlyKnown = 2
				break
			}
		}
	}
	return l.onlyKnown == 2
}

// stopTold reports a line whose stops are each told in a sentence with no
// request word and no question, and whose release is asked in a sentence
// of its own with a request word before it.
func stopTold(l *line, ms []match) bool {
	asked := false
	for _, m := range ms {
		w := classWays[m.class]
		if m.negated || w.ask&(aSuppress|aRelease) == 0 {
			continue
		}
		from, to := sentence(l.ws, l.ws[m.first].off)
		request := slices.ContainsFunc(ms, func(o match) bool {
			return o.class == cRequest && !o.negated && o.first >= from && o.first < m.first
		})
		switch {
		case w.ask&aSuppress != 0 && (request || w.self != sNone || sentenceAsks(l, to)):
			return false
		case w.ask&aRelease != 0 && request:
			asked = true
		}
	}
	return asked
}

// sentenceAsks reports a sentence ending at word to (not included) that
// ends with a question mark.
func sentenceAsks(l *line, to int) bool {
	return to > 0 && to <= len(l.ws) && questionEnds(l, to)
}

// onlyNames reports an "only" whose sentence names an address or an ID.
func onlyNames(l *line, ms []match) bool {
	for _, m := range ms {
		if m.class != cOnly || m.negated {
			continue
		}
		from, to := sentence(l.ws, l.ws[m.first].off)
		lo, hi := l.ws[from].off, l.ws[to-1].off+len(l.ws[to-1].s)
		for _, f := range l.toks {
			if f.off >= lo && f.off < hi {
				return true
			}
		}
	}
	return false
}

// wordIndex is the first word of the line that ends past off.
func (l *line) wordIndex(off int) int {
	return sort.Search(len(l.ws), func(i int) bool { return l.ws[i].off+len(l.ws[i].s) > off })
}

// span is the words of the sentence around word at, a semicolon ending
// it too (the line's sentences are found once).
func (l *line) span(at int) (from, to int) {
	if l.spanTo == nil {
		l.spanFrom, l.spanTo = make([]int, len(l.ws)), make([]int, len(l.ws))
		start := 0
		for i := range l.ws {
			l.spanFrom[i] = start
			if i == len(l.ws)-1 || l.stops(i) {
				for k := start; k <= i; k++ {
					l.spanTo[k] = i + 1
				}
				start = i + 1
			}
		}
	}
	return l.spanFrom[at], l.spanTo[at]
}

// stops reports a word that ends a sentence, or a clause with ";".
func (l *line) stops(i int) bool {
	w := l.ws[i]
	return w.ends || w.clause && strings.HasPrefix(strings.TrimLeft(l.t[w.off+len(w.s):], ")]}\"' "), ";")
}

// wordsAbout finds where the words of a line say the answer is to go
// (after contactAt, -1 for none) and which addresses say who is writing
// (where they start).
func wordsAbout(l *line, ms []match) (contactAt int, writer []int) {
	contactAt = -1
	if c, _ := phraseBooks().trees[atStart].at(l.ws, 0); c == cForward {
		// "Forwarded by Lee (lee@…): please …": who passes it on.
		writer = forwarder(l, ms)
	} else if at, ok := namedBeforeColon(l, ms); ok {
		writer = append(writer, at)
	}
	for _, m := range ms {
		switch {
		case m.class == cContact && contactAt < 0:
			contactAt = l.ws[m.first].off
		case m.class == cNotMe && m.end < len(l.ws):
			writer = append(writer, l.ws[m.end].off)
			if k := introducedAddress(l, m.end); k >= 0 {
				writer = append(writer, l.ws[k].off)
			}
		}
	}
	return contactAt, writer
}

// introducedAddress is the word, from word k on, of the address of a
// writer's introduction ("I'm Tom, ops manager, tom@… if you need me"): a
// name, then the address within a few words of the same sentence, right
// after a comma; -1 for none ("I'm writing about jane@…" is no
// introduction).
func introducedAddress(l *line, k int) int {
	if r, _ := utf8.DecodeRuneInString(l.ws[k].s); !unicode.IsUpper(r) {
		return -1
	}
	for i := k + 1; i < len(l.ws) && i < k+6; i++ {
		if l.ws[i-1].ends {
			break
		}
		if strings.Contains(l.ws[i].s, "@") {
			if l.ws[i-1].clause {
				return i
			}
			break
		}
	}
	return -1
}

// countNamed counts an address the words name, and keeps a partial one
// ("the info@ one") to resolve at the end.
func (r *Reader) countNamed(l *line, f *token) {
	switch {
	case f.zone != zBody && f.zone != zExcept:
	case f.Value != "":
		if f.zone == zBody && !r.tk.sentTo[f.Value] {
			// Our own mailbox in a forwarded newsletter's words ("reach
			// us at support@…") is no one it is about.
			r.tk.mails[l.msg].named++
		}
	case len(f.Raw) > 1 && strings.HasSuffix(f.Raw, "@") && strings.Count(f.Raw, "@") == 1:
		// "the sales@ one", and "leave the sales@ inbox as it is".
		r.tk.partials = append(r.tk.partials, partial{local: f.Raw[:len(f.Raw)-1], occurrence: occurrence{zone: f.zone, msg: l.msg, line: l.n, only: f.only}})
	}
}

// placeAddress is where an address of a line of words stands.
func (r *Reader) placeAddress(l *line, ms []match, f *token, contactAt int, writer []int) zone {
	switch {
	case inContact(l, contactAt, f.off), r.tk.mails[l.msg].auto:
		// An automatic reply's addresses say where to write instead.
		return zContact
	case signedAt(l, f.off):
		// "… can you suppress this one? Thanks, Carla (carla@…)": the
		// closing and the writer's address on the line of the words.
		return r.writer(l, f, zSignature)
	case slices.Contains(writer, f.off):
		// "My email is jane@…": the writer's own address.
		return r.writer(l, f, zMention)
	case excepted(l.ws, ms, f.off):
		return zExcept
	case succeeds(l, ms, f.off), handedTo(l, ms, f.off):
		return zContact
	case sendsFrom(l, ms, f.off):
		return zSendsFrom
	case r.tk.mails[l.msg].bounce && bounceMeta(l, f):
		return zBounceMeta
	case r.writerMentioned(l, ms, f):
		return zMention
	case contactFooter(l, ms, f):
		return zSignature
	case keptMailTo(l.ws, ms, f.off):
		return zExcept
	case r.rowMarked(l) == rowKeep, dashKept(l):
		// "Ben Carver	ben@…	keep", "ben@… - keep": the row says to
		// leave it.
		return zExcept
	}
	return zBody
}

// writerMentioned reports a sender's own address named in words that ask
// nothing of it: not in a list a request announces ("please unsubscribe
// these addresses:" over the writer's own and another), nor taken in by
// "both" after it.
func (r *Reader) writerMentioned(l *line, ms []match, f *token) bool {
	return f.Value != "" && r.st.senders[f.Value] && !asksAround(l.ws, ms, f.off) && r.st.list != l.msg+1 && !r.inAddressList(l) && !askedForBoth(l, ms, f.off)
}

// askedForBoth reports an address whose line, in the first sentence
// after the address's that asks, takes in every address named before it
// with a word of the books' both, two or more of them and none named in
// that sentence: "I have an account under this address (sam@…) and,
// before that, under old@…. Please delete the data for both."
func askedForBoth(l *line, ms []match, off int) bool {
	_, to := sentence(l.ws, off)
	for to < len(l.ws) {
		from := to
		_, to = sentence(l.ws, l.ws[from].off)
		lo, hi := l.ws[from].off, len(l.t)
		if to < len(l.ws) {
			hi = l.ws[to].off
		}
		if addressBetween(l.ws, from, to) {
			return false
		}
		if asksBetween(l, ms, lo, hi) {
			return namesBoth(l.ws[from:to]) && namedBefore(l, lo) >= 2
		}
	}
	return false
}

// keptMailTo reports an address at off in a sentence that says some mail
// is still wanted and asks nothing ("Par contre les factures doivent
// continuer à arriver sur factures@…", "the invoices should still come to
// billing@…"): the address the mail kept goes to, left out.
func keptMailTo(ws []word, ms []match, off int) bool {
	from, to := sentence(ws, off)
	for _, m := range ms {
		if m.class == cKeepSome && !m.negated && m.first >= from && m.first < to {
			return !asksAround(ws, ms, off)
		}
	}
	return false
}

// namesBoth reports a word of the books' both among ws ("for both").
func namesBoth(ws []word) bool {
	for i := range ws {
		if phraseBooks().longest("both", ws[i:]) > 0 {
			return true
		}
	}
	return false
}

// namedBefore counts the addresses the line names before the offset off.
func namedBefore(l *line, off int) int {
	seen := map[string]bool{}
	for _, f := range l.toks {
		if f.Value != "" && f.off < off {
			seen[f.Value] = true
		}
	}
	return len(seen)
}

// dashKept reports a line of one address and, set apart by a dash or a
// colon, a word of the books' row-keep alone ("b@… - keep", "behalten:
// b@…"): a list that says of each address what to do.
func dashKept(l *line) bool {
	if len(l.toks) != 1 {
		return false
	}
	for _, sep := range []string{" - ", " – ", " — ", ": "} {
		left, right, ok := strings.Cut(l.t, sep)
		if !ok {
			continue
		}
		other := right
		if !strings.Contains(left, l.toks[0].Raw) {
			other = left
		}
		if other = strings.Trim(other, " .!()"); other != "" && !strings.Contains(other, l.toks[0].Raw) && phraseBooks().has("row-keep", other) {
			return true
		}
	}
	return false
}

// What a table row's cells, beside its one address, say of it.
const (
	rowNone   = iota
	rowKeep   // a cell keeps it ("keep", "behalten", "garder")
	rowChange // a cell asks a change of it ("remove", "unsubscribe")
)

// rowMarked reads a table row that names one address (tab, "|" or comma
// separated) for a cell that keeps or changes it, and counts the mail's
// rows and marked rows: a request that picks the rows "marked remove" is
// then followed row by row.
func (r *Reader) rowMarked(l *line) int {
	if len(l.toks) != 1 || !cellRow(l) {
		return rowNone
	}
	if r.st.rows == nil {
		r.st.rows = map[int]*[2]int{}
	}
	n := r.st.rows[l.msg]
	if n == nil {
		n = &[2]int{}
		r.st.rows[l.msg] = n
	}
	n[0]++
	mark := rowCells(l)
	if mark != rowNone {
		n[1]++
	}
	return mark
}

// notBeforeName adds an exception at a "not" of the books' not-name
// words that opens a clause right before a capitalised name and stands
// in no phrase ("Nei vent, ikke Marit – hun er bare i permisjon"): the
// name is left out, as after "except".
func notBeforeName(ms []match, ws []word) []match {
	for i := 0; i+1 < len(ws); i++ {
		if i > 0 && !ws[i-1].clause && !ws[i-1].ends || ws[i].clause || ws[i].ends || !capitalised(ws[i+1].s) || !phraseBooks().has("not-name", ws[i].s) {
			continue
		}
		k, inside := 0, false
		for ; k < len(ms) && ms[k].first <= i; k++ {
			inside = inside || ms[k].end > i
		}
		if !inside {
			ms = slices.Insert(ms, k, match{class: cExcept, first: i, end: i + 1})
		}
	}
	return ms
}

// capitalised reports a word that may be a name: a name word
// (isNameWord) that begins with a capital and is not all capitals
// ("Marit", not "IT" or "CC").
func capitalised(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r) && isNameWord(w) && strings.ToUpper(w) != w
}

// wholeCell reports a cell of row t that is word w and nothing else.
func wholeCell(t, w string) bool {
	for c := range rowFields(t) {
		if strings.EqualFold(strings.TrimSpace(c), w) {
			return true
		}
	}
	return false
}

// rowFields are the cells of a row that names one address: tab, "|",
// comma, ";" or two spaces and more separated (cellRow).
func rowFields(t string) iter.Seq[string] {
	return strings.FieldsFuncSeq(alignedCells.ReplaceAllString(t, "\t"), func(c rune) bool { return c == '\t' || c == '|' || c == ',' || c == ';' })
}

// alignedCells parts the columns of a table aligned with spaces.
var alignedCells = regexp.MustCompile(` {2,}`)

// rowCells is what the cells of row l but its address's say: the
// strongest mark among them.
func rowCells(l *line) int {
	mark := rowNone
	for c := range rowFields(l.t) {
		if c = strings.TrimSpace(c); c != "" && !strings.Contains(c, l.toks[0].Raw) {
			mark = max(mark, cellMark(c))
		}
	}
	return mark
}

// rowMatches is what is read of the phrases of a table row that names
// one address: none when its cells keep it ("Owen Pratt	owen@…	stays
// blocked - he asked us to unsubscribe him": its note asks nothing), and
// no cell's lone "no" ("ben@…	No" under a header "Consent": a value of
// its column, which the table's conditions read, not a "not" after the
// address).
func rowMatches(l *line, ms []match) []match {
	if rowCells(l) == rowKeep {
		return ms[:0]
	}
	return slices.DeleteFunc(ms, func(m match) bool {
		return m.class == cExceptAfter && m.end-m.first == 1 && wholeCell(l.t, l.ws[m.first].s)
	})
}

// cellMark is what one cell of a row says: a word of the books' row-keep,
// or one phrase that asks a change and nothing else; a note in brackets
// after it is no more than a note ("WYPISAĆ (odeszła z firmy)", "remove
// (left us in May)").
func cellMark(c string) int {
	c = strings.TrimSpace(cellValue(c))
	for _, dash := range []string{" – ", " — ", " - "} {
		// "marad tiltva – ő kérte a leiratkozást": a note after a dash;
		// a keep after it keeps ("BREAK - keep on list!!").
		if i := strings.Index(c, dash); i > 0 {
			if phraseBooks().has("row-keep", strings.TrimRight(strings.TrimSpace(c[i+len(dash):]), "!.")) {
				return rowKeep
			}
			c = strings.TrimSpace(c[:i])
		}
	}
	if phraseBooks().has("row-keep", c) {
		return rowKeep
	}
	ws := wordsOf(nil, c)
	ms := phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])
	if len(ms) == 1 && ms[0].first == 0 && ms[0].end == len(ws) && !ms[0].negated && classWays[ms[0].class].ask&changing != 0 {
		return rowChange
	}
	return rowNone
}

// rowsFollowed clears the condition of a mail's request ("the rows
// marked remove") when every row of its table that names an address is
// marked: the rows say which.
func (r *Reader) rowsFollowed() {
	for k := range r.tk.said {
		s := &r.tk.said[k]
		if n := r.st.rows[s.msg]; s.selective && n != nil && n[0] > 0 && n[1] == n[0] {
			s.selective = false
		}
	}
}

// writer notes the address of a line of the ticket's own words that says
// who writes (a signer) and returns its zone z.
func (r *Reader) writer(l *line, f *token, z zone) zone {
	if l.msg == 0 && l.depth == 0 && f.Value != "" {
		r.tk.signers = append(r.tk.signers, person{f.Value, l.msg, l.n})
	}
	return z
}

// excepted reports whether the words around the address at off say not to
// touch it: "not x@…", "except x@…", "keep x@…" right before it, or "x@…
// should stay" right after it, in the same clause.
func excepted(ws []word, ms []match, off int) bool {
	at := wordAt(ws, off)
	if at < 0 {
		return false
	}
	for _, m := range ms {
		if out, ok := exceptsAt(ws, m, at); ok {
			return out
		}
	}
	return false
}

// succeeds reports an address at off that a phrase after it in its
// sentence makes the one who takes over ("Grace (grace@…) does now",
// "… who takes over the account"), in a sentence that asks nothing: a
// contact, not a target.
func succeeds(l *line, ms []match, off int) bool {
	ws := l.ws
	at := wordAt(ws, off)
	if at < 0 {
		return false
	}
	for _, m := range ms {
		if m.class == cSuccessor && !m.negated && m.first > at && !endsBetween(ws, at, m.first) {
			// "Please stop sending to jen@… after that; Luis (luis@…)
			// takes over": the request is another clause's; "merci de
			// me désinscrire, c'est mon collègue Luis (luis@…) qui s'en
			// occupe" too.
			return !asksAround(ws, ms, off) || !asksInPart(l, ms, off) || !asksInClause(l, ms, ws[at].off, l.ws[m.end-1].off)
		}
	}
	return false
}

// handedTo reports an address at off that a phrase a few words before it,
// in its clause (a successor's phrase too, said first), makes the one who
// takes over ("bitte tragen Sie mich aus,
// ab sofort übernimmt mein Kollege Luis (luis@…)"), in a clause that asks
// nothing: a contact, not a target.
func handedTo(l *line, ms []match, off int) bool {
	at := wordAt(l.ws, off)
	if at < 0 {
		return false
	}
	for _, m := range ms {
		if m.class != cHandsTo && m.class != cSuccessor || m.negated || m.end > at || at-m.end > 5 || endsBetween(l.ws, m.first, at) {
			continue
		}
		if between := l.t[l.ws[m.end-1].off:off]; strings.ContainsAny(between, ",;") {
			continue
		}
		if m.class == cSuccessor && addressBefore(l, m) {
			continue // "Luis (luis@…) übernimmt ab sofort …": the phrase's own address is before it
		}
		return !asksInClause(l, ms, l.ws[m.first].off, off)
	}
	return false
}

// sendsFrom reports an address at off right after a phrase that names
// where a sender's mail goes out from ("Harbour Bakery (sends from
// news@…)", "Absenderadresse: …"), within a few words of its sentence.
func sendsFrom(l *line, ms []match, off int) bool {
	at := wordAt(l.ws, off)
	return at >= 0 && slices.ContainsFunc(ms, func(m match) bool {
		return m.class == cSendsFrom && !m.negated && m.end <= at && at-m.end <= 2 && !endsBetween(l.ws, m.first, at)
	})
}

// addressBefore reports an address in the clause of m before it.
func addressBefore(l *line, m match) bool {
	lo := 0
	if i := strings.LastIndexAny(l.t[:l.ws[m.first].off], ",;.!?"); i >= 0 {
		lo = i
	}
	for _, f := range l.toks {
		if f.Kind == Address && f.off >= lo && f.off < l.ws[m.first].off {
			return true
		}
	}
	return false
}

// asksInClause reports a phrase that asks, or asks for the writer, in the
// clause (between commas and semicolons) that holds the text from lo to
// hi of the line.
func asksInClause(l *line, ms []match, lo, hi int) bool {
	from, to := 0, len(l.t)
	if i := strings.LastIndexAny(l.t[:lo], ",;"); i >= 0 {
		from = i
	}
	if i := strings.IndexAny(l.t[hi:], ",;"); i >= 0 {
		to = hi + i
	}
	// Nor does a clause reach past its sentence ("… stop sending to
	// a@…. From now on everything goes to b@…").
	for _, w := range l.ws {
		end := w.off + len(w.s)
		switch {
		case !w.ends:
		case end <= lo:
			from = max(from, end)
		case w.off >= hi:
			to = min(to, end)
		}
	}
	return asksBetween(l, ms, from, to)
}

// asksBetween reports a phrase that asks, or asks for the writer,
// beginning between the offsets lo and hi of the line.
func asksBetween(l *line, ms []match, lo, hi int) bool {
	for _, m := range ms {
		if w := classWays[m.class]; !m.negated && l.ws[m.first].off >= lo && l.ws[m.first].off < hi &&
			(w.ask != 0 || w.self == sSuppress || w.self == sRelease) {
			return true
		}
	}
	return false
}

// asksInPart reports a phrase that asks in the part of off's sentence
// between semicolons.
func asksInPart(l *line, ms []match, off int) bool {
	from, to := sentence(l.ws, off)
	lo, hi := l.ws[from].off, len(l.t)
	if to < len(l.ws) {
		hi = l.ws[to].off
	}
	if i := strings.LastIndexByte(l.t[lo:off], ';'); i >= 0 {
		lo += i
	}
	if i := strings.IndexByte(l.t[off:hi], ';'); i >= 0 {
		hi = off + i
	}
	return asksBetween(l, ms, lo, hi)
}

// exceptsAt is what the phrase m says of the address that is word at:
// whether it leaves it out, when it says anything (ok).
func exceptsAt(ws []word, m match, at int) (out, ok bool) {
	switch m.class {
	case cExcept, cExclude, cNotSuppress:
		if m.end == at || gapBefore(ws, m.end, at) {
			return !ws[m.end-1].ends, true
		}
	case cExceptAfter:
		// One word may stand between ("x@… please stay"), not another
		// address or a clause's end ("a@…; b@… should stay").
		return true, (m.first == at+1 || m.first == at+2 && !ws[at].clause && !strings.Contains(ws[at+1].s, "@")) && !ws[at].ends
	case cWaveOff:
		return true, m.first > at && !endsBetween(ws, at, m.first)
	}
	return false, false
}

// gapBefore reports the words ws[from:at] as what may stand between
// "except" and its address: one short word ("except for x@…"), or up to
// two of short words and words for a mailbox ("kromě adresy x@…",
// "außer der Adresse x@…"), none ending a clause.
func gapBefore(ws []word, from, at int) bool {
	n := at - from
	if n >= 1 && n <= 3 && ws[at].opens && !ws[at-1].ends && shortWords(ws[from:at-1]) {
		// "Behalve Sanne (s.bos@…)", "Excepto la de Rocío (r.santos@…)",
		// "gardez la mienne (sandrine@)": a name or a pronoun, its
		// address in brackets.
		return true
	}
	if n < 1 || n > 2 {
		return false
	}
	mailbox := false
	for _, w := range ws[from:at] {
		if w.clause || w.ends {
			return false
		}
		switch {
		case phraseBooks().has("mailbox", w.s):
			mailbox = true
		case !shortWord(w.s):
			return false
		}
	}
	return n == 1 || mailbox
}

// shortWords reports words that are all short and end no clause.
func shortWords(ws []word) bool {
	return !slices.ContainsFunc(ws, func(w word) bool { return w.clause || w.ends || !shortWord(w.s) })
}

// shortWord is a word that may stand between "except" and its address
// ("except for x@…", "not the x@… one").
func shortWord(s string) bool { return utf8.RuneCountInString(s) <= 4 && !strings.Contains(s, "@") }

// wordAt is the index of the word that starts at off, -1 for none.
func wordAt(ws []word, off int) int {
	for i, w := range ws {
		if w.off <= off && off < w.off+len(w.s) {
			return i
		}
	}
	return -1
}

// bounceMeta reports an address of a bounce report that is not a
// recipient it failed to deliver to: the sender's ("X-Postfix-Sender:",
// "Return-Path:"), the mail's own sender.
func bounceMeta(l *line, f *token) bool {
	if name, ok := headerName(l.t, true); ok && !phraseBooks().has("header-to", name) && name != "final-recipient" && name != "original-recipient" {
		return true
	}
	return false
}

// asksAround reports whether the sentence of a line around off holds a
// request.
func asksAround(ws []word, ms []match, off int) bool {
	from, to := sentence(ws, off)
	for _, m := range ms {
		if m.negated || m.first < from || m.first >= to {
			continue
		}
		if w := classWays[m.class]; w.ask != 0 || w.self == sSuppress || w.self == sRelease {
			// "my address" alone asks nothing: "I changed my address to …"
			return true
		}
	}
	return false
}

// sentence returns the words of the sentence around off: words before it
// back to one that ends a sentence, and after it up to the next one.
func sentence(ws []word, off int) (from, to int) {
	at := len(ws)
	for i, w := range ws {
		if w.off >= off {
			at = i
			break
		}
	}
	from, to = at, at
	for from > 0 && !ws[from-1].ends {
		from--
	}
	for to < len(ws) && !ws[to].ends {
		to++
	}
	return from, min(to+1, len(ws))
}

// bareRequest reports a line that is a request and nothing else
// ("Unsubscribe", "Please stop!") and which way it asks.
func bareRequest(ws []word) (selfWay, bool) {
	var w selfWay
	for i, x := range ws {
		switch {
		case phraseBooks().has("bare-suppress", x.s), is(x.s, "opt") && i+1 < len(ws) && is(ws[i+1].s, "out"):
			w = sSuppress
		case phraseBooks().has("bare-release", x.s):
			if w == sNone {
				w = sRelease
			}
		case phraseBooks().has("bare-ask", x.s):
			if w == sNone {
				w = sAsk
			}
		case phraseBooks().has("bare-filler", x.s):
		default:
			return sNone, false
		}
	}
	return w, w != sNone
}

// firstPhrase is the first phrase of book b in a line's words.
func firstPhrase(b *phraseBook, ws []word) (class, int) {
	for i := range ws {
		if c, n := b.at(ws, i); n > 0 {
			return c, i
		}
	}
	return cNone, -1
}

// asksOutright reports a line that asks in so many words: a request word
// ("please", "can you") right before a phrase that asks ("please suppress
// …", "can you unblock …"), neither negated.
func asksOutright(ws []word) bool {
	ms := phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])
	for i, m := range ms {
		if m.class != cRequest || m.negated || i+1 == len(ms) {
			continue
		}
		o := ms[i+1]
		if w := classWays[o.class]; !o.negated && o.first-m.end <= 1 && (w.ask != 0 || w.self != sNone) {
			return true
		}
	}
	return false
}

// signedAt reports an address at off that is part of a closing begun
// inside the line, after a sentence ends ("… this one? Thanks, Carla
// (carla@…)"): only a name and the address follow the closing words.
func signedAt(l *line, off int) bool {
	if l.signedFrom == 0 {
		l.signedFrom = -1
		for i := 1; i < len(l.ws); i++ {
			if !l.ws[i-1].ends {
				continue
			}
			if c, n := phraseBooks().trees[atStart].at(l.ws, i); c == cClosing && i+n < len(l.ws) {
				if nameLike(l.t[l.ws[i+n].off:], true) {
					l.signedFrom = i + n
				}
				break
			}
		}
	}
	return l.signedFrom > 0 && l.wordIndex(off) >= l.signedFrom
}

// forwarder is where the addresses of a line begun "Forwarded by …"
// start that come before its request: who passes it on.
func forwarder(l *line, ms []match) []int {
	end := len(l.t)
	for _, m := range ms {
		if w := classWays[m.class]; m.class == cRequest || w.ask != 0 || w.self != sNone {
			end = l.ws[m.first].off
			break
		}
	}
	var at []int
	for _, f := range l.toks {
		if f.off < end {
			at = append(at, f.off)
		}
	}
	return at
}

// namedBeforeColon finds a line that begins with who writes it, a name
// and their address in brackets before a colon, and then asks something
// of others ("Note from Ben (ben@…): please suppress the address
// below"): where that address starts.
func namedBeforeColon(l *line, ms []match) (int, bool) {
	if len(l.toks) == 0 || l.toks[0].Kind != Address {
		return 0, false
	}
	f := l.toks[0]
	if !bracketedBeforeColon(l.t, f) {
		return 0, false
	}
	asks := false
	for _, m := range ms {
		w := classWays[m.class]
		if w.self != sNone || w.ask != 0 && l.ws[m.first].off < f.off {
			// "Jane (jane@…): unsubscribe me" names the target.
			return 0, false
		}
		asks = asks || w.ask != 0
	}
	return f.off, asks
}

// bracketedBeforeColon reports the address f of the line t in brackets
// after a few words that end in a name, a colon right after ("Note from
// Ben (ben@…):").
func bracketedBeforeColon(t string, f token) bool {
	at := strings.Index(t[f.off:], f.Raw)
	if at < 0 {
		return false
	}
	end := f.off + at + len(f.Raw)
	pre := strings.TrimSpace(t[:f.off])
	post := strings.TrimLeft(t[end:], " ")
	if !strings.HasSuffix(pre, "(") && !strings.HasSuffix(pre, "<") || !strings.HasPrefix(post, "):") && !strings.HasPrefix(post, ">:") {
		return false
	}
	n := len(strings.Fields(pre))
	return n >= 2 && n <= 7 && (nameLike(strings.TrimRight(pre, "(< "), false) || capitalized(lastWord(pre)))
}

// lastWord is the last word of s, brackets off.
func lastWord(s string) string {
	fs := strings.Fields(strings.TrimRight(s, "(< "))
	if len(fs) == 0 {
		return ""
	}
	return fs[len(fs)-1]
}

// severalPeople reports a phrase about other people's addresses that speaks of
// several ("their mailboxes", "the customers' addresses").
func severalPeople(s string) bool {
	s = strings.ToLower(s)
	return strings.HasSuffix(s, "es") || strings.HasSuffix(s, "mails") || strings.Contains(s, "s' ") || strings.Contains(s, "s’ ")
}

// someoneUnnamed reports a sentence of the line about another person's
// address ("her address", "the customer's mailbox") that names no
// address itself.
func someoneUnnamed(l *line) bool {
	loc := aboutSomeoneAt(l.t)
	if loc == nil || severalPeople(l.t[loc[0]:loc[1]]) {
		// "their mailboxes": several people, whom the line may name.
		return false
	}
	return !sentenceNames(l, loc[0])
}

// endsBetween reports a sentence that ends at one of the words from i up
// to before j.
func endsBetween(ws []word, i, j int) bool {
	for k := i; k < j; k++ {
		if ws[k].ends {
			return true
		}
	}
	return false
}

// writerWays is the way a phrase that asks a and names the writer in its
// gap asks about them.
var writerWays = map[ask]selfWay{aSuppress: sSuppress, aRelease: sRelease}

// gapNamesWriter reports a phrase whose gap holds the writer as its
// object ("put me back on", "switch me back on").
func gapNamesWriter(l *line, m match) bool { return gapHolds(l, m, gapMe) }

// gapNamesUs reports a phrase whose gap holds the writer and those they
// speak for ("take us off your promo list").
func gapNamesUs(l *line, m match) bool { return gapHolds(l, m, gapUs) }

// gapMe and gapUs are the books' words for me and for us as an object.
var gapMe, gapUs = wordSet("me myself mich mir mij moi"), wordSet("us uns ons nous oss")

// gapHolds reports a word of set among the words inside the phrase m.
func gapHolds(l *line, m match, set map[string]bool) bool {
	for k := m.first + 1; k < m.end-1 && k < len(l.ws); k++ {
		if set[folded(l.ws[k].s)] {
			return true
		}
	}
	return false
}

// objectBefore reports an address right before a phrase about the
// writer whose words do not name them ("a@… nicht mehr anschreiben",
// "a@… niet meer mailen"): the address is what it asks about.
func objectBefore(l *line, m match) bool {
	if m.first == 0 || !strings.Contains(l.ws[m.first-1].s, "@") || l.ws[m.first-1].ends || l.ws[m.first-1].clause {
		return false
	}
	return !namesFirstPerson(l.ws[m.first:m.end])
}

// subjectBefore reports a word for "they", "he" or "she" right before a
// phrase about the writer whose words do not name them: "(they asked us
// to tell you that) they don't want any more" is about them.
func subjectBefore(l *line, m match) bool {
	if m.first == 0 || l.ws[m.first-1].ends || l.ws[m.first-1].clause || l.ws[m.first-1].s == "Sie" || !thirdPerson[folded(l.ws[m.first-1].s)] {
		return false
	}
	return !namesFirstPerson(l.ws[m.first:m.end])
}

// namesFirstPerson reports a word of ws that names the writer.
func namesFirstPerson(ws []word) bool {
	return slices.ContainsFunc(ws, func(w word) bool { return firstPerson[folded(w.s)] || phraseBooks().has("only-me", w.s) })
}

// thirdPerson are the books' words for they, he and she as a subject
// ("sie", not the polite "Sie").
var thirdPerson = wordSet("they he she sie er ils elle elles ellos ellas él ella loro lui lei eles elas ele ela zij ze hij de han hon hun hen hän he oni ony ona ők ő ei αυτοί αυτές αυτός αυτή εκείνοι onlar")

// firstPerson are the books' words for I, we, me, my and our: a phrase
// holding one names its writer.
var firstPerson = wordSet("i i'd i'm i've we we'd we're us my our me mine ich wir uns mich mir mein meine meinen unser unsere " +
	"ik wij mij mijn ons onze je j moi nous mon ma mes yo mi mis nos io noi mio mia eu nós meu minha jag vi mig oss min mitt " +
	"ja mnie mój moja minä já ben biz")

// namesWriterBeside reports a phrase about anyone whose gap or object
// names the writer.
func namesWriterBeside(l *line, m match) bool {
	return gapNamesWriter(l, m) || objectNamesWriter(l, m)
}

// objectNamesWriter reports a phrase whose object, right after it, is
// the writer joined to others: "unblock both me and my colleague",
// "unsubscribe me and jo@…" read as "unsubscribe" and "me and".
func objectNamesWriter(l *line, m match) bool {
	k := m.end
	for k < len(l.ws) && !l.ws[k-1].ends && (is(l.ws[k].s, "both") || is(l.ws[k].s, "also")) {
		k++
	}
	if k+1 >= len(l.ws) || l.ws[k-1].ends || !is(l.ws[k].s, "me") && !is(l.ws[k].s, "myself") {
		return false
	}
	return is(l.ws[k+1].s, "and") || is(l.ws[k+1].s, "&")
}

// contactFooter reports the one address of a company's contact line that
// asks nothing: fields set apart by "|", "·" or "•", another of them a web
// address ("Tallow Candles | 8 Quay St | info@… | www.…"). A table's row
// is no such line.
func contactFooter(l *line, ms []match, f *token) bool {
	if len(l.toks) != 1 || tableRow(l.t) {
		return false
	}
	for _, m := range ms {
		if w := classWays[m.class]; w.ask != 0 || w.self != sNone {
			return false
		}
	}
	fields := strings.FieldsFunc(l.t, func(c rune) bool { return c == '|' || c == '·' || c == '•' })
	if len(fields) < 2 {
		return false
	}
	for _, fl := range fields {
		fl = strings.TrimSpace(fl)
		if strings.Contains(fl, f.Raw) {
			continue
		}
		if low := strings.ToLower(fl); strings.HasPrefix(low, "www.") || strings.HasPrefix(low, "http") {
			return true
		}
	}
	return false
}

// runOn adds to ms, the phrases of line l, a phrase begun at the end of
// the line of words before and ended on this one ("Bitte senden Sie an
// seine Adresse keine Mails / mehr"), in a mail its client wrapped: as
// this line's, from its first word. A phrase of this line inside it gives
// way. It keeps this line's last words for the next.
func (r *Reader) runOn(l *line, ms []match) []match {
	if len(r.wrap) > 0 && r.wrapAt == l.above() && r.wrapMsg == l.msg && len(l.ws) > 0 {
		ws := append(slices.Clip(r.wrap), l.ws[:min(len(l.ws), wrapWords)]...)
		r.spans = phraseBooks().trees[inWords].find(r.spans, ws, phraseBooks().trees[negations])
		end, k := 0, 0
		for _, m := range r.spans {
			if m.first < len(r.wrap) && m.end > len(r.wrap) {
				r.spans[k] = match{class: m.class, first: 0, end: m.end - len(r.wrap), negated: m.negated, runOn: wordsText(r.wrap[m.first:])}
				end = max(end, r.spans[k].end)
				k++
			}
		}
		if k > 0 {
			joined := append(r.spans[:k], ms...)
			ms = joined[:0]
			for i, m := range joined {
				if i < k || m.first >= end || m.end > end {
					ms = append(ms, m)
				}
			}
			ms = slices.Clone(ms)
		}
	}
	r.wrap = r.wrap[:0]
	if n := len(l.ws); n > 0 && !l.ws[n-1].ends {
		r.wrap = append(r.wrap, l.ws[max(0, n-wrapWords):]...)
		r.wrapAt, r.wrapMsg = l.n, l.msg
	}
	return ms
}

// wrapWords is how many words at a wrapped line's end and the next
// line's start a phrase across the two is looked for in.
const wrapWords = 8

// keptIDs notes the IDs the line says to keep ("… (ID 52c7…) please
// keep it", "but not 9f1c…") and returns their offsets: never released.
// A sentence naming IDs that keeps something and none of them plainly
// ("release a1…, b2… and c3…, except the one for the old shop") makes
// its mail ask the review to choose the IDs.
func (r *Reader) keptIDs(l *line, ms []match) []int {
	var kept, keptFrom, doubtFrom []int
	for _, f := range l.toks {
		if f.Kind != ID {
			continue
		}
		v, err := api.NormalizeID(f.Raw)
		from, _ := sentence(l.ws, f.off)
		switch {
		case err != nil:
		case excepted(l.ws, ms, f.off) || keptInSentence(l, ms, f.off) && aloneKept(l, ms, f.off):
			kept, keptFrom = append(kept, f.off), append(keptFrom, from)
			if len(r.tk.keptIDs) < maxRecords {
				r.tk.keptIDs[v] = l.n
				r.tk.keep(l.n, l.t)
			}
		case keptInSentence(l, ms, f.off):
			doubtFrom = append(doubtFrom, from)
		}
	}
	for _, from := range doubtFrom {
		if !slices.Contains(keptFrom, from) {
			r.tk.mails[l.msg].keepsSomeID = true
		}
	}
	return kept
}

// unreadAround reports a line that names an address or an ID amid words
// of its own (four or more beside its tokens), none of which the books
// read: what it says of the address is not known ("lopettakaa postien
// lähettäminen osoitteeseen a@…, mutta b@… saa jäädä").
func unreadAround(l *line) bool {
	if len(l.toks) == 0 {
		return false
	}
	n := 0
	for _, w := range l.ws {
		if !inToken(l.toks, w.off) && !strings.Contains(w.s, "@") {
			n++
		}
	}
	return n >= 4
}

// toldOnly reports an address of the line in a sentence that tells an
// earlier request as history ("last month we asked you to block a@…")
// and asks nothing else: whether the writer wants it changed again, a
// person must say.
func toldOnly(l *line, ms []match) bool {
	for _, f := range l.toks {
		if f.Kind != Address {
			continue
		}
		from, to := sentence(l.ws, f.off)
		told, asks := false, false
		for _, m := range ms {
			switch {
			case m.first < from || m.first >= to:
			case m.class == cNarrative:
				told = told || !selfStory(l.ws[m.first:m.end]) && !complaintStory(l.ws[m.first:m.end])
			case !m.negated && classWays[m.class].ask&changing != 0:
				asks = true
			}
		}
		if told && !asks {
			return true
		}
	}
	return false
}

// complaintStory reports a narrative of a complaint ("x@… marked your
// email as spam"): the reason to stop mail, not a request dealt with.
func complaintStory(ws []word) bool {
	for _, w := range ws {
		if complaintWords[folded(w.s)] {
			return true
		}
	}
	return false
}

// complaintWords are the words of a complaint in the books' languages.
var complaintWords = wordSet(`spam junk complained complaint complaints beschwerde beschwert spamverdacht queja quejado reclamacion plainte reclamo reclamacao klacht reklamation valitus skarga stiznost panasz reclamatie sikayet`)

// selfStory reports a narrative about what the writer did themselves ("I
// unsubscribed", "ich habe mich abgemeldet", "vi avregistrerade oss"):
// mail still coming after it is asked to stop again. Only a story of a
// request made of us ("we asked you to block a@…") names an address
// already dealt with.
func selfStory(ws []word) bool {
	for _, w := range ws {
		if selfStoryWords[folded(w.s)] {
			return true
		}
	}
	return false
}

// selfStoryWords are the words of the books' narratives that tell what
// the writer did: a reflexive or first-person object, or a click (folded
// as the words are).
var selfStoryWords = wordSet(`me mig mich mi oss us uns nous nos ci ons os se jsem
	wypisałem wypisałam wypisaliśmy unsubscribed opted clicked hit pressed cliqué geklickt clic
	cliccato geklikt cliquei klickade klikkede kliknąłem kliknęłam`)

// oneOfUnnamed reports a line with a word for the old one of several
// addresses (oneOfThem) in a sentence that names no address ("… desk@…,
// which we still use. Please stop sending to the old address.").
func oneOfUnnamed(l *line) bool {
	if !mayDescribe(l.t) {
		return false
	}
	for _, loc := range oneOfThem.FindAllStringIndex(l.t, -1) {
		if !sentenceNames(l, loc[0]) {
			return true
		}
	}
	return false
}

// mayDescribe reports a line oneOfThem may match: one with one of its
// words (its regular expression is slow on every line that asks).
func mayDescribe(t string) bool { return holdsAny(t, describeWords) }

// describeWords are pieces of the words oneOfThem's descriptions hold.
var describeWords = []string{"old", "alte", "ancienne", "viej", "antig", "oude", "gaml", "star", "vecchi", "régi", "work", "personal", "private", "business", "home", "office",
	"privatadr", "geschäft", "dienst", "firmenadr", "büroadr", "arbeitsadr",
	"davon", "beiden", "one of", "una de", "l'un", "delle due", "dei due", "di queste", "di esse", "di questi", "ervan", "van de twee", "van beide", "van die twee",
	" av de", " av dem", " av dei", "deles", "delas", "dos dois", "das duas", " z nich", " z dwóch", " z tych"}

// sentenceNames reports whether the sentence of l around off holds one of
// the line's tokens.
func sentenceNames(l *line, off int) bool {
	from, to := sentence(l.ws, off)
	if from >= to {
		return false
	}
	lo, hi := l.ws[from].off, l.ws[to-1].off+len(l.ws[to-1].s)
	for _, f := range l.toks {
		if f.off >= lo && f.off < hi {
			return true
		}
	}
	return false
}

// oneOfThem is a word for the old one of several addresses, which does
// not say which it is: "the old one", "quello vecchio", "die alte",
// "l'ancienne", "la vieja", "de oude", "den gamla", "o antigo"; or for
// one of them, whichever ("eine davon", "one of them", "l'une des deux").
var oneOfThem = regexp.MustCompile(`(?i)\b(?:the (?:old|older) (?:one|address)|(?:the|my|our) (?:work|personal|private|business|home|office) (?:one|address|e-?mail(?: address)?|mailbox)|(?:quello|quella) vecchi[oa]|(?:die|den|das) alte\b|(?:die|das) (?:private|geschäftliche|dienstliche)\b|(?:den|die) (?:privaten|geschäftlichen|dienstlichen)\b|(?:die|der|den) (?:privatadresse|firmenadresse|geschäftsadresse|dienstadresse|büroadresse|arbeitsadresse)\b|l'ancienne\b|(?:la|el) (?:vieja|antigua|viejo|antiguo)\b|de oude\b|den gamla\b|(?:o|a) antig[oa]\b|den gamle\b|(?:ta|ten) star[áý]\b|(?:ten|ta) star[ya]\b|a régi (?:cím|címem|címet|email|e-mail)\b` +
	`|\b(?:eine|einen|eins) (?:davon|der beiden|von beiden)\b|\bone of (?:them|the two|those|these|both)\b|\buna de (?:ellas|las dos|los dos|ellos)\b` +
	`|\bl'une? (?:d'elles|d'eux|des deux)\b|\buna (?:delle due|di queste|di esse)\b|\buno (?:dei due|di questi)\b|\b(?:één|een) (?:ervan|van de twee|van beide|van die twee)\b` +
	`|\b(?:en|ett|ei|et) av (?:dem|de to|dei to|de två|de tva)\b|\b(?:um|uma) (?:deles|delas|dos dois|das duas)\b|\bjedn[aąeę] z (?:nich|dwóch|tych)\b)`)

// thisAddress is "this address" in any book's language: on a line that
// names none and does not point at the next, it does not say which of
// the addresses its mail names it is ("stop sending to this address
// please" under three of them; not "please block this address:").
var thisAddress = regexp.MustCompile(`(?i)\b(?:(?:this|that) (?:e-?mail )?(?:address|mailbox|inbox)|diese[rnms]? (?:e-?mail-?|mail)?(?:adresse|postfach)|(?:esta|esa|aquella) (?:direcci[oó]n|casilla|cuenta de correo)|cette (?:adresse|bo[iî]te)|(?:este|esse|aquele) endere[cç]o|(?:questo|quello) indirizzo|quell'indirizzo|questa casella|(?:dit|dat) (?:e-?mail)?adres|(?:den här|den där|denna) (?:e-?post)?adress(?:en)?|(?:denne|den her) (?:e-?mail)?adresse|(?:ten|tego|tym) adres(?:u|ie)?|(?:tuto|tu|tato|této|tuhle|tenhle) (?:e-?mailovou )?adres[uae]?|bu (?:e-?posta )?adres(?:e|i|ine)?)\b`)

// ifListed reports a condition that asks whether its addresses are
// blocked: an "if" and at most a subject and a verb of being after it
// ("if they are", "if it's still blocked", "wenn sie gesperrt sind").
func ifListed(ws []word) bool {
	if len(ws) == 0 || !ifWords[folded(ws[0].s)] {
		return false
	}
	for _, w := range ws[1:] {
		f := folded(w.s)
		if !beWords[f] && !listedWords[f] && !subjectWords[f] {
			return false
		}
	}
	return true
}

// ifWords, subjectWords, beWords and listedWords are the words of a
// condition on being blocked, in the books' languages (folded).
var (
	ifWords      = wordSet(`if wenn falls si se als indien om hvis jos jesli jezeli pokud ha daca eger`)
	subjectWords = wordSet(`it they she he this that these those es sie er ella ellos ellas elle il ils elles esso essa essi ele eles ela elas het ze zij hij den de hun det ne ona on oni ono to tak so`)
	beWords      = wordSet(`is are was were it's they're isn't still already ist sind war waren noch bereits esta estan es son sigue siguen est sont e sono era sao estao esta is zijn staat staan ar var er ovat on jest sa je jsou van sunt still`)
	listedWords  = wordSet(`blocked suppressed listed on unsubscribed gesperrt blockiert abgemeldet bloqueado bloqueada bloqueados bloqueadas bloque bloquee bloques bloquees bloccato bloccata bloccati geblokkeerd blokkeret sparrad sperret estetty zablokowany zablokowana zablokovany zablokovana blocat blocata engelli`)
)

// wordSet is the set of the words of s, folded.
func wordSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[folded(w)] = true
	}
	return m
}

// asksAfter reports a phrase after m that asks a change.
func asksAfter(ms []match, m match) bool {
	return slices.ContainsFunc(ms, func(k match) bool {
		return k.first >= m.end && !k.negated && classWays[k.class].ask&changing != 0
	})
}

// othersIn reports a phrase among the words from to to (not including
// it) that speaks of other people: a colleague, someone the writer acts
// for, mail someone else gets ("my receptionist is cc'd … leave her
// alone").
func othersIn(ms []match, from, to int) bool {
	return slices.ContainsFunc(ms, func(k match) bool {
		return k.first >= from && k.first < to && (k.class == cColleague || k.class == cBehalf || k.class == cNotSelf)
	})
}
