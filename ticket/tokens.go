package ticket

import (
	"bytes"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The tokens of a line: what may be an entry (an address, valid or not, a
// suppression ID, an address written out in words), each where it starts.

// tokens finds the tokens of line n's text t (its words ws).
func (r *Reader) tokens(n int, t string, ws []word) []token {
	toks := r.toks[:0]
	fieldsAt(t, func(off int, tok string) {
		candidates(tok, func(c string) {
			if f, ok := freeToken(c, n); ok {
				toks = append(toks, token{Found: f, off: off})
			}
		})
	})
	toks = writtenOut(toks, n, t)
	r.toks = toks
	return toks
}

// isSep reports whether r separates tokens in free text. ':' splits
// "mailto:x@y" and "Email:x@y"; the rest never occur in a bare address.
func isSep(r rune) bool {
	switch r {
	case ',', ';', '<', '>', '(', ')', '[', ']', '"', '`', ':', '\u00ab', '\u00bb', '\u2018', '\u2019', '\u201c', '\u201d', '|':
		return true
	}
	return unicode.IsSpace(r) || isInvisible(r)
}

// fieldsAt calls fn with each token of s between separators (isSep) and
// where it starts, like strings.FieldsFunc without building a slice.
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
	if isLink(tok) {
		// "https://shop.example/u?e=ann%40mail.example": the address is
		// the link's last value, not its path.
		cut := strings.LastIndexAny(tok[:at], "=/?&") + 1
		tok, at = tok[cut:], at-cut
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
			fieldsAt(v, func(_ int, s string) { fn(s) })
		}
	}
}

// isLink reports a token that is a web link, as a token reads after the
// scheme's colon: "//shop.example/…", "www.shop.example/…".
func isLink(tok string) bool {
	return strings.HasPrefix(tok, "//") || strings.HasPrefix(strings.ToLower(tok), "www.")
}

// notInDomain are characters that never belong to a domain but follow an
// address in prose ("jane@example.com's", "x@y.org!"): the address ends there.
const notInDomain = "'!*?&=/\\|~^{}#$%+"

// freeToken decides whether a token of free text may be an entry: a
// token with an @, or one shaped as a suppression ID.
func freeToken(tok string, line int) (Found, bool) {
	if at := strings.LastIndexByte(tok, '@'); at >= 0 {
		if cut := strings.IndexAny(tok[at+1:], notInDomain); cut >= 0 {
			tok = tok[:at+1+cut]
		}
	}
	tok = strings.TrimRight(tok, ".!?'*_")
	tok = strings.TrimLeft(tok, "'*_")
	switch {
	case tok == "":
		return Found{}, false
	case strings.Contains(tok, "@"):
		return Found{Line: line, Raw: tok, Kind: Address, Value: normalized(tok)}, true
	case LooksLikeID(tok):
		return Found{Line: line, Raw: tok, Kind: ID}, true
	}
	return Found{}, false
}

// LooksLikeID reports whether a token is meant as a suppression ID (a
// UUID): hex digits and dashes, long enough, with dashes or 32 digits.
func LooksLikeID(s string) bool {
	if len(s) < 30 || len(s) > 40 {
		return false
	}
	dashes, hex := 0, 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-':
			dashes++
		case '0' <= c && c <= '9', 'a' <= c && c <= 'f', 'A' <= c && c <= 'F':
			hex++
		default:
			return false
		}
	}
	return hex >= 30 && (dashes > 0 || len(s) == 32)
}

// writtenOut appends the addresses line n's text t writes out in words
// ("ana dot silva at mailbox dot org", "ana[at]mailbox[.]org", "ana
// (at) mailbox (dot) org", "ana arroba correo punto es") to toks, unless
// the line names the address as it is too.
func writtenOut(toks []token, n int, t string) []token {
	if !mayWriteOut(t) {
		return toks
	}
	s := spelledForms.Replace(t)
	pieces := writtenPieces(s)
	for i := 1; i+1 < len(pieces); i++ {
		if pieces[i].s != "@" {
			continue
		}
		local, from, english := spelledLocal(pieces, i)
		domain, to := spelledDomain(pieces, i)
		// A line that is the spelled address and nothing else (under
		// "Seine Adresse ist:") is plainly one.
		whole := from == 0 && to == len(pieces)-1
		if local == "" || domain == "" || english && !whole && !plainlyAddress(pieces, from, to) {
			continue
		}
		addr := local + "@" + domain
		v := normalized(addr)
		if v == "" || named(toks, v) {
			continue
		}
		off := pieces[from].off
		if s != t {
			off = min(off, len(t)-1) // the bracketed forms moved it: near enough
		}
		toks = append(toks, token{Found: Found{Line: n, Raw: addr, Kind: WrittenOut, Value: v, Text: strings.TrimSpace(s[pieces[from].off:pieces[to].end])}, off: off})
	}
	return toks
}

// named reports whether v is among the tokens already.
func named(toks []token, v string) bool {
	for _, f := range toks {
		if f.Value == v {
			return true
		}
	}
	return false
}

// mayWriteOut is a quick look for an "at" of some kind: bracketed, spaced
// ("x @ y"), or one of the phrase books' words for it between spaces or
// in brackets ("(małpa)").
func mayWriteOut(t string) bool {
	if strings.Contains(t, " @ ") {
		return true
	}
	var buf [512]byte
	lt := fold(buf[:0], t[:min(len(t), 480)])
	for _, b := range [...]string{"[at]", "(at)", "{at}", "<at>", "[ at ]", "( at )"} {
		if bytes.Contains(lt, []byte(b)) {
			return true
		}
	}
	for w := range phraseBooks().words["at"] {
		for i := bytes.Index(lt, []byte(w)); i >= 0; {
			end := i + len(w)
			if i > 0 && strings.IndexByte(" ([{<", lt[i-1]) >= 0 && end < len(lt) && strings.IndexByte(" )]}>", lt[end]) >= 0 {
				return true
			}
			k := bytes.Index(lt[i+1:], []byte(w))
			if k < 0 {
				break
			}
			i += 1 + k
		}
	}
	return false
}

// piece is a word of a line read for written-out addresses: "@" and "."
// stand for their spelled forms.
type piece struct {
	s        string
	off, end int
	english  bool // the "@" was the word "at"; the "." a symbol or a word for it but "point"
}

// spelledForms are the bracketed ways to write "@" and ".".
var spelledForms = strings.NewReplacer(
	"[at]", " @ ", "(at)", " @ ", "{at}", " @ ", "<at>", " @ ", "[ at ]", " @ ", "( at )", " @ ",
	"[AT]", " @ ", "(AT)", " @ ", "{AT}", " @ ", "<AT>", " @ ",
	"[dot]", " . ", "(dot)", " . ", "{dot}", " . ", "<dot>", " . ", "[.]", " . ", "(.)", " . ", "{.}", " . ",
	"[DOT]", " . ", "(DOT)", " . ", "{DOT}", " . ", "<DOT>", " . ",
)

// writtenPieces cuts a line (its bracketed forms spelled out) into
// pieces.
func writtenPieces(s string) []piece {
	var out []piece
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		if j > i {
			out = append(out, toPiece(s[i:j], i, j))
		}
		i = j
	}
	return joinDashes(out)
}

// joinDashes joins the words around a spelled dash into one ("riverside
// dash yoga" is "riverside-yoga").
func joinDashes(ps []piece) []piece {
	out := ps[:0]
	for k := 0; k < len(ps); k++ {
		p := ps[k]
		if p.s == "-" && len(out) > 0 && k+1 < len(ps) && plainPiece(out[len(out)-1]) && plainPiece(ps[k+1]) {
			last := &out[len(out)-1]
			last.s, last.end = last.s+"-"+ps[k+1].s, ps[k+1].end
			k++
			continue
		}
		out = append(out, p)
	}
	return out
}

// plainPiece is a word piece, not a spelled "@", "." or "-".
func plainPiece(p piece) bool { return p.s != "@" && p.s != "." && p.s != "-" && p.s != "" }

func toPiece(w string, off, end int) piece {
	w = strings.Trim(w, ",;:!?\"'()<>[]{}")
	switch {
	case w == "@":
		return piece{s: "@", off: off, end: end}
	case w == ".":
		return piece{s: ".", off: off, end: end, english: true}
	case phraseBooks().has("at", w):
		return piece{s: "@", off: off, end: end, english: is(w, "at")}
	case phraseBooks().has("dot", w):
		// "punkt", "punto" are no English prose beside an English "at";
		// "point" is ("at some point").
		return piece{s: ".", off: off, end: end, english: !is(w, "point")}
	case phraseBooks().has("dash", w):
		return piece{s: "-", off: off, end: end}
	}
	return piece{s: strings.TrimRight(w, "."), off: off, end: end}
}

// spelledLocal reads the local part before the "@" at i: words joined by
// spelled dots. It returns "" for none.
func spelledLocal(ps []piece, i int) (local string, from int, english bool) {
	k := i - 1
	if !localWord(ps[k].s) {
		return "", 0, false
	}
	parts := []string{ps[k].s}
	for k >= 2 && ps[k-1].s == "." && localWord(ps[k-2].s) {
		k -= 2
		parts = append([]string{ps[k].s}, parts...)
	}
	return strings.Join(parts, "."), k, ps[i].english
}

// spelledDomain reads the domain after the "@" at i: labels joined by
// spelled dots (or a dotted word), ending in a top-level label of
// letters and not followed by another "@", and the index of its last
// piece. It returns "" for none.
func spelledDomain(ps []piece, i int) (string, int) {
	k := i + 1
	if !domainWord(ps[k].s) {
		return "", 0
	}
	parts := []string{ps[k].s}
	for k+2 < len(ps) && ps[k+1].s == "." && domainWord(ps[k+2].s) {
		k += 2
		parts = append(parts, ps[k].s)
	}
	if k+1 < len(ps) && ps[k+1].s == "@" {
		// "mail again at dev dot patel at patelco dot example": words
		// that run into another "at" are that address's local part.
		return "", 0
	}
	d := strings.Join(parts, ".")
	dot := strings.LastIndexByte(d, '.')
	if dot < 0 || len(d)-dot-1 < 2 || strings.ContainsFunc(d[dot+1:], func(r rune) bool { return !unicode.IsLetter(r) }) {
		return "", 0
	}
	return d, k
}

func localWord(s string) bool {
	return s != "" && s != "@" && s != "." && !strings.ContainsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._+-", r))
	})
}

func domainWord(s string) bool {
	return s != "" && s != "@" && s != "." && !strings.ContainsFunc(s, func(r rune) bool {
		return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '.')
	})
}

// plainlyAddress reports whether words joined by the English "at"
// (pieces from to to) are plainly an address written out, not prose ("the
// team at acme.com", "it wasn't found at example.com"): a dot is spelled
// out, or the words before it say an address follows ("my email is …").
func plainlyAddress(ps []piece, from, to int) bool {
	if commonAtWord(ps[from].s) {
		return false
	}
	for k := from; k <= to; k++ {
		if ps[k].s == "." && ps[k].english {
			// "at some point last year" spells no address: "point"
			// is a dot in French, not beside an English "at".
			return true
		}
	}
	for k := max(from-4, 0); k < from; k++ {
		switch strings.ToLower(strings.Trim(ps[k].s, ":,")) {
		case "email", "e-mail", "mail", "address", "mailbox", "adresse", "correo", "endereço", "indirizzo", "adres", "e-mailadres", "is":
			return true
		}
	}
	return false
}

// commonAtWord is an English word that comes before "at" in prose ("the
// team at acme.com", "reach me at …"): not an address's local part.
func commonAtWord(s string) bool {
	switch strings.ToLower(s) {
	case "me", "us", "you", "we", "them", "him", "her", "it", "team", "staff", "everyone", "people", "folks", "someone", "anyone", "colleagues", "friends", "here", "there", "look", "arrive", "arrived", "is", "are", "was", "be", "work", "home", "office":
		return true
	}
	return false
}
