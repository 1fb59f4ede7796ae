// Package ticket reads a pasted ticket (an e-mail thread, a helpdesk
// export, a forwarded bounce report, in any language its phrase books
// know) as a careful agent reads it: what it asks (add, remove, remove by
// ID, only check, or unsure), which of its addresses and IDs are the
// targets, whom it is not about and why, each with the line that decided.
//
// A Reader is fed the text line by line and hands on every token that may
// be an entry (an address, a suppression ID, an address written out in
// words) once its place in the ticket is settled; End returns the Ticket.
// The Ticket's Propose and Roles weigh what was read, for our own
// addresses (Own): the proposal of a mode with its evidence, and each
// address's Decision. The package knows nothing of batches, plans or
// runs; a batch turns the tokens into its entries for its mode.
package ticket

import (
	"strings"
	"sync"

	"github.com/shushlist/shush/api"
)

// Kind is what a token of a ticket is.
type Kind uint8

// The kinds of tokens.
const (
	// Address is a token with an @ (valid or not).
	Address Kind = iota + 1
	// ID is a token shaped as a suppression ID (a UUID).
	ID
	// WrittenOut is an address written out in words ("jane at example
	// dot com", "jane[at]example[.]com"): Raw is the address it spells,
	// Text the words as written. It is never taken in unless the agent
	// says so.
	WrittenOut
)

// Found is a token of a ticket that may be an entry, with its line.
type Found struct {
	Line int
	// Raw is the token as written (trailing punctuation off, a mailto
	// link's query cut); for a written-out address, the address it
	// spells.
	Raw  string
	Kind Kind
	// Value is the address normalized as the service stores it (an IDN
	// in its ASCII form), "" when Raw is not a valid address or the
	// token is an ID.
	Value string
	// Text is, for a written-out address, the words it was written in.
	Text string
}

// Ticket is what a Reader found out about a ticket: every token (when
// read with Read), the people and mails it holds, what each mail asks,
// and its reference.
type Ticket struct {
	// Found holds every token in the order of the text (Read only; a
	// Reader with its own emit keeps none).
	Found []Found
	// Reference is the ticket reference the text names, when
	// HasReference (see FindReference).
	Reference    Reference
	HasReference bool
	// Lines is how many lines were read.
	Lines int

	senders, signers, copied []person
	// footerTo: the addresses our footer pasted into a mail says our mail
	// went to ("This email was sent to x@…").
	footerTo []person
	said     []said
	mails    []mail
	// newest is the order the mails are read in, newest first; rank is
	// each mail's place in it; chrono: a transcript read from its end.
	newest, rank []int
	// chrono: a transcript read from its end; ordered: its comments'
	// stamps tell their order.
	chrono, ordered bool
	topFrom         bool
	sentTo          map[string]bool
	records         map[string]*record
	order           []string
	lines           map[int]string
	// transient are a bounce report's recipients it reports only a
	// temporary failure for ("452 4.2.2 Mailbox full", under "Delayed,
	// still trying"): it is still retried, nothing to suppress.
	transient map[string]bool
	// permanent are those it reports a permanent failure for.
	permanent map[string]bool
	// statusLine are the lines outside a bounce report that give one
	// address and its failure's status (a digest's rows).
	statusLine map[int]bool
	// joins maps a line a wrapped sentence goes on from to the line it
	// was read as (unwrap.go).
	joins map[int]int
	// bracketNot are the addresses followed by words in brackets that
	// say not (bracketSaysNot), with their lines.
	bracketNot  []person
	textLeft    int
	words       int // words read outside headers and signatures: 0 for a list
	partials    []partial
	mailboxes   []partial         // words beside a word for a mailbox, partial only when they resolve
	sigPoints   []occurrence      // lines that point at their mail's signature for the address they mean
	signName    string            // the first word of the name the top mail is signed with, folded
	senderNames map[string]string // a sender's name, folded, by address
	ids         []idAt
	blocks      blocks         // where the text's blocks begin
	stubs       []stub         // words that may be the start of an ID ("the 3b7e… one")
	otherIDs    map[string]int // IDs labelled as another thing's ("Trace ID: …"), by their line
	// oddIDs are the UUIDs that open their line, as a list's IDs do, no
	// label calling them another thing's, whose version no service gives
	// a suppression (suppressionID).
	oddIDs []idAt
	// forOther holds asksForOther's answers by the deciding line and mail:
	// the rule asks it of the same proposal several times.
	forOther *forOtherMemo
	keptIDs  map[string]int // IDs the words say to keep or leave ("… (ID …) please keep it", "leave 0c94… where it is"), by their line
	// unpicked: the addresses of a pasted table's rows that the words
	// do not pick ("anyone marked \"left\" please suppress" over a row
	// marked "active"), by the line that picks (table.go).
	unpicked map[string]int
	// bothOf: a line that asks for "both", the writer's address and one
	// named before it (Reader.bothWithWriter), by the line that one
	// stands on: the writer's address stands there with it.
	bothOf map[int]int
	// commentsBy are a helpdesk export's comments by their author's
	// name, folded.
	commentsBy map[string][]int
	// ordinals: the lines whose words name a place in a list
	// (ordinal.go).
	ordinals []ordinalLine
}

// idAt is a suppression ID the words name, and where.
type idAt struct {
	value     string
	msg, line int
}

// partial is an address the words name by its local part only ("the
// info@ one", "block old.box only" after old.box@… was named), and
// where.
type partial struct {
	local string
	occurrence
}

// person is an address found in a role, in mail msg on line.
type person struct {
	value     string
	msg, line int
}

// mail is what the reader knows of one mail of a ticket: 0 is the ticket's
// own (its top, unquoted), the others are quoted or forwarded under it.
type mail struct {
	from   string // the first sender's address
	depth  int    // its quote depth
	bounce bool   // a bounce report
	// auto: an automatic reply ("Automatic reply: …", "Automatiskt svar:
	// …"), whose addresses say where to write instead.
	auto     bool
	bounceAt int  // the line from which it is one (its daemon's From:, its first bounce words)
	forward  bool // under a forward marker or a forwarded header block
	named    int  // addresses its words name
	ids      int  // suppression IDs its words name
	subject  int  // the line of its Subject:, 0 for none
	// vs: its subject begins "VS:", a reply in Finnish and a forward in
	// Danish and Norwegian: a forward when a forwarded mail follows.
	vs       bool
	stamp    stamp // when its comment header says it was written
	helpdesk bool  // begun by a helpdesk's comment header
	note     bool  // an agent's internal note (Reader.noteLine): ours
	// stopNotice: its words say mail to its recipient has stopped ("You
	// have been unsubscribed").
	stopNotice bool
	// elsewhere: the line where its writer says they write from another
	// address of theirs than the one they ask about ("I'm writing from my
	// work email"), 0 for none.
	elsewhere int
	// team: the author's team in brackets in its comment header, folded
	// ("Jordan (Lumenly) · 10:52 AM"): ours when it names our company or
	// a support team.
	team string
	// story: a sentence of its words names an address in an earlier
	// request told as history, and asks nothing else.
	story bool
	// unread: a line of its words names an address amid words the
	// books do not read.
	unread bool
	// keepsSomeID: a sentence naming an ID keeps something, not
	// plainly that ID ("release a1…, b2… and c3…, except the last").
	keepsSomeID bool
	// forwards: its subject is a forward's ("Fwd: …"): its words pass
	// the mail under it on.
	forwards bool
	// questions: a line of its words asks a question ("can you confirm
	// it's just those two?"); opens: the first word of its words, folded.
	questions bool
	opens     string
	// answersAt: the line of its first words when they answer "all of
	// them" ("Yes, both please", answersAllIn); 0 when they do not.
	answersAt int
	// words counts the words of its text, outside its headers,
	// greeting, closing and signature; prose: some of them stand on a
	// line that is no labelled field ("Tags: …", "CCs: —").
	words int
	prose bool
	// choice: its words ask which ("Which address should it go to?",
	// "Kumpaan osoitteeseen haluat uutiskirjeen?"): an answer picks.
	choice bool
	// author: the name a helpdesk comment's header gives its writer,
	// folded.
	author string
	// alternative: its words ask a question that offers alternatives
	// ("only x@…, or the others too?"): a bare yes answers none.
	alternative bool
	// narrows: a line of its words narrows the request to a listed
	// person, or keeps one, by name ("al final solo Ana se va. Luis se
	// queda"): however short, the mail is no chase; narrowsAmbiguous: one
	// such name is a piece of several addresses ("solo Ana" over two).
	narrows, narrowsAmbiguous bool
}

// record is what the rule needs of one address: its first occurrences,
// where each stood.
type record struct {
	occ []occurrence
}

// occurrence is one place an address stands.
type occurrence struct {
	zone zone
	msg  int
	line int
	// only: in a sentence that narrows the request to what it names
	// ("please block old.box@… only", "just a1@… please").
	only narrow
}

// narrow is how a sentence narrows the request to what it names.
type narrow uint8

const (
	nNone  narrow = iota
	nBare         // "just a1@… please": narrows an earlier mail's request
	nAsked        // "please block old.box@… only": asks and narrows
)

// maxOccurrences is how many occurrences of an address are kept: the rule
// reads the first few; a list that repeats an address a thousand times
// does not grow.
const maxOccurrences = 8

// maxRecords is how many distinct addresses the rule keeps what it needs
// of. A text naming more is a list in prose, not a ticket: its further
// addresses go as named, wherever they stand.
const maxRecords = 200_000

// lineBudget bounds the text kept to cite lines: a ticket is far smaller;
// a huge free-text input cites line numbers only past it.
const lineBudget = 1 << 20

func newTicket() *Ticket {
	return &Ticket{forOther: &forOtherMemo{m: map[[2]int]bool{}}, sentTo: map[string]bool{}, records: map[string]*record{}, lines: map[int]string{}, senderNames: map[string]string{},
		otherIDs: map[string]int{}, keptIDs: map[string]int{}, unpicked: map[string]int{}, transient: map[string]bool{}, permanent: map[string]bool{}, statusLine: map[int]bool{}, textLeft: lineBudget, mails: []mail{{stamp: noStamp}}}
}

func (t *Ticket) keep(n int, text string) {
	if _, ok := t.lines[n]; ok || len(text) > t.textLeft {
		return
	}
	t.lines[n] = text
	t.textLeft -= len(text)
}

// Text is the line n as read ("" past the first MiB of a huge text, or
// for a line the rule never cites); for a line of a wrapped sentence, the
// sentence.
func (t *Ticket) Text(n int) string {
	if s, ok := t.lines[n]; ok {
		return s
	}
	return t.lines[t.joins[n]]
}

// joinedTo notes that line n was read as part of line to.
func (t *Ticket) joinedTo(n, to int) {
	if t.joins == nil {
		t.joins = map[int]int{}
	}
	if len(t.joins) < maxRecords {
		t.joins[n] = to
	}
}

func (t *Ticket) evidence(line int) Evidence {
	if t == nil {
		return Evidence{Line: line}
	}
	return Evidence{Line: line, Text: t.Text(line)}
}

// note records an occurrence of the address v.
func (t *Ticket) note(v string, o occurrence) {
	rec := t.records[v]
	if rec == nil {
		if len(t.records) >= maxRecords {
			return
		}
		rec = &record{}
		v = strings.Clone(v)
		t.records[v] = rec
		t.order = append(t.order, v)
	}
	if len(rec.occ) < maxOccurrences {
		rec.occ = append(rec.occ, o)
	}
}

// Pending reports whether the rule may leave the address v out, as far as
// the text read so far tells: a caller that streams the ticket keeps the
// pending addresses for Roles, and sends the others. In a ticket of up to
// trackAll addresses every address is pending (what the words say later,
// a withdrawal, an exception, may still leave it out); past that, only
// one not first named in the ticket's own words.
func (t *Ticket) Pending(v string) bool {
	if _, ok := t.otherIDs[v]; ok {
		return true
	}
	if _, ok := t.keptIDs[v]; ok {
		return true
	}
	rec := t.records[v]
	if rec == nil || len(rec.occ) == 0 {
		return false
	}
	if len(t.records) <= trackAll {
		return true
	}
	f := rec.occ[0]
	return f.zone != zBody || f.msg != 0 || t.excepted(rec)
}

// trackAll is how many addresses a ticket may name for all of them to be
// weighed at its end (Pending).
const trackAll = 10_000

// excepted reports whether some occurrence of the record is one the words
// say not to touch.
func (t *Ticket) excepted(rec *record) bool {
	for _, o := range rec.occ {
		if o.zone == zExcept {
			return true
		}
	}
	return false
}

// Addresses lists the addresses of the ticket, in order of first
// occurrence.
func (t *Ticket) Addresses() []string { return t.order }

// IsTicket reports whether the text read has words besides its addresses
// (a list of addresses, or of names and addresses, has none).
func (t *Ticket) IsTicket() bool { return t.words > 0 }

// normalized is the address v as the service stores it, "" when it is
// not one.
func normalized(v string) string {
	n, err := api.NormalizeEmail(v)
	if err != nil {
		return ""
	}
	return n
}

// forOtherMemo keeps asksForOther's answers; a ticket read may be asked
// from more than one goroutine.
type forOtherMemo struct {
	mu sync.Mutex
	m  map[[2]int]bool
}
