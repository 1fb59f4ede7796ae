package ticket

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// What a line of a ticket is: each kind is a small test of the line and
// what reading it does, tried in order; the first that takes the line
// decides. A line none takes is words (said.go).

// line is a line with text as the reader sees it.
type line struct {
	// n is its number; first, the number of the first of the lines it
	// joins when a wrapped sentence ran over several (n when it does not):
	// the line above it is first-1.
	n, first int
	raw      string
	t        string // without quote marks and outer white space
	depth    int
	ws       []word
	toks     []token
	msg      int
	// What the words of the line work out once, when asked: its
	// sentences (span), whether it says "only" (0 not known, 1 no, 2
	// yes), and the word from which a closing inside it signs (0 not
	// known, -1 none).
	spanFrom, spanTo []int
	onlyKnown        uint8
	signedFrom       int
	// replySubject: the line is a reply's subject ("Re: …").
	replySubject bool
	// requestAbove: the line goes on from a line that ends with a
	// request word ("potete" over "sbloccare quell'indirizzo").
	requestAbove bool
	// carries: the line goes on a sentence of the line right above it,
	// which names an address ("Could you take our address x@…" over
	// "off your newsletter?").
	carries bool
}

// lineKind is what a line with text turned out to be.
type lineKind struct {
	header, attribution, forward, closing, signature, title, footer bool
	// candidate: the line may be a one-line signature ("Jane Doe -
	// jane@…"); the next line with text decides. shape is its shape.
	candidate bool
	shape     string
	// plain: a line of words, which ends a one-line signature's chances.
	plain bool
	// asks: a line of words that asks and names no address ("stop all
	// mail to her address"); asksNaming: one that names one.
	asks, asksNaming bool
}

// lineKinds are the kinds a line may be, in the order they are tried.
var lineKinds = []func(r *Reader, l *line) (lineKind, bool){
	(*Reader).forwardLine,
	(*Reader).footerLine,
	(*Reader).headerLine,
	(*Reader).formFieldLine,
	(*Reader).conversationLine,
	(*Reader).namedFieldLine,
	(*Reader).chatLine,
	(*Reader).commentLine,
	(*Reader).noteLine,
	(*Reader).wroteLine,
	(*Reader).noticeLine,
	(*Reader).delimiterLine,
	(*Reader).closingLine,
	(*Reader).openerLine,
	(*Reader).signatureLine,
	(*Reader).titleLine,
	(*Reader).roleMailboxLine,
	(*Reader).writerContactLine,
}

// classify finds what a line is and sets the zone of its tokens.
func (r *Reader) classify(l *line) lineKind {
	for _, kind := range lineKinds {
		if k, ok := kind(r, l); ok {
			return k
		}
	}
	r.st.inHeader = false
	return r.wordsLine(l)
}

// setZone puts every token of the line in z.
func (l *line) setZone(z zone) {
	for i := range l.toks {
		l.toks[i].zone = z
	}
}

// forwardLine: a forwarded mail's marker; its header lines follow.
func (r *Reader) forwardLine(l *line) (lineKind, bool) {
	if !isForwardMarker(l.t, l.ws) {
		return lineKind{}, false
	}
	m := r.startMail(l)
	r.forwarded(m)
	r.st.sig, r.st.inHeader, r.st.footer = 0, false, false
	l.setZone(zHeader)
	return lineKind{forward: true}, true
}

// forwarded marks mail m forwarded, and the mail above it as the one that
// forwards it when its subject's "VS:" was read as a reply's: Danish and
// Norwegian forward with it.
func (r *Reader) forwarded(m int) {
	r.tk.mails[m].forward = true
	p := m - 1
	if p < 0 || !r.tk.mails[p].vs || r.tk.mails[p].forwards {
		return
	}
	r.tk.mails[p].forwards, r.tk.mails[p].subject = true, 0
	for i := range r.tk.said {
		if s := &r.tk.said[i]; s.msg == p && s.subject {
			s.fwd, s.reply = true, false
		}
	}
}

// footerLine: a helpdesk's notification text ("This email is a service
// from …", "##- Please type your reply above this line -##").
func (r *Reader) footerLine(l *line) (lineKind, bool) {
	if c, _ := firstPhrase(phraseBooks().trees[inFooter], l.ws); c != cFooter && !isReplyMarker(l.t) {
		if !r.st.footer || len(l.toks) == 0 || !l.depthZeroOrSame(r) {
			return lineKind{}, false
		}
	}
	r.st.footer = true
	l.setZone(zFooter)
	return lineKind{footer: true}, true
}

func (l *line) depthZeroOrSame(r *Reader) bool { return l.depth == r.st.depth }

// headerLine: a mail header ("From:", "Von:", "Asunto:") or its
// continuation.
func (r *Reader) headerLine(l *line) (lineKind, bool) {
	st := &r.st
	name, ok := r.headerNameOf(l)
	if !ok && !(st.inHeader && startsBlank(l.raw, l.depth)) {
		return lineKind{}, false
	}
	if !ok {
		l.setZone(st.headerZone)
		return lineKind{header: true}, true
	}
	if !st.inHeader && !phraseBooks().has("header-requester", name) && !phraseBooks().has("header-contact", name) {
		r.titleAbove(l)
		r.headerBlock(l, name)
	}
	st.inHeader, st.sig, st.footer = true, 0, false
	z := r.headerZone(l, name)
	st.headerZone = z
	switch z {
	case zBody:
	case zSentTo:
		for i := range l.toks {
			if l.toks[i].zone != zCopy {
				l.toks[i].zone = zSentTo
			}
		}
	default:
		l.setZone(z)
	}
	return lineKind{header: true}, true
}

// headerBlock starts a header block: after words it is another mail (a
// forward pasted without its marker, Outlook's quoted header).
func (r *Reader) headerBlock(l *line, name string) {
	st := &r.st
	switch {
	case l.depth == 0 && st.body && st.formHead() && len(l.toks) > 0 && isSystem(l.toks[0].Value):
		// "[Web form submission] Privacy request", "Form: Contact us",
		// "Submitted: 26 Nov", "Reply-to: noreply@…": one head, a system's
		// notification of a form, not a mail forwarded under another.
	case l.depth == 0 && st.body && len(l.toks) == 0 && st.formFields >= 2 && st.formOther <= 1 && phraseBooks().has("header-subject", name):
		// "Name: Elena Marin", "Phone: …", "Subject: Newsletter",
		// "Message: …": a contact form's fields, one block, one mail.
	case l.depth == 0 && st.body, l.depth > 0 && st.qbody:
		m := r.startMail(l)
		r.forwarded(m)
		r.senderAbove(l, m)
	}
	st.lastHeaderBlock = l.msg
}

// above is the number of the line right above l.
func (l *line) above() int { return l.first - 1 }

// formHead reports the ticket's first block of words still open and made
// of labelled fields, a title above them at most: with a system's address
// in a header line under them, a form's notification.
func (st *state) formHead() bool {
	return !st.headDone && st.headFields >= 2 && st.headOther <= 1
}

// labelled reports a line that is a labelled field: a label of up to
// three words, a colon and a space (or a tab, a table's cell), a value
// ("Submitted: 26 Nov 2026").
func labelled(t string) bool {
	i := strings.Index(t, ": ")
	if j := strings.Index(t, ":\t"); j >= 0 && (i < 0 || j < i) {
		i = j
	}
	return i > 0 && i <= 30 && len(strings.Fields(t[:i])) <= 3 && !strings.Contains(t[:i], "@") && strings.TrimSpace(t[i+2:]) != ""
}

// headerZone notes a header line's people and returns their zone.
func (r *Reader) headerZone(l *line, name string) zone {
	for _, h := range headerKinds {
		if h.is(r, l, name) {
			return h.read(r, l)
		}
	}
	return zHeader
}

// headerKinds are the kinds of header lines: a test of the name (and
// where the line stands) and what reading it does.
var headerKinds = []struct {
	is   func(r *Reader, l *line, name string) bool
	read func(r *Reader, l *line) zone
}{
	// A helpdesk export's "Requester: Name <addr>" (or its "Contact:"
	// field in the ticket's first block): the ticket's.
	{func(_ *Reader, _ *line, name string) bool {
		return phraseBooks().has("header-requester", name) || phraseBooks().has("header-contact", name)
	}, (*Reader).requesterHeader},
	{func(_ *Reader, _ *line, name string) bool { return phraseBooks().has("header-from", name) }, (*Reader).fromHeader},
	{func(r *Reader, l *line, name string) bool {
		return phraseBooks().has("header-to", name) && r.st.top && l.depth == 0 && l.msg == 0
	}, func(r *Reader, l *line) zone { r.sentTo(l); return zSentTo }},
	{func(_ *Reader, _ *line, name string) bool {
		return phraseBooks().has("header-cc", name) || name == "cc" || name == "bcc"
	}, (*Reader).copyHeader},
	// The subject is the writer's words: "Unsubscribe me"; a forward's
	// ("FW: …") is the forwarded mail's.
	{func(_ *Reader, _ *line, name string) bool { return phraseBooks().has("header-subject", name) },
		func(r *Reader, l *line) zone { r.subject(l); return zBody }},
	{func(r *Reader, l *line, name string) bool {
		return phraseBooks().has("header-to", name) && r.tk.mails[l.msg].forward
	},
		func(*Reader, *line) zone { return zRecipient }},
}

// headerNameOf is the header name of l (headerName), where it stands as
// a header.
func (r *Reader) headerNameOf(l *line) (string, bool) {
	name, ok := headerName(l.t, len(l.toks) > 0 || r.st.inHeader)
	if ok && phraseBooks().has("header-contact", name) && !r.contactField(l) {
		return "", false
	}
	return name, ok
}

// contactField reports a helpdesk export's "Contact: Name <addr>" field:
// a line with an address in the ticket's first block of words (under its
// title and its other fields, before any empty line), not quoted.
// Elsewhere ("Contact: info@…" under a signature) the word is no header.
func (r *Reader) contactField(l *line) bool {
	return l.depth == 0 && !r.st.headDone && len(l.toks) > 0
}

func (r *Reader) requesterHeader(l *line) zone {
	r.addSenders(l, l.msg)
	if st := &r.st; st.convName != "" && len(l.toks) > 0 && l.toks[0].Value != "" {
		// "User: maya@…" under "Conversation with Maya Cole": her
		// address, and so the turns headed by her name are hers.
		st.names[st.convName] = l.toks[0].Value
		st.convName = ""
	}
	if l.msg == 0 && l.depth == 0 {
		r.tk.topFrom = r.tk.topFrom || len(l.toks) > 0
	}
	return zFrom
}

func (r *Reader) fromHeader(l *line) zone {
	r.addSenders(l, l.msg)
	if l.msg == 0 && l.depth == 0 && r.st.top {
		r.tk.topFrom = r.tk.topFrom || len(l.toks) > 0
	}
	return zFrom
}

// copyHeader notes the people a Cc: line copies, and their names: the
// words may keep one of them by name ("Péter, who is in copy, still
// wants the newsletter").
func (r *Reader) copyHeader(l *line) zone {
	for _, f := range l.toks {
		if f.Value != "" {
			r.tk.copied = append(r.tk.copied, person{f.Value, l.msg, l.n})
			r.noteCopiedName(f.Value[:strings.LastIndexByte(f.Value, '@')], nameBefore(l.t, f.off))
		}
	}
	return zCopy
}

// noteLine: a helpdesk's mark of an agent's internal note ("Internal
// note", "Interne Notiz", "Nota interna"), alone on its line: what
// follows is our own agent's, never the customer's request.
func (r *Reader) noteLine(l *line) (lineKind, bool) {
	if l.depth > 0 || len(l.toks) > 0 || len(l.ws) < 2 || !(len(l.ws) <= 3 && phraseBooks().hasWords("internal-note", l.ws...) || noteHeader(l)) {
		return lineKind{}, false
	}
	if m := &r.tk.mails[r.st.msg]; m.helpdesk && m.words == 0 && m.depth == 0 && r.st.msg > 0 {
		// "Sanne (Mailvlot)" and its date over "Interne notitie": the
		// comment just begun is the note.
		m.note = true
		return lineKind{header: true}, true
	}
	m := r.startMail(l)
	r.tk.mails[m].helpdesk, r.tk.mails[m].note = true, true
	return lineKind{header: true}, true
}

// noteField reports a comment header with a field of its own that marks
// an internal note ("Nina Brandt · Notiz · 12. März 2026, 09:15",
// "Sam | Internal note | 10:02", "Note · Callum Reid · Feb 27, 2026"):
// the comment is ours.
func noteField(t string) bool {
	fields := strings.FieldsFunc(t, func(c rune) bool { return strings.ContainsRune("·|•—–", c) })
	if len(fields) < 3 {
		return false
	}
	for _, f := range fields {
		ws := wordsOf(nil, f)
		if len(ws) == 1 && noteWords[folded(ws[0].s)] || len(ws) >= 2 && len(ws) <= 3 && phraseBooks().hasWords("internal-note", ws...) {
			return true
		}
	}
	return false
}

// noteHeader reports an internal note's header with its author and time
// ("Note privée — Élodie (Support) — 25 nov. 2026 à 09:20", "Internal
// note · Sam · 10:02", "Privénotitie – Sanne (sanne@…) • 11:20"): the words of a note, then a dash or a dot, on a
// short line that holds a number.
func noteHeader(l *line) bool {
	if len(l.ws) > 14 || !strings.ContainsAny(l.t, "0123456789") {
		return false
	}
	for n := 1; n <= 3 && n < len(l.ws); n++ {
		if !phraseBooks().hasWords("internal-note", l.ws[:n]...) {
			continue
		}
		last := l.ws[n-1]
		rest := strings.TrimLeft(l.t[last.off+len(last.s):], " \u00a0")
		if r, _ := utf8.DecodeRuneInString(rest); strings.ContainsRune("—–-·•|", r) {
			return true
		}
	}
	return false
}

// ruledComment begins a comment at a date line l under its author's name
// alone ("Katrin Vogel", "Jonas Reiter (Frachtpost Support)") right under
// a rule of dashes: an export that parts its comments so. A name set
// apart by blank lines above a date line with its time, a blank line
// between them at most, is such a header too ("Giulia Ferri (Studio
// Ferri)", "", "13 mar 2026, 11:02 CET": a helpdesk's notification).
func (r *Reader) ruledComment(l *line) bool {
	st := &r.st
	ruled := st.last.n == l.above() && st.ruleN == l.above()-1
	spaced := st.last.n >= l.above()-1 && st.last.spaced && timeOfDay.MatchString(l.t)
	author, verb, note := authorVerb(st.last.t)
	verbed := verb && st.last.n == l.above() && timeOfDay.MatchString(l.t)
	if !ruled && !spaced && !verbed || st.last.header {
		return false
	}
	name, team, ok := commentAuthor(author)
	if !ok {
		return false
	}
	r.nameOnlyHeader()
	m := r.startMail(l)
	r.comment(m, folded(name))
	r.tk.mails[m].helpdesk = true
	r.tk.mails[m].note = noteField(l.t)
	r.tk.mails[m].stamp = stampOf(l.t)
	r.tk.mails[m].team = team
	// "Femke de Graaf (interne notitie)": an agent's internal note.
	r.tk.mails[m].note = note || team != "" && phraseBooks().hasWords("internal-note", wordsOf(nil, team)...) || notedDate(l.t)
	st.sig, st.inHeader, st.footer = 0, false, false
	// "Demandeur : Claire Lefebvre <c.lefebvre@…>" in the fields above
	// names the author of "Claire Lefebvre".
	if v := r.st.names[folded(name)]; v != "" {
		r.addSender(v, m, l.above())
	}
	return true
}

// nameOnlyHeader takes back, from the mail the line above a comment's
// date line was read in, that line's words when they are all its words:
// the author's name is the comment's header, not a mail of its own
// ("Gary Holt" under an export's fields, over "Mar 14, 2026, 7:52 AM").
func (r *Reader) nameOnlyHeader() {
	ml := &r.tk.mails[len(r.tk.mails)-1]
	if ml.words > 0 && ml.words == len(wordsOf(nil, r.st.last.t)) {
		ml.words, ml.prose, ml.opens = 0, false, ""
	}
}

// notedDate reports a comment's date line that marks it an internal note
// in brackets ("12 mrt 2026, 09:30 (interne notitie)").
func notedDate(t string) bool {
	i := strings.LastIndexByte(t, '(')
	if i < 0 || !strings.HasSuffix(strings.TrimSpace(t), ")") {
		return false
	}
	return phraseBooks().hasWords("internal-note", wordsOf(nil, strings.TrimSuffix(strings.TrimSpace(t[i+1:]), ")"))...)
}

// noteWords are the words for a note in a helpdesk's "added a note", or a
// field of its own in a comment header.
var noteWords = map[string]bool{"note": true, "notiz": true, "nota": true, "notitie": true, "notat": true, "anteckning": true, "notatka": true, "poznamka": true, "muistiinpano": true, "jegyzet": true}

// authorVerb reads an author line that ends with a reply's verb, over the
// date line of a helpdesk's comment ("Giorgio Bellandi sent a message",
// "Lucia Ferri added a note"): the author, and whether it is a note (an
// agent's, ours). The line as it is when it ends with none.
func authorVerb(t string) (author string, verb, note bool) {
	ws := wordsOf(nil, t)
	for i := 1; i < len(ws) && i <= 4; i++ {
		if phraseBooks().hasWords("wrote", ws[i:]...) {
			return strings.TrimSpace(t[:ws[i].off]), true, slices.ContainsFunc(ws[i:], func(w word) bool { return noteWords[folded(w.s)] })
		}
	}
	return t, false, false
}

// commentAuthor reads a comment's author line, a name alone: the name
// and the team beside it, folded ("Jonas Reiter (Frachtpost Support)";
// "Niamh from Mailroute", a chat's agent and the company; "Operator", a
// helpdesk's own bot or desk), ok when it is a name.
func commentAuthor(t string) (name, team string, ok bool) {
	name = t
	if i := strings.LastIndexByte(name, '('); i > 0 && strings.HasSuffix(name, ")") {
		name, team = strings.TrimSpace(name[:i]), folded(strings.TrimSpace(name[i+1:len(name)-1]))
	} else if who, org, found := strings.Cut(name, " from "); found && nameLike(org, false) {
		name, team = strings.TrimSpace(who), folded(strings.TrimSpace(org))
	}
	if n := len(strings.Fields(name)); n == 0 || n > 4 || !nameLike(name, false) {
		return "", "", false
	}
	if team == "" && staffTeams[folded(name)] {
		team = folded(name)
	}
	return name, team, true
}

// resumesSignature reports a line that takes up again a signature an
// empty line ended: the writer's full name under the name they signed
// with ("Obrigada! / Renata", "", "Renata Albuquerque / Sócia-gerente |
// Cantina da Nonna / …"), a signature's block; or the company's block
// under a name and a title ("Birgit Köhler / Rechtsanwältin", "",
// "Kanzlei Köhler & Partner / … / sekretariat@…").
func (r *Reader) resumesSignature(l *line) bool {
	st := &r.st
	if st.sigCut && len(l.toks) == 0 && (isTitle(l.t, l.ws) || phoneOrURL(l.t)) && isTitle(st.last.t, wordsOf(nil, st.last.t)) {
		return true
	}
	head := l.t
	for _, sep := range []string{" | ", " – ", " — ", " - ", ", "} {
		// "Tomasz Wróbel | Kierownik budowy": the name, then the title.
		if h, _, ok := strings.Cut(head, sep); ok {
			head = h
		}
	}
	if !st.sigCut || !st.last.name || len(l.toks) > 0 || !nameLike(head, false) {
		return false
	}
	signed, full := strings.Fields(folded(st.last.t)), strings.Fields(folded(head))
	return len(signed) == 1 && len(full) >= 2 && signed[0] == full[0]
}

// ruleLine reports a line that is a rule and nothing else: five or more
// dashes, equals signs or underscores.
func ruleLine(t string) bool {
	return len(t) >= 5 && strings.Trim(t, "-=_—–") == ""
}

// commentLine: a helpdesk's comment header, which begins a comment
// ("Dana Whitfield (dana@…), Nov 3, 2026, 09:12", "Tomasz Nowak (tomasz@…)
// · 10:42 AM"), or the date line under a "Name (addr)" line, which makes
// that line one.
func (r *Reader) commentLine(l *line) (lineKind, bool) {
	st := &r.st
	if l.depth == 0 && len(l.toks) == 0 && dateLine(l.t) && (r.commentAbove(l) || r.ruledComment(l)) {
		return lineKind{header: true}, true
	}
	if l.depth > 0 || !commentHeader(l.t, l.ws, l.toks) {
		return lineKind{}, false
	}
	m := r.startMail(l)
	r.commentOf(m, l)
	r.addSenders(l, m)
	if len(l.toks) == 0 {
		// "Pieter Gant, Nov 2, 2026": the author named by a header before.
		if v, ok := st.names[folded(commentName(l.t))]; ok {
			r.addSender(v, m, l.n)
		}
	}
	l.setZone(zFrom)
	st.sig, st.inHeader, st.footer = 0, false, false
	return lineKind{header: true}, true
}

// commentOf notes what a comment header l says of its mail m: a
// helpdesk's, its author, its stamp, its team, whether it is a note.
func (r *Reader) commentOf(m int, l *line) {
	ml := &r.tk.mails[m]
	ml.helpdesk = true
	name := folded(commentName(l.t))
	r.comment(m, name)
	ml.stamp = stampOf(l.t)
	ml.team = commentTeamOf(l.t)
	// "Tom Fenwick (internal note) — Mar 16, 2026 08:49".
	ml.note = noteField(l.t) || noteHeader(l) || ml.team != "" && phraseBooks().hasWords("internal-note", wordsOf(nil, ml.team)...)
	if ml.team == "" && (staffTeams[name] || staffTeamIn(name)) {
		// "Operator  3:13 PM": a helpdesk's own bot.
		ml.team = name
	}
}

// comment notes mail m, a comment, by its author's name.
func (r *Reader) comment(m int, author string) {
	if author == "" || len(r.tk.commentsBy) >= maxRecords {
		return
	}
	if r.tk.commentsBy == nil {
		r.tk.commentsBy = map[string][]int{}
	}
	r.tk.mails[m].author = author
	r.tk.commentsBy[author] = append(r.tk.commentsBy[author], m)
}

// conversationLine: a chat export's title, "Conversation with Callum
// McBride", and the line right under it that opens with the customer's
// address ("callum@… · Glasgow, United Kingdom") or an address field in
// the block of lines under it ("Email: callum@…"): that address is the
// customer's, as a requester field's is, and so are the turns headed by
// their name.
func (r *Reader) conversationLine(l *line) (lineKind, bool) {
	st := &r.st
	if l.depth > 0 || l.msg != 0 {
		return lineKind{}, false
	}
	if len(l.toks) <= 1 {
		if m := conversationWith.FindStringSubmatch(l.t); m != nil && st.convLine == 0 && nameLike(m[1], false) {
			st.convName, st.convLine = folded(strings.TrimSpace(m[1])), l.n
			if len(l.toks) == 1 && l.toks[0].Value != "" {
				// The address in the title's brackets: the customer's.
				st.names[st.convName] = l.toks[0].Value
				l.setZone(zFrom)
				st.convName = ""
			}
			return lineKind{header: true}, true
		}
	}
	if !r.customerAddress(l) {
		return lineKind{}, false
	}
	st.names[st.convName] = l.toks[0].Value
	l.setZone(zFrom)
	st.convName = ""
	return lineKind{header: true}, true
}

// customerAddress reports a line under a chat export's title, while the
// customer it names awaits an address, that gives it: opening with the
// address right under the title, or an address field in the block of
// lines under it ("Email: tom@… · Company: …" under "Started …"), a
// label of a form's address field (formEmailLabels) then the address.
func (r *Reader) customerAddress(l *line) bool {
	st := &r.st
	if st.convName == "" || len(l.toks) == 0 || l.toks[0].Kind != Address || l.toks[0].Value == "" {
		return false
	}
	if l.above() == st.convLine && l.toks[0].off == 0 {
		return true
	}
	if st.convGap || !fieldLine(l) {
		return false
	}
	return formEmailLabels[folded(strings.TrimSuffix(strings.TrimSpace(l.t[:l.toks[0].off]), ":"))]
}

// namedFieldLine: a field with an address right under a field with a
// name whose label it goes on ("Besøgende: Louise Holm" over
// "Besøgendes e-mail: louise.holm@…", "Visitor: … / Visitor email: …"):
// that address is that person's, as a requester field is, and so are the
// chat turns headed by the name.
func (r *Reader) namedFieldLine(l *line) (lineKind, bool) {
	st := &r.st
	if l.depth > 0 || !fieldLine(l) || l.toks[0].Value == "" || st.last.n != l.above() {
		return lineKind{}, false
	}
	prevLabel, name, ok := strings.Cut(st.last.t, ":")
	name = strings.TrimSpace(name)
	label := folded(strings.TrimSpace(l.t[:l.toks[0].off]))
	if !ok || name == "" || !nameLike(name, false) || strings.Contains(name, "@") ||
		len(strings.TrimSpace(prevLabel)) < 3 || !strings.HasPrefix(label, folded(strings.TrimSpace(prevLabel))) {
		return lineKind{}, false
	}
	st.names[folded(name)] = l.toks[0].Value
	l.setZone(zFrom)
	return lineKind{header: true}, true
}

// conversationWith is a chat export's title and the customer's name.
// A title may carry the customer's address in brackets and the chat
// tool's name after a dot ("Conversation with Lena Stroud (lena@…) ·
// Intercom").
var conversationWith = regexp.MustCompile(`(?i)^(?:conversation with|conversation avec|konversation mit|unterhaltung mit|conversación con|conversa com|conversazione con|gesprek met|samtal med|samtale med|rozmowa z)\s+(\pL[\pL .'’-]{0,60}?\pL)\s*(?:[(<][^()<>\s]+@[^()<>\s]+[)>])?\s*(?:[·|–—]\s*[\pL .]{1,30})?$`)

// chatLine: a turn of a chat transcript, read as words. Every turn of a
// speaker is in one mail of their own, so what the customer says is not
// mixed with what the agent or a bot answers.
func (r *Reader) chatLine(l *line) (lineKind, bool) {
	if l.depth > 0 {
		return lineKind{}, false
	}
	m := chatTurn.FindStringSubmatch(l.t)
	if m == nil || !nameLike(m[1], false) || !capitalized(m[1]) {
		return lineKind{}, false
	}
	st := &r.st
	name := folded(m[1])
	if mail, ok := st.chat[name]; ok {
		// The speaker again: their turns are one mail.
		st.msg, l.msg = mail, mail
	} else {
		mail := r.startMail(l)
		r.tk.mails[mail].helpdesk = true
		// "[14:02] Mikkel (NordBolig): …": the agent's company.
		r.tk.mails[mail].team = folded(strings.TrimSpace(m[2]))
		if v, ok := st.names[name]; ok {
			r.addSender(v, mail, l.n)
		}
		if st.chat == nil {
			st.chat = map[string]int{}
		}
		st.chat[name] = mail
	}
	st.sig, st.inHeader, st.footer = 0, false, false
	return r.wordsLine(l), true
}

// commentAbove makes the line held before l, when it is a name and an
// address in brackets alone ("Dana Whitfield (dana@…)"), the header of a
// comment that begins there, l being its date line.
func (r *Reader) commentAbove(l *line) bool {
	k := len(r.queue) - 1
	if k < 0 || r.queue[k].n != l.above() || len(r.queue[k].toks) != 1 || r.queue[k].depth != 0 || r.st.last.header {
		// "Para: Suporte <suporte@…>" over the date: a header's address,
		// not a comment's author.
		return false
	}
	f := &r.queue[k].toks[0]
	text := r.tk.lines[f.Line]
	if f.Kind != Address || text == "" || !bracketedAlone(text, f.Raw) {
		return false
	}
	if f.zone == zBody && f.Value != "" {
		r.tk.mails[f.msg].named--
	}
	m := r.newMail(0)
	r.st.msg, r.st.body = m, false
	l.msg = m
	f.zone, f.msg = zFrom, m
	r.tk.mails[m].helpdesk = true
	r.tk.mails[m].stamp = stampOf(l.t)
	r.addSender(f.Value, m, f.Line)
	if r.st.cand == k {
		r.st.cand = -1
	}
	r.st.sig, r.st.inHeader, r.st.footer = 0, false, false
	return true
}

// wroteLine: a reply attribution ("On …, Jane <jane@…> wrote:", "Am …
// schrieb …:"); the mail it announces follows.
func (r *Reader) wroteLine(l *line) (lineKind, bool) {
	st := &r.st
	if !isWroteLine(l.t, l.ws) {
		if startsOn(l.raw) {
			st.prevOn = l.n
		}
		return lineKind{}, false
	}
	st.sig, st.footer = 0, false
	st.attribOpens = l.depth > 0 && !st.qbody
	st.attrib, st.attribDepth = r.newMail(l.depth+1), l.depth
	l.setZone(zAttribution)
	r.addSenders(l, st.attrib)
	if len(l.toks) == 0 {
		// "Tomasz Wieczorek napisał(a):" under the helpdesk's
		// "Zgłaszający: Tomasz Wieczorek (t.wieczorek@…)".
		if v := st.names[folded(wroteName(l.t, l.ws))]; v != "" {
			r.addSender(v, st.attrib, l.n)
		}
	}
	// "On Tue, …, Bob <bob@…>" on the line before is the same
	// attribution.
	if k := len(r.queue) - 1; k >= 0 && st.prevOn == l.above() && r.queue[k].n == l.above() && !startsOn(l.raw) {
		if st.cand == k {
			st.cand = -1 // not a signature: the attribution's first line
		}
		for i := range r.queue[k].toks {
			f := &r.queue[k].toks[i]
			if f.zone == zSentTo {
				continue
			}
			f.zone = zAttribution
			r.addSender(f.Value, st.attrib, l.above())
		}
	}
	return lineKind{attribution: true}, true
}

// delimiterLine: "-- " and its kin open a signature.
func (r *Reader) delimiterLine(l *line) (lineKind, bool) {
	if !isDelimiter(l.t, l.raw) {
		return lineKind{}, false
	}
	r.opensSignature(l)
	return lineKind{closing: true}, true
}

// opensSignature notes a line that opens mail l.msg's signature.
func (r *Reader) opensSignature(l *line) {
	r.st.sig, r.st.sigDepth, r.st.closed = signatureLines, l.depth, l.msg
}

// closingLine: "Thanks," or "Cheers, Jane - jane@…": the signature
// starts.
func (r *Reader) closingLine(l *line) (lineKind, bool) {
	k, rest := closing(l.ws)
	if k == 0 || rest != len(l.ws) && !nameLike(l.t[l.ws[rest].off:], true) && !r.longClosing(l, rest) && !signedOnLine(l, rest) {
		return lineKind{}, false
	}
	r.opensSignature(l)
	r.signature(l)
	return lineKind{closing: true, signature: len(l.toks) > 0}, true
}

// signedOnLine reports a closing whose line goes on as a whole
// signature, its parts between dashes or bars, naming an address and
// asking nothing ("mvh søren kjær, kjær tømrer aps – soren@… – fakturaer
// til bogholderi@… – mobil 20 00 00 00").
func signedOnLine(l *line, rest int) bool {
	if len(l.toks) == 0 || strings.Count(l.t[l.ws[rest].off:], " – ")+strings.Count(l.t[l.ws[rest].off:], " | ")+strings.Count(l.t[l.ws[rest].off:], " — ") < 2 {
		return false
	}
	for _, m := range phraseBooks().trees[inWords].find(nil, l.ws, phraseBooks().trees[negations]) {
		if w := classWays[m.class]; w.ask != 0 || w.self != sNone {
			return false
		}
	}
	return true
}

// openerLine: "Sent from my iPhone" and the address under it.
func (r *Reader) openerLine(l *line) (lineKind, bool) {
	if c, _ := phraseBooks().trees[atStart].at(l.ws, 0); c != cOpener {
		return lineKind{}, false
	}
	r.opensSignature(l)
	r.signature(l)
	return lineKind{closing: true}, true
}

// signatureLine: a line of a signature already open.
func (r *Reader) signatureLine(l *line) (lineKind, bool) {
	if r.st.sig <= 0 && r.resumesSignature(l) {
		r.st.sig = signatureLines
	}
	if r.st.sig <= 0 {
		return lineKind{}, false
	}
	if asksOutright(l.ws) || len(l.toks) > 0 && namesSentTo(l.ws) {
		// "Forwarded by Lee (lee@…): please suppress these" under a
		// delimiter: a request, not a signature's line; it ends the
		// signature. "This email was sent to mette@…" of our footer
		// pasted under a rule: whose the list's address is.
		r.st.sig = 0
		return lineKind{}, false
	}
	r.st.sig--
	r.signature(l)
	return lineKind{signature: true}, true
}

// namesSentTo reports words of our footer that name the address our
// mail went to, right before it ("This email was sent to x@…").
func namesSentTo(ws []word) bool {
	return sentToAt(ws, phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])) >= 0
}

// sentToAt is the word right after our footer's words that say where our
// mail went, when it is an address; -1 for none.
func sentToAt(ws []word, ms []match) int {
	for _, m := range ms {
		if m.class == cSentTo && !m.negated && m.end < len(ws) && strings.Contains(ws[m.end].s, "@") {
			return m.end
		}
	}
	return -1
}

// titleLine: a title or company line of a signature ("Data Protection
// Officer", "Acme B.V.").
func (r *Reader) titleLine(l *line) (lineKind, bool) {
	if len(l.toks) > 0 || !isTitle(l.t, l.ws) {
		return lineKind{}, false
	}
	r.st.inHeader = false
	return lineKind{title: true}, true
}

// roleMailboxLine: a role mailbox right under a title or company line,
// or a line of addresses right under the head of a signature
// (signatureHeadAbove).
func (r *Reader) roleMailboxLine(l *line) (lineKind, bool) {
	if len(l.toks) == 0 || r.st.last.n != l.above() || !r.signatureHeadAbove(l) {
		return lineKind{}, false
	}
	shape := signatureShape(l.t, l.toks)
	if (len(l.toks) != 1 || len(l.ws) != 1 && shape == "") && !contactLine(l) {
		return lineKind{}, false
	}
	r.signature(l)
	return lineKind{signature: true, shape: shape}, true
}

// writerContactLine: after its mail's closing, a contact line of several
// addresses, one of them the writer's own ("m.ellison@… | office@…"
// under the company's name and street): the signature's, wherever it
// stands in it. A line a colon announced is a list.
func (r *Reader) writerContactLine(l *line) (lineKind, bool) {
	if r.st.closed != l.msg || len(l.toks) < 2 || r.st.last.colon || !contactLine(l) {
		return lineKind{}, false
	}
	from := r.tk.mails[l.msg].from
	if from == "" || !slices.ContainsFunc(l.toks, func(f token) bool { return f.Value == from }) {
		return lineKind{}, false
	}
	r.signature(l)
	return lineKind{signature: true}, true
}

// signatureHeadAbove reports the line above l as a signature's head that
// line l of addresses goes on: a title or company line; a line of phone
// numbers; a name, or a signature's line, over a contact line ("claire@…
// | compta@…", "E: claire@…", "Encomendas: encomendas@… | Geral:
// geral@…"), not over one bare address ("Anna Berg" over "anna@…" may be
// an entry of a list); a company's line over a contact line with a phone.
func (r *Reader) signatureHeadAbove(l *line) bool {
	last := r.st.last
	switch {
	case last.title:
		return true
	case last.phones:
		return contactLine(l)
	case last.name:
		return contactLine(l) && (len(l.toks) > 1 || !onlyTokens(l))
	case last.sig:
		return contactLine(l) && !onlyTokens(l)
	case last.nameish:
		return phoneBeside(l)
	}
	return false
}

// phoneBeside reports a contact line that gives a phone number or a web
// address beside its addresses ("tel. 75 555 19 04 | j.lipowska@…"):
// under a company's line, a signature's.
func phoneBeside(l *line) bool {
	return contactLine(l) && slices.ContainsFunc(contactFields(l), phoneOrURL)
}

// phonesOnly reports a line of phone numbers and web addresses between
// separators, and nothing else.
func phonesOnly(l *line) bool {
	parts := contactFields(l)
	return len(l.toks) == 0 && len(parts) > 0 && !slices.ContainsFunc(parts, func(p string) bool { return !phoneOrURL(p) })
}

// wordsKind is what a line of words may be besides words: a one-line
// signature (the next line decides), a row of a table of such lines, a
// name's or a phone's line.
func (r *Reader) wordsKind(l *line) lineKind {
	st := &r.st
	shape := signatureShape(l.t, l.toks)
	switch {
	case shape != "":
		kind := lineKind{shape: shape}
		switch {
		case st.last.n == l.above() && st.last.shape == shape && !r.signatureRunsOn(l):
			// A table of such lines, not a signature.
		case st.last.colon:
			// The list a line ending in ':' announced.
		default:
			kind.candidate = true
		}
		return kind
	case len(l.toks) == 0 && (phoneOrURL(l.t) || nameLike(l.t, false) && len(l.ws) <= 6):
		return lineKind{}
	case len(l.toks) == 1 && r.signatureRunsOn(l):
		// "Gabor Szabo, manager: gabor@…" under "Billing: billing@…".
		return lineKind{candidate: true}
	}
	return lineKind{plain: true}
}

// signatureRunsOn reports a labelled line ("Booking: booking@…") right
// under a run of a signature's labelled lines of addresses
// ("Reception: reception@… | +36 …"): the signature goes on.
func (r *Reader) signatureRunsOn(l *line) bool {
	return r.st.sigRun > 0 && r.st.sigRun == l.above()-1 && labelled(l.t)
}

// wordsLine reads a line of a mail's words, which may also be a one-line
// signature ("Jane Doe - jane@…"): the next line with text decides.
func (r *Reader) wordsLine(l *line) lineKind {
	st := &r.st
	kind := r.wordsKind(l)
	if l.msg == 0 && l.depth == 0 && !st.body && titleLine(l.t) {
		// A helpdesk export's title: its subject.
		r.tk.mails[0].subject = l.n
		r.words(l, true)
		return kind
	}
	r.words(l, false)
	asked := r.asked(l.n)
	kind.asks, kind.asksNaming = asked && len(l.toks) == 0, asked && len(l.toks) > 0
	return kind
}

// asked reports whether line n asks something.
func (r *Reader) asked(n int) bool {
	k := len(r.tk.said) - 1
	return k >= 0 && r.tk.said[k].line == n && r.tk.said[k].asks != 0
}

// signature puts a line's addresses in the signature of its mail, and
// notes the name the top mail is signed with.
func (r *Reader) signature(l *line) {
	if l.msg == 0 && l.depth == 0 && len(l.toks) == 0 && r.tk.signName == "" {
		r.tk.signName = signedName(l)
	}
	for i := range l.toks {
		f := &l.toks[i]
		if f.Kind != Address {
			continue
		}
		f.zone = zSignature
		if l.msg == 0 && l.depth == 0 && f.Value != "" {
			r.tk.signers = append(r.tk.signers, person{f.Value, l.msg, l.n})
		}
	}
}

// addSenders notes the line's addresses as senders of mail msg, and the
// name beside each ("Jane Doe <jane@…>").
func (r *Reader) addSenders(l *line, msg int) {
	for _, f := range l.toks {
		r.addSender(f.Value, msg, l.n)
		if name := nameBefore(l.t, f.off); name != "" && f.Value != "" {
			r.st.names[folded(name)] = f.Value
		}
		if name := trailingName(l.t[:f.off]); name != "" && f.Value != "" && len(r.tk.senderNames) < maxRecords {
			r.tk.senderNames[f.Value] = folded(name)
		}
	}
}

func (r *Reader) addSender(v string, msg, n int) {
	if v == "" {
		return
	}
	r.tk.senders = append(r.tk.senders, person{v, msg, n})
	r.st.senders[v] = true
	m := &r.tk.mails[msg]
	if m.from == "" {
		m.from = v
		if isDaemon(v) {
			r.bounceFrom(msg, n)
		}
	}
}

// subject reads a Subject: line. A forward's subject ("FW: …", "WG: …")
// belongs to the mail forwarded, which follows.
func (r *Reader) subject(l *line) {
	r.st.headerZone = zBody
	rest := l.t[strings.IndexByte(l.t, ':')+1:]
	if !isForwardSubject(rest) {
		r.tk.mails[l.msg].subject = l.n
	}
	r.tk.mails[l.msg].vs = subjectPrefix(rest, "vs:")
	r.tk.mails[l.msg].auto = autoReply.MatchString(rest)
	r.words(l, true)
}

// autoReply is the subject of an automatic reply, in the books'
// languages and Outlook's and Gmail's words ("Automatic reply:", "Out of
// Office:", "Abwesenheitsnotiz:", "Réponse automatique :").
var autoReply = regexp.MustCompile(`(?i)^\s*(?:(?:re|aw|sv|antw|vs|fw|fwd|wg|tr|vb|vl|i)\s*:\s*)*(?:automatic reply|auto(?:matic)?[- ]?reply|out of (?:the )?office|abwesenheitsnotiz|automatische antwort|r[ée]ponse automatique|respuesta autom[áa]tica|risposta automatica|resposta autom[áa]tica|automatisch antwoord|afwezigheidsbericht|automatiskt svar|automatisk svar|automatisk besked|autosvar|odpowied[źz] automatyczna|automatick[áa] odpov[ěe][ďd]|otomatik yan[ıi]t|automaattinen vastaus|automatikus v[áa]lasz)\b`)

// sentTo notes the addresses of the ticket's own To: line: our support
// mailbox, unless one shares the sender's domain (a colleague put in To:
// beside our mailbox), which counts as copied.
func (r *Reader) sentTo(l *line) {
	from := r.tk.mails[0].from
	for i := range l.toks {
		f := &l.toks[i]
		if f.Value == "" {
			continue
		}
		if from != "" && sameDomain(f.Value, from) && f.Value != from && len(l.toks) > 1 {
			f.zone = zCopy
			r.tk.copied = append(r.tk.copied, person{f.Value, l.msg, l.n})
			continue
		}
		r.tk.sentTo[f.Value] = true
	}
}

// sameDomain reports two addresses at the same domain.
func sameDomain(a, b string) bool {
	i, j := strings.LastIndexByte(a, '@'), strings.LastIndexByte(b, '@')
	return i >= 0 && j >= 0 && a[i:] == b[j:]
}

// signedName is the first word of the name a line of a signature gives,
// folded ("Grazie, Chiara", "Chiara"), "" for none.
func signedName(l *line) string {
	_, rest := closing(l.ws)
	if rest >= len(l.ws) {
		return ""
	}
	t := l.t[l.ws[rest].off:]
	if !nameLike(t, false) || !capitalized(t) {
		return ""
	}
	return folded(l.ws[rest].s)
}
