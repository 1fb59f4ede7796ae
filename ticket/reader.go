package ticket

import (
	"slices"
	"strings"
)

// A ticket is read line by line, once: the reader notes where each
// address stands (a header line, the words, a signature, a reply
// attribution, a helpdesk's footer), which mail of the ticket it belongs
// to (the ticket's own, a quoted or forwarded one), and what each line
// asks. The rule (rule.go, intent.go) weighs those notes once the whole
// ticket is read. The line kinds are in classify.go, the words of a line
// in said.go.

// zone is where an address of a ticket stands.
type zone uint8

const (
	zBody        zone = iota // in the ticket's words
	zMention                 // a sender's own address in the words, outside a request ("Jane (jane@…)")
	zFrom                    // a From: or Sender: line, a helpdesk's comment header
	zSentTo                  // the To: of the ticket's own header: our support mailbox, wherever it recurs
	zCopy                    // a Cc: or Bcc: line
	zHeader                  // any other header line (a forwarded mail's To:, Reply-To:, Message-ID:)
	zAttribution             // an "On … wrote:" line
	zSignature               // a signature
	zContact                 // where the answer is to go ("confirm in writing to privacy@…")
	zExcept                  // in the words, where they say not to touch it ("not x@…", "keep x@…")
	zFooter                  // a helpdesk's notification text
	zWritten                 // written out in words
	zBounceMeta              // a bounce report's other addresses: its sender's, its host's
	zRecipient               // the To: of a forwarded mail: whom it went to
	zAside                   // in the words, beside the request, in a sentence that asks nothing ("my colleague jen@… knows the details")
	zSendsFrom               // in the words, the address a sender's mail goes out from ("sends from news@…")
)

// Reader reads a ticket line by line and hands on its tokens in order. It
// holds a line's tokens until the next line is read (an attribution over
// two lines is known at its second), and a line that may be a one-line
// signature until the next line with text says whether it ends the mail.
type Reader struct {
	emit  func(Found)
	tk    *Ticket
	html  htmlText
	refs  refFinder
	queue []heldLine
	st    state
	ws    []word
	ms    []match
	toks  []token
	spare [][]token
	out   []string // the lines HTML made of a line
	// tables follows the tables the ticket pastes (table.go).
	tables tables
	// wrap holds the last words of the line of words before, when its
	// sentence runs on (a mail wrapped at 72 columns): wrapAt is that
	// line's number, wrapMsg its mail.
	wrap            []word
	wrapAt, wrapMsg int
	spans           []match
	// pend is the line held to be joined with the next (unwrap.go);
	// joined: where the lines of the line being read begin, when it joins
	// several.
	pend   pendingLine
	joined []lineStart
}

// state is where the reader stands in the ticket.
type state struct {
	msg, qmsg   int // the mail of unquoted lines, of quoted lines
	depth       int // quote depth of the last line with text
	attrib      int // the mail an attribution announced for what follows it; -1 for none
	attribDepth int // the depth of that attribution
	// attribOpens: that attribution is the first line of its quote
	// ("> On 17 Mar, Support <…> wrote:" over "> Hi Dana,"), as Apple
	// Mail quotes it.
	attribOpens     bool
	ruleN           int  // the last line that is a rule of dashes ("-----")
	top             bool // still in the ticket's own header block
	body, qbody     bool // the current unquoted, quoted mail has had words
	inHeader        bool // the last line with text was a header line
	gap             bool // an empty line since the last line with text
	listing         bool // in a list a line ending with ':' announced
	headerZone      zone
	sig, sigDepth   int // lines of signature still to go, at which depth
	footer          bool
	prevOn          int // the last line that began "On …" and was not itself a zone
	last            lastLine
	cand            int // index in queue of a line that may be a one-line signature; -1 for none
	candShape       string
	candMsg         int
	candField       bool // the candidate is a field ("Address: x@…") under a request that names nobody
	candAside       bool // the candidate is a field under a request that names an address
	commentPending  int  // the mail a comment header began, whose date line may follow
	senders         map[string]bool
	names           map[string]string // a sender's address by the name beside it
	locals          map[string]bool   // the local parts of the addresses read, true for a distinctive one (localName)
	people          map[string]string // the name-like pieces of the local parts of the addresses the words name ("claire", "jp" of jp.martin@…), each to its local part, "" when several have it
	copiedPeople    map[string]string // the same of the people a Cc: line copies, by the name beside their address
	lastHeaderBlock int               // the mail the last header block began
	// head counts the lines of the ticket's first block of words, before
	// its first empty line: labelled fields ("Form: Contact us",
	// "Submitted: 26 Nov") and others; headDone: that block has ended.
	headFields, headOther int
	headDone              bool
	// formFields and formOther count the same for the block of lines
	// being read, since its last empty line.
	formFields, formOther int
	// sigRun: the line of the last one-line signature read, which a
	// labelled line of an address right under it carries on.
	sigRun int
	// statusMsg is the bounce report whose statuses are being read, its
	// last recipient, and whether its delayed part has begun.
	statusMsg     int
	lastRecipient string
	delayedPart   bool
	chat          map[string]int // the mail of each speaker of a chat transcript, by their name folded
	// convName is the customer a chat export's title names ("Conversation
	// with …"), folded, until the line under it gives their address;
	// convLine is the title's line; convGap: an empty line has ended the
	// title's block since.
	convName string
	convLine int
	convGap  bool
	// sigCut: an empty line ended a signature, which the next line may
	// take up again (resumesSignature).
	sigCut bool
	// closed: the mail whose closing, delimiter or opener line was read
	// last (-1 for none); its signature may go on after an empty line.
	closed int
	// list is 1 + the mail of a list a request announces ("please
	// unsubscribe these addresses:"), while its lines name addresses and
	// nothing else; 0 for none.
	list int
	// later holds the lines that leave out people by names no address
	// read before them has, settled at the end.
	later []namedLater
	// narrowed holds the names lines narrow a request to or keep out of
	// it ("so it's only Marta who needs to come off"), settled at the end.
	narrowed []narrowedName
	// rows counts, by mail, the table rows that name one address and
	// those of them a cell marks to keep or to change.
	rows map[int]*[2]int
	// notice is the last line of a legal notice under a mail (boiler.go),
	// 0 for none: the notice goes on to the end of its paragraph.
	notice int
}

// heldLine is a line whose tokens are not handed on yet.
type heldLine struct {
	n     int
	toks  []token
	depth int
}

// token is a Found with what the reader noted of it: where it starts in
// its line, where it stands, in which mail.
type token struct {
	Found
	// phys: the line it stands on, when the line read joins several.
	phys int
	off  int
	zone zone
	msg  int
	only narrow // in a sentence that narrows the request to what it names
}

// lastLine is what the reader remembers of the last line with text.
type lastLine struct {
	n      int
	shape  string // its signature shape ("" for none)
	colon  bool   // it ends with ':' (a list follows)
	item   bool   // an item of a bulleted list that opens with an address
	title  bool   // it is a title or company line
	header bool
	asks   bool // a line of words that asks and names no address
	// asksNaming: a line of words that asks and names an address.
	asksNaming bool
	// name: it is a name alone ("Claire", "Rosa Keel"); greeting: it
	// opens a mail ("Hi team,", "Bonjour,").
	name, greeting bool
	// nameish: made of a name's words, as a company's line is
	// ("Pensjonat „Pod Lipami”, Szklarska Poręba"); sig: a signature's;
	// phones: phone numbers and web addresses and nothing else ("Tel. 249
	// 000 123 | Tlm. 912 000 456").
	nameish, sig, phones bool
	t                    string // its text
	// names: it names an address; ends: its last word ends a sentence.
	names, ends bool
	// spaced: a blank line or a rule stands right above it.
	spaced bool
}

// signatureLines is how far a signature may reach after its delimiter or
// closing word: a name, a title, a company, an address, a phone number.
const signatureLines = 8

// NewReader returns a reader that hands each token to emit, in the order
// of the text, once its place is settled.
func NewReader(emit func(Found)) *Reader {
	tk := newTicket()
	r := &Reader{emit: emit, tk: tk}
	r.st = state{attrib: -1, top: true, cand: -1, senders: map[string]bool{}, names: map[string]string{}, locals: map[string]bool{}, commentPending: -1, lastHeaderBlock: -1, closed: -1}
	return r
}

// Read reads a whole text as a ticket and keeps its tokens (Ticket.Found).
func Read(text string) *Ticket {
	var found []Found
	r := NewReader(func(f Found) { found = append(found, f) })
	n := 0
	for len(text) > 0 {
		n++
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			r.Line(n, text)
			break
		}
		r.Line(n, text[:i])
		if text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n' {
			i++
		}
		text = text[i+1:]
	}
	tk := r.End()
	tk.Found = found
	return tk
}

// Ticket is the ticket being read: what it says is complete only after
// End, but Pending already answers for a token handed on.
func (r *Reader) Ticket() *Ticket { return r.tk }

// Line reads line n of the text (1-based, without its end).
func (r *Reader) Line(n int, raw string) {
	r.tk.Lines = n
	r.out = r.html.lines(r.out[:0], raw)
	for _, l := range r.out {
		r.refs.line(n, l)
		r.feed(n, l)
	}
}

func (r *Reader) line(n int, raw string) {
	depth, rest := quoteDepth(raw)
	t := trimLine(rest)
	if t == "" {
		r.blank()
		r.hold(heldLine{n: n, depth: depth})
		return
	}
	r.enterDepth(depth)
	r.ws = wordsOf(r.ws, t)
	r.block(n)
	r.stubs(n)
	l := &line{n: n, first: n, raw: raw, t: t, depth: depth, ws: r.ws, toks: r.tokens(n, t, r.ws)}
	if r.joined != nil {
		l.first = r.joined[0].n
		for i := range l.toks {
			l.toks[i].phys = r.physical(l.toks[i].off)
		}
	}
	l.msg = r.msgOf(depth)
	l.carries = r.st.last.n == l.above() && r.st.last.names && !r.st.last.ends && !r.st.last.header && r.st.depth == depth
	kind := r.classify(l)
	r.st.sigCut = false
	r.tables.line(l)
	r.ordinals(l)
	r.bounceStatus(l)
	r.decideCandidate(l.first, kind, depth)
	if kind.candidate {
		r.st.cand, r.st.candShape, r.st.candMsg = len(r.queue), kind.shape, l.msg
		// "Address: x@…" right under "stop all mail to her address":
		// the address the request is about, not a signature's.
		r.st.candField = r.st.last.asks && r.st.last.n == l.above() && fieldLine(l)
		r.st.candAside = r.st.last.asksNaming && r.st.last.n == l.above() && fieldLine(l)
	}
	r.settle(l, kind)
}

// enterDepth follows the quote depth of a line with text: a deeper quote
// begins a quoted mail (the one an attribution announced, or one quoted
// without).
func (r *Reader) enterDepth(depth int) {
	st := &r.st
	if depth > st.depth {
		st.qmsg, st.qbody = st.attrib, false
		if st.attrib < 0 || st.attribDepth >= depth {
			st.qmsg = r.newMail(depth)
		}
		st.attrib = -1
	} else if st.attrib >= 0 && depth == st.attribDepth && depth == 0 {
		// An attribution with its mail unquoted under it (a helpdesk's
		// export, a client that does not quote): the mail begins here.
		st.msg, st.body, st.attrib = st.attrib, false, -1
	} else if st.attrib >= 0 && depth == st.attribDepth && st.attribOpens {
		// A quote that opens with its attribution, its mail quoted as
		// deep: the mail begins here.
		st.qmsg, st.qbody, st.attrib = st.attrib, false, -1
	}
	if depth != st.sigDepth {
		st.sig = 0
	}
	st.depth = depth
}

// settle notes the line's tokens and holds them.
func (r *Reader) settle(l *line, kind lineKind) {
	held := r.heldOf(l)
	if len(l.toks) > 0 || kind.header {
		r.tk.keep(l.n, l.t)
	}
	if kind.mailWords() {
		r.countWords(l)
	}
	r.noteHead(l, kind)
	r.noteLast(l, kind)
	r.followList(l, kind)
	r.hold(held)
}

// heldOf is line l as it is held: its tokens, each marked with its mail,
// and with the zone of an address the ticket was sent to.
func (r *Reader) heldOf(l *line) heldLine {
	held := heldLine{n: l.n, depth: l.depth, toks: r.tokensFor(len(l.toks))}
	for i, f := range l.toks {
		if f.Value != "" && r.tk.sentTo[f.Value] {
			f.zone = zSentTo
		}
		f.msg = l.msg
		held.toks[i] = f
	}
	return held
}

// mailWords reports a line of the kind a mail's own words are: no
// header, signature, closing, attribution or footer.
func (k lineKind) mailWords() bool {
	return !k.header && !k.signature && !k.closing && !k.attribution && !k.footer
}

// countWords counts the words of a mail's line that are no token, for
// the ticket and, past a greeting, for its mail; the mail also notes a
// question mark and the word it opens with.
func (r *Reader) countWords(l *line) {
	n := len(l.ws) - len(l.toks)
	r.tk.words += n
	ml := r.mailOf(l)
	if ml == nil || greetingLine(l) {
		return
	}
	ml.words += n
	ml.prose = ml.prose || n > 0 && !labelled(l.t)
	ml.questions = ml.questions || strings.Contains(l.t, "?") || strings.ContainsAny(l.t, ";\u037e") && greek(l.ws)
	ml.choice = ml.choice || slices.ContainsFunc(l.ws, func(w word) bool { return choiceWords[folded(w.s)] })
	ml.alternative = ml.alternative || alternativeQuestion(l)
	if ml.opens == "" && len(l.ws) > 0 {
		ml.opens = folded(l.ws[0].s)
		if answersAllIn(l.t, l.ws) {
			ml.answersAt = l.n
		}
	}
}

// noteHead counts the labelled fields and the other lines of the
// ticket's first block of words, and notes where a body (or a quoted
// one) begins and the top of the text, its headers, ends.
func (r *Reader) noteHead(l *line, kind lineKind) {
	st := &r.st
	if l.depth == 0 && !kind.header {
		field := labelled(l.t)
		if !st.headDone {
			st.headFields += b2i(field)
			st.headOther += b2i(!field)
		}
		st.formFields += b2i(field)
		st.formOther += b2i(!field)
	}
	if l.depth == 0 {
		st.body = st.body || !kind.header
		st.top = st.top && kind.header
	} else {
		st.qbody = st.qbody || !kind.header
	}
}

// noteLast keeps what the next lines read of line l (its shape, a colon
// at its end, whether it asks, names or ends a sentence, a blank line or
// a rule above it), and notes a rule.
func (r *Reader) noteLast(l *line, kind lineKind) {
	st := &r.st
	spaced := st.last.n < l.above() || st.ruleN == l.above()
	st.last = lastLine{n: l.n, spaced: spaced, shape: kind.shape, colon: strings.HasSuffix(l.t, ":"), title: kind.title, header: kind.header, asks: kind.asks, asksNaming: kind.asksNaming,
		name: nameAlone(l, kind), greeting: greetingLine(l), item: addressItem(l), t: l.t, nameish: len(l.toks) == 0 && !kind.header && nameLike(l.t, false), sig: kind.signature, phones: phonesOnly(l),
		names: len(l.toks) > 0, ends: len(l.ws) > 0 && l.ws[len(l.ws)-1].ends || strings.HasSuffix(l.t, ":")}
	if ruleLine(l.t) {
		st.ruleN = l.n
	}
}

// addressItem reports an item of a bulleted list that opens with an
// address ("- rui@… (mine)", "• ana@…").
func addressItem(l *line) bool {
	return len(l.toks) > 0 && startsItem(strings.TrimLeft(l.t, " \t")) && markerOnlyBefore(l.t, l.toks[0].off)
}

// markerOnlyBefore reports nothing before offset off of line t but
// spaces and a list's marker or a table's bar ("- ", "• ", "| ").
func markerOnlyBefore(t string, off int) bool {
	return strings.TrimLeft(t[:off], " \t-*•·–|") == ""
}

// inAddressList reports a bulleted item that opens with an address right
// under a line ending in ':' or another such item: one of a list's
// addresses, whatever words stand beside it ("- rui@… (mine)").
func (r *Reader) inAddressList(l *line) bool {
	return addressItem(l) && r.st.last.n == l.above() && (r.st.last.colon || r.st.last.item)
}

// followList notes a list a request announces ("please unsubscribe these
// addresses:", "block all of them, the export below", "could you check
// whether these two are blocked?"), and its end: a
// line that is more than its addresses or a row of a table.
func (r *Reader) followList(l *line, kind lineKind) {
	switch {
	case kind.asks && (strings.HasSuffix(l.t, ":") || strings.HasSuffix(l.t, "?") || r.pointsBelow(l)):
		r.st.list = l.msg + 1
	case r.st.list != l.msg+1 || !onlyTokens(l) && !cellRow(l):
		r.st.list = 0
	}
}

// pointsBelow reports a line whose words point at what follows ("the
// export below").
func (r *Reader) pointsBelow(l *line) bool {
	k := len(r.tk.said) - 1
	return k >= 0 && r.tk.said[k].line == l.n && r.tk.said[k].below
}

// onlyTokens reports a line that is its addresses and nothing else (a
// list's item: "- jane@…", "jane@…;").
func onlyTokens(l *line) bool {
	if len(l.toks) == 0 {
		return false
	}
	n := 0
	for _, w := range l.ws {
		if !inToken(l.toks, w.off) {
			n++
		}
	}
	return n == 0
}

// csvRow reports a row of comma-separated values that names an address:
// two fields or more, each a few words at most.
func csvRow(l *line) bool {
	return len(l.toks) > 0 && shortCells(strings.Split(l.t, ","), 2, 4)
}

// cellRow reports a row of a pasted table that names an address: a
// spreadsheet's (tab or a leading "|"), a CSV's, or one whose cells an
// inner "|" parts, a ";" with no space in the line, or runs of spaces
// that align its columns, three at least ("Leiden | winkel.leiden@… |
// niet nodig", "service@…;bounce;03/09/2026;terugzetten", "Sophie Lang
// Ladies   sophie.lang@…   No").
func cellRow(l *line) bool {
	if tableRow(l.t) || csvRow(l) {
		return true
	}
	if len(l.toks) == 0 {
		return false
	}
	return !strings.Contains(l.t, " ") && shortCells(strings.Split(l.t, ";"), 3, 1) || shortCells(strings.Split(l.t, "|"), 3, 8) ||
		shortCells(alignedCells.Split(strings.TrimSpace(l.t), -1), 3, 6)
}

// shortCells reports at least n cells, each of a few words at most.
func shortCells(cells []string, n, words int) bool {
	if len(cells) < n {
		return false
	}
	for _, f := range cells {
		if len(strings.Fields(f)) > words {
			return false
		}
	}
	return true
}

// block notes where the line n with text begins a block of the text
// (places.go): after an empty line, unless a line ending with ':'
// announced a list, whose entries may stand apart ("Anna Berg",
// "anna@…", an empty line, the next) for as long as its lines are short.
func (r *Reader) block(n int) {
	st := &r.st
	if st.gap {
		switch {
		case st.last.colon:
			st.listing = true
		case !st.listing || len(r.ws) > listWords:
			r.tk.blocks.begin(n)
			st.listing = false
		}
	}
	if len(r.ws) > listWords {
		st.listing = false
	}
	st.gap = false
}

// listWords is how many words a line of an announced list holds at most.
const listWords = 4

// blank reads an empty line: it ends a header block, and a signature
// after its first line.
func (r *Reader) blank() {
	st := &r.st
	st.headDone = st.headDone || st.body
	st.inHeader = false
	st.gap = true
	st.convGap = st.convLine > 0
	st.formFields, st.formOther = 0, 0
	if st.sig > 0 && st.sig < signatureLines {
		st.sig, st.sigCut = 0, true
	}
}

// decideCandidate decides, at the next line with text, whether a line
// that may be a one-line signature is one: it is when that line ends the
// mail (a quote, a header, an attribution, a signature's other lines) and
// is not a table's next row; else it is the body's.
func (r *Reader) decideCandidate(n int, k lineKind, depth int) {
	st := &r.st
	if st.cand < 0 {
		return
	}
	c := &r.queue[st.cand]
	switch ends := endsMail(k, c, n, depth, st.candShape); {
	case ends && !st.candField, st.sigRun > 0 && st.sigRun == c.n-1 && labelled(r.tk.lines[c.n]):
		// A one-line signature, or a labelled line of one under it.
		r.toSignature(c, st.candMsg)
		st.sigRun = c.n
	case !ends && st.candAside:
		// "Email: b@…" under "please unsubscribe a@…", in the body:
		// another target, or the writer's? The review asks.
		r.pickedByHand(c.n, st.candMsg)
	}
	st.cand = -1
}

// endsMail reports whether a line of kind k ends the mail of the one-line
// signature candidate c before it: not the next row of a table, a closing
// (c was in the body) or a line of words.
func endsMail(k lineKind, c *heldLine, n, depth int, shape string) bool {
	switch {
	case k.shape != "" && k.shape == shape && c.n == n-1:
		return false // the next row of a table
	case depth > c.depth, k.header, k.attribution, k.forward, k.title, k.signature, k.footer, k.shape != "":
		return true
	case k.closing, k.plain:
		return false
	}
	return true
}

// toSignature puts the addresses of a held line in the signature of mail
// msg.
func (r *Reader) toSignature(c *heldLine, msg int) {
	for i := range c.toks {
		f := &c.toks[i]
		if f.zone == zSentTo || f.Kind != Address {
			continue
		}
		if f.zone == zBody {
			r.tk.mails[msg].named--
		}
		f.zone = zSignature
		if msg == 0 && c.depth == 0 && f.Value != "" {
			r.tk.signers = append(r.tk.signers, person{f.Value, 0, c.n})
		}
	}
}

// hold queues a line's tokens and hands on those of the lines that are
// decided, keeping the last (the next line may make it an attribution).
func (r *Reader) hold(l heldLine) {
	r.queue = append(r.queue, l)
	k := 0
	for ; k < len(r.queue)-1 && k != r.st.cand; k++ {
		r.handOn(r.queue[k].toks)
	}
	if k > 0 {
		for _, l := range r.queue[:k] {
			if cap(l.toks) > 0 {
				r.spare = append(r.spare, l.toks[:0])
			}
		}
		r.queue = append(r.queue[:0], r.queue[k:]...)
		if r.st.cand >= 0 {
			r.st.cand -= k
		}
	}
}

// handOn records the tokens of a decided line and hands them on.
func (r *Reader) handOn(toks []token) {
	for _, f := range toks {
		if f.Value != "" {
			r.tk.note(f.Value, occurrence{zone: f.zone, msg: f.msg, line: f.Line, only: f.only})
		}
		if r.emit != nil {
			found := f.Found
			if f.phys > 0 {
				found.Line = f.phys
			}
			r.emit(found)
		}
	}
}

// tokensFor returns room for a line's n tokens, reusing that of a line
// handed on.
func (r *Reader) tokensFor(n int) []token {
	if n == 0 {
		return nil
	}
	for len(r.spare) > 0 {
		b := r.spare[len(r.spare)-1]
		r.spare = r.spare[:len(r.spare)-1]
		if cap(b) >= n {
			return b[:n]
		}
	}
	return make([]token, n, max(n, 4))
}

// End hands on what is held (a one-line signature still waiting ends the
// text, so it is one) and returns the ticket.
func (r *Reader) End() *Ticket {
	for _, l := range r.html.end() {
		r.feed(r.tk.Lines, l)
	}
	r.flush()
	if r.st.cand >= 0 {
		r.decideCandidate(-1, lineKind{header: true}, 0)
	}
	for _, l := range r.queue {
		r.handOn(l.toks)
	}
	r.queue = nil
	r.namesLater()
	r.peopleNarrowed()
	r.rowsFollowed()
	r.tables.end(r)
	r.tk.resolveSignaturePoints()
	r.tk.resolveMailboxes()
	r.tk.Reference, r.tk.HasReference = r.refs.best()
	r.tk.orderMails()
	return r.tk
}

// newMail starts another mail of the ticket, at quote depth depth.
func (r *Reader) newMail(depth int) int {
	r.tk.mails = append(r.tk.mails, mail{depth: depth, stamp: noStamp})
	return len(r.tk.mails) - 1
}

func (r *Reader) msgOf(depth int) int {
	if depth == 0 {
		return r.st.msg
	}
	return r.st.qmsg
}

// startMail makes the line's depth begin a new mail (a forward, a header
// block after words, a helpdesk comment) and returns it.
// mailOf is the mail of line l, nil for none.
func (r *Reader) mailOf(l *line) *mail {
	if l.msg < 0 || l.msg >= len(r.tk.mails) {
		return nil
	}
	return &r.tk.mails[l.msg]
}

func (r *Reader) startMail(l *line) int {
	m := r.newMail(l.depth)
	if l.depth == 0 {
		r.st.msg, r.st.body = m, false
	} else {
		r.st.qmsg, r.st.qbody = m, false
	}
	l.msg = m
	return m
}

// b2i is 1 for true, 0 for false.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
