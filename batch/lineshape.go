package batch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes of a ticket's lines: quote marks, headers, reply attributions,
// forward markers and what a signature looks like. Each is a pure test of
// one line's text; the reader (ticket.go) decides what they mean in place.

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

// headerName returns the lower-cased name of a mail header line ("From",
// "Cc", "Subject") that the lists of phrases.go know.
func headerName(t string) (string, bool) {
	i := strings.IndexByte(t, ':')
	if i < 2 || i > 30 {
		return "", false
	}
	name := strings.TrimRight(t[:i], " \t")
	if strings.ContainsAny(name, " \t") {
		return "", false // "please remove mailto:…"
	}
	name = strings.ToLower(name)
	for _, list := range [][]string{senderHeaders, sentToHeaders, copyHeaders, otherPeopleHeaders, plainHeaders} {
		if inList(list, name) {
			return name, true
		}
	}
	return "", false
}

// isWroteLine reports the end of a reply attribution: "… wrote:".
func isWroteLine(t string) bool {
	const w = "wrote:"
	if len(t) < len(w) || !strings.EqualFold(t[len(t)-len(w):], w) {
		return false
	}
	return len(t) == len(w) || t[len(t)-len(w)-1] == ' ' || t[len(t)-len(w)-1] == '\t'
}

// startsOn reports a line that begins a reply attribution: "On Mon, …".
func startsOn(line string) bool {
	_, s := quoteDepth(line)
	s = strings.TrimLeft(s, " \t")
	return len(s) > 3 && strings.EqualFold(s[:3], "on ")
}

// isForwardMarker reports the line that starts a forwarded or copied mail:
// "---------- Forwarded message ---------", "Begin forwarded message:",
// "-----Original Message-----", or Outlook's line of underscores.
func isForwardMarker(t string, ws []word) bool {
	if len(t) >= 10 && strings.Trim(t, "_") == "" {
		return true
	}
	if len(ws) == 0 || len(ws) > 4 {
		return false
	}
	for i := range ws {
		if c, n := lineStarts.at(ws, i); c == pForward {
			return i == 0 || t[0] == '-' || t[0] == '_' || strings.HasSuffix(t, ":") && i+n == len(ws)
		}
	}
	return false
}

// closing reports a line that starts with closing words: how many words
// they are (0 for none), which is also the index of the first word after
// them.
func closing(ws []word) (k, rest int) {
	if c, n := lineStarts.at(ws, 0); c == pClosing {
		return n, n
	}
	return 0, 0
}

// opensSignature reports "Sent from my iPhone" and its kind.
func opensSignature(ws []word) bool {
	c, _ := lineStarts.at(ws, 0)
	return c == pOpener
}

// isTitle reports a title or company line: a few capitalized words, one of
// them a title word or a company's legal form.
func isTitle(t string, ws []word) bool {
	if len(ws) == 0 || len(ws) > 6 || tableRow(t) || !nameLike(t, false) {
		return false
	}
	for _, w := range ws {
		if inList(titleWords, w.s) || inList(legalSuffixes, w.s) || inList(legalSuffixes, w.s+".") {
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
func signatureShape(t string, items []found) string {
	if len(items) != 1 || !strings.Contains(items[0].Raw, "@") || tableRow(t) {
		return ""
	}
	f := items[0]
	end := f.off + strings.Index(t[f.off:], f.Raw) + len(f.Raw)
	if end < f.off+len(f.Raw) {
		return ""
	}
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
	named := false
	for _, p := range parts {
		p = strings.Trim(strings.TrimSpace(p), "-–—|,:;")
		switch {
		case p == "":
		case nameLike(p, false):
			named = true
		case phoneOrURL(p):
		default:
			return ""
		}
	}
	if !named {
		return ""
	}
	return shape.String() + "@"
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
			part = strings.Trim(part, ".,;:!-–—'\"")
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
	lw := strings.ToLower(w)
	if inList(nameParticles, lw) || inList(legalSuffixes, lw) || inList(legalSuffixes, lw+".") {
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

// phoneOrURL reports a phone number or a web address, as signatures carry.
func phoneOrURL(s string) bool {
	s = strings.TrimSpace(s)
	ls := strings.ToLower(s)
	for _, p := range []string{"tel", "phone", "mobile", "m:", "t:", "p:"} {
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
