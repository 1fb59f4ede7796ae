package ticket

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A mail client wraps a paragraph at some 72 columns, so a sentence, and
// the phrase that asks, may run over two lines ("Bitte senden Sie an
// seine Adresse keine Mails / mehr"; "my main one (lucia@…) I still / need,
// don't touch that one"). The reader reads such a paragraph as one line:
// a line of prose that is long, does not end its sentence, and is followed
// at the same quote depth by a line that goes on with it (not a header, a
// list's item, a closing, a name, an attribution) takes that line in. The
// rule reads the joined line as the last of its lines (so the line after
// it is the next, as it was); each address it hands on keeps the number of
// the line it stands on.

// A client wraps a line where its next word would pass the width, so a
// wrapped line and the next line's first word together pass it: with
// wrapAt for the narrowest width read as wrapping (a phone's), and
// wrapLeast for the least a wrapped line holds ("Bitte keine Newsletter
// mehr an vertrieb@… und / marketing@… senden, außer / buchhaltung@…").
const (
	wrapAt    = 55
	wrapLeast = 30
)

// wrapped reports whether prev may have been cut there by a client's
// wrapping, next going on with it.
func wrapped(prev, next string) bool {
	first, _, _ := strings.Cut(next, " ")
	n := utf8.RuneCountInString(prev)
	return n >= wrapLeast && n+1+utf8.RuneCountInString(first) >= wrapAt
}

// pendingLine is a line of text read but not yet handed to Reader.line,
// as it may go on on the next: the text so far (its quote marks and the
// joined lines' text), and where each physical line begins in it.
type pendingLine struct {
	set    bool
	raw    string
	depth  int
	last   string // the last physical line's text, trimmed, without quote marks
	lastN  int    // its number
	starts []lineStart
}

// lineStart is where a physical line's text begins in a joined line's
// trimmed text, and its number.
type lineStart struct{ off, n int }

// feed takes line n (one line of text, HTML already read) and hands on,
// to Reader.line, the line before it, or holds it to join with the next.
func (r *Reader) feed(n int, raw string) {
	p := &r.pend
	if p.set && p.lastN == n-1 {
		if depth, rest := quoteDepth(raw); depth == p.depth {
			if t := trimLine(rest); goesOn(p.last, t, len(p.starts) > 1) {
				_, prest := quoteDepth(p.raw)
				pt := trimLine(prest)
				p.starts = append(p.starts, lineStart{off: len(pt) + 1, n: n})
				p.raw = p.raw[:len(p.raw)-len(prest)] + pt + " " + t
				p.last, p.lastN = t, n
				return
			}
		}
	}
	r.flush()
	depth, rest := quoteDepth(raw)
	*p = pendingLine{set: true, raw: raw, depth: depth, last: trimLine(rest), lastN: n, starts: append(p.starts[:0], lineStart{0, n})}
}

// flush hands the line held to Reader.line.
func (r *Reader) flush() {
	p := &r.pend
	if !p.set {
		return
	}
	p.set = false
	if len(p.starts) > 1 {
		r.joined = p.starts
		for _, st := range p.starts[:len(p.starts)-1] {
			r.tk.joinedTo(st.n, p.lastN)
		}
	}
	r.line(p.lastN, p.raw)
	r.joined = nil
}

// physical is the number of the line a token at off of the line being
// read stands on, when that line joins several; 0 when it does not.
func (r *Reader) physical(off int) int {
	for i := len(r.joined) - 1; i >= 0; i-- {
		if off >= r.joined[i].off {
			return r.joined[i].n
		}
	}
	return 0
}

// goesOn reports whether next goes on the sentence that prev, the line
// above it at the same quote depth, left open; chained: prev itself went
// on a line of prose above it, so it may be mostly addresses ("…
// mailboxes except / billing@…: sales@…, info@… / and billing@…").
func goesOn(prev, next string, chained bool) bool {
	if next == "" || !wrapped(prev, next) {
		return false
	}
	return leftOpen(prev, chained) && !startsAnew(next)
}

// leftOpen reports a line whose sentence may go on below it: a line of
// prose, or, chained, one that is no table's row, with no stop at its
// end (".", "!", "?", ":", ";").
func leftOpen(prev string, chained bool) bool {
	if chained && (recordRow(prev) || strings.ContainsAny(prev, "\t|")) || !chained && !prose(prev) {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(prev)
	return !strings.ContainsRune(".!?:;", r)
}

// startsAnew reports a line that begins something of its own rather
// than going on a sentence: a list's item, a header, a closing, a
// device's signature ("Sent from my iPhone"), a name, an attribution.
func startsAnew(next string) bool {
	if itemLine(next) {
		return true // a list's item, a table's row, a chat's next message ("[09:13] Leo: …")
	}
	if _, ok := headerName(next, true); ok {
		return true
	}
	ws := wordsOf(nil, next)
	if k, rest := closing(ws); k > 0 && rest >= len(ws)-3 {
		return true // "Thanks", "Best regards, Ann"
	}
	if c, n := phraseBooks().trees[atStart].at(ws, 0); n > 0 && c == cOpener {
		return true // "Sent from my iPhone"
	}
	if len(ws) <= 4 && nameLike(next, false) && !strings.ContainsAny(next, ".,;:!?") {
		return true // a name under the paragraph
	}
	// "On Mon, 23 Nov 2026, Ann <ann@…> wrote:"
	return strings.HasSuffix(next, ":") && (strings.Contains(next, "@") || hasYear(next))
}

// itemLine reports a line that stands apart from the lines above: a
// list's item, a table's row, a date, a labelled field, a chat's message
// ("[09:13] Leo: …").
func itemLine(t string) bool {
	return recordRow(t) || dateLine(t) || startsItem(t) || strings.ContainsAny(t, "\t|·•") || strings.Contains(t, "   ") ||
		strings.HasPrefix(t, "[") || labelled(t)
}

// prose reports a line of running words: three or more, two in three of
// them words of letters, no table's cells or signature's fields between bars.
func prose(t string) bool {
	if strings.ContainsAny(t, "\t|·•") || strings.Contains(t, "   ") || startsItem(t) || recordRow(t) || signedBy(t) {
		return false
	}
	if ws := wordsOf(nil, t); isTitle(t, ws) {
		return false // "Head of Operations, Keelson Marine Ltd"
	}
	if _, ok := headerName(t, true); ok {
		return false
	}
	fs := strings.Fields(t)
	if len(fs) < 3 {
		return false
	}
	letters := 0
	for _, f := range fs {
		f = strings.TrimFunc(f, func(r rune) bool { return unicode.IsPunct(r) })
		if f != "" && strings.IndexFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' && r != '\'' && r != '’' }) < 0 {
			letters++
		}
	}
	return letters*3 >= len(fs)*2
}

// recordRow reports a row of a table pasted as text: an address among
// fields parted by semicolons or commas ("Van Dijk, Sanne;sanne@…;afmelden").
func recordRow(t string) bool {
	return strings.Contains(t, "@") && (strings.Count(t, ";") >= 2 || strings.Count(t, ",") >= 3)
}

// signedBy reports a line that ends with an address in brackets, a
// comment's or a mail's header ("Sylvie Renard <sylvie@…>", "Mark
// (Support) (mark@…)"), not a sentence going on.
func signedBy(t string) bool {
	if !strings.HasSuffix(t, ">") && !strings.HasSuffix(t, ")") {
		return false
	}
	i := strings.LastIndexAny(t, "<(")
	return i >= 0 && strings.Contains(t[i:], "@")
}

// startsItem reports a line that begins a list's item or a rule: a
// bullet, a dash, a number and a dot or bracket.
func startsItem(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	switch {
	case strings.ContainsRune("-*•·–—_=+#>", r):
		return true
	case unicode.IsDigit(r):
		rest := strings.TrimLeftFunc(t[size:], unicode.IsDigit)
		return strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, ")")
	}
	return false
}

// hasYear reports four digits in a row, a year's.
func hasYear(t string) bool {
	run := 0
	for _, r := range t {
		if r >= '0' && r <= '9' {
			run++
			if run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}
