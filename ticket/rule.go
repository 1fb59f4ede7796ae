package ticket

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Whom a ticket is about. The top mail's sender is the requester, and is
// the same person wherever their address recurs (a signature, "(jane@…)"
// in the words). A requester who asks for themselves ("unsubscribe me",
// "I unsubscribed by mistake, put me back", "am I blocked?") is a target,
// and so are the copied colleagues they include ("me and my colleague
// (cc'd)"); otherwise they are left out. The address the ticket was sent
// to (our support mailbox) and our own addresses (config own) never go.
// Any other address goes if the words of the mails that decide (intent.go)
// name it; one the words say not to touch ("not x@…", "keep x@…"), one
// written out in words, one named only in an older mail or first in a
// header line, a reply attribution, a signature, a helpdesk's footer or as
// where the answer is to go is left out. Each decision carries its reason
// and the line that decided it.

// Reasons the rule gives.
const (
	ReasonOwn = "one of our own addresses"
	// ReasonProtected is the team's rule on the service (GET /team): the
	// service refuses to suppress the address.
	ReasonProtected      = "protected by the team's rules"
	ReasonSentTo         = "the address the ticket was sent to"
	ReasonRequester      = "the requester, who does not ask for themselves"
	ReasonRequesterAsks  = "the requester asks for themselves"
	ReasonRequesterNames = "the requester names their own address in a request"
	// ReasonMailedElsewhere: the requester asks for themselves, and our
	// footer pasted into their mail names the address our mail went to.
	ReasonMailedElsewhere = "the requester's, while our mail went to the address their pasted footer names"
	ReasonAnsweredAll     = "named in our question, which the requester answers for all it names"
	ReasonWantsMail       = "asks to get mail again, not to be suppressed"
	ReasonWantsNoMail     = "asks to get no more mail, not to be put back"
	ReasonColleague       = "a colleague the requester includes"
	ReasonCopied          = "copied on the ticket, not asked for"
	ReasonSender          = "the sender of a quoted or forwarded mail"
	ReasonHeader          = "only in a header line"
	ReasonAttribution     = "only in a reply attribution"
	ReasonSignature       = "only in a signature"
	ReasonContact         = "where the answer is to go, not a target"
	ReasonSendsFrom       = "the address mail is sent from, not a recipient"
	ReasonWriter          = "the writer's own address, not asked for"
	ReasonElsewhere       = "the address the writer writes from, not the one they ask about"
	ReasonExcept          = "the ticket says not to touch it"
	ReasonWritten         = "written out in words — check it, t takes it in"
	ReasonOtherID         = "the ID of something else (a trace or request ID), not a suppression's"
	ReasonUnpicked        = "its row of the pasted table is not among those the ticket asks for"
	ReasonNotPicked       = "its place in the list is not among those the ticket asks for"
	ReasonCheckOthers     = "the requester, whose question names other addresses"
	ReasonOlder           = "named only in an older mail, not in the request"
	ReasonWithdrawn       = "the request was taken back"
	ReasonFooter          = "only in a helpdesk's notification text"
	ReasonBounceMeta      = "in a bounce report, but not a recipient it failed to reach"
	ReasonNotOnly         = "the request asks only for other addresses"
	ReasonForwarder       = "passes on the request of the mail under theirs, not asked for"
	ReasonAside           = "named beside the request, in words that ask nothing of it — check"
	ReasonTransient       = "the bounce report only delays it (a temporary failure, still retried)"
)

// Evidence is the ticket line that decided: its number and its text (""
// past the first MiB of a huge text).
type Evidence struct {
	Line int    `json:"line"`
	Text string `json:"text,omitempty"`
}

// Decision is the rule's word on an address: whether it is left out, why,
// and the line that decided. The zero Decision is none: an address the
// ticket's words name (or any entry of a list, a CSV or JSON) simply goes.
type Decision struct {
	Reason string `json:"reason"`
	// Leave says the address is not sent.
	Leave bool `json:"-"`
	// Requester marks the ticket's requester.
	Requester bool     `json:"requester,omitempty"`
	By        Evidence `json:"decided_by"`
	// Overridden says who turned the rule's decision around ("" for
	// nobody): Override's texts, or the agent's flip in the UI.
	Overridden string `json:"overridden,omitempty"`
	// ways holds, for a requester or colleague who asks, the first line
	// that asks in each direction; For picks the batch's.
	ways *ways
}

// ways are the lines in which a requester asks to get no more mail (or
// just asks about themselves), and to get mail again (or just asks).
type ways struct {
	add, remove       Evidence
	hasAdd, hasRemove bool
}

// Direction is which way a batch changes the list.
type Direction bool

// The directions of a batch.
const (
	// Suppress adds to the list.
	Suppress Direction = true
	// Release takes off the list.
	Release Direction = false
)

// For is the decision for a batch going dir: a requester (or the
// colleague they include) who asks the other way is left out, with the
// line that says so. Roles gives decisions without a direction.
func (d Decision) For(dir Direction) Decision {
	w := d.ways
	if w == nil {
		return d
	}
	who := "the colleague: the requester "
	if d.Requester {
		who = "the requester "
	}
	switch {
	case dir == Suppress && w.hasAdd:
		d.By = w.add
	case dir == Release && w.hasRemove:
		d.By = w.remove
	case dir == Suppress:
		d.Reason, d.Leave, d.By = who+ReasonWantsMail, true, w.remove
	default:
		d.Reason, d.Leave, d.By = who+ReasonWantsNoMail, true, w.add
	}
	return d
}

// String cites the line: `line 6: "Please unsubscribe me…"` (its text cut
// to 60 characters), "line 6" without its text, "" for none. The text is
// the ticket's: sanitize it where it reaches a terminal.
func (e Evidence) String() string {
	switch {
	case e.Line == 0:
		return ""
	case e.Text == "":
		return "line " + strconv.Itoa(e.Line)
	}
	return fmt.Sprintf("line %d: %q", e.Line, cut(e.Text, 60))
}

// Text is the decision for people: the reason, the requester marked, an
// override said ("requester: …", "… (taken in by hand)").
func (d Decision) Text() string {
	s := d.Reason
	if d.Requester && !strings.Contains(s, "requester") {
		s = "requester: " + s
	}
	if d.Overridden != "" {
		s += " (" + d.Overridden + ")"
	}
	return s
}

// Decided reports whether the rule had something to say.
func (d Decision) Decided() bool { return d.Reason != "" }

// Fixed reports a decision nobody may turn around: our own addresses and
// the address the ticket was sent to (our support mailbox) are never sent.
func (d Decision) Fixed() bool {
	return d.Reason == ReasonOwn || d.Reason == ReasonSentTo || d.Reason == ReasonProtected
}

// Flip turns a decision around by hand (and back); a fixed one stays.
func (d Decision) Flip() Decision {
	if d.Fixed() || !d.Decided() {
		return d
	}
	d.Leave = !d.Leave
	switch {
	case d.Overridden != "":
		d.Overridden = ""
	case d.Leave:
		d.Overridden = "left out by hand"
	default:
		d.Overridden = "taken in by hand"
	}
	return d
}

// Decided is the rule's decision about one address of an input.
type Decided struct {
	Value string `json:"value"`
	Sent  bool   `json:"sent"`
	Decision
}

// NewDecided is the decision d about the address v.
func NewDecided(v string, d Decision) Decided { return Decided{Value: v, Sent: !d.Leave, Decision: d} }

// Override is the agent's word over the rule for a whole input; our own
// addresses and the one the ticket was sent to stay out whatever it says.
type Override int

const (
	// ByRule lets the rule decide.
	ByRule Override = iota
	// TakeInAll sends every address the rule leaves out but the fixed
	// ones (the old --include-requester).
	TakeInAll
	// LeaveOutPeople leaves out every address the rule takes in although
	// the ticket's words do not name it: the requester who asks for
	// themselves and the colleagues they include.
	LeaveOutPeople
)

// Apply turns d around as ov says.
func (ov Override) Apply(d Decision) Decision {
	switch {
	case ov == TakeInAll && d.Leave && !d.Fixed():
		d.Leave, d.Overridden = false, "taken in on request"
	case ov == LeaveOutPeople && d.Decided() && !d.Leave:
		d.Leave, d.Overridden = true, "left out on request"
	}
	return d
}

// OwnDecision is the decision about one of our own addresses, named on
// line (of t, which may be nil).
func (t *Ticket) OwnDecision(line int) Decision {
	return Decision{Reason: ReasonOwn, Leave: true, By: t.evidence(line)}
}

// Roles is the rule's decision about every address of the ticket it has
// something to say about, for our own addresses own, without a batch's
// direction (Decision.For weighs that): the one driver of the rule, for a
// paste and for a file read in one pass alike. An address it has nothing
// to say about (the words name it) is not in the map.
func (t *Ticket) Roles(own Own) map[string]Decision {
	f := t.facts(own)
	out := map[string]Decision{}
	for _, v := range t.order {
		if d := t.decide(v, t.records[v], own, f); d.Decided() {
			out[v] = d
		}
	}
	for v, line := range t.otherIDs {
		out[v] = Decision{Reason: ReasonOtherID, Leave: true, By: t.evidence(line)}
	}
	for v, line := range t.keptIDs {
		if _, ok := out[v]; !ok {
			out[v] = Decision{Reason: ReasonExcept, Leave: true, By: t.evidence(line)}
		}
	}
	for v, line := range f.w.ordinalKept {
		if _, ok := out[v]; !ok {
			out[v] = Decision{Reason: ReasonNotPicked, Leave: true, By: t.evidence(line)}
		}
	}
	for v, line := range t.unpicked {
		if d, ok := out[v]; !ok || !d.Leave {
			out[v] = Decision{Reason: ReasonUnpicked, Leave: true, By: t.evidence(line)}
		}
	}
	return out
}

// facts is what the rule finds once per ticket: the mails that decide,
// the requester, and the lines in which they ask about themselves and
// include their colleagues.
type facts struct {
	w          weighing
	req        person
	hasReq     bool
	self, coll *ways           // nil when no line asks
	copied     map[string]bool // the colleagues copied on the requester's mail
	partial    map[string][]occurrence
	forwarder  string // the top mail's sender, who passes on the requester's mail
	// only: the addresses a sentence that asks narrows the request to
	// ("block old.box only"), and the first line that does.
	only     map[string]bool
	onlyLine int
}

// facts finds the ticket's facts for own.
func (t *Ticket) facts(own Own) *facts { return t.factsOf(t.weigh(own), own) }

// factsOf finds the ticket's facts for own from its weighing w.
func (t *Ticket) factsOf(w weighing, own Own) *facts {
	f := &facts{w: w}
	f.partial = t.resolvePartials()
	f.only, f.onlyLine = t.narrowed(f)
	f.req, f.hasReq = t.requester(own, f.w)
	if !f.hasReq {
		return f
	}
	if f.req.msg != 0 && t.mails[0].from != "" && !t.isOurs(t.mails[0].from, own) {
		f.forwarder = t.mails[0].from
	}
	t.narrowToWriter(f)
	f.self = t.asks(f.req, false, f.w)
	f.coll = t.asks(f.req, true, f.w)
	if f.self == nil && f.coll == nil && (f.forwarder != "" || !t.hasRecipient(f.w, own, f.req.value)) {
		f.self = t.asksAboutNobody(f.req, f.w, own)
	}
	f.copied = map[string]bool{}
	for _, p := range t.copied {
		if p.msg == f.req.msg {
			f.copied[p.value] = true
		}
	}
	return f
}

// view is what the rule reads of an address's occurrences, for the mails
// that decide.
type view struct {
	first        occurrence
	asked        *occurrence // the first occurrence in the deciding words (zBody in a target mail)
	named        bool        // an occurrence in the deciding words, or mentioned there
	older        *occurrence // a body occurrence in a mail that does not decide
	mention      *occurrence // the first mention in the deciding words (zMention in a target mail, not the first occurrence)
	except, writ *occurrence
}

func (t *Ticket) view(rec *record, f *facts, v string) view {
	var vw view
	vw.first = rec.occ[0]
	occs := rec.occ
	if p, ok := f.partial[v]; ok {
		occs = append(occs[:len(occs):len(occs)], p...)
	}
	for i := range occs {
		vw.see(&occs[i], i, f.w)
	}
	return vw
}

// see notes the occurrence o (the i-th) of an address.
func (vw *view) see(o *occurrence, i int, w weighing) {
	tgt := w.targets[o.msg]
	switch {
	case o.zone == zExcept && (tgt || o.msg <= w.anchor) && !w.overruled[o.msg]:
		vw.except = o
	case o.zone == zWritten && vw.writ == nil:
		vw.writ = o
	case o.zone == zBody && tgt:
		keepFirst(&vw.asked, o)
		vw.named = true
	case o.zone == zBody && vw.older == nil:
		vw.older = o
	case o.zone == zMention && tgt && i > 0:
		keepFirst(&vw.mention, o)
		vw.named = true
	}
}

// keepFirst sets *p to o unless it holds one already.
func keepFirst(p **occurrence, o *occurrence) {
	if *p == nil {
		*p = o
	}
}

// decide is the rule for one address, with the ticket's facts: the first
// of the rules that has something to say.
func (t *Ticket) decide(v string, rec *record, own Own, f *facts) Decision {
	if rec == nil || len(rec.occ) == 0 {
		return Decision{}
	}
	c := ruleCase{t: t, v: v, vw: t.view(rec, f, v), f: f, own: own, req: f.hasReq && f.req.value == v}
	for _, rule := range addressRules {
		if d, ok := rule(c); ok {
			return d
		}
	}
	return Decision{Reason: zoneReason(c.vw.first.zone), Leave: true, By: t.evidence(c.vw.first.line)}
}

// ruleCase is one address as the rules read it.
type ruleCase struct {
	t   *Ticket
	v   string
	vw  view
	f   *facts
	own Own
	req bool // it is the requester
}

// addressRules are the rules for one address, in order; each says
// whether it decides.
var addressRules = []func(c ruleCase) (Decision, bool){
	func(c ruleCase) (Decision, bool) { return c.t.OwnDecision(c.vw.first.line), c.own.Has(c.v) },
	func(c ruleCase) (Decision, bool) {
		return Decision{Reason: ReasonSentTo, Leave: true, By: c.t.evidence(c.vw.first.line)}, c.vw.first.zone == zSentTo && !c.t.fromUs(c.own)
	},
	func(c ruleCase) (Decision, bool) {
		if c.vw.except == nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonExcept, Leave: true, By: c.t.evidence(c.vw.except.line), Requester: c.req}, true
	},
	func(c ruleCase) (Decision, bool) {
		if !c.f.w.withdrawn || c.vw.asked == nil && c.vw.older == nil && !c.req {
			return Decision{}, false
		}
		return c.t.withdrawn(c.vw, c.f, c.v), true
	},
	func(c ruleCase) (Decision, bool) {
		if c.f.only == nil || c.f.only[c.v] || c.vw.asked == nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonNotOnly, Leave: true, By: c.t.evidence(c.f.onlyLine), Requester: c.req}, true
	},
	func(c ruleCase) (Decision, bool) {
		if !c.req {
			return Decision{}, false
		}
		return c.t.requesterDecision(c.vw, c.f), true
	},
	func(c ruleCase) (Decision, bool) {
		if c.v != c.f.forwarder || c.vw.asked != nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonForwarder, Leave: true, By: c.t.evidence(c.vw.first.line)}, true
	},
	func(c ruleCase) (Decision, bool) {
		if !c.t.transient[c.v] || !c.t.onlyInReports(c.v) || c.f.w.p.Mode == ModeRemove {
			// A temporary failure is no reason to block an address; it is
			// none to keep one blocked when the ticket asks mail again.
			return Decision{}, false
		}
		return Decision{Reason: ReasonTransient, Leave: true, By: c.t.evidence(c.vw.first.line)}, true
	},
	func(c ruleCase) (Decision, bool) {
		if c.vw.writ == nil || c.vw.asked != nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonWritten, Leave: true, By: c.t.evidence(c.vw.writ.line)}, true
	},
	func(c ruleCase) (Decision, bool) { return Decision{}, c.vw.named },
	func(c ruleCase) (Decision, bool) {
		if !c.f.copied[c.v] || c.f.coll == nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonColleague, By: c.f.coll.first(), ways: c.f.coll}, true
	},
	func(c ruleCase) (Decision, bool) { return Decision{}, c.t.recipientAsked(c.vw.first, c.v, c.f, c.own) },
	func(c ruleCase) (Decision, bool) { return Decision{}, c.t.senderAsked(c.vw.first, c.v, c.f, c.own) },
	func(c ruleCase) (Decision, bool) {
		if c.vw.first.zone != zBody || c.vw.older == nil {
			return Decision{}, false
		}
		return Decision{Reason: ReasonOlder, Leave: true, By: c.t.evidence(c.vw.older.line)}, true
	},
}

// recipientAsked reports the recipient of a forwarded mail that the
// deciding mail points at without naming anyone ("please stop sending to
// his address, the one below"): a target, unless the requester asks for
// themselves or the forwarded mail is a bounce report or an automatic
// reply (whose recipient is the system that sent the mail it answers), or
// the mail came from someone else to the requester's own organization (a
// customer's complaint to "info@" that a partner passes on: "her address"
// is the customer's).
func (t *Ticket) recipientAsked(o occurrence, v string, f *facts, own Own) bool {
	a := f.w.anchor
	return o.zone == zRecipient && a >= 0 && f.w.targets[o.msg] && o.msg != a && f.self == nil &&
		t.mails[a].named == 0 && !t.mails[o.msg].bounce && !t.mails[o.msg].auto && t.mails[o.msg].named == 0 && f.w.p.Mode.Changes() &&
		!t.receivedFromOutside(o.msg, v, f, own)
}

// receivedFromOutside reports mail m, sent to v at the requester's
// domain, from a person who is neither the requester nor ours.
func (t *Ticket) receivedFromOutside(m int, v string, f *facts, own Own) bool {
	from := t.mails[m].from
	return f.hasReq && sameDomain(v, f.req.value) && from != "" && !sameDomain(from, f.req.value) &&
		!isSystem(from) && !t.isOurs(from, own) && !t.fromOurDomain(from)
}

// asksForOther reports a request whose words say it is for another
// person ("stop all mail to her address", "please unsubscribe him", "on
// behalf of my client", "she's still getting your reminders, can you
// stop those?").
func (t *Ticket) asksForOther(w weighing) bool {
	key := [2]int{w.p.By.Line, w.asker}
	t.forOther.mu.Lock()
	v, ok := t.forOther.m[key]
	t.forOther.mu.Unlock()
	if ok {
		return v
	}
	v = aboutSomeone(w.p.By.Text) || askedOfAnother(w.p.By.Text) || t.actsForOther(w.asker) || t.notSelfAt(w.p.By.Line)
	t.forOther.mu.Lock()
	t.forOther.m[key] = v
	t.forOther.mu.Unlock()
	return v
}

// notSelfAt reports the line n speaking of mail someone else receives.
func (t *Ticket) notSelfAt(n int) bool {
	for _, s := range t.said {
		if s.line == n && s.notSelf {
			return true
		}
	}
	return false
}

// decides reports a mail whose words decide: one of the targets' (any,
// when there are none) or the asker.
func (t *Ticket) decides(m int, wg weighing) bool {
	return len(wg.targets) == 0 || wg.targets[m] || m == wg.asker
}

// actsForOther reports a mail whose writer says they act for someone else
// ("on behalf of my client", "our former client has asked").
func (t *Ticket) actsForOther(m int) bool {
	for _, s := range t.said {
		if s.msg == m && s.behalf {
			return true
		}
	}
	return false
}

// senderAsked reports the sender of the forwarded mail that the deciding
// mail points at by whose address it is, naming none ("can you see
// whether her address is blocked?", "put Tom's address back on" over a
// mail from her, from him): a target, when the requester does not ask for
// themselves and that mail, not ours, is the only one forwarded from
// someone else.
func (t *Ticket) senderAsked(o occurrence, v string, f *facts, own Own) bool {
	a := f.w.anchor
	if o.zone != zFrom || a < 0 || o.msg == a || f.self != nil || t.mails[a].named != 0 {
		return false
	}
	m := t.mails[o.msg]
	if !t.sentByPerson(m, v, own) {
		return false
	}
	// "Block this customer" over the customer's own mail asks of its
	// sender too; over an automatic reply, whose sender may be gone, it
	// does not say which address.
	asked := !m.auto && f.w.p.Mode.Changes() && askedOfAnother(f.w.p.By.Text)
	return (pointsAtSomeone(f.w.p) || asked || t.coverPointsAtSomeone(a, f.w.p)) && t.onlySender(v, o.msg, a)
}

// fromOurDomain reports an address at the domain of the mailbox the
// ticket was sent to: a mail from there (a newsletter of ours forwarded,
// "news@…") is ours, and "his address" is whom it went to.
func (t *Ticket) fromOurDomain(v string) bool {
	d := v[strings.LastIndexByte(v, '@')+1:]
	for to := range t.sentTo {
		if to[strings.LastIndexByte(to, '@')+1:] == d {
			return true
		}
	}
	return false
}

// coverPointsAtSomeone reports a cover note (mail a) over the mail that
// decides whose asking line speaks of another person's address ("See
// below from our accountant. Could you check whether his address is on
// a block list?"), for a proposal that asks or checks.
func (t *Ticket) coverPointsAtSomeone(a int, p Proposal) bool {
	if !p.Mode.Changes() && p.Mode != ModeCheck || p.By.Line == 0 || t.mails[a].named != 0 {
		return false
	}
	for _, s := range t.said {
		if s.msg == a && s.asks != 0 && s.line != p.By.Line && aboutSomeone(t.lines[s.line]) {
			return true
		}
	}
	return false
}

// sentByPerson reports a forwarded or quoted mail m sent by v, a person:
// not a bounce report, a system's address or ours.
func (t *Ticket) sentByPerson(m mail, v string, own Own) bool {
	return (m.forward || m.depth > 0) && !m.bounce && m.from == v && !isSystem(v) && !t.isOurs(v, own) && !t.fromOurDomain(v)
}

// pointsAtSomeone reports a proposal that asks or checks, decided by words
// about another person's address ("her address", "Tom's address").
func pointsAtSomeone(p Proposal) bool {
	return (p.Mode.Changes() || p.Mode == ModeCheck) && aboutSomeone(p.By.Text)
}

// onlySender reports whether every mail but m and the anchor a is from v,
// from a's sender or from a system address.
func (t *Ticket) onlySender(v string, m, a int) bool {
	for i, ml := range t.mails {
		if i != m && i != a && ml.from != "" && ml.from != v && ml.from != t.mails[a].from && !isSystem(ml.from) {
			return false
		}
	}
	return true
}

// withdrawn is the decision about an address of a request taken back.
func (t *Ticket) withdrawn(vw view, f *facts, v string) Decision {
	d := Decision{Reason: ReasonWithdrawn, Leave: true, By: f.w.p.By, Requester: f.hasReq && f.req.value == v}
	if d.By.Line == 0 {
		d.By = t.evidence(vw.first.line)
	}
	return d
}

// requesterDecision is the rule for the requester.
func (t *Ticket) requesterDecision(vw view, f *facts) Decision {
	d := Decision{Requester: true}
	switch {
	case vw.writ != nil && vw.asked == nil:
		d.Reason, d.Leave, d.By = ReasonWritten, true, t.evidence(vw.writ.line)
	case vw.asked != nil && !t.onlyOnCards(f.req.value, f.w):
		d.Reason, d.By = ReasonRequesterNames, t.evidence(vw.asked.line)
	case vw.asked == nil && t.inQuestion(f.req.value, f.w) > 0:
		// "Both addresses, or only yours?" — "Yes, both".
		d.Reason, d.By = ReasonAnsweredAll, t.evidence(t.inQuestion(f.req.value, f.w))
	case t.keptWriter(f.req.msg) > 0:
		// "The one I'm writing from is fine": not theirs to send.
		d.Reason, d.Leave, d.By = ReasonExcept, true, t.evidence(t.keptWriter(f.req.msg))
	case f.self != nil && t.mails[f.req.msg].elsewhere > 0 && t.wordsNameOthers(f.req.msg) > 0:
		// "I'm writing from my work email … the account registered with
		// x@…": the request is about the address the words name.
		d.Reason, d.Leave, d.By = ReasonElsewhere, true, t.evidence(t.mails[f.req.msg].elsewhere)
	case f.self != nil && t.mailedElsewhere(f.req) > 0:
		// "the unsubscribe link does nothing; the footer: This email was
		// sent to x@…": the list's address is x@, not the sender's.
		d.Reason, d.Leave, d.By = ReasonMailedElsewhere, true, t.evidence(t.mailedElsewhere(f.req))
	case f.self != nil:
		d.Reason, d.ways = ReasonRequesterAsks, f.self
		d.By = f.self.first()
	case t.erasureListsOwn(vw, f):
		d.Reason, d.By = ReasonRequesterNames, t.evidence(vw.mention.line)
	default:
		d.Reason, d.Leave, d.By = ReasonRequester, true, t.evidence(f.req.line)
	}
	return d
}

// erasureListsOwn reports an erasure whose writer names their own
// address in its words ("I request the erasure of all my data. It
// concerns two addresses: k.nowak@… (current), …"), for themselves, not
// on behalf of another.
func (t *Ticket) erasureListsOwn(vw view, f *facts) bool {
	return vw.mention != nil && f.w.p.Mode == ModeErase && t.forgetsIn(f.req.msg) > 0 && !t.actsForOther(f.req.msg)
}

// forgetsIn is the first line of mail m's words that asks to be
// forgotten, 0 for none.
func (t *Ticket) forgetsIn(m int) int {
	for _, s := range t.said {
		if s.msg == m && s.forgets && !s.subject {
			return s.line
		}
	}
	return 0
}

// mailedElsewhere is the line of the requester's mail where our footer
// pasted into it names another address our mail went to, 0 for none.
func (t *Ticket) mailedElsewhere(req person) int {
	for _, p := range t.footerTo {
		if p.msg == req.msg && p.value != req.value {
			return p.line
		}
	}
	return 0
}

// onlyOnCards reports a requester whose address the target mails name
// only on lines that say who they are, a label, their name and their
// address ("Associated contact: Lina Holm (lina@…)", a CRM's or a
// helpdesk's field its books do not know), never on a line that asks:
// that names the requester, it asks nothing about them.
func (t *Ticket) onlyOnCards(v string, w weighing) bool {
	rec := t.records[v]
	if rec == nil {
		return false
	}
	for _, o := range rec.occ {
		if o.zone == zBody && w.targets[o.msg] && !t.cardLine(o.line, v) {
			return false
		}
	}
	return true
}

// cardLine reports line n as "Label: Name <v>" or "Label: Name (v)"
// that asks nothing.
func (t *Ticket) cardLine(n int, v string) bool {
	for _, s := range t.said {
		if s.line == n && s.asks != 0 {
			return false
		}
	}
	m := cardShape.FindStringSubmatch(t.lines[n])
	return m != nil && strings.EqualFold(m[1], v)
}

// cardShape is a label of up to three words, a name, and an address in
// angle brackets or parentheses, alone on its line.
var cardShape = regexp.MustCompile(`^\s*\pL[\pL-]*(?:\s+[\pL-]+){0,2}\s*:\s*\pL[\pL.'’ -]{1,60}?\s*[<(]\s*(?:mailto:)?([^\s<>()@]+@[^\s<>()]+?)\s*[>)]\s*$`)

// namesSomeone reports target mails that name an address not ours or an
// ID, even one written out in words ("the club's address: pat dot quinn
// at …") or by its local part, or that are a bounce report. A helpdesk's
// notice that names its own mailbox names no one.
func (t *Ticket) namesSomeone(w weighing, own Own) bool {
	for m := range w.targets {
		if t.namesOthers(m, own) || t.mails[m].ids > 0 || t.mails[m].bounce {
			return true
		}
	}
	return len(t.partials) > 0 || t.writtenIn(w)
}

// writtenIn reports an address written out in words in one of the
// target mails.
func (t *Ticket) writtenIn(w weighing) bool {
	return t.writtenWhere(func(m int) bool { return w.targets[m] })
}

// writtenWhere reports an address written out in words in a mail in
// holds for.
func (t *Ticket) writtenWhere(in func(m int) bool) bool {
	for _, v := range t.order {
		for _, o := range t.records[v].occ {
			if o.zone == zWritten && in(o.msg) {
				return true
			}
		}
	}
	return false
}

// keptWriter is the line of mail m that keeps the address its writer
// writes from, 0 for none.
func (t *Ticket) keptWriter(m int) int {
	for _, s := range t.said {
		if s.msg == m && s.keepsWriter {
			return s.line
		}
	}
	return 0
}

// zoneReason is why an address first named in zone z, and nowhere in the
// deciding words, is left out.
func zoneReason(z zone) string {
	switch z {
	case zFrom:
		return ReasonSender
	case zCopy:
		return ReasonCopied
	case zAttribution:
		return ReasonAttribution
	case zSignature:
		return ReasonSignature
	case zContact:
		return ReasonContact
	case zSendsFrom:
		return ReasonSendsFrom
	case zMention:
		return ReasonWriter
	case zAside:
		return ReasonAside
	case zFooter:
		return ReasonFooter
	case zBounceMeta:
		return ReasonBounceMeta
	case zWritten:
		return ReasonWritten
	case zBody:
		return ReasonOlder
	}
	return ReasonHeader
}

// first is the earlier of the lines that ask.
func (w *ways) first() Evidence {
	switch {
	case !w.hasAdd:
		return w.remove
	case !w.hasRemove || w.add.Line <= w.remove.Line:
		return w.add
	}
	return w.remove
}

// requester is the ticket's requester: the sender of its own (top) mail;
// without a From: line, who signs it; when the top mail is ours (an agent
// forwarding it), the first sender after it that is not; when the top
// mail only passes on a forwarded mail in which its writer asks about
// themselves ("can you sort this out?" over "please remove me"), that
// writer.
func (t *Ticket) requester(own Own, w weighing) (person, bool) {
	if p, ok := t.forwardedAsker(own, w); ok {
		return p, true
	}
	ours := false
	for _, p := range t.senders {
		if p.msg != 0 {
			continue
		}
		if !t.isOurs(p.value, own) && !isSystem(p.value) {
			return p, true
		}
		ours = ours || t.isOurs(p.value, own)
	}
	switch {
	case ours:
		// Our agent forwarded it: the first sender after who is not ours.
		return t.firstSender(func(p person) bool { return p.msg != 0 && !t.isOurs(p.value, own) && !isSystem(p.value) })
	case t.topFrom:
		return person{}, false
	}
	return t.unheadedRequester(own, w)
}

// unheadedRequester is the requester of a ticket without a From: line of
// its own: the author of a helpdesk export's first comment, the sender
// of the deciding mail when the ticket begins with its attribution, who
// signs the top mail with an address, else the sender of a quoted mail
// whose name the top mail is signed with (a reply to one's own mail).
func (t *Ticket) unheadedRequester(own Own, w weighing) (person, bool) {
	if p, ok := t.firstComment(own); ok {
		return p, true
	}
	if p, ok := t.deciderSender(own, w); ok {
		return p, true
	}
	if p, ok := t.selfNamed(own, w); ok {
		return p, true
	}
	if p, ok := t.mentionedWriter(own); ok {
		return p, true
	}
	for _, p := range t.signers {
		if !own.Has(p.value) {
			return p, true
		}
	}
	return t.signedSender(own)
}

// selfNamed is the one address a line of the deciding mail names while
// its writer speaks of themselves ("proszę o usunięcie mojego adresu
// tomasz@…"), before a signature's company address (biuro@…).
func (t *Ticket) selfNamed(own Own, w weighing) (person, bool) {
	if w.asker < 0 {
		return person{}, false
	}
	for _, s := range t.said {
		if s.msg != w.asker || s.subject || !s.names {
			continue
		}
		ws := wordsOf(nil, t.lines[s.line])
		for _, m := range phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations]) {
			if m.negated || classWays[m.class].self == sNone && m.class != cNotMe || m.end >= len(ws) {
				continue
			}
			// "mojego adresu tomasz@…", "mi dirección elena@…": the
			// address right after the words that name the writer.
			if v := normalized(strings.Trim(ws[m.end].s, "<>()[]\"'.,;:")); v != "" && !own.Has(v) && t.records[v] != nil {
				return person{value: v, msg: s.msg, line: s.line}, true
			}
		}
	}
	return person{}, false
}

// mentionedWriter is the one address the words of mails not ours give
// as their writer's own ("my email is dana@…" in a chat's turn), when
// the ticket has no header of its own.
func (t *Ticket) mentionedWriter(own Own) (person, bool) {
	var found person
	for _, v := range t.order {
		for _, o := range t.records[v].occ {
			if o.zone != zMention || t.ours(o.msg, own) || t.isOurs(v, own) {
				continue
			}
			if found.value != "" && found.value != v {
				return person{}, false
			}
			found = person{value: v, msg: o.msg, line: o.line}
		}
	}
	return found, found.value != ""
}

// signedSender is the one sender of a quoted mail whose name begins with
// the name the top mail is signed with ("Chiara" over "Chiara Galli
// <chiara@…> ha scritto:").
func (t *Ticket) signedSender(own Own) (person, bool) {
	if t.signName == "" {
		return person{}, false
	}
	var found person
	n := 0
	for _, p := range t.senders {
		name := t.senderNames[p.value]
		if p.msg == 0 || p.value == found.value || t.isOurs(p.value, own) || isSystem(p.value) || !firstNameIs(name, t.signName) {
			continue
		}
		found, n = p, n+1
	}
	// The top mail is theirs too.
	return person{found.value, 0, found.line}, n == 1
}

// firstNameIs reports a name (folded) whose first word is first.
func firstNameIs(name, first string) bool {
	f, _, _ := strings.Cut(name, " ")
	return f == first
}

// firstSender is the first sender ok holds for.
func (t *Ticket) firstSender(ok func(p person) bool) (person, bool) {
	for _, p := range t.senders {
		if ok(p) {
			return p, true
		}
	}
	return person{}, false
}

// firstComment is the author of a helpdesk export's first comment that is
// not ours, when the export has no mail header of its own.
func (t *Ticket) firstComment(own Own) (person, bool) {
	for _, p := range t.senders {
		if t.mails[p.msg].helpdesk && !own.Has(p.value) && !isSystem(p.value) {
			return p, true
		}
	}
	return person{}, false
}

// asksAboutNobody is, when the requester's own mail decides and asks
// something of nobody it names ("please put this one back on the
// newsletter"), the ways of that request: it is about the writer.
func (t *Ticket) asksAboutNobody(req person, w weighing, own Own) *ways {
	if w.asker < 0 || !w.p.Mode.Changes() && w.p.Mode != ModeCheck || w.p.By.Line == 0 || w.withdrawn {
		return nil
	}
	if w.asker != req.msg && t.mails[w.asker].from != req.value {
		return nil
	}
	if t.asksForOther(w) {
		return nil
	}
	if t.namesSomeone(w, own) {
		return nil
	}
	e := w.p.By
	switch w.p.Mode {
	case ModeAdd, ModeErase:
		return &ways{add: e, hasAdd: true}
	case ModeRemove, ModeRemoveIDs:
		return &ways{remove: e, hasRemove: true}
	}
	return &ways{add: e, remove: e, hasAdd: true, hasRemove: true}
}

// aboutSomeoneElse matches a request about a third person's address
// ("to her address", "Tom's address", "my mother's address", "the
// customer's mailbox"),
// which is never the writer's.
var aboutSomeoneElse = regexp.MustCompile(`(?i)\b(?:her|his|their|(?-i:\p{Lu})\pL+(?:'s|’s)|(?:my|our)\s+(?:\pL+\s+){0,2}\pL+(?:'s|’s|s'|s’)|(?:the|our|this|a)\s+(?:customer|client|user|subscriber|member|recipient|person|contact)(?:'s|’s|s'|s’)?)\s+(?:own\s+)?(?:e-?mail\s+|mail\s+)?(?:address(?:es)?|mailbox(?:es)?|inbox(?:es)?|e-?mails?)\b`)

// aboutSomeoneElseAbroad is aboutSomeoneElse in the other books'
// languages, where the possessive is not also the polite "your" ("Ihre
// Adresse" is, "seine" and "ihre" in lower case are not).
var aboutSomeoneElseAbroad = regexp.MustCompile(`(?i)\b(?:seine|seiner|seinen|(?-i:ihre|ihrer|ihren))\s+(?:e-?mail-?)?(?:adresse|postfach)|(?:son|sa)\s+(?:adresse|bo[iî]te|courriel|e-?mail)|suo\s+indirizzo|sua\s+(?:casella|e-?mail)|(?:endere[cç]o|e-?mail|caixa)\s+(?:dele|dela)|(?:direcci[oó]n|correo|cuenta)\s+de\s+(?:ella|[eé]l)|(?:haar|zijn)\s+(?:e-?mail)?(?:adres|mailbox|postvak)\b`)

// namedAbroad matches, in the other books' languages, a person's address
// by their name ("die Adresse von Frau Meier", "la dirección de Marta",
// "l'indirizzo della signora Bassi"); its group is the name, which must
// not be the polite "you" ("die Adresse von Ihnen").
var namedAbroad = regexp.MustCompile(`(?i:\b(?:e-?mail-?adresse|mailadresse|adresse|postfach)\s+von|\b(?:direcci[oó]n|correo|buz[oó]n|cuenta)\s+de(?:\s+la|\s+el)?|(?:\bl['’]|\b)adresse\s+(?:e-?mail\s+)?de|\bbo[iî]te\s+de|\b(?:indirizzo|casella)\s+(?:di|della|del|dello)|\b(?:endere[cç]o|caixa)\s+d[oa]|\b(?:e-?mail)?adres\s+van|\bmailbox\s+van)\s+(?:(?i:frau|herrn?|dr\.?|señora|señor|sra\.?|sr\.?|madame|monsieur|mme|m\.|signora|signor|sig\.?(?:ra)?|dott\.?(?:ssa)?|senhora|senhor|mevrouw|meneer|mevr\.?|dhr\.?)\s+)?(\p{Lu}\pL+)`)

// politeYou are the polite "you" of the books' languages, capitalized
// like a name.
var politeYou = map[string]bool{"Ihnen": true, "Ihrer": true, "Ihrem": true, "Sie": true, "Euch": true, "Usted": true, "Ustedes": true, "Vous": true, "Lei": true, "Voi": true, "Você": true, "U": true}

// namedAbroadAt is where the first phrase of namedAbroad about a person's
// name is in s, nil for none.
func namedAbroadAt(s string) []int {
	for _, m := range namedAbroad.FindAllStringSubmatchIndex(s, 4) {
		if !politeYou[s[m[2]:m[3]]] {
			return m[:2]
		}
	}
	return nil
}

// aboutSomeone reports a phrase about a third person's address in s, in
// any of the books' languages.
func aboutSomeone(s string) bool {
	return aboutSomeoneAt(s) != nil
}

// abroadWords are the possessives aboutSomeoneElseAbroad begins or ends
// with: a line with none of them is not read with it (a regular
// expression of many branches is slow on every line of a ticket).
var abroadWords = []string{"seine", "ihre", "son ", "sa ", "suo ", "sua ", "dele", "dela", "de ella", "de él", "de el", "haar ", "zijn "}

// mayBeAbroad reports a line that holds one of abroadWords.
func mayBeAbroad(s string) bool { return holdsAny(s, abroadWords) }

// holdsAny reports whether s, lower case, holds one of words.
func holdsAny(s string, words []string) bool {
	low := strings.ToLower(s)
	for _, w := range words {
		if strings.Contains(low, w) {
			return true
		}
	}
	return false
}

// aboutSomeoneAt is where the first phrase about a third person's address
// in s is, nil for none.
func aboutSomeoneAt(s string) []int {
	first := aboutSomeoneElse.FindStringIndex(s)
	var more [][]int
	if mayBeAbroad(s) {
		more = append(more, aboutSomeoneElseAbroad.FindStringIndex(s))
	}
	if mayNameAbroad(s) {
		more = append(more, namedAbroadAt(s))
	}
	for _, b := range more {
		if b != nil && (first == nil || b[0] < first[0]) {
			first = b
		}
	}
	return first
}

// mayNameAbroad reports a line namedAbroad may match: one with one of its
// words for an address (a regular expression of many branches is slow on
// every line of a ticket).
func mayNameAbroad(s string) bool { return holdsAny(s, namedAbroadNouns) }

// namedAbroadNouns are the words for an address namedAbroad begins with,
// lower case, their accents left out where they have one.
var namedAbroadNouns = []string{"adress", "postfach", "direcci", "correo", "buz", "cuenta", "indirizzo", "casella", "endere", "caixa", "mailbox", "bo"}

// askedOfOther matches a request made of another person ("please
// unsubscribe her", "take him off", "unsubscribe Jo", "stop emailing Mrs
// Lee", "remove the gentleman who…"), which is never about the writer.
var askedOfOther = regexp.MustCompile(`(?i)\b(?:unsubscribe|remove|block|suppress|delete|erase|unblock|release|resubscribe|take|put|add|let|opt|send|sending|emailing|mailing|contact|contacting|message|messaging)\s+(?:to\s+)?(?:him|her|(?-i:\p{Lu}\p{Ll}+)|(?:mr|mrs|ms|miss|dr)\.?\s+\pL+|(?:the|this|that)\s+(?:lady|man|gentleman|woman|person|guy|girl|boy|family|people|customer|client|user|subscriber|member|guest|patient|tenant|student))\b|\b(?:going|goes|go|coming|sent|sending|send)\s+to\s+them\b|\b(?:skicka|skickar|mejla|maila|sende|sender|maile)\s+(?:mer\s+|mere\s+)?(?:till?\s+)?(?:henne|honom|hende|ham)\b` +
	`|\b(?:sperre|sperr|spærre|spær|sperra|spärra|blokkere|blokker|blokere|blokér|blockera|fjerne|fjern|avmelde|avmeld|afmelde|afmeld|avregistrere|stoppe|stopp)\s+(?:denne\s+|den\s+här\s+|denna\s+)?(?:kunden|kunde|brukeren|brugeren|användaren|medlemmet|medlemmen|ham|henne|hende|honom)\b`)

// askedOfOtherAbroad is askedOfOther's German and French requests
// ("nehmen Sie ihn … heraus", "pouvez-vous la débloquer ?"), read only on
// a line that holds one of askedAbroadWords (a regular expression of many
// branches is slow on every proposal).
var askedOfOtherAbroad = regexp.MustCompile(`(?i)\b(?:nehmen|nehmt|tragen|tragt|melden|meldet|streichen|streicht|löschen|löscht|sperren|sperrt|entfernen|entfernt)\s+(?:sie\s+)?(?:bitte\s+)?(?:ihn|(?-i:Herrn?|Frau)\s+\pL+)\b` +
	`|\b(?:la|le|les)\s+(?:débloquer|debloquer|réinscrire|reinscrire|réactiver|reactiver|désinscrire|desinscrire|désabonner|desabonner|retirer|supprimer|bloquer|remettre)\b` +
	`|\b(?:débloquez|réinscrivez|réactivez|désinscrivez|désabonnez|retirez|supprimez|bloquez|remettez)-(?:la|le|les)\b`)

// askedAbroadWords are pieces of the words askedOfOtherAbroad's requests
// hold, lower case.
var askedAbroadWords = []string{"ihn", "herr", "frau", "bloqu", "inscri", "activ", "abonn", "retir", "supprim", "remett"}

// askedOfAnother reports a request made of another person in s, in any
// of the books' languages the rule reads it in.
func askedOfAnother(s string) bool {
	return askedOfOther.MatchString(s) || holdsAny(s, askedAbroadWords) && askedOfOtherAbroad.MatchString(s)
}

// hasRecipient reports a forwarded mail among the targets whose
// recipient the request may be about (recipientAsked): not one sent to us
// (a customer's mail to our support mailbox that our agent forwards), nor
// one sent to the requester (our newsletter they forward: "please stop
// sending messages to this address" is about them), nor one sent to the
// forwarder who signs the top mail (a theatre's box office passing on a
// patron's mail to it).
func (t *Ticket) hasRecipient(w weighing, own Own, req string) bool {
	for _, v := range t.order {
		if t.isOurs(v, own) || t.sentTo[v] || v == req || slices.ContainsFunc(t.signers, func(p person) bool { return p.value == v }) {
			continue
		}
		for _, o := range t.records[v].occ {
			if o.zone == zRecipient && w.targets[o.msg] && !t.mails[o.msg].bounce {
				return true
			}
		}
	}
	return false
}

// deciderSender is the sender of the mail that decides, when the ticket
// has no header of its own ("Rae Lin <rae@…> replied:" on its first
// line).
func (t *Ticket) deciderSender(own Own, w weighing) (person, bool) {
	if w.asker < 0 || t.namesOthers(0, own) {
		return person{}, false
	}
	for _, p := range t.senders {
		if p.msg == w.asker && !t.isOurs(p.value, own) && !isSystem(p.value) {
			return p, true
		}
	}
	return person{}, false
}

// asks finds, in the requester's mails that decide (else, when the
// deciding mails ask nothing, in any of theirs), the first line in which
// they ask about themselves (or, with colleague, include the colleagues)
// to get no more mail, and the first to get mail again; a line that just
// asks counts for both. A line that says it outright wins over a bare
// "Unsubscribe" (a subject's, say). It returns nil when no line asks.
func (t *Ticket) asks(req person, colleague bool, wg weighing) *ways {
	if wg.withdrawn {
		return nil
	}
	theirs := map[int]bool{req.msg: true}
	for _, p := range t.senders {
		if p.value == req.value {
			theirs[p.msg] = true
		}
	}
	fwd := t.firstForward()
	var w ways
	for _, bare := range []bool{false, true} {
		for _, s := range t.said {
			m := s.msg
			if s.fwd && fwd > 0 {
				m = fwd
			}
			if theirs[m] && t.decides(m, wg) && t.asksSelf(s, bare, colleague) && !t.subjectForOthers(s, m, wg) {
				w.note(t.evidence(s.line), s.self)
			}
		}
	}
	if !w.hasAdd && !w.hasRemove {
		return nil
	}
	return &w
}

// subjectForOthers reports a subject that does not ask about the writer:
// "unsubscribe" over "on behalf of my client", "remove our addresses"
// over mails that name them, a subject over words about someone else's
// address (bodyForSomeone).
func (t *Ticket) subjectForOthers(s said, m int, wg weighing) bool {
	return s.subject && (t.actsForOther(m) || s.colleague && t.targetsNamed(wg) || t.bodyForSomeone(m))
}

// bodyForSomeone reports a mail whose words ask a change about someone
// else's address they do not give ("his mailbox forwards to me … can you
// stop sending to him?") and none for the writer: a subject "ex staff
// still getting your emails" over it is about that person too.
func (t *Ticket) bodyForSomeone(m int) bool {
	someone := false
	for _, s := range t.said {
		switch {
		case s.msg != m || s.subject:
		case s.self == sSuppress || s.self == sRelease:
			return false
		case s.someone:
			someone = true
		}
	}
	return someone
}

// targetsNamed reports target mails whose words name addresses: a
// subject asking for "our addresses" over them is about those.
func (t *Ticket) targetsNamed(wg weighing) bool {
	for m := range wg.targets {
		if t.mails[m].named > 0 {
			return true
		}
	}
	return false
}

// note takes a line that asks self (a line that just asks counts for
// both ways) where none asked that way before.
func (w *ways) note(e Evidence, self selfWay) {
	if !w.hasAdd && self != sRelease {
		w.add, w.hasAdd = e, true
	}
	if !w.hasRemove && self != sSuppress {
		w.remove, w.hasRemove = e, true
	}
}

// asksSelf reports whether the line s asks about the requester (or their
// colleagues) in the pass for bare lines or not.
func (t *Ticket) asksSelf(s said, bare, colleague bool) bool {
	switch {
	case s.bare != bare, colleague && !s.colleague, !colleague && s.self == sNone:
		return false
	case colleague && s.self == sNone && s.names:
		// "Two people on my team, Oscar (o@…) and Nell (n@…)": the
		// colleagues are the ones the line names, not those copied.
		return false
	case s.bare && (t.mails[s.msg].named > 0 || t.writtenWhere(func(m int) bool { return m == s.msg })):
		// "Unsubscribe" over a mail that names an address, even one
		// written out in words.
		return false
	}
	return true
}

// resolvePartials finds what a partial address in the words ("only the
// info@ one") names: the one address of the ticket with that local part.
func (t *Ticket) resolvePartials() map[string][]occurrence {
	if len(t.partials) == 0 {
		return nil
	}
	out := map[string][]occurrence{}
	for _, p := range t.partials {
		if match, n := t.resolve(p.local); n == 1 && len(out[match]) < maxOccurrences {
			out[match] = append(out[match], p.occurrence)
		}
	}
	return out
}

// resolveMailboxes makes the words beside a word for a mailbox that are
// the local part of one address of the ticket ("the info address" over
// info@…) partial addresses the words name, once the whole ticket is
// read; the others stay words.
func (t *Ticket) resolveMailboxes() {
	for _, p := range t.mailboxes {
		v, n := t.resolve(p.local)
		if n != 1 || t.onlyWritten(v) {
			continue
		}
		t.partials = append(t.partials, p)
		if p.zone == zBody {
			t.mails[p.msg].named++
		}
	}
	t.mailboxes = nil
}

// resolveSignaturePoints makes the one address of a mail's signature,
// other than the mail's sender, an address its words name when a line of
// it points there ("It's the one in my signature below"); a signature of
// several such addresses stays a signature (the review asks which).
func (t *Ticket) resolveSignaturePoints() {
	for _, p := range t.sigPoints {
		var in []string
		for _, v := range t.order {
			if v != t.mails[p.msg].from && slices.ContainsFunc(t.records[v].occ, func(o occurrence) bool { return o.zone == zSignature && o.msg == p.msg }) {
				in = append(in, v)
			}
		}
		if len(in) != 1 {
			continue
		}
		if _, n := t.resolve(localPart(in[0])); n == 1 {
			t.partials = append(t.partials, partial{local: localPart(in[0]), occurrence: p})
			t.mails[p.msg].named++
		}
	}
}

// onlyWritten reports an address the ticket only writes out in words:
// the agent takes it in by hand, so nothing names it for them.
func (t *Ticket) onlyWritten(v string) bool {
	rec := t.records[v]
	if rec == nil {
		return false
	}
	for _, o := range rec.occ {
		if o.zone != zWritten {
			return false
		}
	}
	return true
}

// resolve is the first address of the ticket whose local part is local,
// and how many have it (up to 2).
func (t *Ticket) resolve(local string) (string, int) {
	match, n := "", 0
	for _, v := range t.order {
		if at := strings.LastIndexByte(v, '@'); at > 0 && strings.EqualFold(v[:at], local) {
			if n++; n > 1 {
				break
			}
			match = v
		}
	}
	return match, n
}

// narrowed finds the addresses a sentence of the deciding words asks for
// while narrowing the request to them ("please block old.box only"), and
// the first line that does: nil when no such sentence names one.
func (t *Ticket) narrowed(f *facts) (map[string]bool, int) {
	var only map[string]bool
	line := 0
	see := func(v string, o occurrence) {
		bare := o.only == nBare && o.msg == f.w.anchor && t.older(f.w.asker, f.w.anchor)
		if o.only != nAsked && !bare || o.zone != zBody || !f.w.targets[o.msg] {
			return
		}
		if only == nil {
			only = map[string]bool{}
		}
		only[v] = true
		if line == 0 || o.line < line {
			line = o.line
		}
	}
	for _, v := range t.order {
		for _, o := range t.records[v].occ {
			see(v, o)
		}
		for _, o := range f.partial[v] {
			see(v, o)
		}
	}
	return only, line
}

// narrowToWriter narrows the request to the requester where a line of
// theirs that decides says so after an address it names ("my manager
// uses it too, jess@…, she gets everything, it's just me"): the
// addresses the words name are left out, as "block old.box@… only"
// leaves the others.
//
// A later mail of the requester that names no address and says "only
// me" narrows their earlier request the same way ("correction to my last
// message: leave my wife's on the list, so only my address off").
func (t *Ticket) narrowToWriter(f *facts) {
	newer := t.newerThan(f.w.asker)
	for _, s := range t.said {
		if s.msg != f.req.msg && t.mails[s.msg].from != f.req.value {
			continue
		}
		if !(s.onlyWriter && t.decides(s.msg, f.w)) && !(s.onlyMe && newer[s.msg] && t.mails[s.msg].named == 0) {
			continue
		}
		if f.only == nil {
			f.only = map[string]bool{}
		}
		f.only[f.req.value] = true
		if f.onlyLine == 0 || s.line < f.onlyLine {
			f.onlyLine = s.line
		}
		return
	}
}

// forwardedAsker is the sender of the mail that decides, when it is
// forwarded or quoted under a top mail by someone else (not ours) that
// asks nothing itself, and its writer asks about themselves in it.
func (t *Ticket) forwardedAsker(own Own, w weighing) (person, bool) {
	if w.asker <= 0 || w.withdrawn || t.mails[0].from == "" || t.isOurs(t.mails[0].from, own) {
		return person{}, false
	}
	from := t.mails[w.asker].from
	if from == "" || from == t.mails[0].from || t.isOurs(from, own) || isSystem(from) || t.mails[w.asker].bounce {
		return person{}, false
	}
	if t.topAsks() || !t.asksForWriter(w) {
		return person{}, false
	}
	return t.firstSender(func(p person) bool { return p.msg == w.asker && p.value == from })
}

// topAsks reports a line of the top mail's words that asks something
// (a cover note's "see below" does not) or speaks of its writer ("same
// for me").
func (t *Ticket) topAsks() bool {
	for _, s := range t.said {
		if s.msg == 0 && !s.subject && (s.asks != 0 && !s.cover || s.self != sNone) {
			return true
		}
	}
	return false
}

// asksForWriter reports the deciding mail asking about its writer: a line
// of it asks so ("please remove me"), or it asks a change and names
// nobody, and no one else's address ("stop sending me your offers").
func (t *Ticket) asksForWriter(w weighing) bool {
	for _, s := range t.said {
		if s.msg == w.asker && !s.subject && (s.self == sSuppress || s.self == sRelease) {
			return true
		}
	}
	m := t.mails[w.asker]
	return m.named+m.ids == 0 && w.p.Mode.Changes() && !aboutSomeone(w.p.By.Text) && len(t.partials) == 0
}

// fromUs reports a ticket whose top mail one of our own addresses (own,
// as configured) sent: its To: is whom our agent wrote to, not our
// support mailbox.
func (t *Ticket) fromUs(own Own) bool {
	return !own.Empty() && t.mails[0].from != "" && own.Has(t.mails[0].from)
}
