package bounce

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"
)

// envelope is what the reader keeps of a message: its header and the parts
// the rules read, decoded to UTF-8 where they are text.
type envelope struct {
	hdr        mail.Header
	reportType string      // multipart/report's report-type, lower-case
	status     []byte      // the first message/delivery-status part
	feedback   []byte      // the first message/feedback-report part
	original   mail.Header // the header of the enclosed original message
	parts      int
	sent       time.Time // the Date field, once read
	dated      bool
	origID     string // the original's Message-ID, once read
	origRead   bool
	fromAddr   string // the From field's address and display name, once read
	fromName   string
	fromRead   bool

	text  strings.Builder // text/plain parts, then text/html ones as text
	html  strings.Builder
	lines []string // text's lines, without line ends
	lower []string // lines, lower-case
	flat  string   // text, lower-case, white space collapsed
}

// readEnvelope reads the header of raw and walks its parts.
func readEnvelope(raw []byte) (*envelope, error) {
	raw = skipFromLine(raw)
	end, found := headerEnd(raw)
	if end > maxHeaderSize || (!found && len(raw) > maxHeaderSize) {
		return nil, fmt.Errorf("it is not a mail message: its header is larger than %d MiB", maxHeaderSize>>20)
	}
	hdr, err := readHeader(raw[:end])
	if err != nil {
		return nil, err
	}
	env := &envelope{hdr: hdr}
	env.walk(hdr.Get("Content-Type"), hdr.Get("Content-Transfer-Encoding"), raw[end:], 0)
	env.index()
	return env, nil
}

// skipFromLine drops an mbox "From " line before the header, as a message
// saved from an mbox carries.
func skipFromLine(raw []byte) []byte {
	if !bytes.HasPrefix(raw, []byte("From ")) {
		return raw
	}
	if i := bytes.IndexByte(raw, '\n'); i >= 0 {
		return raw[i+1:]
	}
	return nil
}

// headerEnd returns the offset where raw's body begins (after the empty
// line that ends the header) and whether that line was found. It looks no
// further than just past maxHeaderSize.
func headerEnd(raw []byte) (int, bool) {
	for i := 0; i < len(raw) && i <= maxHeaderSize; {
		j := bytes.IndexByte(raw[i:], '\n')
		if j < 0 {
			return len(raw), false
		}
		line := raw[i : i+j]
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			return i + j + 1, true
		}
		i += j + 1
	}
	return min(len(raw), maxHeaderSize+1), false
}

// readHeader parses a header section with net/mail; an unreadable one is
// an error that says which line is wrong without repeating it.
func readHeader(b []byte) (mail.Header, error) {
	if !bytes.HasSuffix(b, []byte("\n\n")) && !bytes.HasSuffix(b, []byte("\n\r\n")) {
		b = append(bytes.Clone(b), "\r\n\r\n"...)
	}
	msg, err := mail.ReadMessage(bytes.NewReader(b))
	if err != nil {
		if n := badHeaderLine(b); n > 0 {
			return nil, fmt.Errorf("it is not a mail message: line %d of its header is not a header field", n)
		}
		return nil, errors.New("it is not a mail message: its header cannot be read")
	}
	if len(msg.Header) == 0 {
		return nil, errors.New("it is not a mail message: it has no header fields")
	}
	return msg.Header, nil
}

// badHeaderLine returns the 1-based number of the first line of a header
// section that net/mail refuses (a line without a colon, or a continuation
// with no field before it), or 0.
func badHeaderLine(b []byte) int {
	for n, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case line == "":
			return 0
		case line[0] == ' ' || line[0] == '\t':
			if n == 0 {
				return 1
			}
		case !strings.Contains(line, ":"):
			return n + 1
		}
	}
	return 0
}

// validFieldName reports whether s is an RFC 5322 field name.
func validFieldName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < 33 || s[i] > 126 {
			return false
		}
	}
	return true
}

// walk reads one part (the message's body at depth 0) by its media type.
func (e *envelope) walk(ctype, cte string, body []byte, depth int) {
	e.parts++
	if e.parts > maxParts {
		return
	}
	media, params := mediaType(ctype)
	switch media {
	case "message/delivery-status", "message/global-delivery-status":
		if e.status == nil {
			e.status = decode(body, cte)
		}
	case "message/feedback-report":
		if e.feedback == nil {
			e.feedback = decode(body, cte)
		}
	case "message/rfc822", "message/global", "text/rfc822-headers", "message/global-headers":
		if e.original == nil {
			e.original = enclosedHeader(decode(body, cte))
		}
	case "text/html":
		addBounded(&e.html, htmlText(toUTF8(decode(body, cte), params["charset"])))
	case "text/plain":
		addBounded(&e.text, toUTF8(decode(body, cte), params["charset"]))
	default:
		if !strings.HasPrefix(media, "multipart/") || !e.walkMultipart(media, params, body, depth) {
			e.unreadable(media, cte, body, params)
		}
	}
}

// unreadable keeps a multipart that cannot be split (no boundary, or a
// boundary that never appears, or one nested too deep) as text: its words
// may still be read by a shape.
func (e *envelope) unreadable(media, cte string, body []byte, params map[string]string) {
	if strings.HasPrefix(media, "multipart/") {
		addBounded(&e.text, toUTF8(decode(body, cte), params["charset"]))
	}
}

// walkMultipart walks the parts of a multipart body; it reports whether it
// found any.
func (e *envelope) walkMultipart(media string, params map[string]string, body []byte, depth int) bool {
	boundary := params["boundary"]
	if boundary == "" || depth >= maxDepth {
		return false
	}
	if media == "multipart/report" && e.reportType == "" {
		e.reportType = strings.ToLower(params["report-type"])
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	found := false
	for e.parts < maxParts {
		p, err := mr.NextRawPart()
		if err != nil {
			break
		}
		data, _ := io.ReadAll(io.LimitReader(p, maxPartSize))
		found = true
		e.walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), data, depth+1)
	}
	return found
}

// mediaType returns the lower-case media type of a Content-Type value and
// its parameters; no value, or one that cannot be read, is text/plain.
func mediaType(v string) (string, map[string]string) {
	if strings.TrimSpace(v) == "" {
		return "text/plain", nil
	}
	media, params, err := mime.ParseMediaType(v)
	if err != nil && !errors.Is(err, mime.ErrInvalidMediaParameter) {
		return "text/plain", nil
	}
	return media, params
}

// enclosedHeader reads the header of an enclosed message or of a
// text/rfc822-headers part; nil when it has none that can be read.
func enclosedHeader(b []byte) mail.Header {
	end, _ := headerEnd(b)
	h, err := readHeader(b[:end])
	if err != nil {
		return nil
	}
	return h
}

// addBounded appends s as a new paragraph to b while b stays under
// maxTextSize.
func addBounded(b *strings.Builder, s string) {
	room := maxTextSize - b.Len()
	if room <= 0 || s == "" {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
		room--
	}
	b.WriteString(cutUTF8(s, room))
}

// decode undoes a part's Content-Transfer-Encoding, keeping what can be
// decoded of a damaged part; it returns at most maxPartSize bytes.
func decode(body []byte, cte string) []byte {
	switch strings.ToLower(strings.TrimSpace(cte)) {
	case "base64":
		return decodeBase64(body)
	case "quoted-printable":
		return decodeQP(body)
	}
	return body[:min(len(body), maxPartSize)]
}

// decodeBase64 decodes base64 text, skipping whatever is not of its
// alphabet (line ends, spaces, junk) and tolerating missing padding.
func decodeBase64(body []byte) []byte {
	clean := make([]byte, 0, min(len(body), maxPartSize/3*4+4))
	for _, c := range body {
		if len(clean) == cap(clean) {
			break
		}
		if isBase64(c) {
			clean = append(clean, c)
		}
	}
	if len(clean)%4 == 1 {
		clean = clean[:len(clean)-1]
	}
	out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
	n, _ := base64.RawStdEncoding.Decode(out, clean)
	return out[:n]
}

func isBase64(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/'
}

// decodeQP decodes quoted-printable text leniently: "=XX" is a byte, "="
// before a line end joins the lines, any other "=" stays as it is.
func decodeQP(body []byte) []byte {
	out := make([]byte, 0, min(len(body), maxPartSize))
	for i := 0; i < len(body) && len(out) < maxPartSize; i++ {
		c := body[i]
		if c != '=' {
			out = append(out, c)
			continue
		}
		rest := body[i+1:]
		switch {
		case bytes.HasPrefix(rest, []byte("\r\n")):
			i += 2
		case bytes.HasPrefix(rest, []byte("\n")):
			i++
		case len(rest) >= 2 && unhex(rest[0]) >= 0 && unhex(rest[1]) >= 0:
			out = append(out, byte(unhex(rest[0])<<4|unhex(rest[1])))
			i += 2
		default:
			out = append(out, c)
		}
	}
	return out
}

func unhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	}
	return -1
}

// toUTF8 returns text in a declared charset as UTF-8. Text that is valid
// UTF-8 is kept; text in a Western single-byte charset, or declared UTF-8
// or ASCII but not valid (the common mislabel), is read as Windows-1252;
// any other invalid byte becomes U+FFFD.
func toUTF8(b []byte, charset string) string {
	if utf8.Valid(b) {
		return string(b)
	}
	switch strings.ToLower(strings.TrimSpace(charset)) {
	case "", "utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1", "latin1", "iso_8859-1",
		"windows-1252", "cp1252", "iso-8859-15", "latin-9":
		return windows1252(b)
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// cp1252 holds the characters of Windows-1252's bytes 0x80-0x9F; its
// other bytes are Latin-1's.
const cp1252 = "€\u0081‚ƒ„…†‡ˆ‰Š‹Œ\u008DŽ\u008F\u0090‘’“”•–—˜™š›œ\u009DžŸ"

func windows1252(b []byte) string {
	high := []rune(cp1252)
	var s strings.Builder
	s.Grow(len(b) + len(b)/8)
	for _, c := range b {
		switch {
		case c < 0x80:
			s.WriteByte(c)
		case c < 0xA0:
			s.WriteRune(high[c-0x80])
		default:
			s.WriteRune(rune(c))
		}
	}
	return s.String()
}

// cutUTF8 returns the longest prefix of s of at most n bytes that does not
// split a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// htmlText returns the text of an HTML part: tags dropped (with the
// contents of head, style and script), block ends as line ends, entities
// decoded.
func htmlText(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		s = s[i:]
		j := strings.IndexByte(s, '>')
		if j < 0 {
			break
		}
		tag := strings.ToLower(s[1:j])
		s = s[j+1:]
		s = skipElement(s, tag)
		if blockTag(tag) {
			b.WriteByte('\n')
		}
	}
	return html.UnescapeString(b.String())
}

// skipElement drops the contents of an element whose text is not for the
// reader (head, style, script, title) up to its end tag.
func skipElement(s, tag string) string {
	for _, name := range []string{"head", "style", "script", "title"} {
		if tag != name && !strings.HasPrefix(tag, name+" ") {
			continue
		}
		return fromEndTag(s, name)
	}
	return s
}

// fromEndTag returns s from the end tag of the element name on ("" when
// there is none), comparing without regard to case.
func fromEndTag(s, name string) string {
	for i := 0; i+2+len(name) <= len(s); i++ {
		j := strings.Index(s[i:], "</")
		if j < 0 {
			break
		}
		i += j
		if i+2+len(name) <= len(s) && strings.EqualFold(s[i+2:i+2+len(name)], name) {
			return s[i:]
		}
	}
	return ""
}

// blockTag reports whether a tag ends a line of text.
func blockTag(tag string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(tag, "/"), " ")
	switch strings.TrimSuffix(name, "/") {
	case "br", "p", "div", "tr", "li", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "blockquote":
		return true
	}
	return false
}

// index cuts the message's text into lines once for the rules. The
// lower-case copies lower only ASCII letters, so that an offset in a line's
// copy is the same offset in the line.
func (e *envelope) index() {
	text := e.text.String()
	if strings.TrimSpace(text) == "" {
		text = e.html.String()
	}
	text = strings.ReplaceAll(text, "\r", "")
	e.lines = strings.Split(text, "\n")
	e.lower = make([]string, len(e.lines))
	for i, l := range e.lines {
		e.lower[i] = asciiLower(l)
	}
	e.flat = strings.Join(strings.Fields(asciiLower(text)), " ")
}

// asciiLower returns s with its ASCII letters in lower case, and s itself
// when it has none in upper case.
func asciiLower(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for j := i; j < len(b); j++ {
		if 'A' <= b[j] && b[j] <= 'Z' {
			b[j] += 'a' - 'A'
		}
	}
	return string(b)
}
