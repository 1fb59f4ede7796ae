package ticket

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
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
	// ModeAdd: block, unsubscribe, stop mail.
	ModeAdd Mode = "add"
	// ModeErase: forget me and stop mail (GDPR Art. 17, "right to
	// erasure", "delete my data"): the address stays blocked as a keyed
	// hash only (docs/erasure.md).
	ModeErase Mode = "erase"
	// ModeRemove: receive mail again, put back, unblock.
	ModeRemove Mode = "remove"
	// ModeRemoveIDs: release suppression IDs.
	ModeRemoveIDs Mode = "remove_ids"
	// ModeCheck: is it blocked, why no mail, change nothing.
	ModeCheck Mode = "check"
	// ModeUnsure: the ticket does not say, or says both.
	ModeUnsure Mode = "unsure"
)

// direction is the way a batch of mode m goes: a removal releases,
// anything else suppresses.
func (m Mode) direction() Direction {
	if m == ModeRemove || m == ModeRemoveIDs {
		return Release
	}
	return Suppress
}

// Changes reports whether the mode changes the list.
func (m Mode) Changes() bool {
	return m == ModeAdd || m == ModeErase || m == ModeRemove || m == ModeRemoveIDs
}

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
	// ordinalKept: the listed IDs the words' places leave, by the line
	// that says so, when the list is followed (ordinal.go).
	ordinalKept map[string]int
	// answered: the mail of ours whose question the newest mail answers
	// "all of them" (allAnswered); -1 for none.
	answered int
	// overruled: the mails older than that question, whose keeps the
	// answer "all of them" overrules.
	overruled map[int]bool
}

// mailStatement is what a mail asks, gathered from its lines.
type mailStatement struct {
	asks ask
	// weak holds the asks said only by a lone verb ("unsubscribe",
	// "block", which may be a noun's: "a block list").
	weak  ask
	first [5]said // the first line of each ask
	// past holds the stops the mail tells only as history (mailPast).
	past ask
	// exceptsWriter: a line leaves the writer out ("… but not me").
	exceptsWriter bool
	// slipOnly: every stop it tells, it tells as a mistake (slipOnly).
	slipOnly           bool
	below, only, cover bool
	missing            bool // a line says mail does not arrive
	others             bool // a line of its words asks something not about its writer
	selective          bool
	byCondition        bool // a line picks by a condition that is no place in a list
	keepsSome          bool // a line says some mail is still wanted
	keepsAll           bool // a sentence says to change nothing at all
	gone               bool // a line says an address no longer exists
	back               bool // a line says an address works again
	someone            bool // a line asks about one other person's address without naming it
	oneOf              bool // a line asks about one of the addresses by a word that does not say which
	describes          bool // a line picks its target by a description ("the old one")
	ifListed           bool // a line picks its targets by whether they are blocked
	bySplit            bool // a line picks a bounce report's recipients by hard or soft failure
	thisOne            bool // a line asks about "this address" and names none
	forgets            bool // a line asks to be forgotten ("delete all my data", "Art. 17 GDPR")
	// onlySelf: a line of its words narrows to its writer ("Just me
	// please", "only my address").
	onlySelf bool
	// question: a line of its words only asks whether they are blocked
	// (not "don't block anything else" beside a stop).
	question bool
	// picks: a line of its own picks the targets by a condition ("just
	// the first two").
	picks bool
	// ordinal: a line of its words picks targets by their place in a
	// list ("los dos primeros").
	ordinal bool
	// stopAsked: a line of its words asks a stop other than as a story
	// told beside a release asked outright (said.stopTold).
	stopAsked    bool
	subjectAsks  ask
	subjectFirst [5]said
	// subjectOwn: the subject is the mail's own, not a reply's or a
	// forward's.
	subjectOwn bool
}

// statements gathers what each mail asks.
func (t *Ticket) statements() []mailStatement {
	out := make([]mailStatement, len(t.mails))
	fwd := t.firstForward()
	lines := make([][]said, len(t.mails))
	for _, s := range t.said {
		m := s.msg
		if s.fwd && fwd > 0 {
			m = fwd
		}
		s = t.reportWords(s)
		out[m].add(s)
		if !s.subject {
			lines[m] = append(lines[m], s)
		}
	}
	for m := range out {
		out[m].past = mailPast(lines[m])
		out[m].slipOnly = slipOnly(lines[m])
	}
	return out
}

// add gathers a line of the mail.
func (st *mailStatement) add(s said) {
	st.below = st.below || s.below
	st.only = st.only || s.only
	st.cover = st.cover || s.cover
	if !s.subject {
		st.words(s)
	} else if !s.reply && !s.fwd {
		st.subjectOwn = true
	}
	for a := aSuppress; a <= aWithdraw; a <<= 1 {
		switch {
		case s.asks&a == 0:
		case s.subject:
			if st.subjectAsks&a == 0 {
				st.subjectFirst[bit(a)] = s
			}
			st.subjectAsks |= a
		default:
			st.addAsk(a, s)
		}
	}
}

// words gathers what a line of the mail's words (not its subject) marks
// it with.
func (st *mailStatement) words(s said) {
	st.tells(s)
	st.others = st.others || s.asks != 0 && s.self == sNone
	st.question = st.question || s.asks == aCheck && s.question
	st.onlySelf = st.onlySelf || s.only && s.self != sNone
	st.exceptsWriter = st.exceptsWriter || s.exceptsWriter
	st.picks = st.picks || s.selective && s.asks == 0
	st.ordinal = st.ordinal || s.ordinal && s.selective
	st.stopAsked = st.stopAsked || s.asks&aSuppress != 0 && !s.stopTold
}

// tells gathers what a line of the mail's words tells of its addresses
// and mail: mail missing, some kept, an address gone or back, targets
// picked by a condition, an address asked about but not named, being
// forgotten.
func (st *mailStatement) tells(s said) {
	st.missing = st.missing || s.missing
	st.selective = st.selective || s.selective
	st.byCondition = st.byCondition || s.byCondition
	st.keepsSome = st.keepsSome || s.keepsSome
	st.keepsAll = st.keepsAll || s.keepsAll
	st.gone = st.gone || s.gone
	st.back = st.back || s.back
	st.someone = st.someone || s.someone
	st.oneOf = st.oneOf || s.oneOf
	st.describes = st.describes || s.describes
	st.ifListed = st.ifListed || s.ifListed
	st.bySplit = st.bySplit || s.bySplit
	st.thisOne = st.thisOne || s.thisOne
	st.forgets = st.forgets || s.forgets
}

// addAsk notes the ask a of a line s of the mail's words: the first line
// of each is its evidence; it is weak while every line says it weakly.
func (st *mailStatement) addAsk(a ask, s said) {
	if st.asks&a == 0 {
		st.first[bit(a)] = s
		st.weak |= a & s.weak
	} else if s.weak&a == 0 {
		st.weak &^= a
	}
	st.asks |= a
}

// mailPast reads which stops the lines of a mail (its words, in order)
// tell only as history: those before words that turn to asking mail
// again ("I unsubscribed last spring. But now I need them again, can you
// put me back?"), when what follows the turn names no address other than
// those the stops before it name, if they name any; and those beside a
// mistake ("I accidentally unsubscribed"). A stop said anywhere else is
// asked.
func mailPast(lines []said) ask {
	turn := turnBack(lines)
	if turn >= 0 && otherAfterTurn(lines, turn) {
		turn = -1 // "… but now block b@…": another request
	}
	var asked, told ask
	for i, s := range lines {
		asked |= s.asks & stops
		switch {
		case turn < 0 || i > turn:
			told |= s.early | s.late
		case i == turn:
			told |= s.late
		}
	}
	return asked &^ told
}

// slipOnly reports a mail whose every stop is told beside a mistake
// ("I think I hit unsubscribe by mistake"): it tells of one, it asks none.
func slipOnly(lines []said) bool {
	slipped := false
	for _, s := range lines {
		if s.asks&stops == 0 {
			continue
		}
		if s.slip == 0 || s.early|s.late != 0 {
			return false
		}
		slipped = true
	}
	return slipped
}

// turnBack is the first of a mail's lines that turns to asking mail
// again ("But now I need them again"), on the line itself or one after
// it; -1 for none.
func turnBack(lines []said) int {
	for i, s := range lines {
		if !s.turn {
			continue
		}
		if s.releaseLate || slices.ContainsFunc(lines[i+1:], func(o said) bool { return o.asks&aRelease != 0 }) {
			return i
		}
	}
	return -1
}

// otherAfterTurn reports words after the turn at line turn that name an
// address the stops before it do not, when those name any ("I
// unsubscribed a@… last year, but now block b@…").
func otherAfterTurn(lines []said, turn int) bool {
	var before, after []string
	for i, s := range lines {
		switch {
		case i < turn:
			if s.asks&stops != 0 {
				before = append(before, s.namedLate...)
			}
		case i == turn:
			before = append(before, s.namedEarly...)
			after = append(after, s.namedLate...)
		default:
			after = append(after, s.namedLate...)
		}
	}
	return len(before) > 0 && slices.ContainsFunc(after, func(v string) bool { return !slices.Contains(before, v) })
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
	if t.oursBy(m, own) {
		return true
	}
	// A comment headed by the name of an author whose other comment is
	// ours ("Callum Reid · Feb 27", signed "help@…" on Feb 26).
	a := t.mails[m].author
	return a != "" && t.mails[m].from == "" && slices.ContainsFunc(t.commentsBy[a], func(k int) bool { return k != m && t.oursBy(k, own) })
}

// oursBy reports a mail that its own lines say is ours: a note, our
// team's comment, its sender, or the signature of a comment headed by a
// name alone.
func (t *Ticket) oursBy(m int, own Own) bool {
	if t.mails[m].note || t.ourTeam(t.mails[m].team, own) {
		return true
	}
	if from := t.mails[m].from; from != "" {
		return t.isOurs(from, own)
	}
	// A helpdesk comment headed by a name alone: its signature says
	// whose it is ("Priya Nair / Support | Lumenly / priya@…").
	for _, p := range t.signers {
		if p.msg == m && t.isOurs(p.value, own) {
			return true
		}
	}
	return t.mails[m].author != "" && slices.ContainsFunc(t.order, func(v string) bool {
		return t.isOurs(v, own) && slices.ContainsFunc(t.records[v].occ, func(o occurrence) bool { return o.msg == m && o.zone == zSignature })
	})
}

// ourTeam reports a comment author's team that is ours: a support team
// ("Support", "Customer Success", "Agent") or our company, the first
// label of an own domain or, when none is configured, of the address
// the ticket was sent to ("Jordan (Lumenly)" on a ticket to
// support@lumenly.example).
func (t *Ticket) ourTeam(team string, own Own) bool {
	if team == "" {
		return false
	}
	if staffTeams[team] || own.named(team) || staffTeamIn(team) {
		return true
	}
	if !own.Empty() {
		return false
	}
	for to := range t.sentTo {
		if domainNamed(to, team) {
			return true
		}
	}
	return false
}

// staffTeamIn reports a team named with a staff team's words at its end
// or start ("brightpost support", "support niveau 1").
func staffTeamIn(team string) bool {
	for w := range staffTeams {
		if strings.HasSuffix(team, " "+w) || strings.HasPrefix(team, w+" ") {
			return true
		}
	}
	return false
}

// staffTeams are the teams a helpdesk writes beside its agents, folded as
// a comment header's team is.
var staffTeams = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range []string{"support", "agent", "staff", "team", "admin", "customer success", "customer support",
		"customer service", "helpdesk", "help desk", "bot", "operator", "kundendienst", "kundenservice", "soporte",
		"atención al cliente", "service client", "assistenza", "klantenservice", "suporte", "kundtjänst",
		"kundeservice", "wsparcie", "obsługa klienta", "podpora", "zákaznická podpora"} {
		m[folded(w)] = true
	}
	return m
}()

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
	w := weighing{asker: -1, anchor: -1, answered: -1, targets: map[int]bool{}}
	w.anchor, w.asker = t.newestAsking(sts, own)
	if w.asker < 0 {
		// None asks in its words: the newest whose subject does.
		w.asker = t.firstMail(func(m int) bool { return !t.ours(m, own) && sts[m].subjectAsks != 0 }, 0)
	}
	if w.anchor < 0 {
		w.anchor = w.asker
	}
	if w.asker < 0 && w.anchor >= 0 {
		// The newest mail names targets and asks nothing: it answers an
		// older mail, ours too ("which address should we suppress?").
		w.asker = t.firstMail(func(m int) bool { return sts[m].asks|sts[m].subjectAsks != 0 }, t.after(w.anchor))
	}
	t.aim(&w, sts, own)
	if w.answered = t.allAnswered(w, own); w.answered >= 0 {
		w.targets[w.answered] = true
		// "Only info@, or rechnung@ too?" — "Both": what the mails
		// before our question kept, the answer takes in.
		w.overruled = map[int]bool{}
		for _, m := range t.olderFrom(w.answered)[1:] {
			w.overruled[m] = true
		}
	}
	w.ordinalKept, _ = t.followOrdinals(w, own)
	t.decideMode(&w, sts, own)
	t.unnamedTarget(&w, own)
	t.otherUnnamed(&w, own)
	t.doubt(&w, sts, own)
	if w.answered >= 0 {
		w.p.Evidence = append(w.p.Evidence, t.answerSaid(w.answered, own))
	}
	if w.p.Mode == ModeAdd && w.asker >= 0 {
		t.erasure(&w, own)
	}
	return w
}

// doubts are the signs, read once the mode is known, that the rule may be
// wrong about it: each makes the proposal unsure and says what to ask.
var doubts = []struct {
	when     func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool
	why, ask string
}{
	// "the old address post@…", then "stop sending to the old address":
	// that one, when it is all the proposal sends.
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && w.asker >= 0 && (sts[w.asker].describes || sts[w.asker].oneOf) && !t.sendsDescribed(w, own)
	}, "picks its targets by a condition: choose them by hand",
		"picks its targets by a condition: choose them by hand"},
	// "Sollen wir beide wieder freischalten?" — "Nein, nur die private.":
	// which of the addresses our question named, a description says.
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && w.asker >= 0 && sts[w.asker].oneOf && t.answersOurList(w.asker, own)
	}, "answers our question about its addresses by a description",
		"the answer picks among the addresses our question named by a description: choose them by hand"},
	// "Which of the two should get it?" — "The latter, thanks!": which,
	// the answer says in words the rule does not read.
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && w.answered < 0 && t.choiceUnanswered(*w, own)
	}, "a mail of ours asks which of its addresses is meant, and the answer names none",
		"a mail of ours asks which address is meant and the answer names none: choose by hand"},
	// "Only x@…, or the others of your company too?" — "Yes": which,
	// the answer does not say.
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && w.answered < 0 && t.alternativeOpen(*w, sts, own)
	}, "a mail of ours offers a choice of what to change, and no newer mail makes it",
		"a mail of ours asks which change is meant and no newer mail says: choose by hand"},
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && w.answered < 0 && t.answeredSince(*w, own)
	}, "an older mail asks, a mail of ours answered it, and the newest asks nothing the rule reads",
		"a mail of ours answered the request; read what the newest mail asks"},
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return w.p.Mode == ModeAdd && t.missingBefore(w.asker, sts, own)
	}, "an older mail says mail does not arrive, and the newest asks to stop mail",
		"an older mail says some mail does not arrive: ask which mail is to stop"},
	// A put-back of what the story told ("we asked you to block x@…;
	// please undo it") is about that address; a stop is another.
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode == ModeAdd && t.toldInTargets(*w)
	}, "names an address in an earlier request told as history",
		"an address is named in an earlier request told as history: is it to change again?"},
	// "Nu am cerut eu asta. Vă rog să mă scoateți de pe listă" over our
	// "You have been unsubscribed": off which list?
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode == ModeAdd && w.asker >= 0 && t.repliesToStopNotice(w.asker, own)
	}, "asks to stop mail in reply to a notice of ours that it has stopped",
		"the request answers our notice that mail has stopped: is it to stay stopped, or be undone?"},
	// "Unsubscribe the whole team but not me: a@…, b@…, me@…": which?
	{func(t *Ticket, w *weighing, sts []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && w.asker >= 0 && sts[w.asker].exceptsWriter && t.namedInBody(t.mails[w.asker].from, w.asker)
	}, "leaves its writer out and names the writer's address",
		"the writer asks to be left out and names their own address among the others: check it"},
	// "Why am I getting this? I never signed up" over a newsletter of
	// ours to another address: the writer's, or the one it went to?
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && t.selfOverOursToAnother(*w, own)
	}, "asks for its writer over a mail of ours that went to another address",
		"the writer asks for themselves, and the mail of ours they pass on went to another address: which is to change?"},
	// "Voltar a receber e-mails" over words the rule reads only as a
	// stop: one of the two it misread.
	{func(t *Ticket, w *weighing, sts []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && t.subjectOtherWay(*w, sts)
	}, "its subject asks the other way from its words",
		"the ticket's subject asks the other way from its words: check which is meant"},
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode == ModeRemoveIDs && w.ordinalKept == nil && t.keepsSomeID(*w)
	}, "a sentence naming suppression IDs keeps one without saying which",
		"the ticket keeps one of its IDs: choose the IDs by hand"},
	// "these two suppressions can be lifted: 1b4e28ba-2fa1-11d2-…": a
	// UUID of version 1 is no suppression's ID, yet the words treat it
	// as one.
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && slices.ContainsFunc(t.oddIDs, func(id idAt) bool { return t.decides(id.msg, *w) })
	}, "names UUIDs of a kind no service gives its suppressions",
		"the ticket names UUIDs of a version no service gives its suppressions' IDs: check what they are"},
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && t.hesitates(*w)
	}, "does not know which address is meant",
		"the writer is not sure which address is meant: ask"},
	// "My husband wrote that you should unsubscribe us – I want to keep
	// getting them": the writer's own address asked off and kept.
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode == ModeAdd && t.keepsOwnUnnamed(w, own)
	}, "asks to stop mail to its writer's address and says mail is to keep coming",
		"the writer's address is asked off, and the writer says mail is to keep coming there: ask which"},
	// "Ik wil deze mails niet meer krijgen, het klopt gewoon niet. Zoek
	// het alstublieft uit.": about a fine our mails claim, not the list.
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode == ModeAdd && slices.ContainsFunc(t.said, func(s said) bool { return s.disputes && s.msg == w.asker })
	}, "disputes what a mail of ours says beside its stop",
		"the writer disputes what a mail of ours says: ask whether they want all mail stopped or the matter sorted out"},
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && t.attachedOnly(w)
	}, "points at an attachment for its addresses",
		"the ticket points at an attachment for the addresses it means and names none of them: open it or ask for them"},
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && t.noSayOther(w, own)
	}, "asks a change for another person it has no say for",
		"the writer asks for another person who does not know of it or is their ex: ask that person first"},
	{func(t *Ticket, w *weighing, _ []mailStatement, _ Own) bool {
		return w.p.Mode.Changes() && t.correctsIn(*w) > 0
	}, "the writer corrects an address they name",
		"the writer corrects an address they name: check which is meant and type it by hand"},
	// "honestly not sure … I'll ask him tonight which one he wants":
	// the newest word is that the writer will decide later.
	{func(t *Ticket, w *weighing, _ []mailStatement, own Own) bool {
		return (w.p.Mode.Changes() || w.withdrawn) && t.decidesLater(*w, own)
	}, "its writer will decide later, or asks what we advise",
		"the writer leaves the decision for later or asks what we advise: ask before changing anything"},
	// "Wait, please don't block anything yet" in words no book reads,
	// over the quoted request: the newest mail may take it back, narrow
	// it or turn it round.
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return w.p.Mode.Changes() && t.unreadSince(*w, sts, own) >= 0
	}, "a newer mail than the request says something the rule does not read",
		"a newer mail than the request says something the rule does not read: check the request still stands"},
	// "Back in March I asked you to stop all mail to x@… (see below).
	// Could you undo the block?": the note over the quoted request asks
	// the other way.
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return t.newerAsksOtherWay(w, sts, own)
	}, "a newer mail than the request asks the other way",
		"a newer mail than the request asks the other way: check which stands"},
	{func(t *Ticket, w *weighing, sts []mailStatement, own Own) bool {
		return t.turnsDisagree(w, sts, own)
	}, "a transcript whose order is not known asks both ways",
		"the transcript's messages ask both ways and do not say which came last"},
}

// hesitates reports a line of the deciding mails' words that does not
// know which address is meant ("not sure which one the reminders go to")
// in a mail that names addresses.
func (t *Ticket) hesitates(w weighing) bool {
	for _, s := range t.said {
		if s.hesitates && !s.subject && (w.targets[s.msg] || s.msg == w.asker) && t.mails[s.msg].named > 0 {
			return true
		}
	}
	return false
}

// noSayOther reports a line of the deciding mails' words that says the
// writer has no say for the other person a change is asked for ("he
// doesn't know I'm asking", "sans lui en parler", "my ex-girlfriend").
func (t *Ticket) noSayOther(w *weighing, own Own) bool {
	if !slices.ContainsFunc(t.said, func(s said) bool { return s.noSay && (w.targets[s.msg] || s.msg == w.asker) }) {
		return false
	}
	if t.asksForOther(*w) {
		return true
	}
	// The writer's own address is not among those the change is for.
	f := t.factsOf(*w, own)
	sent := t.sentWith(w, own, f)
	return len(sent) > 0 && (!f.hasReq || !sent[f.req.value])
}

// attachedOnly reports a line of the deciding mails' words that points
// at an attachment for the addresses a change is for, in a mail whose
// words name no address but its writer's ("please unsubscribe the leavers
// on the attached spreadsheet").
func (t *Ticket) attachedOnly(w *weighing) bool {
	return slices.ContainsFunc(t.said, func(s said) bool {
		return s.attached && (w.targets[s.msg] || s.msg == w.asker) && t.wordsNameOthers(s.msg) == 0
	})
}

// correctsIn is the first line of the deciding mails' words that
// corrects an address it names (said.corrects), 0 for none.
func (t *Ticket) correctsIn(w weighing) int {
	for _, s := range t.said {
		if s.corrects && !s.subject && (w.targets[s.msg] || s.msg == w.asker) {
			return s.line
		}
	}
	return 0
}

// decidesLater reports a line of the asking mail, or of a mail not ours
// newer than it, that leaves the decision for later (said.later).
func (t *Ticket) decidesLater(w weighing, own Own) bool {
	if w.asker < 0 {
		return false
	}
	newer := t.newerThan(w.asker)
	for _, s := range t.said {
		// Our agent's note passing the ticket on ("should the address
		// be blocked or not?", "not sure what we should do here") is as
		// unsure as the writer's own words.
		if s.later && !s.subject && (s.msg == w.asker || newer[s.msg] && (!t.ours(s.msg, own) || t.passesOn(s.msg))) {
			return true
		}
	}
	return false
}

// passesOn reports a mail that passes the mail under it on: its subject
// a forward's ("Fwd: …"), or a forwarded mail right under its words.
func (t *Ticket) passesOn(m int) bool {
	return t.mails[m].forwards || m+1 < len(t.mails) && t.mails[m+1].forward
}

// doubt makes the proposal unsure for each of the doubts that holds.
func (t *Ticket) doubt(w *weighing, sts []mailStatement, own Own) {
	for _, d := range doubts {
		if d.when(t, w, sts, own) {
			w.p.Mode, w.p.Why = ModeUnsure, d.why
			w.p.Ask = append(w.p.Ask, d.ask)
		}
	}
}

// repliesToStopNotice reports a mail of ours under mail m, older than
// it, that says mail has stopped.
func (t *Ticket) repliesToStopNotice(m int, own Own) bool {
	for k := m + 1; k < len(t.mails); k++ {
		if t.mails[k].stopNotice && t.ours(k, own) {
			return true
		}
	}
	return false
}

// namedInBody reports the address v named in the words of mail m.
func (t *Ticket) namedInBody(v string, m int) bool {
	rec, ok := t.records[v]
	return ok && slices.ContainsFunc(rec.occ, func(o occurrence) bool { return o.zone == zBody && o.msg == m })
}

// erasure makes an add an erasure when the asking mail asks to be
// forgotten (a phrase of the books' [erasure] on a line of it that asks),
// or, when it names no address ("yes, that one, and no more mails"),
// when an older mail not ours did; a mail that says not to ("don't
// delete my account") keeps the add. The targets are the add's.
func (t *Ticket) erasure(w *weighing, own Own) {
	s, ok, denied := t.erasureIn(w.asker)
	if !ok && !denied {
		s, ok, denied = t.erasureBefore(w, own)
	}
	if !ok || denied {
		return
	}
	w.p.Mode, w.p.Why = ModeErase, "asks to be forgotten (right to erasure): erase, and keep blocked"
	for i := range w.p.Evidence {
		if w.p.Evidence[i].Says == string(ModeAdd) {
			w.p.Evidence[i].Says = string(ModeErase)
		}
	}
	if w.p.By.Line != s.line {
		w.p.Evidence = append(w.p.Evidence, t.saying(s, string(ModeErase)))
	}
}

// erasureBefore finds, for an asking mail that names no address ("yes,
// delete all of it"), the line of the newest older mail not ours that
// asks to be forgotten, or says not to.
func (t *Ticket) erasureBefore(w *weighing, own Own) (s said, ok, denied bool) {
	if t.mails[w.asker].named > 0 {
		return said{}, false, false
	}
	for _, m := range t.olderFrom(t.after(w.asker)) {
		if !t.ours(m, own) {
			if s, ok, denied = t.erasureIn(m); ok || denied {
				return s, ok, denied
			}
		}
	}
	return said{}, false, false
}

// forgottenBefore reports an asking mail that names no address under an
// older mail not ours that asks to be forgotten: its bare "delete" ("yes.
// delete all of it") is that erasure, never a release.
func (t *Ticket) forgottenBefore(w *weighing, own Own) bool {
	_, ok, denied := t.erasureBefore(w, own)
	return ok && !denied
}

// erasureIn finds the line of mail m that asks to be forgotten; denied:
// a line of it says not to ("please don't delete my data").
func (t *Ticket) erasureIn(m int) (s said, ok, denied bool) {
	fwd := t.firstForward()
	var ws []word
	for _, x := range t.said {
		n := x.msg
		if x.fwd && fwd > 0 {
			n = fwd
		}
		if n != m {
			continue
		}
		ws = wordsOf(ws, t.lines[x.line])
		for _, p := range phraseBooks().trees[erasures].find(nil, ws, phraseBooks().trees[negations]) {
			switch {
			case p.class != cErasure:
			case p.negated:
				return x, false, true
			case !ok:
				s, ok = x, true
			}
		}
	}
	return s, ok, false
}

// answeredSince reports whether a mail of ours answered the asking mail
// and a mail not ours came after that answer: the request was handled,
// and what came after it is what stands now ("Done: it is blocked" —
// "could you undo it?"), which the rule could not read.
func (t *Ticket) answeredSince(w weighing, own Own) bool {
	after, confirms := false, false
	return t.sinceAsker(w, own, func(m int, ours bool) (bool, bool) {
		ml := t.mails[m]
		switch {
		case ml.team == "bot", ml.note:
			// A chat's bot says the team will reply; an agent's internal
			// note tells the team, not the customer: no answer.
		case !ours:
			// A mail with a sender and words: not the ticket's title
			// block, nor a helpdesk export's fields ("Demandeur : …").
			after = after || ml.from != "" && ml.prose && !t.titleBlock(m)
			confirms = confirms || t.confirms(m, w, own)
		case after && !(ml.questions && confirms):
			// "Can you confirm it's just those two?" — "Yes, just those
			// two": a short answer that does not begin with a no
			// confirms the request; one that keeps an address the
			// request named narrows it, which the rule reads ("leave
			// the work one as it is, just the personal one").
			return true, true
		}
		return false, false
	})
}

// sinceAsker calls see with each mail newer than the asking mail of w,
// newest first, and whether it is ours, until see is done: its answer
// then, false when it never is.
func (t *Ticket) sinceAsker(w weighing, own Own, see func(m int, ours bool) (answer, done bool)) bool {
	if w.asker < 0 {
		return false
	}
	for _, m := range t.newestFirst() {
		if m == w.asker {
			return false
		}
		if answer, done := see(m, t.ours(m, own)); done {
			return answer
		}
	}
	return false
}

// answersOurList reports a mail m whose next older mail, not an empty
// one, is a question of ours that names two addresses or more in its words.
func (t *Ticket) answersOurList(m int, own Own) bool {
	for _, q := range t.olderFrom(m)[1:] {
		if !t.mails[q].empty() {
			return t.ours(q, own) && t.mails[q].questions && t.inWords(q) >= 2
		}
	}
	return false
}

// alternativeOpen reports a question of ours, newer than the asking
// mail, that offers alternatives, with no newer mail that names an
// address, asks anything the rule reads or answers "all of them".
func (t *Ticket) alternativeOpen(w weighing, sts []mailStatement, own Own) bool {
	return t.sinceAsker(w, own, func(m int, ours bool) (bool, bool) {
		ml := t.mails[m]
		switch {
		case !ours:
			return false, t.inWords(m) > 0 || sts[m].asks != 0 || ml.answersAt > 0
		case ml.alternative && ml.questions:
			return true, true
		}
		return false, false
	})
}

// alternativeWords offer alternatives in a question, in the books'
// languages; "czy", which also opens a yes-no question, only as the
// second of its sentence ("czy tylko x@…, czy również pozostałe?").
var alternativeWords = wordSet("or oder ou eller tai vai vagy sau ή veya yoksa nebo či albo ili")

// alternativeQuestion reports a line with a question that offers
// alternatives: a word for "or" inside a sentence, a "?" after it before
// the next sentence begins.
func alternativeQuestion(l *line) bool {
	for k, w := range l.ws {
		fw := folded(w.s)
		if !alternativeWords[fw] && fw != "czy" {
			continue
		}
		from, _ := sentence(l.ws, w.off)
		if k == from || fw == "czy" && !slices.ContainsFunc(l.ws[from:k], func(p word) bool { return folded(p.s) == "czy" }) {
			continue
		}
		rest := l.t[w.off:]
		q := strings.IndexByte(rest, '?')
		if q > 0 && !sentenceBreak(rest[:q]) {
			return true
		}
	}
	return false
}

// sentenceBreak reports a "." or "!" in s that a capital letter follows
// after a space: a new sentence ("… or the others. Also, …"), not an
// abbreviation ("m.in. sekretariat@").
func sentenceBreak(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!') && s[i+1] == ' ' {
			if r, _ := utf8.DecodeRuneInString(s[i+2:]); unicode.IsUpper(r) {
				return true
			}
		}
	}
	return false
}

// choiceUnanswered reports a mail of ours, newer than the asking mail,
// that names two addresses or more and asks which, under a mail not ours
// that names none: the answer picks in words the rule does not read ("The
// latter, thanks!", "Jälkimmäiseen").
func (t *Ticket) choiceUnanswered(w weighing, own Own) bool {
	answer := false
	return t.sinceAsker(w, own, func(m int, ours bool) (bool, bool) {
		ml := t.mails[m]
		switch {
		case !ours:
			answer = answer || ml.prose && !ml.empty() && t.inWords(m) == 0
		case answer && t.choiceQuestion(m):
			return true, true
		}
		return false, false
	})
}

// inWords counts the addresses the words of mail m name, each once, a
// sender's own among them.
func (t *Ticket) inWords(m int) int {
	n := 0
	for _, v := range t.order {
		if slices.ContainsFunc(t.records[v].occ, func(o occurrence) bool { return o.inWordsOf(m) }) {
			n++
		}
	}
	return n
}

// inWordsOf reports an occurrence in the words of mail m, a sender's own
// address among them.
func (o occurrence) inWordsOf(m int) bool {
	return o.msg == m && (o.zone == zBody || o.zone == zMention)
}

// choiceQuestion reports a mail whose words name two addresses or more
// and ask which ("Which of them should get it?").
func (t *Ticket) choiceQuestion(q int) bool {
	return t.mails[q].choice && t.mails[q].questions && t.inWords(q) >= 2
}

// choiceWords ask which, in the books' languages.
var choiceWords = wordSet(`which welche welcher welches welchen quale quali cuál cuáles cual cuales lequel laquelle lesquels quelle quel qual quais welke welk vilken vilket vilka hvilken hvilket hvilke kumpi kumpaan kumman kummalle kummasta kumpaa vai która który którą które którego který kterou která které kterého hangi hangisi melyik melyiket care ποια ποιο ποιες`)

// confirms reports a mail not ours that confirms a request our mail
// asked about: a short answer that does not begin with a no, one that
// keeps an address the request named, or one that picks among the
// addresses our question named.
func (t *Ticket) confirms(m int, w weighing, own Own) bool {
	ml := t.mails[m]
	return ml.words < unreadWords && !noWords[ml.opens] || m == w.anchor && t.keepsTargetIn(m, w) || t.picksFromChoice(m, w, own)
}

// noWords begin an answer that says no.
var noWords = map[string]bool{"no": true, "nope": true, "nein": true, "non": true, "nee": true, "neen": true,
	"nej": true, "nie": true, "ne": true, "nao": true}

// unreadWords is how many words a mail newer than the request must say,
// none of which the books read, to leave the request in doubt: a
// sentence and a half. Fewer are a chase or a thanks ("any news on this?
// the shop opens early tomorrow").
const unreadWords = 15

// unreadSince is the newest mail not ours, newer than the asking mail,
// whose words ask nothing the rule reads and are more than a few: -1 for
// none.
func (t *Ticket) unreadSince(w weighing, sts []mailStatement, own Own) int {
	asker := w.asker
	// A bounce report is passed on by the mail over it, as is the mail
	// a forward's words are over: those are a cover note's, not a reply's.
	if asker < 0 || t.mails[asker].bounce {
		return -1
	}
	for _, m := range t.newestFirst() {
		if m == asker {
			return -1
		}
		if !t.readOrQuiet(m, w, sts, own) {
			return m
		}
	}
	return -1
}

// readOrQuiet reports a mail newer than the asking one that is no doubt
// about it: ours, a bounce report, a cover note or a forward's, one that
// asks or says little, a helpdesk's title, or one whose words the rule
// reads (readAnswer).
func (t *Ticket) readOrQuiet(m int, w weighing, sts []mailStatement, own Own) bool {
	ml := t.mails[m]
	return t.ours(m, own) || ml.bounce || sts[m].cover || sts[m].below || ml.forwards || sts[m].asks != 0 || ml.little() || t.titleBlock(m) ||
		t.readAnswer(m, w, own)
}

// readAnswer reports a mail whose words the rule reads as an answer:
// places in a list followed, a narrowing (by a person's name too: "her
// address can stay as it is"), "all of them" to our question,
// or one of the addresses our question asked to choose among ("Det er
// lars@…. Den anden bruger jeg ikke mere" to "Hvilken af dem …?").
func (t *Ticket) readAnswer(m int, w weighing, own Own) bool {
	return w.ordinalKept != nil && t.placesIn(m) || m == w.anchor && (t.narrowsIn(m) || t.keepsTargetIn(m, w)) || t.keepsByName(m, w) || w.answered >= 0 && t.mails[m].answersAt > 0 ||
		t.picksFromChoice(m, w, own) || t.narrowsToWriterIn(m, w)
}

// narrowsToWriterIn reports a mail of the asker's writer, naming no
// address, that narrows their request to themselves ("so only my address
// off"): narrowToWriter reads it.
func (t *Ticket) narrowsToWriterIn(m int, w weighing) bool {
	from := t.mails[w.asker].from
	return from != "" && t.mails[m].from == from && t.mails[m].named == 0 && slices.ContainsFunc(t.said, func(s said) bool { return s.msg == m && s.onlyMe })
}

// keepsByName reports a mail that keeps a listed person's address by
// their name and narrows nothing else ("Mrs Hale is coming back, so her
// address can stay as it is"): the keeping holds wherever the request
// stands; a narrowing to a name holds only in the mail that decides.
func (t *Ticket) keepsByName(m int, w weighing) bool {
	ml := t.mails[m]
	return ml.narrows && !ml.narrowsAmbiguous && t.keepsTargetIn(m, w) && !t.narrowsIn(m)
}

// picksFromChoice reports a mail that names, of the addresses a mail of
// ours newer than the asking mail asks to choose among, some and no
// other.
func (t *Ticket) picksFromChoice(m int, w weighing, own Own) bool {
	if t.inWords(m) == 0 {
		return false
	}
	newer := t.newerThan(w.asker)
	for q := range newer {
		if q == m || !t.ours(q, own) || !t.choiceQuestion(q) || t.rank[q] < t.rank[m] {
			continue
		}
		if t.wordsWithin(m, q) {
			return true
		}
	}
	return false
}

// wordsWithin reports whether every address the words of mail m name,
// the writer's own among them, the words of mail q name too.
func (t *Ticket) wordsWithin(m, q int) bool {
	for _, v := range t.order {
		occ := t.records[v].occ
		if slices.ContainsFunc(occ, func(o occurrence) bool { return o.inWordsOf(m) }) && !slices.ContainsFunc(occ, func(o occurrence) bool { return o.inWordsOf(q) }) {
			return false
		}
	}
	return true
}

// little reports a mail that says too little to leave a request in
// doubt, unless it narrows it by a person's name.
func (ml *mail) little() bool {
	return ml.words < unreadWords && !ml.narrows
}

// keepsTargetIn reports a mail that says not to touch an address the
// asking mail names ("Keep sales@ on, that one is shared. Just the other
// two please" over the three): it narrows the request, which the rule
// reads.
func (t *Ticket) keepsTargetIn(m int, w weighing) bool {
	kept := func(o occurrence) bool { return o.msg == m && o.zone == zExcept }
	asked := func(o occurrence) bool { return o.msg == w.asker && o.zone == zBody }
	for _, v := range t.order {
		if occ := t.records[v].occ; slices.ContainsFunc(occ, kept) && slices.ContainsFunc(occ, asked) {
			return true
		}
	}
	for _, p := range t.partials {
		if p.msg == m && p.zone == zExcept {
			return true
		}
	}
	return false
}

// newerAsksOtherWay reports a mail not ours, newer than the asking mail,
// that asks outright the other way from the proposal.
func (t *Ticket) newerAsksOtherWay(w *weighing, sts []mailStatement, own Own) bool {
	other := opposite(w.p.Mode)
	if w.asker < 0 || other == 0 {
		return false
	}
	for _, m := range t.newestFirst() {
		if m == w.asker {
			return false
		}
		// A transcript read from its end: its title was the first
		// mail's subject, older than the comments.
		if !t.ours(m, own) && sts[m].asks&other != 0 && sts[m].weak&other == 0 && !(t.chrono && t.titleBlock(m)) {
			return true
		}
	}
	return false
}

// opposite is the ask the other way from a mode that changes the list, 0
// for one that does not.
func opposite(m Mode) ask {
	switch m {
	case ModeAdd, ModeErase:
		return aRelease
	case ModeRemove, ModeRemoveIDs:
		return aSuppress
	}
	return 0
}

// subjectOtherWay reports a stop proposed under a subject of the asking
// mail, or a helpdesk's title over it, that asks only to get mail again
// and answers no earlier mail ("Voltar a receber e-mails" over words read
// only as a stop): one of the two is misread. (A reply's subject is the
// request it answers, which a newer mail may undo.)
func (t *Ticket) subjectOtherWay(w weighing, _ []mailStatement) bool {
	if w.asker < 0 || opposite(w.p.Mode) != aRelease {
		return false
	}
	if !slices.ContainsFunc(t.said, func(s said) bool {
		return s.subject && !s.reply && !s.fwd && (s.msg == w.asker || s.msg == 0 && t.titleBlock(0)) && s.asks&(aSuppress|aRelease) == aRelease
	}) {
		return false
	}
	// "sorry for the confusing subject: we do not want anything
	// unblocked": the words answer the subject.
	return !slices.ContainsFunc(t.said, func(s said) bool { return !s.subject && s.msg == w.asker && deniesRelease(t.lines[s.line]) })
}

// deniesRelease reports a line that says not to release ("we do not want
// anything unblocked").
func deniesRelease(text string) bool {
	ws := wordsOf(nil, text)
	return slices.ContainsFunc(phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations]), func(m match) bool {
		return m.negated && classWays[m.class].ask&aRelease != 0
	})
}

// titleBlock reports the first mail of a helpdesk's export, its title and
// fields over the comments.
func (t *Ticket) titleBlock(m int) bool {
	if m != 0 {
		return false
	}
	for _, ml := range t.mails[1:] {
		if ml.helpdesk {
			return true
		}
	}
	return false
}

// selfOverOursToAnother reports an asking mail that names no address and
// asks for its writer, over a mail of ours among the targets whose
// recipient is neither the writer nor ours.
func (t *Ticket) selfOverOursToAnother(w weighing, own Own) bool {
	if w.asker < 0 || t.mails[w.asker].named > 0 || !t.asksForSelf(w.asker) {
		return false
	}
	from := t.mails[w.asker].from
	for _, v := range t.order {
		rec := t.records[v]
		if rec == nil || v == from || t.isOurs(v, own) {
			continue
		}
		for _, o := range rec.occ {
			if (o.zone == zRecipient || o.zone == zHeader) && o.msg != w.asker && !t.mails[o.msg].bounce && t.ours(o.msg, own) {
				return true
			}
		}
	}
	return false
}

// asksForSelf reports a line of mail m that asks a change for its writer.
func (t *Ticket) asksForSelf(m int) bool {
	for _, s := range t.said {
		if s.msg == m && !s.subject && (s.self == sSuppress || s.self == sRelease) {
			return true
		}
	}
	return false
}

// toldInTargets reports a target mail that names an address in an
// earlier request told as history.
func (t *Ticket) toldInTargets(w weighing) bool {
	for m := range w.targets {
		if t.mails[m].story {
			return true
		}
	}
	return false
}

// keepsSomeID reports a target mail with a sentence that names an ID and
// keeps something without saying plainly which.
func (t *Ticket) keepsSomeID(w weighing) bool {
	for m := range w.targets {
		if t.mails[m].keepsSomeID {
			return true
		}
	}
	return false
}

// missingBefore reports an older mail, not ours, that says mail does not
// arrive under an asking mail that says no such thing: "just take me off
// the list" under "my receipts never show up" may mean the marketing
// only, or everything; which list is for the writer to say. A newest
// mail that takes the older request back ("forget my last mail: send us
// nothing") has said so.
func (t *Ticket) missingBefore(asker int, sts []mailStatement, own Own) bool {
	if asker < 0 || sts[asker].missing || sts[asker].asks&aWithdraw != 0 || t.mails[asker].bounce {
		return false
	}
	for m := t.after(asker); m < len(t.mails); m = t.after(m) {
		if !t.ours(m, own) && sts[m].missing && !t.mails[m].bounce {
			return true
		}
	}
	return false
}

// newestAsking finds, among the mails not ours, the newest that asks or
// names targets (the anchor) and the newest whose words ask (the asker);
// a note that only passes a request on is neither. A cover note that asks
// too ("see below: could you put Tom's address back on?") is the asker
// when no mail under it asks.
func (t *Ticket) newestAsking(sts []mailStatement, own Own) (anchor, asker int) {
	a := asking{t: t, sts: sts, own: own, anchor: -1, cover: -1, title: -1}
	internal := t.internal(own)
	for _, m := range t.newestFirst() {
		if t.ours(m, own) && !internal {
			continue
		}
		if a.anchor < 0 && t.anchors(m, sts[m]) {
			a.anchor = m
		}
		if asker, done := a.see(m); done {
			return a.anchor, asker
		}
	}
	if a.cover < 0 && a.title >= 0 {
		return a.anchor, a.title
	}
	return a.anchor, a.cover
}

// asking follows the mails, newest first, for newestAsking: the anchor,
// a cover note that asks, a helpdesk's title that names an action only in
// passing.
type asking struct {
	t                    *Ticket
	sts                  []mailStatement
	own                  Own
	anchor, cover, title int
}

// see reads mail m: done with the asker when it decides.
func (a *asking) see(m int) (asker int, done bool) {
	st := a.sts[m]
	switch {
	case st.asks == 0:
	case a.title < 0 && (st.asks&changing == st.weak&changing || a.t.chrono) && a.t.titleBlock(m):
		// A helpdesk's title that names an action only in passing
		// ("Riattivare le email per l'ufficio acquisti") over the
		// customer's mail that asks it outright: the mail decides. So
		// does the newest mail that asks of a transcript read from its
		// end: the title was the first mail's.
		a.title = m
	case a.title >= 0 && !a.t.chrono && m != a.t.firstMail(func(k int) bool { return !a.t.ours(k, a.own) }, a.t.after(a.title)):
		// Only the mail right under the title speaks for it.
		return a.title, true
	case !st.cover && (st.asks&changing != 0 || !a.t.coverChanges(a.sts, a.cover)):
		return m, true
	case !st.cover:
		// "I'm not getting the plannings" under a cover note that
		// asks to unblock: the cover's request decides.
		return a.cover, true
	case a.cover < 0:
		a.cover = m
	}
	return -1, false
}

// anchors reports a mail that asks or names targets, and is not a cover
// note that asks nothing.
func (t *Ticket) anchors(m int, st mailStatement) bool {
	names := t.mails[m].named+t.mails[m].ids > 0
	return (st.asks|st.subjectAsks != 0 || names) && !(st.cover && st.asks == 0)
}

// internal reports a ticket every mail of which our own people wrote (a
// colleague asks support to release suppressions, our privacy officer
// passes on an erasure, a colleague forwards a bounce report): their words
// decide, as a customer's would.
func (t *Ticket) internal(own Own) bool {
	for m, ml := range t.mails {
		if !t.ours(m, own) && !ml.bounce && !isSystem(ml.from) && !(ml.empty() && (m > 0 || ml.words == 0)) {
			return false
		}
	}
	return len(t.mails) > 0
}

// empty reports a mail of no one with nothing in it: what a forward
// marker ("-------- Message transféré --------") begins before the header
// block that begins the real one, or a bounce report's parts.
func (ml *mail) empty() bool {
	return ml.from == "" && ml.named+ml.ids == 0 && ml.words < 5
}

// coverChanges reports a cover note (mail c, -1 for none) that asks to
// change the list, which a mail under it that only asks (a check, "I'm
// not getting your mails") does not overrule.
func (t *Ticket) coverChanges(sts []mailStatement, c int) bool {
	return c >= 0 && sts[c].asks&changing != 0
}

// firstMail is the first mail from from on that ok holds for, -1 for none.
func (t *Ticket) firstMail(ok func(m int) bool, from int) int {
	for _, m := range t.olderFrom(from) {
		if ok(m) {
			return m
		}
	}
	return -1
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
	named := t.mails[a].ids > 0 || t.namesOthers(a, own)
	if t.older(w.asker, a) && (!named || !t.ours(w.asker, own)) {
		// Our agent's question ("block p1@… or p2@…?") is not the
		// answer's targets when the answer names its own.
		w.targets[w.asker] = true
	}
	t.underTitle(w, own)
	if t.ownTargets(a, st, named) {
		return
	}
	for _, m := range t.olderFrom(t.after(a)) {
		// Ours too when the anchor names nothing: "yes, please unblock
		// it" answers our agent's mail that names it; not our bot's
		// ("You'll get replies here and by email at nadia@…").
		if !t.ours(m, own) || !named && !t.bot(m) {
			w.targets[m] = true
		}
	}
}

// underTitle takes in, when the anchor is the title block of a transcript
// read from its end (kept first, though its comments are newer), the
// comments not ours older than the asking one: what the request stands
// on too ("… our bookkeeping mail with ID …. Can you release it?", then
// "It works again, so just release it").
func (t *Ticket) underTitle(w *weighing, own Own) {
	if !t.chrono || w.anchor == w.asker || !t.titleBlock(w.anchor) {
		return
	}
	for _, m := range t.olderFrom(t.after(w.asker)) {
		if !t.ours(m, own) {
			w.targets[m] = true
		}
	}
}

// ownTargets reports an anchor mail whose targets are its own, not the
// older mails' under it: it names addresses, narrows to some ("just me
// please"), or asks only about its writer; unless it points below. "Just
// block these": a narrowing that names nothing narrows nothing.
func (t *Ticket) ownTargets(a int, st mailStatement, named bool) bool {
	return (named || st.only && len(t.partials) > 0 || st.onlySelf || t.asksOnlyForWriter(a, st)) && !st.below
}

// bot reports a mail of a helpdesk's bot ("Operator", "Vendora Bot"),
// which tells where replies go and answers nothing.
func (t *Ticket) bot(m int) bool {
	team := t.mails[m].team
	return team == "bot" || team == "operator" || strings.HasSuffix(team, " bot") || t.mails[m].auto
}

// asksOnlyForWriter reports a mail m from a known sender whose words ask
// only about its writer ("Unsubscribe" over the newsletter it answers):
// the addresses of the mails under it are not its targets.
func (t *Ticket) asksOnlyForWriter(m int, st mailStatement) bool {
	return st.asks != 0 && !st.others && t.mails[m].from != ""
}

// modeCase is what the rules of the mode read: what the asking mail asks
// (its words, else its subject), which asks only a lone verb says, and
// what its target mails name.
type modeCase struct {
	asks, weak ask
	// followed: the places the words pick among the listed IDs are
	// followed (ordinal.go), and no line picks by a condition besides
	// ("release those two, the ones marked spam report. The third …").
	followed bool
	// placed: a mail newer than the asking mail names a place in a list
	// and IDs of its own ("Scratch the second one").
	placed bool
	// fewer: the asking mail asks a change of a bare count of the IDs
	// listed, fewer than listed ("release the two bounce ones" over
	// three).
	fewer      bool
	st         mailStatement
	ids, addrs int
	// named: the addresses the asking mail's words name, the writer's
	// own among them.
	named int
	// namedOthers: those of them not its writer's From address.
	namedOthers int
	// distinct: the addresses the target mails' words name as such,
	// each once, not those they say to leave ("… compta@…, that one
	// works").
	distinct int
	bounce   bool
	// unread: only the subject asks, and the words name an address amid
	// words the books do not read.
	unread bool
	// described: the asking mail gives one address the description it
	// picks its target by ("den gamle adressen post@…").
	described bool
	// split: the bounce statuses split the recipients into hard and
	// soft failures, the soft ones left out.
	split bool
}

// subjectWay is the one way the mail's own subject asks (aSuppress or
// aRelease), when the words ask too and it is not a reply's: 0 for none
// or both.
func (c modeCase) subjectWay() ask {
	if !c.st.subjectOwn || c.st.asks == 0 {
		return 0
	}
	switch c.st.subjectAsks & (aSuppress | aRelease) {
	case aSuppress:
		return aSuppress
	case aRelease:
		return aRelease
	}
	return 0
}

// changing are the asks that change the list.
const changing = aSuppress | aRelease | aRemove

// modeRule is one rule of the mode: when it holds, the proposal is mode,
// its evidence the first line of the ask by names, for why.
type modeRule struct {
	when func(c modeCase) bool
	mode Mode
	by   func(c modeCase) ask
	why  string
}

// the evidence of a rule: a fixed ask, or the first of two the case has.
func of(a ask) func(modeCase) ask        { return func(modeCase) ask { return a } }
func either(a, b ask) func(modeCase) ask { return func(c modeCase) ask { return pick(c.asks, a, b) } }
func firstChange(c modeCase) ask         { return lowest(c.asks &^ aCheck) }

// modeRules are the rules of the mode, tried in order.
var modeRules = []modeRule{
	{func(c modeCase) bool { return c.asks&aWithdraw != 0 && c.asks&changing == 0 }, ModeCheck, of(aWithdraw), "takes the request back: change nothing"},
	// "Just the first two please" under a list of IDs, in a line of its
	// own or in the request ("¿Me pueden liberar los dos primeros?"):
	// which two, a person must say.
	{func(c modeCase) bool {
		return c.ids > 0 && (c.st.picks || c.st.ordinal || c.st.selective || c.placed || c.fewer) && !c.followed && c.asks&changing != 0
	},
		ModeUnsure, firstChange, "picks its IDs in words the rule cannot follow: choose them by hand"},
	// "… suppressed after a spam complaint …. Could you please release
	// both?": a stop named only in passing gives way to a release asked
	// outright.
	{func(c modeCase) bool {
		return c.ids > 0 && c.asks&(aRelease|aRemove) != 0 &&
			(c.asks&aSuppress == 0 || c.weak&aSuppress != 0 && c.weak&(aRelease|aRemove) == 0 || !c.st.stopAsked && c.st.asks != 0)
	}, ModeRemoveIDs, either(aRelease, aRemove), "asks to release suppression IDs"},
	{func(c modeCase) bool { return c.ids > 0 && c.addrs == 0 }, ModeUnsure, firstChange, "names suppression IDs, which can only be removed"},
	// A suppression's ID is an entry on the list already: a stop beside
	// IDs says one of the two wrong ("these IDs were marked as spam").
	{func(c modeCase) bool { return c.ids > 0 && c.asks&aSuppress != 0 }, ModeUnsure, of(aSuppress), "names suppression IDs, which are on the list already, and asks to stop mail"},
	// "If they are (blocked), please unblock both": a release takes off
	// only what is listed; a stop on that condition is still a choice.
	{func(c modeCase) bool {
		return (c.st.selective || c.st.describes && !c.described || c.st.ifListed && c.asks&changing != aRelease || c.st.bySplit && !c.split) && c.asks&changing != 0
	}, ModeUnsure, firstChange, "picks its targets by a condition: choose them by hand"},
	// "Please stop the newsletters, but I still need the invoices": a
	// block stops every mail to the address, the invoices too.
	{func(c modeCase) bool { return c.st.keepsSome && c.asks&aSuppress != 0 }, ModeUnsure, of(aSuppress), "asks to stop mail but to keep some of it, and a block stops all mail to an address"},
	// Only the subject asks, and the words name an address amid words
	// the books do not read, beside another: what they say of each is
	// not known ("stop a@…, but b@… may stay" in a language without a
	// book).
	{func(c modeCase) bool { return c.unread && c.asks&changing != 0 }, ModeUnsure, firstChange, "only its subject asks; its words say something of its addresses the rule does not read"},
	// "Please stop sending to her address" over two addresses: whose?
	{func(c modeCase) bool { return c.st.someone && c.distinct > 1 }, ModeUnsure, firstChange, "asks about one person's address and names several: choose it by hand"},
	// "Block the old one" over two addresses: which is old, a person
	// must say.
	{func(c modeCase) bool { return c.st.oneOf && !c.described && max(c.addrs, c.named) > 1 }, ModeUnsure, firstChange, "asks about one of its addresses without saying which: choose it by hand"},
	// "Can you stop sending to this address please" under three
	// addresses in the same mail's words.
	{func(c modeCase) bool { return c.st.thisOne && c.namedOthers > 1 }, ModeUnsure, firstChange, "asks about one of its addresses without saying which: choose it by hand"},
	// "Can you see if she's on some kind of block list? Please don't
	// change anything yet, she thinks someone may have hit unsubscribe":
	// a question, and a verb told in passing; checking changes nothing.
	{func(c modeCase) bool {
		return c.asks&changing != 0 && c.asks&changing == c.weak&changing && c.asks&aCheck != 0 && c.st.question && !c.bounce
	}, ModeCheck, of(aCheck), "only asks whether they are blocked (an action is named only in passing)"},
	// Only a lone verb asks ("I clicked unsubscribe by accident").
	{func(c modeCase) bool { return c.asks&changing != 0 && c.asks&changing == c.weak&changing && !c.bounce },
		ModeUnsure, firstChange, "names an action only in passing"},
	// "If so, she'd rather sign up again herself, so please don't
	// touch anything": mail again, and nothing changed; a person reads
	// which.
	{func(c modeCase) bool { return c.st.keepsAll && c.asks&aRelease != 0 }, ModeUnsure, of(aRelease), "asks to get mail again and to change nothing"},
	// "No mails arrive any more" beside a stop: which is it?
	// Its own subject asking mail again says which ("please unblock our
	// address": "they never come through, remove it from that list").
	{func(c modeCase) bool {
		return c.st.missing && c.asks&(aSuppress|aRemove) != 0 && c.asks&aRelease == 0 &&
			!(c.asks&aSuppress == 0 && !c.bounce && c.subjectWay() == aRelease)
	},
		ModeUnsure, either(aSuppress, aRemove), "says mail does not arrive and asks to stop it"},
	// "I unsubscribed by mistake last week, can you put me back?", "a
	// settembre vi avevamo chiesto di bloccarla … Ora è di nuovo attiva:
	// potete riattivarla?": the stop told is what the request undoes.
	{func(c modeCase) bool {
		return c.asks&aRelease != 0 && c.asks&stops != 0 && c.asks&stops&^c.st.past == 0
	}, ModeRemove, of(aRelease), "asks to get mail again; the stop it tells is what it undoes"},
	// "I think I hit unsubscribe by mistake last week.": a stop told
	// as a mistake, and nothing asked: undo it, or leave it? A person
	// says.
	{func(c modeCase) bool {
		return c.asks&aRelease == 0 && c.st.slipOnly
	}, ModeUnsure, either(aSuppress, aRemove), "tells of a stop made by mistake and asks nothing of it"},
	// "I meant to unsubscribe my old address; put this one back": a lone
	// verb gives way to a phrase that asks the other way.
	{func(c modeCase) bool {
		return c.asks&aRelease != 0 && c.asks&(aSuppress|aRemove) != 0 && c.weak&(aSuppress|aRemove) != 0 && c.weak&aRelease == 0
	}, ModeRemove, of(aRelease), "asks to get mail again"},
	// A stop said outright beside mail again said only in passing is
	// still both ways: never a stop the review did not see ("I only want
	// to get the invoices again, stop everything else").
	{func(c modeCase) bool { return c.asks&aRelease != 0 && c.asks&aSuppress != 0 }, ModeUnsure, of(aRelease), "asks both ways"},
	{func(c modeCase) bool { return c.asks&aRelease != 0 }, ModeRemove, of(aRelease), "asks to get mail again"},
	// "Delete all the data you hold on me" (remove, beside a phrase of
	// erasure): forgotten, never put back on the mailing.
	{func(c modeCase) bool { return c.asks&changing == aRemove && c.st.forgets }, ModeAdd, of(aRemove), "asks to be forgotten"},
	// "Could you remove it from that list?" under its own subject
	// "please unblock our address": the subject says which way.
	{func(c modeCase) bool { return c.asks&changing == aRemove && !c.bounce && c.subjectWay() == aRelease }, ModeRemove, of(aRemove), "asks to remove, and its subject asks to get mail again"},
	{func(c modeCase) bool { return c.asks&changing == aRemove && !c.bounce && c.subjectWay() == aSuppress }, ModeAdd, of(aRemove), "asks to remove, and its subject asks to get no more mail"},
	// "x@… doesn't exist anymore, please remove it": a dead address is
	// taken off the mailing, never put back on it.
	{func(c modeCase) bool { return c.asks&changing == aRemove && c.st.gone && !c.st.missing && !c.st.back }, ModeAdd, of(aRemove), "asks to remove an address that no longer exists"},
	// "It works again now, could you remove it?": off the suppression
	// list.
	{func(c modeCase) bool { return c.asks&changing == aRemove && c.st.back && !c.bounce }, ModeRemove, of(aRemove), "asks to remove an address that works again"},
	// "Please remove x@…" alone: off the mailing list, or off the
	// suppression list?
	{func(c modeCase) bool { return c.asks&changing == aRemove && !c.bounce }, ModeUnsure, of(aRemove),
		"asks to remove, which may mean to stop mail or to take off the suppression list"},
	// "Is x@… on a block list? …" beside a stop: to check first, or to
	// stop the mail? Blocking is no answer to someone asking whether
	// they are blocked.
	{func(c modeCase) bool { return c.st.question && c.asks&(aSuppress|aRemove) != 0 }, ModeUnsure, of(aCheck), "asks whether they are blocked and to get no more mail"},
	{func(c modeCase) bool { return c.asks&(aSuppress|aRemove) != 0 }, ModeAdd, either(aSuppress, aRemove), "asks to get no more mail"},
	{func(modeCase) bool { return true }, ModeCheck, of(aCheck), "only asks whether they are blocked"},
}

// decideMode reads the mode from the asking mail (its words, else its
// subject) by the first of the rules that holds, else from a bounce
// report among the targets.
func (t *Ticket) decideMode(w *weighing, sts []mailStatement, own Own) {
	if w.asker < 0 {
		t.noAsk(w)
		return
	}
	st := sts[w.asker]
	c := modeCase{asks: st.asks, weak: st.weak, st: st, bounce: t.bounceAmong(w), followed: w.ordinalKept != nil && !st.byCondition, placed: t.placedAround(*w)}
	if st.asks&changing == aRemove && t.forgottenBefore(w, own) {
		// "yes. delete all of it" under "delete all my data": the
		// erasure asked before, said outright.
		c.st.forgets, c.weak = true, c.weak&^aRemove
	}
	first := st.first
	if c.asks == 0 {
		c.asks, first = st.subjectAsks, st.subjectFirst
		// A reply's subject is the request it answers: words of the
		// reply the books do not read around an address may take it
		// back ("SV: Stop mails til lager@" over "… åbne for lager@…
		// igen").
		c.unread = t.mails[w.asker].unread && (t.namedDistinct(w, nil) > 1 || !st.subjectOwn)
	}
	t.countFor(&c, w, own)
	c.fewer = c.ids > 0 && t.countedFewer(*w, len(t.listedIDs(*w)))
	for _, r := range modeRules {
		if !r.when(c) {
			continue
		}
		t.propose(w, r.mode, first[bit(r.by(c))], r.why)
		w.withdrawn = r.mode == ModeCheck && c.asks&aWithdraw != 0 && c.asks&changing == 0
		if r.why == "asks both ways" {
			w.p.Evidence = append(w.p.Evidence, t.saying(first[bit(aSuppress)], "add"))
			w.p.Ask = append(w.p.Ask, "the ticket asks both to stop mail and to get it again")
		}
		return
	}
}

// countFor counts, for the mode's rules, the targets and the addresses
// the asking mail names, and finds the address it describes.
func (t *Ticket) countFor(c *modeCase, w *weighing, own Own) {
	c.ids, c.addrs = t.targetCounts(w)
	if c.st.describes || c.st.oneOf {
		_, c.described = t.described(w.asker)
	}
	c.split = t.splitKnown()
	c.named = t.wordsName(w.asker)
	if c.st.thisOne {
		c.namedOthers = t.wordsNameOthers(w.asker)
	}
	if c.st.someone {
		// "Can you tell me if her address is blocked?": whose, among
		// the addresses neither ours nor the writer's.
		writer := t.mails[w.asker].from
		c.distinct = t.namedDistinct(w, func(v string) bool { return v == writer || t.isOurs(v, own) })
	}
}

// wordsName counts the addresses mail m's words name, each once, the
// writer's own among them ("at two addresses, mine@… and old@…").
func (t *Ticket) wordsName(m int) int {
	return t.countAddresses(nil, func(o occurrence) bool { return o.msg == m && (o.zone == zBody || o.zone == zMention) })
}

// wordsNameOthers counts the addresses mail m's words name but its
// writer's From address.
func (t *Ticket) wordsNameOthers(m int) int {
	n := 0
	for _, v := range t.order {
		if rec := t.records[v]; rec != nil && v != t.mails[m].from && slices.ContainsFunc(rec.occ, func(o occurrence) bool {
			return o.msg == m && (o.zone == zBody || o.zone == zMention)
		}) {
			n++
		}
	}
	return n
}

// namedDistinct counts the addresses the target mails' words name, each
// once, but those skip holds for (nil: none).
func (t *Ticket) namedDistinct(w *weighing, skip func(v string) bool) int {
	return t.countAddresses(skip, func(o occurrence) bool { return o.zone == zBody && w.targets[o.msg] })
}

// countAddresses counts the addresses with an occurrence ok holds for,
// but those skip holds for (nil: none).
func (t *Ticket) countAddresses(skip func(v string) bool, ok func(o occurrence) bool) int {
	n := 0
	for _, v := range t.order {
		if rec := t.records[v]; rec != nil && (skip == nil || !skip(v)) && slices.ContainsFunc(rec.occ, ok) {
			n++
		}
	}
	return n
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
		if c, _ := firstPhrase(phraseBooks().trees[inWords], ws); c == cBounce && (best == 0 || n < best) {
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
	if mode == ModeUnsure && why != "asks both ways" {
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
	hints := map[string]string{} // by domain: a list names a few domains many times
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
		if hint := domainHint(hints, v); hint != "" && !own.Has(v) {
			hint = v[:strings.LastIndexByte(v, '@')+1] + hint
			w.p.Evidence = append(w.p.Evidence, Said{Line: rec.occ[0].line, Text: t.lines[rec.occ[0].line], Says: "did you mean " + hint + "? (" + v + " is sent as written)"})
		}
	}
	if written > 0 {
		w.p.Ask = append(w.p.Ask, fmt.Sprintf("%d %s written out in words: check and take in by hand", written, plural(written, "address is", "addresses are")))
	}
	t.unresolved(w)
	t.siblingSlips(w, own)
	t.asideNotes(w)
	t.elsewhereUnnamed(w)
	t.scattered(w, own)
}

// slipOf is the domain, among those counted, that d is one slip of the
// keys from and that more addresses have ("" for none): the most common,
// then the first in order.
func slipOf(d string, count map[string]int) string {
	best := ""
	for other, n := range count {
		if n > count[d] && editDistance(d, other, 1) == 1 && (best == "" || n > count[best] || n == count[best] && other < best) {
			best = other
		}
	}
	return best
}

// siblingSlips asks about an address the deciding words name whose
// domain is one slip of the keys from the domain more of the ticket's
// addresses have ("frontdesk.halifax@peakfroma.example" among
// "…@peakforma.example"): which is meant, a person must say; the
// address is sent as written unless the agent edits it.
func (t *Ticket) siblingSlips(w *weighing, own Own) {
	count := map[string]int{}
	for _, v := range t.order {
		count[v[strings.LastIndexByte(v, '@')+1:]]++
	}
	for _, v := range t.order {
		d := v[strings.LastIndexByte(v, '@')+1:]
		rec := t.records[v]
		if len(d) < 7 || providers[d] || own.Has(v) || rec == nil || !slices.ContainsFunc(rec.occ, func(o occurrence) bool { return o.zone == zBody && w.targets[o.msg] }) {
			continue
		}
		if best := slipOf(d, count); best != "" {
			line := rec.occ[0].line
			w.p.Evidence = append(w.p.Evidence, Said{Line: line, Text: t.lines[line], Says: "did you mean " + v[:len(v)-len(d)] + best + "? (" + v + " is sent as written)"})
			w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d: %s is one letter from %s, the domain of the ticket's other addresses: check it", line, v, best))
		}
	}
}

// unresolved asks about each address the deciding words name by its
// local part only ("the sales@ one") that is the local part of several
// addresses of the ticket: which is meant, a person must say. (One that
// names none is an invalid entry, shown as such and never sent.)
func (t *Ticket) unresolved(w *weighing) {
	seen := map[string]bool{}
	for _, p := range t.partials {
		l := strings.ToLower(p.local)
		if _, n := t.resolve(p.local); p.zone == zBody && w.targets[p.msg] && !seen[l] && n > 1 {
			seen[l] = true
			w.p.Evidence = append(w.p.Evidence, Said{Line: p.line, Text: t.lines[p.line], Says: "names " + p.local + "@… by its local part only"})
			w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d names %s@… by its local part only: choose the address by hand", p.line, p.local))
		}
	}
}

// domainHint is the domain Hint offers for the address v ("" for none),
// kept in seen by domain.
func domainHint(seen map[string]string, v string) string {
	domain := v[strings.LastIndexByte(v, '@')+1:]
	hint, ok := seen[domain]
	if !ok {
		if h, found := Hint(v); found {
			hint = h[strings.LastIndexByte(h, '@')+1:]
		}
		seen[domain] = hint
	}
	return hint
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

// keepsOwnUnnamed reports a deciding mail whose last word on the matter
// is a sentence, naming no address, that says mail is to keep coming,
// while its writer's own address is sent.
func (t *Ticket) keepsOwnUnnamed(w *weighing, own Own) bool {
	if w.asker < 0 {
		return false
	}
	keeps := false
	for _, s := range t.said {
		switch {
		case s.msg != w.asker || s.subject:
		case s.keepsUnnamed:
			keeps = true
		case s.asks&changing != 0:
			keeps = false // a later line asks again
		}
	}
	if !keeps {
		return false
	}
	from := t.mails[w.asker].from
	return from != "" && t.sentBy(w, own)[from]
}
