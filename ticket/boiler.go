package ticket

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What stands around a request and is not part of it: the boilerplate
// under a mail (a closing with words after it, a contact line, a legal
// notice), a helpdesk export's title and message heads, a web form's
// address field, a bounce report's own words, a button's name in quotes,
// an address named beside the request, and one the ticket speaks of
// without giving it.

// longClosing reports a closing with a few words after it, on a line of
// its own that ends in a comma ("Thanks a million,", "Merci d'avance,",
// "Grazie e buon fine settimana,"), after the mail's words: a signature
// follows. A line that names an address or asks anything is not one, nor
// one right under the mail's header or its greeting ("Hi team," over
// "Thanks for the quick reply,"), which opens the mail's words.
func (r *Reader) longClosing(l *line, rest int) bool {
	if len(l.toks) > 0 || len(l.ws)-rest > 4 || !strings.HasSuffix(l.t, ",") || r.st.last.n == 0 || r.st.last.header || r.st.last.greeting {
		return false
	}
	for _, m := range phraseBooks().trees[inWords].find(nil, l.ws, phraseBooks().trees[negations]) {
		if w := classWays[m.class]; w.ask != 0 || w.self != sNone {
			return false
		}
	}
	return true
}

// noticeLine: a legal notice under a mail's words ("This email is
// confidential and intended solely for the addressee…", "Le informazioni
// contenute in questo messaggio sono riservate…"), to the end of its
// paragraph. It asks nothing ("… notify privacy@… and delete it"), and
// its addresses are the signature's, never a target.
func (r *Reader) noticeLine(l *line) (lineKind, bool) {
	st := &r.st
	body := st.body
	if l.depth > 0 {
		body = st.qbody
	}
	if st.notice == 0 || st.notice < l.above() || l.depth != st.depth {
		if c, _ := firstPhrase(phraseBooks().trees[inFooter], l.ws); c != cNotice || !body {
			st.notice = 0
			return lineKind{}, false
		}
	}
	st.notice, st.sig = l.n, 0
	l.setZone(zSignature)
	return lineKind{footer: true}, true
}

// inContact reports an address at off after where the words say the
// answer is to go (contactAt, -1 for none), in the same sentence: "…
// asked us in writing to have his data deleted. Please erase x@…" does
// not send the answer to x@….
func inContact(l *line, contactAt, off int) bool {
	if contactAt < 0 || off <= contactAt || strings.IndexByte(l.t[contactAt:off], ';') >= 0 {
		return false // "our team is now billing@…; accounts@… is closed, please block it"
	}
	for _, w := range l.ws {
		if w.off >= contactAt && w.off < off && w.ends {
			return false
		}
	}
	return true
}

// namesLocal reports a line that names in full an address whose local
// part is w: "our billing address is now billing@…" names that address
// once, where it stands in full.
func namesLocal(l *line, w string) bool {
	for _, f := range l.toks {
		if f.Kind == Address && strings.EqualFold(localPart(f.Raw), w) {
			return true
		}
	}
	return false
}

// writersAddress matches words for the address the writer writes from
// or themselves: "this one", "my current address", "me", "dit adres",
// "cette adresse".
var writersAddress = regexp.MustCompile(`(?i)\b(?:` +
	`(?:this|my current|my new|the current)\s+(?:one|address|e-?mail|inbox|mailbox|account)|me|myself|mine` +
	`|dit\s+(?:e-?mail)?adres|mij|mich|diese[rn]?\s+(?:e-?mail-?)?adresse|moi|cette\s+adresse|esta\s+(?:direcci[oó]n|cuenta)` +
	`|questo\s+indirizzo|este\s+endere[cç]o` +
	`)\b`)

// unnamedTarget makes a request unsure that is about an address the
// ticket speaks of and does not give ("I still get your newsletter at
// my old work address, can you unsubscribe that one?"): the writer's own
// address is not the one, and a careful agent asks for it. A writer who
// asks about themselves in so many words ("unsubscribe me"), or whose
// request is about the address they write from ("put this one back"), is
// not asked.
func (t *Ticket) unnamedTarget(w *weighing, own Own) {
	if !w.p.Mode.Changes() || w.asker < 0 || t.namesSomeone(*w, own) {
		return
	}
	at := 0
	for _, s := range t.said {
		switch {
		case s.msg != w.asker || s.subject:
		case s.self == sSuppress || s.self == sRelease:
			if !selfUnnamed(t.lines[s.line]) {
				return
			}
			at = cmp.Or(at, s.line)
		case at == 0 && unnamed(t.lines[s.line]):
			at = s.line
		}
	}
	if said := sentenceOf(w.p.By.Text, w.p.Words); at == 0 || writersAddress.MatchString(said) || fromHere(said) {
		return
	}
	w.p.Mode, w.p.Why = ModeUnsure, "asks about an address it does not give"
	w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d speaks of an address the ticket does not give: ask for it", at))
}

// otherUnnamed makes unsure a change asked for another person when the
// ticket names no address but the writer's and ours ("Herr Reuter ist
// ausgeschieden. Bitte nehmen Sie ihn aus allen Verteilern heraus",
// "Pouvez-vous la débloquer ?"): whose address, a person must ask.
func (t *Ticket) otherUnnamed(w *weighing, own Own) {
	if !w.p.Mode.Changes() || w.p.Mode == ModeRemoveIDs || w.asker < 0 || t.namesSomeone(*w, own) || !t.asksForOther(*w) || t.sendsAny(w, own) {
		return
	}
	w.p.Mode, w.p.Why = ModeUnsure, "asks about another person and gives no address for them"
	w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d asks about another person and the ticket gives no address for them: ask for it", w.p.By.Line))
}

// sendsAny reports an address a batch of the proposal's mode would send.
func (t *Ticket) sendsAny(w *weighing, own Own) bool {
	return len(t.sentBy(w, own)) > 0
}

// sentBy is the addresses a batch of the proposal's mode sends.
func (t *Ticket) sentBy(w *weighing, own Own) map[string]bool {
	return t.sentWith(w, own, t.factsOf(*w, own))
}

// sentWith is sentBy with the ticket's facts f for the proposal read.
func (t *Ticket) sentWith(w *weighing, own Own, f *facts) map[string]bool {
	dir := w.p.Mode.direction()
	sent := map[string]bool{}
	for _, x := range t.order {
		if !t.decide(x, t.records[x], own, f).For(dir).Leave {
			sent[x] = true
		}
	}
	return sent
}

// unnamed reports words of a line about an address other than the one
// the writer writes from ("my old work address", "mijn oude werkadres",
// "vechea mea adresă"): the books' unnamed-address phrases.
func unnamed(text string) bool {
	return len(unnamedIn(wordsOf(nil, text))) > 0
}

// unnamedIn is the unnamed-address phrases in ws, but negated ones.
func unnamedIn(ws []word) []match {
	ms := phraseBooks().trees[unnamedAddresses].find(nil, ws, phraseBooks().trees[negations])
	return slices.DeleteFunc(ms, func(m match) bool { return m.negated })
}

// selfUnnamed reports a phrase about the writer whose words are those of
// an address the writer does not write from: "să dezabonați adresa mea
// veche" asks about their old address, not about them.
func selfUnnamed(text string) bool {
	ws := wordsOf(nil, text)
	us := unnamedIn(ws)
	if len(us) == 0 {
		return false
	}
	for _, m := range phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations]) {
		if m.negated || classWays[m.class].self == sNone {
			continue
		}
		for _, u := range us {
			if u.first < m.end && m.first < u.end {
				return true
			}
		}
	}
	return false
}

// fromHere reports words that name the address the writer writes from
// ("the one I'm writing from", "desde la que os escribo").
func fromHere(text string) bool {
	return slices.ContainsFunc(phraseBooks().trees[inWords].find(nil, wordsOf(nil, text), phraseBooks().trees[negations]), func(m match) bool {
		return m.class == cFromHere && !m.negated
	})
}

// sentenceOf is the sentence of text that holds words (all of text when
// it does not).
func sentenceOf(text, words string) string {
	i := indexFold(text, words)
	if i < 0 || words == "" {
		return text
	}
	from := strings.LastIndexAny(text[:i], ".?!") + 1
	to := strings.IndexAny(text[i:], ".?!")
	if to < 0 {
		to = len(text) - i
	}
	return text[from : i+to]
}

// indexFold is the byte offset in text of the first match of words, case
// folded, -1 for none: an offset into text itself, which lowering both
// would not give where text holds bytes that are no UTF-8.
func indexFold(text, words string) int {
	for k := range text {
		if len(text)-k >= len(words) && strings.EqualFold(text[k:k+len(words)], words) {
			return k
		}
	}
	return -1
}

// idRow reports a row of a table of suppressions: a line that names a
// suppression ID and more cells beside it, set apart by a tab, a "|" or
// a run of spaces ("3f6d…   hard bounce   31 Oct 2026"). Its words say
// what the entry is ("hard bounce", "unsubscribed"), not what to do.
func idRow(l *line) bool {
	id := -1
	for _, f := range l.toks {
		if f.Kind == ID {
			id = f.off
			break
		}
	}
	if id < 0 || len(l.ws) <= 1 {
		return false
	}
	// Cells between tabs, runs of spaces or pipes ("7c2e… | biuro@… |
	// hard bounce").
	return tableRow(l.t) || strings.Contains(l.t[id:], "  ") || strings.Count(l.t[id:], "|") >= 2
}

// senderAbove makes the line right before a header block that begins
// mail m, when it is a name and an address in brackets alone ("Tiago
// Valadares <tiago@…>" over "Para: …", as Front exports a message), the
// sender of that mail (a helpdesk's message), not a one-line signature of
// the mail before.
func (r *Reader) senderAbove(l *line, m int) {
	k := len(r.queue) - 1
	if k < 0 || r.queue[k].n != l.above() || len(r.queue[k].toks) != 1 || r.queue[k].depth != l.depth {
		return
	}
	f := &r.queue[k].toks[0]
	text := r.tk.lines[f.Line]
	if f.Kind != Address || f.Value == "" || text == "" || strings.Contains(text, ":") || !bracketedAlone(text, f.Raw) {
		return
	}
	if name, _ := headerName(l.t, true); phraseBooks().has("header-from", name) || phraseBooks().has("header-requester", name) {
		// The block names its own sender: the line above signs the mail
		// before it.
		return
	}
	if f.zone == zBody {
		r.tk.mails[f.msg].named--
	}
	f.zone, f.msg = zFrom, m
	r.tk.mails[m].helpdesk = true
	r.addSender(f.Value, m, f.Line)
	if r.st.cand == k {
		r.st.cand = -1
	}
}

// namesOthers reports a mail whose words name an address not ours: "Caixa
// de entrada: Suporte <suporte@…>" over a helpdesk export names only our
// own mailbox, and the mails under it are still the targets.
func (t *Ticket) namesOthers(m int, own Own) bool {
	n := t.mails[m].named
	for _, v := range t.order {
		if n <= 0 {
			break
		}
		if !t.isOurs(v, own) {
			continue
		}
		for _, o := range t.records[v].occ {
			if o.zone == zBody && o.msg == m {
				n--
			}
		}
	}
	return n > 0
}

// quotedLabel reports a phrase that is all a short quotation: the name of
// a button or a link ("I clicked \"unsubscribe\" by mistake", "le di a
// «darme de baja»"), not a request.
func quotedLabel(l *line, m match) bool {
	if m.first >= len(l.ws) || m.end > len(l.ws) || m.end <= m.first {
		return false
	}
	from := l.ws[m.first].off
	last := l.ws[m.end-1]
	to := last.off + len(last.s)
	before := strings.TrimRight(l.t[:from], " \u00a0")
	after := strings.TrimLeft(l.t[to:], " \u00a0")
	open, oSize := utf8.DecodeLastRuneInString(before)
	shut, sSize := utf8.DecodeRuneInString(after)
	if oSize > 0 && sSize > 0 && singleQuoted(before[:len(before)-oSize], open, shut, after[sSize:]) {
		return true
	}
	if oSize == 0 || !strings.ContainsRune(`"“”«»„`, open) || !strings.ContainsRune(`"“”«»`, shut) {
		// "clicked « se désinscrire »": the phrase is a word or two
		// inside the quotation.
		return insideQuote(before, after)
	}
	// The quotation opens right before the phrase: not the end of an
	// earlier one ("… ends with \"Stop\" and unsubscribe").
	return strings.Count(before, string(open))%2 == 1 || open == '«' || open == '“' || open == '„'
}

// insideQuote reports text around a phrase that opens a quotation at
// most two words before it and closes it at most two words after it.
func insideQuote(before, after string) bool {
	i := strings.LastIndexAny(before, `"“«„`)
	j := strings.IndexAny(after, `"”»“`)
	if i < 0 || j < 0 {
		return false
	}
	lead, tail := before[i:], after[:j]
	_, size := utf8.DecodeRuneInString(lead)
	lead = lead[size:]
	if strings.ContainsAny(lead, `"”»“`) || strings.ContainsAny(tail, `"“«„`) ||
		len(strings.Fields(lead))+len(strings.Fields(tail)) > 2 {
		return false
	}
	// A straight quote opens only after an even number of them.
	return before[i] != '"' || strings.Count(before[:i], `"`)%2 == 0
}

// formFieldLine: the address field of a web form that a system mails on
// ("Email: ravi@…" in a HubSpot, Typeform or WordPress notification from
// noreply@…): whoever filled in the form wrote its message, and is the
// sender of the mail as a careful agent reads it.
func (r *Reader) formFieldLine(l *line) (lineKind, bool) {
	if !fieldLine(l) || l.toks[0].Value == "" || !isSystem(r.tk.mails[l.msg].from) {
		return lineKind{}, false
	}
	label := folded(strings.TrimSuffix(strings.TrimSpace(l.t[:l.toks[0].off]), ":"))
	if !formEmailLabels[label] {
		return lineKind{}, false
	}
	r.addSender(l.toks[0].Value, l.msg, l.n)
	l.setZone(zFrom)
	return lineKind{header: true}, true
}

// formEmailLabels are the labels, folded, of a form's address field.
var formEmailLabels = map[string]bool{
	"email": true, "e-mail": true, "email address": true, "e-mail address": true, "your email": true,
	"correo": true, "correo electronico": true, "courriel": true, "adresse e-mail": true, "adresse email": true,
	"e-mailadres": true, "emailadres": true, "e-mail-adresse": true, "e-mail adresse": true,
	"indirizzo email": true, "indirizzo e-mail": true, "endereco de e-mail": true, "endereco de email": true,
}

// titleAbove makes the ticket's first line, when a header line follows
// it right away ("Postfach sperren" over "Posteingang: Support <…>", as
// a helpdesk exports a conversation), the export's title: its subject,
// which asks only when the messages under it do not.
func (r *Reader) titleAbove(l *line) {
	k := len(r.tk.said) - 1
	if l.depth != 0 || k != 0 || r.st.last.n != l.above() || r.st.last.header {
		return
	}
	s := &r.tk.said[k]
	if s.line != r.st.last.n || s.msg != 0 || s.subject || s.names {
		return
	}
	if n := len(wordsOf(nil, r.tk.lines[s.line])); n == 0 || n != r.tk.words || n > 10 {
		// Not the ticket's only words so far, or more than a title.
		return
	}
	s.subject = true
	r.tk.mails[0].subject = s.line
}

// contactLine reports a signature's contact line: addresses and nothing
// else but labels, phone numbers and web addresses between separators
// ("rosa@… | ops@…", "E: ops@… · T: +44 …").
func contactLine(l *line) bool {
	for _, f := range l.toks {
		if f.Kind != Address {
			return false
		}
	}
	for _, p := range contactFields(l) {
		p = strings.TrimSpace(p)
		switch {
		case p == "", phoneOrURL(p):
		case strings.HasSuffix(p, ":") && len(strings.Fields(p)) <= 2:
			// A label: "E:", "Office:".
		case len(strings.Fields(p)) <= 3 && strings.Contains(p, ":"):
			// A label and a phone: "T: +44 20 …" is phoneOrURL's; "E: " with
			// its address taken out is a label.
			label, value, _ := strings.Cut(p, ":")
			if len(strings.Fields(label)) > 2 || !phoneOrURL(value) && strings.TrimSpace(value) != "" {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// contactFields are the parts of line l, its tokens taken out, between
// a contact line's separators ("E: ", "T: +44 …" of "E: ops@… · T: +44 …").
func contactFields(l *line) []string {
	rest := l.t
	for _, f := range l.toks {
		rest = strings.Replace(rest, f.Raw, " ", 1)
	}
	return strings.FieldsFunc(rest, func(c rune) bool { return strings.ContainsRune("|·•,;/–—", c) })
}

// asides finds, by where they start, the addresses a line of words names
// beside its request without asking anything of them: in a sentence that
// asks nothing while another sentence of the line asks of an address of
// its own ("Please block old@…. My colleague jen@… knows the details."),
// or as the colleague a sentence names before it asks of another address
// ("As my colleague jen@… told you, please block old@…").
func asides(l *line, ms []match) map[int]bool {
	if len(l.toks) == 0 {
		return nil
	}
	var out map[int]bool
	for _, f := range l.toks {
		if f.Kind != Address || f.Value == "" || !askedBeside(l, ms, f) {
			continue
		}
		if out == nil {
			out = map[int]bool{}
		}
		out[f.off] = true
	}
	return out
}

// askedBeside reports the address f of the line as one named beside a
// request for another address (asides).
func askedBeside(l *line, ms []match, f token) bool {
	from, to := sentence(l.ws, f.off)
	at := wordAt(l.ws, f.off)
	asks, colleague := -1, false
	for _, m := range ms {
		switch {
		case m.negated || m.first < from || m.first >= to:
		case m.class == cColleague && m.end == at:
			colleague = true
		case asks < 0 && saysOf(m.class) && saysHere(l, m, from, to):
			asks = m.first
		}
	}
	switch {
	case asks < 0:
		return otherAsked(l, ms, f, 0)
	case colleague && asks > at:
		return otherAsked(l, ms, f, asks)
	}
	return false
}

// saysHere reports a phrase m that says something of an address of its
// sentence (words from to to): one that leaves out an address before or
// after it, only when one stands there ("I asked carl@… whether he still
// wants them" keeps no one); "too" not in a sentence that only says what
// might happen ("If carl@… complains too I'll let you know").
func saysHere(l *line, m match, from, to int) bool {
	switch m.class {
	case cExcept, cExclude, cExceptAfter, cWaveOff:
		for _, g := range l.toks {
			if at := wordAt(l.ws, g.off); g.Kind == Address && at >= from && at < to {
				if _, ok := exceptsAt(l.ws, m, at); ok {
					return true
				}
			}
		}
		return m.class == cExclude
	case cAlso:
		return !conditionWords[folded(l.ws[from].s)]
	}
	return true
}

// conditionWords open a sentence that says what might happen ("if",
// "wenn", "si"), in the books' languages.
var conditionWords = map[string]bool{"if": true, "wenn": true, "falls": true, "si": true, "se": true, "als": true, "indien": true, "om": true, "ifall": true, "hvis": true, "jesli": true, "jezeli": true, "pokud": true, "kdyz": true}

// saysOf reports a class of phrase that says something of the addresses
// of its sentence: asks, narrows, leaves out, hands over.
func saysOf(c class) bool {
	switch c {
	case cAlso, cOnly, cExcept, cExceptAfter, cWaveOff, cExclude, cSuccessor, cHandsTo, cContact:
		return true
	}
	return classWays[c].ask != 0 || classWays[c].self != sNone
}

// otherAsked reports another address of the line, from its word after
// on, in a sentence that asks a change.
func otherAsked(l *line, ms []match, f token, after int) bool {
	if colleagueBesideSelf(l, ms, f.off) {
		return true
	}
	for _, g := range l.toks {
		if g.Kind != Address || g.off == f.off || wordAt(l.ws, g.off) < after {
			continue
		}
		if asksChange(l, ms, g.off) {
			return true
		}
	}
	return false
}

// colleagueBesideSelf reports a sentence, around the word at off, that
// names a colleague on a line another sentence of which asks a change
// for the writer: "Please unsubscribe me. My colleague jen@… would like
// to keep getting it".
func colleagueBesideSelf(l *line, ms []match, off int) bool {
	from, to := sentence(l.ws, off)
	colleague, self := false, false
	for _, m := range ms {
		w := classWays[m.class]
		switch {
		case m.negated:
		case m.first >= from && m.first < to:
			colleague = colleague || m.class == cColleague
		case (w.self == sSuppress || w.self == sRelease) && w.ask&changing != 0:
			self = true
		}
	}
	return colleague && self
}

// asksChange reports the sentence around off as one that asks a change
// and neither narrows nor leaves anything out: "please stop sending to
// that one only; x@… should keep getting receipts" asks of an address
// before it, not of x@….
func asksChange(l *line, ms []match, off int) bool {
	from, to := sentence(l.ws, off)
	asks := false
	for _, m := range ms {
		switch {
		case m.negated || m.first < from || m.first >= to:
		case m.class == cExcept, m.class == cExceptAfter, m.class == cWaveOff, m.class == cExclude, m.class == cNotSuppress, m.class == cOnly:
			// It leaves out or narrows: the rule's other ways decide.
			return false
		case classWays[m.class].ask&changing != 0:
			asks = true
		}
	}
	return asks
}

// besideRequest is the zone of an address of the words that stands in z,
// when asides marks it aside.
func besideRequest(z zone, aside bool) zone {
	if aside && z == zBody {
		return zAside
	}
	return z
}

// mentions keeps the words of a line that name an address by its local
// part; a reply's subject ("Re: stop mails to the marketing inbox")
// repeats the request answered, and names no mailbox of the reply.
func (r *Reader) mentions(l *line, ms []match) {
	if l.replySubject {
		return
	}
	r.localMentions(l, ms)
	r.mailboxMentions(l, ms)
}

// asideNotes asks about each address the deciding mails name beside
// their request without asking anything of it ("my colleague jen@… knows
// the details"): it is left out, and a person says whether it is meant.
func (t *Ticket) asideNotes(w *weighing) {
	if !w.p.Mode.Changes() {
		return
	}
	for _, v := range t.order {
		for _, o := range t.records[v].occ {
			if o.zone != zAside || !w.targets[o.msg] {
				continue
			}
			w.p.Evidence = append(w.p.Evidence, Said{Line: o.line, Text: t.lines[o.line], Says: "named beside the request: " + v + " — check"})
			w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d names %s beside the request without asking anything of it: take it in by hand if it is meant", o.line, v))
			break
		}
	}
}

// elsewhereUnnamed asks for the address a request is about when its
// writer says they write from another one and names none ("Please
// unsubscribe me. I'm writing from my work email."): the one they write
// from may not be it.
func (t *Ticket) elsewhereUnnamed(w *weighing) {
	if !w.p.Mode.Changes() {
		return
	}
	for _, m := range t.newestFirst() {
		// "… die Firmenadresse aus meiner Signatur": named there.
		pointed := slices.ContainsFunc(t.sigPoints, func(o occurrence) bool { return o.msg == m })
		if n := t.mails[m].elsewhere; w.targets[m] && n > 0 && t.wordsNameOthers(m) == 0 && !pointed {
			w.p.Evidence = append(w.p.Evidence, Said{Line: n, Text: t.lines[n], Says: "writes from another address"})
			w.p.Ask = append(w.p.Ask, fmt.Sprintf("line %d says the writer writes from another address than the one meant, and the ticket names none: ask which", n))
			return
		}
	}
}

// nameAlone reports a line that is a name and nothing else ("Claire",
// "Rosa Keel"): a signature's first line.
func nameAlone(l *line, kind lineKind) bool {
	return len(l.toks) == 0 && len(l.ws) <= 4 && !kind.header && nameLike(l.t, false)
}

// singleQuoted reports a phrase between single quotes ("I clicked
// 'Unsubscribe' by mistake"), an apostrophe ruled out: the opening quote
// starts a word, the closing one ends one.
func singleQuoted(before string, open, shut rune, after string) bool {
	if open != '\'' && open != '‘' || shut != '\'' && shut != '’' {
		return false
	}
	b, _ := utf8.DecodeLastRuneInString(before)
	a, _ := utf8.DecodeRuneInString(after)
	return (before == "" || unicode.IsSpace(b) || b == '(') && (after == "" || !unicode.IsLetter(a))
}

// bounceFrom marks mail m a bounce report from line n on (its daemon's
// From:, its first bounce words).
func (r *Reader) bounceFrom(m, n int) {
	if ml := &r.tk.mails[m]; !ml.bounce {
		ml.bounce, ml.bounceAt = true, n
	}
}

// reportWords is the line s as its mail asks it: the words of a bounce
// report a mail daemon sent never ask to put an address back ("vuelva a
// enviar el mensaje", "renvoyez le message" say to send the message
// again). A person's mail that speaks of a bounce ("this bounce notice
// came back, could you reactivate it?") asks as it says.
func (t *Ticket) reportWords(s said) said {
	if ml := t.mails[s.msg]; ml.bounce && isSystem(ml.from) && s.line >= ml.bounceAt {
		s.asks &^= aRelease
		s.weak &^= aRelease
	}
	return s
}

// greetingLine reports a line that opens a mail: a greeting of the books
// and a name at most ("Hi team,", "Hallo Anna,").
func greetingLine(l *line) bool {
	if len(l.toks) > 0 || len(l.ws) == 0 || len(l.ws) > 4 {
		return false
	}
	b := phraseBooks()
	return b.has("greeting", l.ws[0].s) || len(l.ws) > 1 && b.hasWords("greeting", l.ws[0], l.ws[1])
}
