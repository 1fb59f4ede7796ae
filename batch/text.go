package batch

import (
	"io"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

// isSep reports whether r separates tokens in free text. ':' splits
// "mailto:x@y" and "Email:x@y"; the rest never occur in a bare address.
func isSep(r rune) bool {
	switch r {
	case ',', ';', '<', '>', '(', ')', '[', ']', '"', '`', ':', '\u00ab', '\u00bb', '\u2018', '\u2019', '\u201c', '\u201d':
		return true
	}
	return unicode.IsSpace(r) || isInvisible(r)
}

// parseFree finds entries in free text, and reads the text as a ticket
// (ticketReader): where each address stands, who wrote, what they ask.
// line, when not nil, hears each line.
func parseFree(r io.Reader, mode Mode, emit func(Item), line func(n int, text string)) error {
	tr := newTicketReader(mode, emit)
	lr := newLineReader(r)
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		text := string(b)
		if line != nil {
			line(lr.n, text)
		}
		tr.line(lr.n, text)
	}
	tr.end()
	return lr.err
}

// fields calls fn with each token of s between separators (isSep), like
// strings.FieldsFunc without building a slice: free text is read in bulk.
func fields(s string, fn func(string)) {
	fieldsAt(s, func(_ int, tok string) { fn(tok) })
}

// fieldsAt is fields that also says where each token starts in s.
func fieldsAt(s string, fn func(off int, tok string)) {
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSep(r) {
			if start >= 0 {
				fn(start, s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		fn(start, s[start:])
	}
}

// candidates calls fn with the parts of a token that may be entries: a
// mailto link's query ("?subject=…&cc=b@x.org") is cut off, and its values
// with an @ are candidates too; %40 and other escapes are decoded.
func candidates(tok string, fn func(string)) {
	if strings.IndexByte(tok, '%') >= 0 {
		if u, err := url.PathUnescape(tok); err == nil {
			tok = u
		}
	}
	at := strings.IndexByte(tok, '@')
	if at < 0 {
		fn(tok)
		return
	}
	q := strings.IndexByte(tok[at:], '?')
	if q < 0 {
		fn(tok)
		return
	}
	fn(tok[:at+q])
	for kv := range strings.SplitSeq(tok[at+q+1:], "&") {
		if _, v, ok := strings.Cut(kv, "="); ok && strings.Contains(v, "@") {
			if u, err := url.QueryUnescape(v); err == nil {
				v = u
			}
			fields(v, fn)
		}
	}
}

// notInDomain are characters that never belong to a domain but follow an
// address in prose ("jane@example.com's", "x@y.org!"): the address ends there.
const notInDomain = "'!*?&=/\\|~^{}#$%+"

// freeItem decides whether a token of free text is meant as an entry.
func freeItem(tok string, line int, mode Mode) (Item, bool) {
	if at := strings.LastIndexByte(tok, '@'); at >= 0 {
		if cut := strings.IndexAny(tok[at+1:], notInDomain); cut >= 0 {
			tok = tok[:at+1+cut]
		}
	}
	tok = strings.TrimRight(tok, ".!?'*_")
	tok = strings.TrimLeft(tok, "'*_")
	if tok == "" {
		return Item{}, false
	}
	if mode.byID() {
		if strings.Contains(tok, "@") {
			if _, err := api.NormalizeEmail(tok); err == nil {
				return Item{Line: line, Raw: tok, Problem: "it is an email address, not a suppression ID (remove by address instead)"}, true
			}
			return Item{}, false
		}
		if !looksLikeID(tok) {
			return Item{}, false
		}
		return NewItem(mode, line, tok), true
	}
	if !strings.Contains(tok, "@") {
		return Item{}, false
	}
	return NewItem(mode, line, tok), true
}

// looksLikeID reports whether a token is meant as a UUID: hex digits and
// dashes, long enough, with dashes or 32 digits.
func looksLikeID(s string) bool {
	if len(s) < 30 || len(s) > 40 {
		return false
	}
	dashes := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			dashes++
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
		default:
			return false
		}
	}
	return dashes > 0 || len(s) == 32
}
