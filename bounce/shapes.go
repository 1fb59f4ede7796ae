package bounce

import "strings"

// shape is one mail server's plain-text bounce: a predicate on the message
// and a reader of its recipients. A shape that matches but finds no
// recipient leaves the message to the next one.
type shape struct {
	name  string
	match func(*envelope) bool
	read  func(*envelope) []Report
}

// shapes are tried in order, after the delivery-status and feedback
// reports: the most specific predicates first.
var shapes = []shape{
	{"exchange", isExchange, readExchange},
	{"gmail", isGmail, readGmail},
	{"exim", isExim, readExim},
	{"postfix", isPostfix, readPostfix},
	{"qmail", isQmail, readQmail},
	{"sendmail", isSendmail, readSendmail},
	{"x-failed-recipients", hasFailedHeader, readFailedHeader},
}

// block is one recipient's lines in a plain-text bounce.
type block struct {
	addr  string // the recipient
	alias string // the address it was expanded or generated from, if said
	text  []string
}

// recipient is the address the sender used: the alias when there is one.
func (b block) recipient() string {
	if b.alias != "" {
		return b.alias
	}
	return b.addr
}

// copyMarks start the copy of the original message in a bounce's text:
// nothing after them is the server's report.
var copyMarks = []string{
	"below this line is a copy of the message", "this is a copy of the message",
	"original message follows", "----- original message -----", "original message headers",
	"transcript of session follows", "ursprüngliche nachrichtenkopfzeilen",
	"en-têtes de message d'origine", "encabezados del mensaje original",
	"intestazioni originali del messaggio",
}

// reports turns blocks into reports with what the shape read of the whole
// message.
func reports(bs []block, action, mta string, diag func(block) string) []Report {
	out := make([]Report, 0, len(bs))
	for _, b := range bs {
		d := diag(b)
		out = append(out, Report{
			Recipient:    b.recipient(),
			Action:       action,
			Diagnostic:   d,
			Status:       statusIn(d),
			ReportingMTA: mta,
		})
	}
	return out
}

// joined is a block's diagnostic: its lines as one.
func joined(b block) string { return strings.Join(b.text, " ") }

// actionOf reads a plain-text bounce's action from its words: "delayed"
// when it says it will retry, "failed" when it says it gave up, else "".
func actionOf(e *envelope, delayed, failed []string) string {
	switch {
	case e.has(delayed...):
		return "delayed"
	case e.has(failed...):
		return "failed"
	}
	return ""
}

// hostAfter returns the host named right after the first of the phrases
// (lower-case) found in the text, or "".
func hostAfter(e *envelope, phrases ...string) string {
	for i, l := range e.lower {
		for _, p := range phrases {
			if j := strings.Index(l, p); j >= 0 {
				return host(e.lines[i][j+len(p):])
			}
		}
	}
	return ""
}

// host returns the first word of s as a host name, without the punctuation
// that ends a sentence.
func host(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return strings.Trim(f[0], ".,:;()[]<>'\"")
}

// lineWith returns the index of the first line (from from on) containing
// one of the phrases, or -1.
func (e *envelope) lineWith(from int, phrases ...string) int {
	for i := from; i < len(e.lower); i++ {
		if containsAny(e.lower[i], phrases) {
			return i
		}
	}
	return -1
}

// --- Postfix, qmail, sendmail: blocks that start with "<address>" ---

var (
	postfixMarks = []string{"this is the mail system at host ", "this is the postfix program at host "}
	qmailMarks   = []string{"this is the qmail-send program at "}
	// qmail's descendants that do not name their host (Yahoo's).
	qmailKin = []string{"we were unable to deliver your message to the following address"}
)

func isPostfix(e *envelope) bool { return e.has(postfixMarks...) }

func readPostfix(e *envelope) []Report {
	action := actionOf(e,
		[]string{"this is a warning only", "still being retried", "delayed mail"},
		[]string{"could not be delivered", "could not deliver"})
	return reports(angleBlocks(e, 0, isCopyMark), action, hostAfter(e, postfixMarks...), joined)
}

func isQmail(e *envelope) bool { return e.has(qmailMarks...) || e.has(qmailKin...) }

func readQmail(e *envelope) []Report {
	action := actionOf(e, nil, []string{"permanent error", "not going to try again", "wasn't able to deliver", "unable to deliver"})
	return reports(angleBlocks(e, 0, isCopyMark), action, hostAfter(e, qmailMarks...), joined)
}

func isCopyMark(lower string) bool { return containsAny(lower, copyMarks) }

// angleBlocks reads the blocks of the lines from from on that start with
// "<address>" at the line's start, optionally followed by "(expanded from
// <alias>)" and a colon and text; a block goes on to an empty line or the
// next block. It stops at a line for which stop is true.
func angleBlocks(e *envelope, from int, stop func(string) bool) []block {
	var out []block
	in := false
	for i := from; i < len(e.lines); i++ {
		l := e.lines[i]
		if stop(e.lower[i]) {
			break
		}
		if b, ok := angleStart(l); ok {
			out, in = append(out, b), true
			continue
		}
		if strings.TrimSpace(l) == "" {
			in = false
		} else if in {
			last := &out[len(out)-1]
			last.text = append(last.text, l)
		}
	}
	return out
}

// angleStart reads a line that starts a block: "<addr>", "<addr>: text",
// "<addr> (expanded from <alias>): text".
func angleStart(l string) (block, bool) {
	if len(l) < 3 || l[0] != '<' || l[1] == '<' {
		return block{}, false
	}
	end := strings.IndexByte(l, '>')
	if end < 0 {
		return block{}, false
	}
	b := block{addr: address(l[1:end])}
	rest := strings.TrimSpace(l[end+1:])
	if strings.HasPrefix(rest, "(expanded from") {
		alias, after, _ := strings.Cut(rest, ")")
		b.alias = address(strings.TrimPrefix(alias, "(expanded from"))
		rest = strings.TrimSpace(after)
	}
	if b.addr == "" || (rest != "" && rest[0] != ':') {
		return block{}, false
	}
	if text := strings.TrimSpace(strings.TrimPrefix(rest, ":")); text != "" {
		b.text = []string{text}
	}
	return b, true
}

var sendmailSections = []string{"following addresses had permanent fatal errors", "following addresses had transient non-fatal errors"}

func isSendmail(e *envelope) bool { return e.has(sendmailSections...) }

// readSendmail reads each "----- The following addresses had ... errors
// -----" section: its "<address>" lines with their "(reason: ...)" and
// "(expanded from: ...)" lines.
func readSendmail(e *envelope) []Report {
	var out []Report
	transcript := map[string]string{}
	if t := e.lineWith(0, "transcript of session follows"); t >= 0 {
		transcript = e.linesNaming(t+1, replyLine)
	}
	for i := e.lineWith(0, sendmailSections...); i >= 0; i = e.lineWith(i+1, sendmailSections...) {
		action := "failed"
		if strings.Contains(e.lower[i], "transient") {
			action = "delayed"
		}
		bs := angleBlocks(e, i+1, sendmailEnd)
		for j := range bs {
			sendmailAlias(&bs[j])
		}
		out = append(out, reports(bs, action, "", func(b block) string {
			if r := sendmailReason(b); r != "" {
				return r
			}
			return transcript[b.addr]
		})...)
	}
	return out
}

// replyLine reports whether a line is an SMTP reply: three digits, the
// first 4 or 5.
func replyLine(l string) bool {
	l = strings.TrimSpace(l)
	return len(l) > 3 && (l[0] == '4' || l[0] == '5') && isDigit(l[1]) && isDigit(l[2])
}

// linesNaming maps each address named on a line (from from on) for which
// keep is true to the first such line.
func (e *envelope) linesNaming(from int, keep func(string) bool) map[string]string {
	m := map[string]string{}
	for i := from; i < len(e.lines); i++ {
		if !keep(e.lower[i]) {
			continue
		}
		for _, w := range strings.Fields(e.lower[i]) {
			if !strings.Contains(w, "@") {
				continue
			}
			if a := address(w); a != "" && m[a] == "" {
				m[a] = strings.TrimSpace(e.lines[i])
			}
		}
	}
	return m
}

// sendmailEnd reports whether a line ends a sendmail section: the next
// "-----" line or the next section's title.
func sendmailEnd(l string) bool {
	return strings.HasPrefix(strings.TrimSpace(l), "-----") || containsAny(l, sendmailSections)
}

// sendmailAlias reads "(expanded from: <alias>)" from a block.
func sendmailAlias(b *block) {
	for _, l := range b.text {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "(expanded from:"); ok {
			b.alias = address(v)
		}
	}
}

// sendmailReason is a block's "(reason: ...)" text, or "".
func sendmailReason(b block) string {
	for _, l := range b.text {
		if v, ok := strings.CutPrefix(strings.TrimSpace(l), "(reason:"); ok {
			return strings.TrimSuffix(strings.TrimSpace(v), ")")
		}
	}
	return ""
}

// --- Exim: indented address lists ---

var eximLists = []string{
	"following address(es) failed", "following addresses failed",
	"address to which the message has not yet been delivered",
	"addresses to which the message has not yet been delivered",
}

func isExim(e *envelope) bool {
	return e.has("created automatically by mail delivery software")
}

func readExim(e *envelope) []Report {
	action := actionOf(e, []string{"has not yet been delivered"},
		[]string{"could not be delivered", "permanent error"})
	mta := hostAfter(e, "on the queue on ")
	var bs []block
	if i := e.lineWith(0, eximLists...); i >= 0 {
		bs = indentBlocks(e, i+1)
	}
	if len(bs) == 0 {
		bs = headerBlocks(e)
	}
	return reports(bs, action, mta, joined)
}

// indentBlocks reads an Exim list: an address indented by at most three
// spaces, then its details indented further, until a line that is not
// indented. "(generated from alias)" names the address the sender used.
func indentBlocks(e *envelope, from int) []block {
	var out []block
	var cur *block
	for i := from; i < len(e.lines); i++ {
		l := e.lines[i]
		t := strings.TrimSpace(l)
		switch n := len(l) - len(strings.TrimLeft(l, " \t")); {
		case t == "":
			continue
		case n == 0:
			return out
		case n < 4:
			cur = nil
			if a := address(firstField(t)); a != "" {
				out = append(out, block{addr: a})
				cur = &out[len(out)-1]
			}
		case cur != nil:
			if v, ok := strings.CutPrefix(t, "(generated from "); ok {
				cur.alias = address(v)
				continue
			}
			cur.text = append(cur.text, t)
		}
	}
	return out
}

func firstField(s string) string {
	if f := strings.Fields(s); len(f) > 0 {
		return f[0]
	}
	return ""
}

// --- Gmail ---

var gmailMarks = []string{
	"google tried to deliver your message", "delivery to the following recipient failed",
	"delivery to the following recipients failed",
}

var gmailDomains = []string{"@googlemail.com", "@google.com", "@gmail.com"}

func isGmail(e *envelope) bool {
	addr, _ := e.from()
	local, _, _ := strings.Cut(addr, "@")
	return daemonLocals[local] && containsAny(addr, gmailDomains) || e.has(gmailMarks...)
}

var gmailResponses = []string{
	"the response from the remote server was:", "the error that the other server returned was:",
	"the response was:",
}

// readGmail reads Gmail's bounce text: the recipients from its
// X-Failed-Recipients header or its sentences, and the remote server's
// response after "The response ... was:".
func readGmail(e *envelope) []Report {
	action := actionOf(e,
		[]string{"temporary problem delivering", "will retry", "delivery incomplete"},
		[]string{"failed permanently", "wasn't delivered", "message not delivered", "address not found", "message blocked"})
	diag := e.paragraphAfter(gmailResponses...)
	bs := headerBlocks(e)
	if len(bs) == 0 {
		bs = gmailBlocks(e)
	}
	return reports(bs, action, "", func(block) string { return diag })
}

// gmailBlocks finds the recipients Gmail's sentences name.
func gmailBlocks(e *envelope) []block {
	var out []block
	for _, p := range []string{"wasn't delivered to ", "delivering your message to ", "your message to "} {
		if a := e.addressAfter(p); a != "" {
			out = append(out, block{addr: a})
		}
	}
	if i := e.lineWith(0, "delivery to the following recipient"); i >= 0 {
		for i++; i < len(e.lines); i++ {
			t := strings.TrimSpace(e.lines[i])
			if t == "" && len(out) > 0 {
				break
			}
			if a := address(t); a != "" {
				out = append(out, block{addr: a})
			}
		}
	}
	return out
}

// addressAfter returns the address right after the phrase in the text, or
// "".
func (e *envelope) addressAfter(phrase string) string {
	for i, l := range e.lower {
		if j := strings.Index(l, phrase); j >= 0 {
			return address(firstField(e.lines[i][j+len(phrase):]))
		}
	}
	return ""
}

// paragraphAfter returns the lines after the line containing one of the
// phrases up to the next empty line (empty lines right after it skipped).
func (e *envelope) paragraphAfter(phrases ...string) string {
	i := e.lineWith(0, phrases...)
	if i < 0 {
		return ""
	}
	var para []string
	for i++; i < len(e.lines); i++ {
		t := strings.TrimSpace(e.lines[i])
		if t == "" && len(para) > 0 {
			break
		}
		if t != "" {
			para = append(para, t)
		}
	}
	return strings.Join(para, " ")
}

// --- Exchange and Office 365 ---

// exchangeDiagnostics label the section "for administrators" of an
// Exchange NDR, in English, German, French, Spanish, Italian, Dutch and
// Portuguese.
var exchangeDiagnostics = []string{
	"diagnostic information for administrators", "diagnoseinformationen für administratoren",
	"informations de diagnostic pour les administrateurs", "información de diagnóstico para administradores",
	"informazioni di diagnostica per gli amministratori", "diagnostische gegevens voor beheerders",
	"informações de diagnóstico para administradores",
}

// exchangeLists introduce an NDR's list of recipients when it has no
// section for administrators (Exchange 2003 and the user-facing part).
var exchangeLists = []string{
	"following recipient(s) cannot be reached", "delivery has failed to these recipients or groups",
	"die zustellung an folgende empfänger oder gruppen ist fehlgeschlagen",
	"la remise aux destinataires ou groupes suivants a échoué",
	"la remise à ces destinataires ou groupes a échoué",
	"error en la entrega a estos destinatarios o grupos",
	"delivery is delayed to these recipients or groups",
	"die zustellung an diese empfänger oder gruppen wurde verzögert",
}

var exchangeDelays = []string{
	"delivery is delayed to these recipients or groups", "die zustellung an diese empfänger oder gruppen wurde verzögert",
	"la remise à ces destinataires ou groupes a été retardée",
}

// exchangeServers label the server that wrote the NDR.
var exchangeServers = []string{
	"generating server:", "generierender server:", "serveur de génération :", "serveur de génération:",
	"servidor de generación:", "server di generazione:",
}

func isExchange(e *envelope) bool {
	return e.has(exchangeDiagnostics...) || e.has(exchangeLists...) ||
		e.has("did not reach some or all of the intended recipients") ||
		anyHeader(e, []string{"X-MS-Exchange-Message-Is-Ndr"}) && e.fromDaemon()
}

// readExchange reads the section for administrators (or, without one, the
// list of recipients): each address on a line of its own followed by the
// server's words.
func readExchange(e *envelope) []Report {
	start := e.lineWith(0, exchangeDiagnostics...)
	if start < 0 {
		start = e.lineWith(0, exchangeLists...)
	}
	action := "failed"
	if e.has(exchangeDelays...) || containsAny(e.subject(), []string{"delivery delayed", "zustellung verzögert"}) {
		action = "delayed"
	}
	mta := ""
	if i := e.lineWith(max(start, 0), exchangeServers...); i >= 0 {
		_, v, _ := strings.Cut(e.lines[i], ":")
		mta = host(v)
	}
	return reports(addressBlocks(e, start+1), action, mta, exchangeWords)
}

// addressBlocks reads blocks that start with a line whose first word is an
// address ("jane@example.com", "jane@example.com on 3/4/2024 9:12 AM"),
// each going on to the next empty line, until a copy of the original.
func addressBlocks(e *envelope, from int) []block {
	var out []block
	in := false
	for i := from; i < len(e.lines); i++ {
		t := strings.TrimSpace(e.lines[i])
		switch {
		case isCopyMark(e.lower[i]):
			return out
		case t == "":
			in = false
		case !in:
			if a := address(strings.TrimSuffix(firstField(t), ":")); a != "" {
				out, in = append(out, block{addr: a}), true
			}
		default:
			last := &out[len(out)-1]
			last.text = append(last.text, t)
		}
	}
	return out
}

// exchangeWords is the remote server's words of an Exchange block, without
// Exchange's "Remote Server returned '...'" and "#... ##" wrapping.
func exchangeWords(b block) string {
	s := strings.TrimSpace(joined(b))
	if v, ok := cutPrefixFold(s, "remote server returned "); ok {
		s = strings.Trim(strings.TrimSpace(v), "'")
	}
	if strings.HasPrefix(s, "#") && strings.HasSuffix(s, "##") {
		s = strings.TrimSpace(strings.TrimSuffix(s[1:], "##"))
	}
	return s
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// --- any server that names the failed recipients in a header ---

func hasFailedHeader(e *envelope) bool {
	return strings.TrimSpace(e.hdr.Get("X-Failed-Recipients")) != "" && e.fromDaemon()
}

// readFailedHeader reports the addresses of the X-Failed-Recipients header
// as failed, each with the first line of the text that names it and holds
// a status code.
func readFailedHeader(e *envelope) []Report {
	named := e.linesNaming(0, func(l string) bool { return statusIn(l) != "" })
	return reports(headerBlocks(e), "failed", "", func(b block) string { return named[b.addr] })
}

// headerBlocks are the addresses of the X-Failed-Recipients header.
func headerBlocks(e *envelope) []block {
	var out []block
	for _, v := range e.hdr["X-Failed-Recipients"] {
		for _, s := range strings.Split(v, ",") {
			if a := address(s); a != "" {
				out = append(out, block{addr: a})
			}
		}
	}
	return out
}
