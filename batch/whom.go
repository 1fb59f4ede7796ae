package batch

import (
	"fmt"
	"strconv"
	"strings"
)

// Whom a ticket is about. The top mail's sender is the requester, and is
// the same person wherever their address recurs (a signature, "(jane@…)"
// in the body). A requester who asks for themselves ("unsubscribe me", "I
// unsubscribed by mistake, put me back", "am I blocked?") is a target, and
// so are the copied colleagues they include ("me and my colleague
// (cc'd)"); otherwise they are left out. The address the ticket was sent
// to (our support mailbox) and our own addresses (config own) never go.
// Any other address goes if the ticket's words name it before anything
// else does; one named first in a header line, a reply attribution, a
// signature or as where the answer is to go is left out, unless the words
// name it too. Each decision carries its reason and the line that
// decided it. The phrases the rule reads are in phrases.go.

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
	ReasonWantsMail      = "asks to get mail again, not to be suppressed"
	ReasonWantsNoMail    = "asks to get no more mail, not to be put back"
	ReasonColleague      = "a colleague the requester includes"
	ReasonCopied         = "copied on the ticket, not asked for"
	ReasonSender         = "the sender of a quoted or forwarded mail"
	ReasonHeader         = "only in a header line"
	ReasonAttribution    = "only in a reply attribution"
	ReasonSignature      = "only in a signature"
	ReasonContact        = "where the answer is to go, not a target"
	ReasonWriter         = "the writer's own address, not asked for"
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
	// that asks in each direction; For picks the mode's.
	ways *ways
}

// ways are the lines in which a requester asks to get no more mail (or
// just asks about themselves), and to get mail again (or just asks).
type ways struct {
	add, remove       Evidence
	hasAdd, hasRemove bool
}

// For is the decision for a batch of mode: a requester (or the colleague
// they include) who asks the other way than the batch goes is left out,
// with the line that says so. Decide and ReadPlan have applied it; Roles
// has not.
func (d Decision) For(mode Mode) Decision {
	w := d.ways
	if w == nil {
		return d
	}
	who := "the colleague: the requester "
	if d.Requester {
		who = "the requester "
	}
	switch {
	case mode == Add && w.hasAdd:
		d.By = w.add
	case mode != Add && w.hasRemove:
		d.By = w.remove
	case mode == Add:
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
	text := e.Text
	if r := []rune(text); len(r) > 60 {
		text = string(r[:59]) + "…"
	}
	return fmt.Sprintf("line %d: %q", e.Line, text)
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

func decided(v string, d Decision) Decided { return Decided{Value: v, Sent: !d.Leave, Decision: d} }

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

// Decide applies the rule to the items of one or more inputs (Read,
// ParseText; pastes may be mixed) for a batch of mode, and returns each
// item's decision (all the occurrences of an address get the same). Items
// of a list, CSV or JSON have none unless they are ours.
func Decide(items []Item, own Own, mode Mode) []Decision {
	out := Roles(items, own)
	for i := range out {
		out[i] = out[i].For(mode)
	}
	return out
}

// Roles is Decide without a batch's direction, as a check reads a ticket:
// whom it names and as what. A requester who asks either way is taken in;
// Decision.For weighs the way for a batch.
func Roles(items []Item, own Own) []Decision {
	out := make([]Decision, len(items))
	type key struct {
		tk *ticket
		v  string
	}
	seen := map[key]*occurrences{}
	var order []key
	for i, it := range items {
		if !it.Valid() || !strings.Contains(it.Value, "@") {
			continue
		}
		k := key{it.tk, it.Value}
		o := seen[k]
		if o == nil {
			o = &occurrences{first: it}
			seen[k] = o
			order = append(order, k)
		} else {
			o.add(it)
		}
		o.at = append(o.at, i)
	}
	known := map[*ticket]*facts{}
	for _, k := range order {
		o := seen[k]
		f := known[k.tk]
		if f == nil {
			f = k.tk.facts(own)
			known[k.tk] = f
		}
		d := k.tk.decide(o, own, f)
		for _, i := range o.at {
			out[i] = d
		}
	}
	return out
}

// occurrences is what the rule needs of an address's occurrences: the
// first, the first in a request of the words after it, and whether the
// words name it after it at all.
type occurrences struct {
	first Item
	asked *Item // the first later occurrence in the words (zBody)
	named bool  // a later occurrence in the words or mentioned (zBody, zMention)
	at    []int
}

func (o *occurrences) add(it Item) {
	switch it.zone {
	case zBody:
		if o.asked == nil {
			c := it
			o.asked = &c
		}
		o.named = true
	case zMention:
		o.named = true
	}
}

func (t *ticket) evidence(line int) Evidence {
	if t == nil {
		return Evidence{Line: line}
	}
	return Evidence{Line: line, Text: t.lines[line]}
}

// facts is what the rule finds once per ticket: the requester, and the
// lines in which they ask about themselves and include their colleagues.
type facts struct {
	req        person
	hasReq     bool
	self, coll *ways           // nil when no line asks
	copied     map[string]bool // the colleagues copied on the requester's mail
}

// facts finds the ticket's facts for own.
func (t *ticket) facts(own Own) *facts {
	f := &facts{}
	if t == nil {
		return f
	}
	f.req, f.hasReq = t.requester(own)
	if !f.hasReq {
		return f
	}
	f.self = t.asks(f.req, false)
	f.coll = t.asks(f.req, true)
	f.copied = map[string]bool{}
	for _, p := range t.copied {
		if p.msg == f.req.msg {
			f.copied[p.value] = true
		}
	}
	return f
}

// decide is the rule for one address of ticket t (nil for a list), with
// the ticket's facts.
func (t *ticket) decide(o *occurrences, own Own, f *facts) Decision {
	v, first := o.first.Value, o.first
	switch {
	case own.Has(v):
		return Decision{Reason: ReasonOwn, Leave: true, By: t.evidence(first.Line)}
	case t == nil || first.zone == zBody:
		return Decision{}
	case first.zone == zSentTo:
		return Decision{Reason: ReasonSentTo, Leave: true, By: t.evidence(first.Line)}
	}
	if f.hasReq && f.req.value == v {
		d := Decision{Requester: true}
		switch {
		case o.asked != nil:
			d.Reason, d.By = ReasonRequesterNames, t.evidence(o.asked.Line)
		case f.self != nil:
			d.Reason, d.ways = ReasonRequesterAsks, f.self
			d.By = f.self.first()
		default:
			d.Reason, d.Leave, d.By = ReasonRequester, true, t.evidence(f.req.line)
		}
		return d
	}
	if o.named {
		return Decision{}
	}
	if f.copied[v] && f.coll != nil {
		return Decision{Reason: ReasonColleague, By: f.coll.first(), ways: f.coll}
	}
	d := Decision{Leave: true, By: t.evidence(first.Line)}
	switch first.zone {
	case zFrom:
		d.Reason = ReasonSender
	case zCopy:
		d.Reason = ReasonCopied
	case zAttribution:
		d.Reason = ReasonAttribution
	case zSignature:
		d.Reason = ReasonSignature
	case zContact:
		d.Reason = ReasonContact
	case zMention:
		d.Reason = ReasonWriter
	default:
		d.Reason = ReasonHeader
	}
	return d
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
// forwarding it), the first sender after it that is not.
func (t *ticket) requester(own Own) (person, bool) {
	ours := false
	for _, p := range t.senders {
		if p.msg != 0 {
			continue
		}
		if !own.Has(p.value) {
			return p, true
		}
		ours = true
	}
	if !ours && !t.topFrom {
		for _, p := range t.signers {
			if !own.Has(p.value) {
				return p, true
			}
		}
		return person{}, false
	}
	if ours {
		for _, p := range t.senders {
			if p.msg != 0 && !own.Has(p.value) {
				return p, true
			}
		}
	}
	return person{}, false
}

// asks finds, in the requester's mails (the ticket's, and the quoted ones
// they wrote earlier), the first line in which they ask about themselves
// (or, with colleague, include the colleagues) to get no more mail, and
// the first to get mail again; a line that just asks counts for both. A
// line that says it outright wins over a bare "Unsubscribe" (a
// subject's, say). It returns nil when no line asks.
func (t *ticket) asks(req person, colleague bool) *ways {
	theirs := map[int]bool{req.msg: true}
	for _, p := range t.senders {
		if p.value == req.value {
			theirs[p.msg] = true
		}
	}
	var w ways
	for _, bare := range []bool{false, true} {
		for _, s := range t.said {
			if s.bare != bare || !theirs[s.msg] || colleague && !s.colleague || !colleague && s.self == 0 || s.bare && t.named[s.msg] > 0 {
				continue
			}
			if !w.hasAdd && s.self != pRelease {
				w.add, w.hasAdd = t.evidence(s.line), true
			}
			if !w.hasRemove && s.self != pSuppress {
				w.remove, w.hasRemove = t.evidence(s.line), true
			}
		}
	}
	if !w.hasAdd && !w.hasRemove {
		return nil
	}
	return &w
}
