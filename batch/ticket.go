package batch

import (
	"slices"
	"strings"
)

// A ticket is read line by line, once, as the rest of free text is: the
// reader notes where each address stands (a header line, the body, a
// signature, a reply attribution), which mail of the ticket it belongs to
// (the ticket's own, a quoted or forwarded one), and the lines in which
// someone asks about themselves or includes a colleague. The rule
// (whom.go) decides from those notes once the whole ticket is read.

// zone is where an address of a ticket stands.
type zone uint8

const (
	zBody        zone = iota // in the ticket's words
	zMention                 // a sender's own address in the body, outside a request ("Jane (jane@…)")
	zFrom                    // a From: or Sender: line
	zSentTo                  // the To: of the ticket's own header: our support mailbox, wherever it recurs
	zCopy                    // a Cc: or Bcc: line
	zHeader                  // any other header line (a forwarded mail's To:, Reply-To:, Message-ID:)
	zAttribution             // an "On … wrote:" line
	zSignature               // a signature
	zContact                 // where the answer is to go ("confirm in writing to privacy@…")
)

// ticket is what the reader found out about the people of a ticket.
type ticket struct {
	// senders are the From:/Sender: addresses and those of attributions,
	// in the order found; signers the signature addresses of the ticket's
	// own mail (mail 0, not quoted).
	senders, signers []person
	// copied are the Cc:/Bcc: addresses.
	copied []person
	// said are the lines in which the writer of a mail asks about
	// themselves or includes a colleague.
	said []said
	// named counts the addresses each mail names in its words.
	named map[int]int
	// topFrom says the ticket's own header has a From: line.
	topFrom bool
	// lines keeps the text of the lines the rule may cite, within
	// lineBudget bytes.
	lines    map[int]string
	textLeft int
}

// lineBudget bounds the text kept to cite lines: a ticket is far smaller;
// a huge free-text input cites line numbers only past it.
const lineBudget = 1 << 20

// person is an address found in a role, in mail msg on line.
type person struct {
	value     string
	msg, line int
}

// said is a line of mail msg that asks: about the writer themselves
// (self: its direction, pSuppress, pRelease or pAsk), and whether it
// includes the colleagues copied. bare marks a line that is a request and
// nothing else ("Unsubscribe"), which is about the writer only if their
// mail names no other address.
type said struct {
	msg, line int
	self      phraseClass
	colleague bool
	bare      bool
}

func (t *ticket) keep(n int, text string) {
	if _, ok := t.lines[n]; ok || len(text) > t.textLeft {
		return
	}
	t.lines[n] = text
	t.textLeft -= len(text)
}

// ticketReader reads free text as a ticket and hands on its entries in
// order. It holds a line's entries until the next line is read (an
// attribution over two lines is known at its second), and a line that
// may be a one-line signature until the next line with text says whether
// it ends the mail.
type ticketReader struct {
	mode  Mode
	emit  func(Item)
	tk    *ticket
	queue []heldLine

	msg, qmsg, msgs int  // the mail of unquoted lines, of quoted lines, how many so far
	depth           int  // quote depth of the last line with text
	attrib          int  // the mail an attribution announced for the quote under it; -1 for none
	top             bool // still in the ticket's own header block
	body, qbody     bool // the current unquoted, quoted mail has had words
	inHeader        bool // the last line with text was a header line
	headerZone      zone
	sig, sigDepth   int // lines of signature still to go, at which depth
	prevOn          int // the last line that began "On …" and was not itself a zone
	last            lastLine
	cand            int // index in queue of a line that may be a one-line signature; -1 for none
	candShape       string
	candMsg         int
	senders, sentTo map[string]bool
	ws              []word  // the words of the line being read
	found           []found // its entries
	ms              []match // its phrases
	spare           [][]Item
}

// heldLine is a line whose entries are not handed on yet.
type heldLine struct {
	n     int
	items []Item
	depth int
}

// lastLine is what the reader remembers of the last line with text.
type lastLine struct {
	n      int
	shape  string // its signature shape ("" for none)
	colon  bool   // it ends with ':' (a list follows)
	title  bool   // it is a title or company line
	header bool
}

// signatureLines is how far a signature may reach after its delimiter or
// closing word: a name, a title, a company, an address, a phone number.
const signatureLines = 8

func newTicketReader(mode Mode, emit func(Item)) *ticketReader {
	tk := &ticket{named: map[int]int{}, lines: map[int]string{}, textLeft: lineBudget}
	return &ticketReader{mode: mode, emit: emit, tk: tk, attrib: -1, top: true, cand: -1, msgs: 1,
		senders: map[string]bool{}, sentTo: map[string]bool{}}
}

// found is an entry of a line and where it starts in the line's text.
type found struct {
	Item
	off int
}

func (r *ticketReader) line(n int, raw string) {
	depth, rest := quoteDepth(raw)
	t := trimLine(rest)
	if t == "" {
		r.blank()
		r.hold(heldLine{n: n, depth: depth})
		return
	}
	items := r.found[:0]
	fieldsAt(t, func(off int, tok string) {
		candidates(tok, func(c string) {
			if it, ok := freeItem(c, n, r.mode); ok {
				if it.Valid() {
					it.tk = r.tk
				}
				items = append(items, found{Item: it, off: off})
			}
		})
	})
	r.found = items
	if depth > r.depth {
		// A quote begins: the mail an attribution announced, or one
		// quoted without.
		r.qmsg, r.qbody = r.attrib, false
		if r.attrib < 0 {
			r.qmsg = r.newMsg()
		}
		r.attrib = -1
	}
	if depth != r.sigDepth {
		r.sig = 0
	}
	r.depth = depth
	r.ws = wordsOf(r.ws, t)
	ws := r.ws
	kind := r.classify(n, raw, t, depth, ws, items)
	r.decideCandidate(n, kind, depth)
	if kind.candidate {
		r.cand, r.candShape, r.candMsg = len(r.queue), kind.shape, r.msgOf(depth)
	}
	held := heldLine{n: n, depth: depth, items: r.itemsFor(len(items))}
	for i, f := range items {
		if r.sentTo[f.Value] {
			f.zone = zSentTo
		}
		held.items[i] = f.Item
	}
	if len(items) > 0 || kind.header {
		r.tk.keep(n, t)
	}
	if depth == 0 {
		r.body = r.body || !kind.header
		r.top = r.top && kind.header
	} else {
		r.qbody = r.qbody || !kind.header
	}
	r.last = lastLine{n: n, shape: kind.shape, colon: strings.HasSuffix(t, ":"), title: kind.title, header: kind.header}
	r.hold(held)
}

// lineKind is what a line with text turned out to be.
type lineKind struct {
	header, attribution, forward, closing, signature, title bool
	// candidate: the line may be a one-line signature ("Jane Doe -
	// jane@…"); the next line with text decides. shape is its shape.
	candidate bool
	shape     string
	// plain: a line of words, which ends a one-line signature's chances.
	plain bool
}

// classify finds what a line is and sets the zone of its entries.
func (r *ticketReader) classify(n int, raw, t string, depth int, ws []word, items []found) lineKind {
	msg := r.msgOf(depth)
	setZone := func(z zone) {
		for i := range items {
			items[i].zone = z
		}
	}
	// A forwarded mail's marker: its header lines follow.
	if isForwardMarker(t, ws) {
		if depth == 0 {
			r.msg, r.body = r.newMsg(), false
		} else {
			r.qmsg, r.qbody = r.newMsg(), false
		}
		r.sig, r.inHeader = 0, false
		setZone(zHeader)
		return lineKind{forward: true}
	}
	if name, ok := headerName(t); ok || r.inHeader && startsBlank(raw, depth) {
		if !ok {
			setZone(r.headerZone)
			return lineKind{header: true}
		}
		if !r.inHeader {
			// A header block after words starts another mail (a forward
			// pasted without its marker, Outlook's quoted header).
			switch {
			case depth == 0 && r.body:
				r.msg, r.body = r.newMsg(), false
			case depth > 0 && r.qbody:
				r.qmsg, r.qbody = r.newMsg(), false
			}
			msg = r.msgOf(depth)
		}
		r.inHeader, r.sig = true, 0
		z := zHeader
		switch {
		case inList(senderHeaders, name):
			z = zFrom
			for _, f := range items {
				r.tk.senders = append(r.tk.senders, person{f.Value, msg, n})
				r.senders[f.Value] = true
			}
			if msg == 0 && depth == 0 && r.top {
				r.tk.topFrom = r.tk.topFrom || len(items) > 0
			}
		case inList(sentToHeaders, name) && r.top && depth == 0 && msg == 0:
			z = zSentTo
			for _, f := range items {
				r.sentTo[f.Value] = true
			}
		case inList(copyHeaders, name):
			z = zCopy
			for _, f := range items {
				r.tk.copied = append(r.tk.copied, person{f.Value, msg, n})
			}
		case name == "subject":
			// The subject is the writer's words: "Unsubscribe me".
			r.headerZone = zBody
			r.words(n, msg, t, ws, items, true)
			return lineKind{header: true}
		}
		r.headerZone = z
		setZone(z)
		return lineKind{header: true}
	}
	r.inHeader = false
	if isWroteLine(t) {
		r.sig = 0
		r.attrib = r.newMsg()
		setZone(zAttribution)
		r.addSenders(items, r.attrib, n)
		// "On Tue, …, Bob <bob@…>" on the line before is the same
		// attribution.
		if k := len(r.queue) - 1; k >= 0 && r.prevOn == n-1 && r.queue[k].n == n-1 && !startsOn(raw) {
			if r.cand == k {
				r.cand = -1 // not a signature: the attribution's first line
			}
			for i := range r.queue[k].items {
				if r.queue[k].items[i].zone == zSentTo {
					continue
				}
				r.queue[k].items[i].zone = zAttribution
				r.addSenders([]found{{Item: r.queue[k].items[i]}}, r.attrib, n-1)
			}
		}
		return lineKind{attribution: true}
	}
	if startsOn(raw) {
		r.prevOn = n
	}
	if t == "--" || t == "—" || strings.TrimRight(raw, "\r") == "-- " {
		r.sig, r.sigDepth = signatureLines, depth
		return lineKind{closing: true}
	}
	if k, rest := closing(ws); k > 0 && (rest == len(ws) || nameLike(t[ws[rest].off:], true)) {
		// "Thanks," or "Cheers, Jane - jane@…": the signature starts.
		r.sig, r.sigDepth = signatureLines, depth
		r.signature(items, msg, depth)
		return lineKind{closing: true, signature: len(items) > 0}
	}
	if opensSignature(ws) {
		r.sig, r.sigDepth = signatureLines, depth
		r.signature(items, msg, depth)
		return lineKind{closing: true}
	}
	if r.sig > 0 {
		r.sig--
		r.signature(items, msg, depth)
		return lineKind{signature: true}
	}
	if len(items) == 0 && isTitle(t, ws) {
		return lineKind{title: true}
	}
	if len(items) == 1 && r.last.title && r.last.n == n-1 && (len(ws) == 1 || signatureShape(t, items) != "") {
		// A role mailbox under a title or company line.
		r.signature(items, msg, depth)
		return lineKind{signature: true, shape: signatureShape(t, items)}
	}
	kind := lineKind{plain: true}
	if shape := signatureShape(t, items); shape != "" {
		kind = lineKind{shape: shape}
		switch {
		case r.last.n == n-1 && r.last.shape == shape:
			// A table of such lines, not a signature.
		case r.last.colon:
			// The list a line ending in ':' announced.
		default:
			kind.candidate = true
		}
	} else if len(items) == 0 && (phoneOrURL(t) || nameLike(t, false) && len(ws) <= 6) {
		kind.plain = false
	}
	r.words(n, msg, t, ws, items, false)
	return kind
}

// words reads a line of a mail's words: what it asks, where its answer
// goes, and whether a sender's own address on it is asked about.
func (r *ticketReader) words(n, msg int, t string, ws []word, items []found, subject bool) {
	r.ms = phrases.find(r.ms, ws)
	ms := r.ms
	var s said
	request := false
	contactAt := -1
	var writer []int // where an address that says who is writing starts
	for _, m := range ms {
		switch m.class {
		case pSuppress, pRelease:
			if s.self == 0 || s.self == pAsk {
				s.self = m.class
			}
		case pAsk:
			if s.self == 0 {
				s.self = pAsk
			}
		case pUs:
			if s.self == 0 {
				s.self = pAsk
			}
			s.colleague = true
		case pRequest:
			request = true
		case pContact:
			if contactAt < 0 {
				contactAt = ws[m.first].off
			}
		case pNotMe:
			if m.end < len(ws) {
				writer = append(writer, ws[m.end].off)
			}
		}
	}
	for _, m := range ms {
		if m.class == pColleague && (request || s.self != 0) {
			s.colleague = true
		}
	}
	if s.self == 0 && len(items) == 0 && !subject {
		if c, ok := bareRequest(ws); ok {
			s.self, s.bare = c, true
		}
	} else if s.self == 0 && subject {
		if c, ok := bareRequest(ws[min(1, len(ws)):]); ok && len(items) == 0 {
			// "Subject: Unsubscribe"
			s.self, s.bare = c, true
		}
	}
	if s.self != 0 || s.colleague {
		s.msg, s.line = msg, n
		r.tk.said = append(r.tk.said, s)
		r.tk.keep(n, t)
	}
	for i := range items {
		f := &items[i]
		switch {
		case contactAt >= 0 && f.off > contactAt:
			f.zone = zContact
		case slices.Contains(writer, f.off):
			// "My email is jane@…": the writer's own address.
			f.zone = zMention
			if msg == 0 && r.depth == 0 {
				r.tk.signers = append(r.tk.signers, person{f.Value, msg, n})
			}
		case r.senders[f.Value] && !asks(ws, ms, f.off):
			f.zone = zMention
		default:
			f.zone = zBody
			r.tk.named[msg]++
		}
	}
}

// asks reports whether the sentence of a line around off holds a request.
func asks(ws []word, ms []match, off int) bool {
	from, to := sentence(ws, off)
	for _, m := range ms {
		if (m.class == pRequest || m.class.aboutSelf()) && m.first >= from && m.first < to {
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

// signature puts a line's entries in the signature of mail msg.
func (r *ticketReader) signature(items []found, msg, depth int) {
	for i := range items {
		items[i].zone = zSignature
		if msg == 0 && depth == 0 {
			r.tk.signers = append(r.tk.signers, person{items[i].Value, msg, items[i].Line})
		}
	}
}

func (r *ticketReader) addSenders(items []found, msg, n int) {
	for _, f := range items {
		r.tk.senders = append(r.tk.senders, person{f.Value, msg, n})
		r.senders[f.Value] = true
	}
}

// blank reads an empty line: it ends a header block, and a signature
// after its first line.
func (r *ticketReader) blank() {
	r.inHeader = false
	if r.sig > 0 && r.sig < signatureLines {
		r.sig = 0
	}
}

// decideCandidate decides, at the next line with text, whether a line
// that may be a one-line signature is one: it is when that line ends the
// mail (a quote, a header, an attribution, a signature's other lines) and
// is not a table's next row; else it is the body's.
func (r *ticketReader) decideCandidate(n int, k lineKind, depth int) {
	if r.cand < 0 {
		return
	}
	c := &r.queue[r.cand]
	sig := true
	switch {
	case k.shape != "" && k.shape == r.candShape && c.n == n-1:
		sig = false // the next row of a table
	case depth > c.depth, k.header, k.attribution, k.forward, k.title, k.signature, k.shape != "":
	case k.closing:
		sig = false // a closing after it: it was in the body
	case k.plain:
		sig = false
	}
	if sig {
		for i := range c.items {
			if c.items[i].zone == zSentTo {
				continue
			}
			if c.items[i].zone == zBody {
				r.tk.named[r.candMsg]--
			}
			c.items[i].zone = zSignature
			if r.candMsg == 0 && c.depth == 0 {
				r.tk.signers = append(r.tk.signers, person{c.items[i].Value, 0, c.n})
			}
		}
	}
	r.cand = -1
}

// hold queues a line's entries and hands on those of the lines that are
// decided, keeping the last (the next line may make it an attribution).
func (r *ticketReader) hold(l heldLine) {
	r.queue = append(r.queue, l)
	k := 0
	for ; k < len(r.queue)-1 && k != r.cand; k++ {
		for _, it := range r.queue[k].items {
			r.emit(it)
		}
	}
	if k > 0 {
		for _, l := range r.queue[:k] {
			if cap(l.items) > 0 {
				r.spare = append(r.spare, l.items[:0])
			}
		}
		r.queue = append(r.queue[:0], r.queue[k:]...)
		if r.cand >= 0 {
			r.cand -= k
		}
	}
}

// itemsFor returns room for a line's n entries, reusing that of a line
// handed on.
func (r *ticketReader) itemsFor(n int) []Item {
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
	return make([]Item, n, max(n, 4))
}

// end hands on what is held: a one-line signature still waiting ends the
// text, so it is one.
func (r *ticketReader) end() {
	if r.cand >= 0 {
		r.decideCandidate(-1, lineKind{header: true}, 0)
	}
	for _, l := range r.queue {
		for _, it := range l.items {
			r.emit(it)
		}
	}
	r.queue = nil
}

func (r *ticketReader) newMsg() int {
	r.msgs++
	return r.msgs - 1
}

func (r *ticketReader) msgOf(depth int) int {
	if depth == 0 {
		return r.msg
	}
	return r.qmsg
}
