package bounce

import (
	"errors"
	"io"
	"mime"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

// statusIn returns the first RFC 3463 enhanced status code in s ("5.1.1",
// "4.2.2", "2.0.0"), or "". A code stands alone: "10.5.1.1" (an address) and
// "5.1.2024" (a date) are not codes.
func statusIn(s string) string {
	for i := 0; i+4 < len(s); i++ {
		c := s[i]
		if c != '2' && c != '4' && c != '5' || s[i+1] != '.' {
			continue
		}
		if i > 0 && (isDigit(s[i-1]) || isLetter(s[i-1]) || s[i-1] == '.') {
			continue
		}
		end, ok := codeEnd(s, i+2)
		if ok {
			return s[i:end]
		}
	}
	return ""
}

// codeEnd reads "subject.detail" of an enhanced code from s[i:]: 1-3 digits,
// a dot, 1-3 digits, followed by nothing that would make it longer.
func codeEnd(s string, i int) (int, bool) {
	j := digitsEnd(s, i)
	if j == i || j-i > 3 || j >= len(s) || s[j] != '.' {
		return 0, false
	}
	k := digitsEnd(s, j+1)
	if k == j+1 || k-j-1 > 3 {
		return 0, false
	}
	if k < len(s) && (isDigit(s[k]) || isLetter(s[k]) || s[k] == '.' && k+1 < len(s) && isDigit(s[k+1])) {
		return 0, false
	}
	return k, true
}

func digitsEnd(s string, i int) int {
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return i
}

func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// clip makes s valid UTF-8 with runs of white space one space, at most n
// bytes, not splitting a character.
func clip(s string, n int) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if needsCollapse(s) {
		s = strings.Join(strings.Fields(s), " ")
	}
	return cutUTF8(s, n)
}

// needsCollapse reports whether s has white space other than single
// spaces between words (any non-ASCII byte is checked the slow way).
func needsCollapse(s string) bool {
	if s == "" {
		return false
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c >= 0x80:
			return true
		case c == ' ' && s[i+1] == ' ':
			return true
		}
	}
	return false
}

// address returns the normalized address in s, which may be wrapped in
// angle brackets, quotes or trailing punctuation; "" when it is not a valid
// address. Exchange's encapsulated X.500 addresses (IMCEAEX-…) are not
// mailboxes and give "".
func address(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '<'); i >= 0 {
		if j := strings.IndexByte(s[i:], '>'); j > 0 {
			s = s[i+1 : i+j]
		}
	}
	s = strings.Trim(s, " \t\"'<>()[]{}:;,.")
	addr, err := api.NormalizeEmail(s)
	if err != nil || strings.HasPrefix(addr, "imcea") {
		return ""
	}
	return addr
}

// typedAddress reads a DSN or ARF address field, "rfc822; user@host", with
// or without its type.
func typedAddress(v string) string {
	return address(stripType(v))
}

// stripType drops the type of a DSN field value: "smtp; 550 ..." gives
// "550 ...", "dns; mx.example.com" gives "mx.example.com".
func stripType(v string) string {
	v = strings.TrimSpace(v)
	t, rest, ok := strings.Cut(v, ";")
	if !ok || len(t) > 20 || strings.ContainsAny(strings.TrimSpace(t), " \t<@") {
		return v
	}
	return strings.TrimSpace(rest)
}

// firstWord returns the first word of v, lower-case.
func firstWord(v string) string {
	f := strings.Fields(v)
	if len(f) == 0 {
		return ""
	}
	return strings.ToLower(strings.TrimRight(f[0], ";,"))
}

// firstDate returns the first of the values that reads as an RFC 5322
// date, or the zero time.
func firstDate(values ...string) time.Time {
	for _, v := range values {
		if t, ok := readDate(v); ok {
			return t
		}
	}
	return time.Time{}
}

// readDate reads an RFC 5322 date. The usual form ("Mon, 2 Jan 2006
// 15:04:05 -0700", perhaps with a comment) is tried first: net/mail's
// ParseDate, which reads every form, tries its layouts one by one.
func readDate(v string) (time.Time, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return time.Time{}, false
	}
	usual, _, _ := strings.Cut(v, " (")
	if t, err := time.Parse("Mon, 2 Jan 2006 15:04:05 -0700", usual); err == nil {
		return t, true
	}
	t, err := mail.ParseDate(v)
	return t, err == nil
}

// msgID returns a Message-ID field's first ID without its angle brackets.
func msgID(v string) string {
	v = strings.TrimSpace(v)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return strings.TrimSpace(v[i+1 : i+j])
		}
	}
	if f := strings.Fields(v); len(f) > 0 {
		return f[0]
	}
	return ""
}

// messageID is the report message's own Message-ID.
func (e *envelope) messageID() string { return msgID(e.hdr.Get("Message-Id")) }

// date is the report message's Date, read once (net/mail tries many
// layouts).
func (e *envelope) date() time.Time {
	if !e.dated {
		e.sent, e.dated = firstDate(e.hdr.Get("Date")), true
	}
	return e.sent
}

// firstTime returns t, or u when t is zero.
func firstTime(t, u time.Time) time.Time {
	if t.IsZero() {
		return u
	}
	return t
}

// subject is the message's Subject with RFC 2047 words decoded, as far as
// they can be; lower-case.
func (e *envelope) subject() string {
	v := e.hdr.Get("Subject")
	d := mime.WordDecoder{CharsetReader: charsetReader}
	if s, err := d.DecodeHeader(v); err == nil {
		v = s
	}
	return strings.ToLower(toUTF8([]byte(v), ""))
}

// charsetReader reads the Western single-byte charsets the word decoder
// does not know; other charsets are left encoded.
func charsetReader(charset string, r io.Reader) (io.Reader, error) {
	switch strings.ToLower(charset) {
	case "windows-1252", "cp1252", "iso-8859-15", "latin-9", "latin1":
		b, err := io.ReadAll(io.LimitReader(r, maxField*4))
		return strings.NewReader(windows1252(b)), err
	}
	return nil, errUnknownCharset
}

var errUnknownCharset = errors.New("unknown charset")

// from returns the address and display name (lower-case) of the message's
// From field, read once and leniently: a From that net/mail refuses still
// gives its address.
func (e *envelope) from() (addr, name string) {
	if !e.fromRead {
		e.fromAddr, e.fromName, e.fromRead = readFrom(e.hdr.Get("From"))
	}
	return e.fromAddr, e.fromName
}

func readFrom(v string) (addr, name string, ok bool) {
	if a, err := mail.ParseAddress(v); err == nil {
		return address(a.Address), strings.ToLower(a.Name), true
	}
	return address(v), strings.ToLower(v), true
}

// daemonLocals are the local parts mail servers send bounces from.
var daemonLocals = map[string]bool{
	"mailer-daemon": true, "mailer_daemon": true, "mailerdaemon": true, "postmaster": true,
	"mail-daemon": true, "maildaemon": true, "mail.daemon": true,
}

// bounceSubjects are words of the subjects mail servers give bounces.
var bounceSubjects = []string{
	"undeliver", "delivery status notification", "delivery failure", "delivery failed",
	"failure notice", "returned mail", "delivery has failed", "could not be delivered",
	"delivery notification", "non remis", "non-remis", "unzustellbar", "nicht zustellbar",
	"no se puede entregar", "non recapitabile", "onbestelbaar", "não é possível entregar",
	"mail delivery", "undelivered mail",
}

// fromDaemon reports whether the message comes from a mail server rather
// than a person: its sender is a mailer-daemon or postmaster, or its
// subject is a bounce's.
func (e *envelope) fromDaemon() bool {
	addr, name := e.from()
	local, _, _ := strings.Cut(addr, "@")
	if daemonLocals[local] || strings.Contains(name, "mail delivery") || strings.Contains(name, "mailer-daemon") {
		return true
	}
	return containsAny(e.subject(), bounceSubjects)
}

// originalRecipient is the one recipient of the enclosed original message
// (its To field), or "" when there is none or more than one.
func (e *envelope) originalRecipient() string {
	if e.original == nil {
		return ""
	}
	list, err := e.original.AddressList("To")
	if err != nil || len(list) != 1 {
		return ""
	}
	return address(list[0].Address)
}

// originalMessageID is the Message-ID of the enclosed original, or of the
// first "Message-ID:" line quoted in the text; read once.
func (e *envelope) originalMessageID() string {
	if !e.origRead {
		e.origID, e.origRead = e.findOriginalID(), true
	}
	return e.origID
}

func (e *envelope) findOriginalID() string {
	if e.original != nil {
		if id := msgID(e.original.Get("Message-Id")); id != "" {
			return id
		}
	}
	for i, l := range e.lower {
		if strings.HasPrefix(strings.TrimSpace(l), "message-id:") {
			_, v, _ := strings.Cut(e.lines[i], ":")
			return msgID(v)
		}
	}
	return ""
}

// plainText is the beginning of the message's text, for a person to read.
func (e *envelope) plainText() string {
	var b strings.Builder
	for _, l := range e.lines {
		if b.Len() > maxDiagnostic {
			break
		}
		if l = strings.TrimSpace(l); l != "" {
			b.WriteString(l)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// containsAny reports whether s contains one of the phrases.
func containsAny(s string, phrases []string) bool {
	for _, p := range phrases {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

// has reports whether the message's text contains one of the phrases
// (lower-case, single-spaced).
func (e *envelope) has(phrases ...string) bool { return containsAny(e.flat, phrases) }
