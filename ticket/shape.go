package ticket

import (
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of a ticket's lines: quote marks, headers, reply
// attributions, forward markers, helpdesk comment headers and what a
// signature looks like. Each is a pure test of one line's text; the
// reader (classify.go) decides what they mean in place.

// quoteDepth counts a line's ">" quote marks and returns the rest.
func quoteDepth(line string) (int, string) {
	depth := 0
	i := 0
	for i < len(line) {
		switch line[i] {
		case '>':
			depth++
		case ' ', '\t':
			if depth == 0 {
				return 0, line
			}
		default:
			return depth, line[i:]
		}
		i++
	}
	return depth, line[i:]
}

// startsBlank reports a header's continuation line: white space after the
// quote marks.
func startsBlank(raw string, depth int) bool {
	for i := 0; i < len(raw); i++ {
		switch raw[i] {
		case '>':
			depth--
		case ' ', '\t':
			if depth <= 0 {
				return true
			}
		default:
			return false
		}
	}
	return false
}

// isInvisible reports whether r is a zero-width character that web pages
// and chat tools put into copied text; it never belongs to an entry.
func isInvisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad':
		return true
	}
	return false
}

// trimLine trims white space and zero-width characters.
func trimLine(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] >= utf8.RuneSelf || s[len(s)-1] >= utf8.RuneSelf) {
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || isInvisible(r) })
	}
	return s
}

// headerNames are the header sections of the phrase books.
var headerNames = []string{"header-from", "header-requester", "header-contact", "header-to", "header-cc", "header-subject", "header-other", "header-plain"}

// headerName returns the folded name of a mail header line ("From", "Cc",
// "Betreff", "Enviada em") that the phrase books know. A short name that
// is also a common word ("A:", "De:", "An:") is a header only beside an
// address or inside a header block (addressed).
func headerName(t string, addressed bool) (string, bool) {
	i := strings.IndexByte(t, ':')
	if i < 1 || i > 30 {
		return "", false
	}
	name := strings.TrimRight(t[:i], " \t\u00a0")
	if strings.Count(name, " ") > 2 || name == "" {
		return "", false // "please remove mailto:…"
	}
	name = folded(name)
	for _, s := range headerNames {
		if phraseBooks().words[s][name] {
			return name, addressed || len(name) > 3 || s == "header-cc"
		}
	}
	switch name {
	case "cc", "bcc", "final-recipient", "original-recipient", "diagnostic-code", "reporting-mta", "action", "remote-mta":
		return name, true
	}
	return fieldRun(t)
}

// fieldRun reads a helpdesk's line of fields set apart by "·" or "|"
// ("Mailbox: Support · Status: Active · Assigned: Unassigned"): a header
// line when every field is a name and its value and one name is a header
// the books know, and no field holds an address (a record pasted from a
// CRM, "Name: Jo | Email: jo@… | Status: active", is the request's). It
// returns that name.
func fieldRun(t string) (string, bool) {
	fields := strings.FieldsFunc(t, func(c rune) bool { return c == '·' || c == '|' })
	if len(fields) < 2 || strings.Contains(t, "@") {
		return "", false
	}
	known := ""
	for _, f := range fields {
		i := strings.IndexByte(f, ':')
		if i < 1 || i > 30 || strings.Count(strings.TrimSpace(f[:i]), " ") > 2 {
			return "", false
		}
		name := folded(strings.TrimSpace(f[:i]))
		for _, s := range headerNames {
			if known == "" && phraseBooks().words[s][name] {
				known = name
			}
		}
	}
	return known, known != ""
}

// isWroteLine reports a reply attribution: a line that ends with ":" and
// says someone wrote ("On Mon, … Jane <jane@…> wrote:", "Am … schrieb
// Max <max@…>:", "Le … a écrit :", "Rae Lin <rae@…> replied:").
func isWroteLine(t string, ws []word) bool {
	i := wroteAt(t, ws)
	return i > 0 || i == 0 && len(ws) <= 2
}

// wroteAt is the first word of an attribution line's word for "wrote",
// or -1.
func wroteAt(t string, ws []word) int {
	if !strings.HasSuffix(strings.TrimRight(t, " \t"), ":") || len(ws) == 0 {
		return -1
	}
	for i := range ws {
		for n := 1; n <= 3 && i+n <= len(ws); n++ {
			if phraseBooks().hasWords("wrote", ws[i:i+n]...) {
				return i
			}
		}
	}
	return -1
}

// wroteName is the name an attribution line gives its writer by, right
// before its word for "wrote" ("Tomasz Wieczorek napisał(a):", "On Mon,
// 3 May, Ana Ruiz wrote:"), or "".
func wroteName(t string, ws []word) string {
	i := wroteAt(t, ws)
	if i <= 0 {
		return ""
	}
	return trailingName(t[:ws[i].off])
}

// startsOn reports a line that begins a reply attribution: "On Mon, …",
// "Am …", "El …", "Le …", "Em …", "Il …", "Op …".
func startsOn(line string) bool {
	_, s := quoteDepth(line)
	s = strings.TrimLeft(s, " \t")
	sp := strings.IndexByte(s, ' ')
	if sp < 2 || sp > 3 {
		return false
	}
	switch strings.ToLower(s[:sp]) {
	case "on", "am", "el", "le", "em", "il", "op":
		return true
	}
	return false
}

// isForwardMarker reports the line that starts a forwarded or copied mail:
// "---------- Forwarded message ---------", "Begin forwarded message:",
// "-----Original Message-----", "-----Ursprüngliche Nachricht-----", or
// Outlook's line of underscores.
func isForwardMarker(t string, ws []word) bool {
	if len(t) >= 10 && strings.Trim(t, "_") == "" {
		return true
	}
	if len(ws) == 0 || len(ws) > 6 || asksOutright(ws) {
		// "forwarded by tom@…: please block both" asks.
		return false
	}
	for i := range ws {
		if c, n := phraseBooks().trees[atStart].at(ws, i); c == cForward {
			return i == 0 || t[0] == '-' || t[0] == '_' || strings.HasSuffix(t, ":") && i+n == len(ws)
		}
	}
	return false
}

// isForwardSubject reports a forwarded mail's subject: "FW:", "Fwd:",
// "WG:", "RV:", "TR:", "I:", "Doorst:", "Enc:", Swedish "VB:", Czech "PŘ:".
func isForwardSubject(s string) bool {
	return subjectPrefix(s, "fw:", "fwd:", "wg:", "rv:", "tr:", "i:", "doorst:", "enc:", "fw :", "tr :", "vl:", "pd:", "ilt:", "İlt:", "tov:", "πρθ:", "vb:", "př:")
}

// isReplySubject reports a reply's subject ("Re: …", "AW: …", "RES: …").
func isReplySubject(s string) bool {
	return subjectPrefix(s, "re:", "aw:", "sv:", "antw:", "r:", "rif:", "res:", "re :", "ref:", "vs:", "odp:", "ynt:", "vá:", "απ:")
}

// subjectPrefix reports a subject that begins, spaces aside, with one of
// the prefixes ps, in any case.
func subjectPrefix(s string, ps ...string) bool {
	s = strings.TrimSpace(s)
	for _, p := range ps {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			return true
		}
	}
	return false
}

// isReplyMarker reports a helpdesk's "##- Please type your reply above
// this line -##".
func isReplyMarker(t string) bool {
	return strings.HasPrefix(t, "##-") || strings.HasPrefix(t, "## ") && strings.HasSuffix(t, "##")
}

// isDelimiter reports a signature delimiter: "-- " (and "--", "—", a
// short rule of dashes or underscores).
func isDelimiter(t, raw string) bool {
	if t == "--" || t == "—" || strings.TrimRight(raw, "\r") == "-- " {
		return true
	}
	return len(t) >= 3 && len(t) <= 9 && (strings.Trim(t, "-") == "" || strings.Trim(t, "_") == "" || strings.Trim(t, "—") == "")
}

// closing reports a line that starts with closing words: how many words
// they are (0 for none), which is also the index of the first word after
// them.
func closing(ws []word) (k, rest int) {
	c, n := phraseBooks().trees[atStart].at(ws, 0)
	if c != cClosing {
		return 0, 0
	}
	if n+1 < len(ws) && closingAnd[folded(ws[n].s)] && !ws[n-1].ends && !ws[n-1].clause {
		// "Vielen Dank und freundliche Grüße", "Gracias y un saludo".
		if c, m := phraseBooks().trees[atStart].at(ws, n+1); c == cClosing {
			return n + 1 + m, n + 1 + m
		}
	}
	if n < len(ws) && (ws[n-1].clause || ws[n].off-ws[n-1].off-len(ws[n-1].s) >= 3) {
		// "Teşekkürler, iyi çalışmalar.", "Thanks, best regards": a
		// closing after a comma, the line's last words; so after a
		// slash or a bar ("Ystävällisin terveisin / Best regards").
		if c, m := phraseBooks().trees[atStart].at(ws, n); c == cClosing && n+m == len(ws) {
			return n + m, n + m
		}
	}
	return n, n
}

// closingAnd join two closings on one line, in the books' languages.
var closingAnd = map[string]bool{"and": true, "und": true, "y": true, "et": true, "e": true, "en": true, "och": true, "og": true, "i": true, "a": true}

// isTitle reports a title or company line: a few capitalized words, one of
// them a title word or a company's legal form.
func isTitle(t string, ws []word) bool {
	if len(ws) == 0 || len(ws) > 6 || tableRow(t) || !nameLike(t, false) {
		return false
	}
	for _, w := range ws {
		if phraseBooks().has("title", w.s) || phraseBooks().has("legal", w.s) || phraseBooks().has("legal", w.s+".") {
			return true
		}
	}
	return false
}

// tableRow reports a row of a table pasted as text: cells between tabs,
// or a Markdown row that starts with "|".
func tableRow(t string) bool { return strings.HasPrefix(t, "|") || strings.Contains(t, "\t") }

// signatureSeparators split the parts of a one-line signature.
var signatureSeparators = []string{" | ", "|", " - ", " – ", " — ", " • ", " · ", ", ", " / "}

// signatureShape tells whether a line may be a one-line signature: one
// address and, around it, only a name and perhaps a title, a company, a
// phone number or a web address ("Jane Doe - jane@…", "Jane Doe | Ops |
// jane@…", "Jane Doe (jane@…)", "Jane Doe <jane@…>"). It returns the
// line's shape (its separators), "" when it is not one.
func signatureShape(t string, toks []token) string {
	if len(toks) != 1 || toks[0].Kind != Address || tableRow(t) {
		return ""
	}
	f := toks[0]
	at := strings.Index(t[f.off:], f.Raw)
	if at < 0 {
		return ""
	}
	end := f.off + at + len(f.Raw)
	before, after := t[:f.off], t[end:]
	var shape strings.Builder
	switch {
	case strings.HasSuffix(strings.TrimRight(before, " "), "<"):
		shape.WriteByte('<')
	case strings.HasSuffix(strings.TrimRight(before, " "), "("):
		shape.WriteByte('(')
	}
	rest := strings.TrimSpace(strings.Trim(strings.TrimSpace(before), "<(") + " " + strings.TrimLeft(strings.TrimSpace(after), ">)"))
	if rest == "" {
		return ""
	}
	parts := splitSignature(rest, &shape)
	if !signatureParts(parts, localPart(f.Raw)) {
		return ""
	}
	return shape.String() + "@"
}

// asksIn reports words that hold a phrase of the books asking something
// of an address or of the writer.
func asksIn(s string) bool {
	ws := wordsOf(nil, s)
	for _, m := range phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations]) {
		if w := classWays[m.class]; w.ask != 0 || w.self != sNone {
			return true
		}
	}
	return false
}

// splitSignature cuts a one-line signature at its separators, noting them
// in shape.
func splitSignature(rest string, shape *strings.Builder) []string {
	parts := []string{rest}
	for _, sep := range signatureSeparators {
		var next []string
		for _, p := range parts {
			split := strings.Split(p, sep)
			if len(split) > 1 {
				shape.WriteString(strings.Repeat(strings.TrimSpace(sep), len(split)-1))
			}
			next = append(next, split...)
		}
		parts = next
	}
	return parts
}

// signatureParts reports parts of which one is a name (or the address's
// own name, written in lower case: "sam - sam@…") and the rest names,
// titles, phone numbers or web addresses.
func signatureParts(parts []string, local string) bool {
	named := false
	for _, p := range parts {
		p = strings.TrimSpace(strings.Trim(strings.TrimSpace(p), "-–—|,:;"))
		switch {
		case p == "":
		case asksIn(p):
			// "PLEASE STOP SENDING EMAILS TO ACCOUNTS@…", shouted: a
			// request, not a name.
			return false
		case nameLike(p, false), ownName(p, local):
			named = true
		case phoneOrURL(p):
		default:
			return false
		}
	}
	return named
}

// nameLike reports text made of a name's words: capitalized words,
// initials, the small words inside names and titles, a company's legal
// form; at most six of them. withAddress allows one address among them
// (and the separators of a one-line signature).
func nameLike(t string, withAddress bool) bool {
	words, addrs := 0, 0
	ok := true
	fieldsAt(t, func(_ int, tok string) {
		for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '|' || r == '/' || r == '•' || r == '·' }) {
			part = strings.Trim(part, ".,;:!-–—'\"„“”«»‚‘’")
			switch {
			case part == "":
			case strings.Contains(part, "@"):
				addrs++
			case isNameWord(part):
				words++
			default:
				ok = false
			}
		}
	})
	if addrs > 0 && !withAddress || addrs > 1 {
		return false
	}
	return ok && words > 0 && words <= 6
}

// isNameWord reports a word of a name: capitalized, an initial, a small
// word of names and titles, or a legal form.
func isNameWord(w string) bool {
	if phraseBooks().has("particle", w) || phraseBooks().has("legal", w) || phraseBooks().has("legal", w+".") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	for _, c := range w {
		if !unicode.IsLetter(c) && c != '.' && c != '\'' && c != '’' && c != '-' && c != '&' {
			return false
		}
	}
	return true
}

// phoneLabels are the labels before a phone number, lower case, each
// before the shorter ones it begins with ("telefone" before "tel").
var phoneLabels = []string{"telefax", "telephone", "telefone", "telefono", "teléfono", "téléphone", "telefon", "phone", "tél.", "tél", "tel.", "tel",
	"fax.", "fax", "faks", "mobile", "mobil.", "mobil", "mob.", "mob", "handy", "m:", "t:", "p:", "fon",
	"tlm.", "tlm", "tlf.", "tlf", "tfn", "cellulare", "celular", "cell.", "cell", "cel.", "cel", "gsm", "puhelin", "puh.", "puh", "kom.", "τηλ.", "τηλ"}

// phoneOrURL reports a phone number or a web address, as signatures carry.
func phoneOrURL(s string) bool {
	s = strings.TrimSpace(s)
	ls := strings.ToLower(s)
	for _, p := range phoneLabels {
		ls = strings.TrimSpace(strings.TrimPrefix(ls, p))
	}
	if strings.HasPrefix(ls, "http://") || strings.HasPrefix(ls, "https://") || strings.HasPrefix(ls, "www.") {
		return !strings.ContainsAny(ls, " \t")
	}
	digits := 0
	for _, c := range ls {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case strings.ContainsRune(" +-().:/ext", c):
		default:
			return false
		}
	}
	return digits >= 7
}

// commentHeader reports a helpdesk's comment header on one line: a name,
// perhaps its address in brackets, then a date or a time ("Dana
// Whitfield (dana@…), Nov 3, 2026, 09:12", "Tomasz Nowak (tomasz@…) ·
// 10:42 AM"). A name and an address alone on their line is one when a date
// line follows (Reader.commentAbove).
func commentHeader(t string, ws []word, toks []token) bool {
	if len(toks) > 1 || len(ws) < 2 || tableRow(t) {
		return false
	}
	t = withoutKindLead(withoutCommentLead(t))
	if head, ok := verbHead(t); ok {
		return len(toks) == 0 || strings.Contains(head, "@")
	}
	if i, sep := commentSep(t); i > 0 {
		head, tail := withoutBracketTeam(withoutTeam(t[:i])), strings.TrimSpace(t[i+len(sep):])
		return nameLike(head, true) && capitalized(head) && dateLine(tail) && (len(toks) == 0 || strings.Contains(head, "@"))
	}
	return false
}

// commentSep is the first of commentSeps in t, where it stands: the one
// after the author ("Priya Nair — Mar 16, 2026 08:26" parts at the dash,
// not at the date's comma); 0 and "" for none.
func commentSep(t string) (int, string) {
	at, sep := 0, ""
	for _, s := range commentSeps {
		if i := strings.Index(t, s); i > 0 && (at == 0 || i < at) {
			at, sep = i, s
		}
	}
	return at, sep
}

// withoutKindLead drops the one word a CRM may write before a comment's
// author to say what kind of entry it is ("Email · Lina Holm <lina@…> ·
// Nov 23, 2026 13:27", "E-post · …", "Note · …"): a word without digits,
// then a middle dot or a bullet, then the rest with another.
func withoutKindLead(t string) string {
	for _, sep := range []string{" · ", " • "} {
		i := strings.Index(t, sep)
		if i <= 0 || !strings.Contains(t[i+len(sep):], sep) {
			continue
		}
		head := t[:i]
		if strings.ContainsAny(head, " @0123456789") {
			return t
		}
		return t[i+len(sep):]
	}
	return t
}

// commentTeamOf is the team in brackets right after a comment header's
// author, folded ("Jordan (Lumenly) · 10:52 AM" is "lumenly"), "" for
// none.
func commentTeamOf(t string) string {
	head := withoutKindLead(withoutCommentLead(t))
	m := authorTeam.FindStringSubmatch(head)
	if m == nil {
		// A chat's bot ("Lumenly Bot · 3:18 PM", Intercom's "Operator ·
		// 2:15 PM") speaks for us.
		if i := strings.IndexAny(head, "·•,|"); i > 0 {
			ws := strings.Fields(head[:i])
			if len(ws) > 0 && folded(ws[len(ws)-1]) == "bot" || len(ws) == 1 && folded(ws[0]) == "operator" {
				return "bot"
			}
		}
		return ""
	}
	return folded(strings.TrimSpace(m[1]))
}

// authorTeam is an author's name and a team in brackets after it.
var authorTeam = regexp.MustCompile(`^[^()<>@·•,]{1,60}?\(([^()<>@]{2,40})\)`)

// verbHead is the author of a comment header that says what they did,
// then when ("Lucía Benítez replied on 26 Nov 2026 at 9:14", "Daniel
// (help@…) respondió el 25 nov. 2026 a las 17:40", "Anna a répondu le …"):
// the name before a verb of the books' [wrote], a date after it.
func verbHead(t string) (string, bool) {
	var ws []word
	ws = wordsOf(ws, t)
	if len(ws) < 3 || len(ws) > 18 {
		return "", false
	}
	for i := 1; i < len(ws) && i <= 6; i++ {
		for n := 1; n <= 4 && i+n <= len(ws); n++ {
			if !phraseBooks().hasWords("wrote", ws[i:i+n]...) {
				continue
			}
			last := ws[i+n-1]
			head := withoutTeam(strings.TrimSpace(t[:ws[i].off]))
			return head, nameLike(head, true) && capitalized(head) && dateLine(t[last.off+len(last.s):])
		}
	}
	return "", false
}

// commentLead is what a helpdesk may write before a comment's author: the
// ticket's number (perhaps after a word: "Ticket 2231") and a few words
// ending in "by" in the languages read ("#2231 — Comment by Alex Moreno (alex@…), Nov 25, 2026 11:40",
// "Internal note by …", "Kommentar von …", "Respuesta de …").
var commentLead = regexp.MustCompile(`(?i)^(?:\[?(?:\pL+\s+)?#?\d{2,}\]?\s*[-–—:|·•]?\s*)?(?:\pL+\s+){1,3}(?:by|von|de|par|da|door)\s+`)

// chatTurn is a turn of a chat transcript: a time, perhaps a bar or a
// dash, the speaker's name (perhaps their team in brackets) and a colon,
// then what they said ("02:15 PM | Dana Whitfield: can you lift both?",
// "[14:02] Sam (Support): done").
var chatTurn = regexp.MustCompile(`^\[?\d{1,2}[:.]\d{2}(?:\s*[AaPp]\.?[Mm]\.?)?\]?\s*(?:[|·•–—-]\s*)?(\pL[\pL .'’-]{0,40}?)(?:\s*\(([\pL .'’-]{1,30})\))?\s*:\s+\S`)

// withoutCommentLead is t without its commentLead, when what follows it
// begins with a capital letter (a name).
func withoutCommentLead(t string) string {
	loc := commentLead.FindStringIndex(t)
	if loc == nil {
		return t
	}
	rest := t[loc[1]:]
	if r, _ := utf8.DecodeRuneInString(rest); !unicode.IsUpper(r) {
		return t
	}
	return rest
}

// commentTeam is a comment author's team between their name and their
// address ("Lisa from Support (lisa@…)", "Jan van Dijk of Billing <jan@…>").
var commentTeam = regexp.MustCompile(`^(.*\S)\s+(?:from|of|at|von|vom|de|du|da|do|van)\s+\pL[^()<>@,]{0,38}?\s*([(<][^()<>]*@[^()<>]*[)>])$`)

// withoutTeam is a comment header's head without the author's team.
func withoutTeam(head string) string {
	m := commentTeam.FindStringSubmatch(head)
	if m == nil || !nameLike(m[1], false) || !capitalized(m[1]) {
		return head
	}
	return m[1] + " " + m[2]
}

// capitalized reports text with a word that starts with a capital letter
// (a name, not "and bob@…").
func capitalized(t string) bool {
	for _, f := range strings.Fields(t) {
		if r, _ := utf8.DecodeRuneInString(f); unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// bracketedAlone reports a line that is a name and an address in
// brackets, and nothing else: "Jane Doe (jane@…)", "Jane Doe <jane@…>".
func bracketedAlone(t, addr string) bool {
	i := strings.Index(t, addr)
	if i < 0 {
		return false
	}
	before := strings.TrimSpace(t[:i])
	after := strings.TrimSpace(t[i+len(addr):])
	if !(strings.HasSuffix(before, "(") || strings.HasSuffix(before, "<")) || after != ")" && after != ">" {
		return false
	}
	return nameLike(strings.TrimSpace(before[:len(before)-1]), false)
}

// months are the month names and abbreviations a date line may hold.
var months = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields("jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july august september october november december " +
		"jän märz mai okt dez januar februar juni juli oktober dezember ene abr ago dic enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre " +
		"janv févr avril juil août déc janvier février mars juin juillet septembre octobre novembre décembre fev set out dez janeiro fevereiro março maio junho julho setembro outubro novembro dezembro " +
		"gen mag giu lug ott dic gennaio febbraio aprile maggio giugno luglio settembre ottobre dicembre mrt mei okt maart juni juli augustus oktober") {
		m[folded(s)] = true
	}
	return m
}()

// dateLine reports a line that is a date or a time and little else: "Nov
// 3, 2026, 09:12 GMT", "10:42 AM", "2026-11-03 09:12", "Yesterday at
// 10:04".
func dateLine(t string) bool {
	var ws []word
	ws = wordsOf(ws, t)
	if len(ws) == 0 || len(ws) > 8 || !dated(t, ws) {
		return false
	}
	other := 0
	for _, w := range ws {
		if dateWord(folded(strings.TrimRight(w.s, "."))) == dateOther {
			other++
		}
	}
	return other <= 2
}

// timeOfDay and isoDate are a time ("10:42") and a date ("2026-11-03").
var (
	timeOfDay = regexp.MustCompile(`\b\d{1,2}[:.]\d{2}\b`)
	isoDate   = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b`)
)

// dated reports a line that holds a month's name, a time of day or a
// date: a year alone is no date.
func dated(t string, ws []word) bool {
	if timeOfDay.MatchString(t) || isoDate.MatchString(t) {
		return true
	}
	for _, w := range ws {
		if months[folded(strings.TrimRight(w.s, "."))] {
			return true
		}
	}
	return false
}

// The kinds of a date line's words.
const (
	dateOf    = iota // a month, a number: the date itself
	dateFill         // "at", "AM", "GMT"
	dateOther        // anything else
)

// dateFillers are the words beside a date or a time.
var dateFillers = map[string]bool{"am": true, "pm": true, "gmt": true, "utc": true, "at": true, "um": true, "uhr": true,
	"a": true, "às": true, "om": true, "yesterday": true, "today": true, "mez": true, "cet": true, "est": true, "pst": true, "de": true}

// dateWord is the kind of the word s of a date line.
func dateWord(s string) int {
	switch {
	case months[s], strings.ContainsAny(s, "0123456789"):
		return dateOf
	case dateFillers[s]:
		return dateFill
	}
	return dateOther
}

// isSystem reports an address no person reads: a mailer daemon, a
// postmaster, a no-reply or notification sender.
func isSystem(v string) bool {
	at := strings.LastIndexByte(v, '@')
	if at <= 0 {
		return false
	}
	local := v[:at]
	if i := strings.IndexByte(local, '+'); i > 0 {
		local = local[:i]
	}
	return phraseBooks().words["system"][local]
}

// isDaemon reports the sender of a bounce report: a mailer daemon or a
// postmaster.
func isDaemon(v string) bool {
	at := strings.LastIndexByte(v, '@')
	if at <= 0 {
		return false
	}
	switch strings.ReplaceAll(v[:at], "_", "-") {
	case "mailer-daemon", "mailerdaemon", "postmaster", "mail-daemon", "mdaemon":
		return true
	}
	return false
}

// nameBefore is the name written before the address at off in a header
// line ("From: Jane Doe <jane@…>": "Jane Doe"), "" for none.
func nameBefore(t string, off int) string {
	before := t[:off]
	if i := strings.IndexByte(before, ':'); i >= 0 {
		before = before[i+1:]
	}
	before = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(before), "<(\"·•|–—-,"))
	before = strings.Trim(before, "\" ")
	if before == "" || !nameLike(before, false) {
		return ""
	}
	return before
}

// commentName is the name a comment header starts with ("Pieter Gant,
// Nov 2, …": "Pieter Gant").
func commentName(t string) string {
	t = withoutKindLead(withoutCommentLead(t))
	if head, ok := verbHead(t); ok {
		return head
	}
	if i, _ := commentSep(t); i > 0 {
		return withoutBracketTeam(strings.TrimSpace(t[:i]))
	}
	return t
}

// withoutBracketTeam is an author's name without the team or the kind of
// comment in brackets after it ("Tom Fenwick (internal note)", "Leo
// (Support)").
func withoutBracketTeam(head string) string {
	if j := strings.IndexByte(head, '('); j > 0 && strings.HasSuffix(head, ")") && authorTeam.MatchString(head) {
		return strings.TrimSpace(head[:j])
	}
	return head
}

// commentSeps part a comment header's author from its date ("Dana
// Whitfield, Nov 3, 2026", "Nadia Khoury  3:12 PM": a chat export's two
// spaces).
var commentSeps = []string{" · ", " • ", ", ", " - ", " — ", "  "}

// titleLine reports a helpdesk export's title line, which is its
// subject: "Ticket #44790: Unsubscribe request", "#44790 Unsubscribe",
// "[#44790] …", "Conversation #31877 · Reminders not arriving".
func titleLine(t string) bool {
	return titleRef.MatchString(t)
}

var titleRef = regexp.MustCompile(`(?i)^(?:\[#?\d{2,}\]|(?:ticket|case|request|incident|anfrage|caso|demande|chamado|richiesta|melding|ticketnummer|conversation|conversación|conversa|conversazione|konversation|gesprek|chat)?\s*#\d{2,}\b\s*[-–:·•|]?|(?:ticket|case|request|incident)\s+\d{2,}\s*[-–:·•|])`)

// localPart is an address's part before the @.
func localPart(addr string) string {
	if at := strings.LastIndexByte(addr, '@'); at > 0 {
		return addr[:at]
	}
	return ""
}

// ownName reports a name that is the address's own: its local part, or
// the local part's first name ("sam" for sam.lee@…).
func ownName(p, local string) bool {
	if local == "" || strings.ContainsAny(p, " \t") {
		return false
	}
	first, _, _ := strings.Cut(local, ".")
	return strings.EqualFold(p, local) || strings.EqualFold(p, first)
}

// fieldLine reports a line that is a label and one address ("Address:
// x@…", "Customer e-mail: x@…").
func fieldLine(l *line) bool {
	if len(l.toks) != 1 || l.toks[0].Kind != Address {
		return false
	}
	label := strings.TrimSpace(l.t[:l.toks[0].off])
	return strings.HasSuffix(label, ":") && len(strings.Fields(label)) <= 2
}

// trailingName is the name right before an address in a line ("… alle
// ore 10:00 Chiara Galli <": "Chiara Galli"): up to four name words, ""
// for none.
func trailingName(before string) string {
	fs := strings.Fields(strings.TrimRight(before, "<(\"' "))
	k := len(fs)
	for k > 0 && len(fs)-k < 4 && isNameWord(strings.Trim(fs[k-1], "\",")) {
		k--
	}
	if k == len(fs) {
		return ""
	}
	return strings.Trim(strings.Join(fs[k:], " "), "\",")
}
