package batch

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How the rule reads the words of a ticket line: the line is cut into
// lower-case words, and the phrases of phrases.go are looked up by their
// first word, the longest one at a place winning.

// phraseClass is what a phrase says.
type phraseClass uint8

const (
	pSuppress  phraseClass = iota + 1 // suppressMe
	pRelease                          // releaseMe
	pAsk                              // askAboutMe
	pUs                               // aboutUs
	pColleague                        // colleagueWords
	pRequest                          // requestWords
	pContact                          // contactWords
	pNotMe                            // notAboutMe
	pClosing                          // closingWords
	pOpener                           // signatureOpeners
	pForward                          // forwardMarkers
)

// aboutSelf reports whether the class is a requester asking about
// themselves.
func (c phraseClass) aboutSelf() bool {
	return c == pSuppress || c == pRelease || c == pAsk || c == pUs
}

// word is one word of a line as written, where it starts in the line, and
// whether it ends a sentence (a full stop, "!" or "?" after it). Words are
// compared without regard to ASCII case, "’" read as "'" (the phrases are
// English).
type word struct {
	s    string
	off  int
	ends bool
}

// wordsOf cuts a line into words, appended to ws[:0]: letters and
// digits, with the apostrophes, hyphens and dots inside them ("don't",
// "co-worker", "B.V."); an address is one word.
func wordsOf(ws []word, s string) []word {
	ws = ws[:0]
	start := -1
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(s[start:end], "'’-.")
		if w != "" {
			ws = append(ws, word{s: w, off: start + strings.Index(s[start:end], w)})
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		var inWord bool
		if r < utf8.RuneSelf {
			inWord = wordByte[r]
		} else {
			r, size = utf8.DecodeRuneInString(s[i:])
			inWord = unicode.IsLetter(r) || unicode.IsDigit(r) || r == '’'
		}
		if r == '.' && start >= 0 && (i+size >= len(s) || s[i+size] == ' ' || s[i+size] == '\t') {
			// A full stop ends the word (and the sentence).
			inWord = false
		}
		switch {
		case inWord && start < 0:
			start = i
		case !inWord:
			flush(i)
			if (r == '.' || r == '!' || r == '?') && len(ws) > 0 {
				ws[len(ws)-1].ends = true
			}
		}
		i += size
	}
	flush(len(s))
	return ws
}

// wordByte marks the ASCII characters of a word.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("'-.@_+&", byte(c)) >= 0
	}
	return t
}()

// is reports whether word w is the phrase word p (lower case, "'").
func is(w, p string) bool {
	switch {
	case len(w) == len(p):
		return strings.EqualFold(w, p)
	case len(w) < len(p):
		return false
	}
	return strings.Contains(w, "’") && strings.EqualFold(strings.ReplaceAll(w, "’", "'"), p)
}

// key is the form of w the phrase books are keyed by, in buf when it must
// change (the books are looked up with no copy of it kept).
func key(buf []byte, w string) []byte {
	buf = buf[:0]
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		case c == 0xE2 && strings.HasPrefix(w[i:], "’"):
			buf = append(buf, '\'')
			i += len("’") - 1
			continue
		}
		buf = append(buf, c)
	}
	return buf
}

// phraseBook holds phrases as a tree of their words: a line's words are
// looked up one map access a word, however many phrases share a start.
type phraseBook struct {
	next  map[string]*phraseBook
	class phraseClass // the class of the phrase that ends here; 0 for none
}

func (b *phraseBook) add(class phraseClass, list []string) {
	for _, p := range list {
		for _, ws := range expand(p) {
			n := b
			for _, w := range ws {
				if n.next == nil {
					n.next = map[string]*phraseBook{}
				}
				c := n.next[w]
				if c == nil {
					c = &phraseBook{}
					n.next[w] = c
				}
				n = c
			}
			if n.class == 0 {
				// A phrase in two lists keeps the first's class.
				n.class = class
			}
		}
	}
}

// expand spells out the "{a|b}" choices of a phrase, as words.
func expand(p string) [][]string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return [][]string{strings.Fields(p)}
	}
	end := open + strings.IndexByte(p[open:], '}')
	var out [][]string
	for alt := range strings.SplitSeq(p[open+1:end], "|") {
		out = append(out, expand(p[:open]+alt+p[end+1:])...)
	}
	return out
}

// phrases is the book of every list of phrases.go.
var phrases = func() *phraseBook {
	b := &phraseBook{}
	b.add(pSuppress, suppressMe)
	b.add(pRelease, releaseMe)
	b.add(pAsk, askAboutMe)
	b.add(pUs, aboutUs)
	b.add(pColleague, colleagueWords)
	b.add(pRequest, requestWords)
	b.add(pContact, contactWords)
	b.add(pNotMe, notAboutMe)
	return b
}()

// lineStarts is the book of what a line may start with: closing words,
// the openers of a signature, the markers of a forwarded mail.
var lineStarts = func() *phraseBook {
	b := &phraseBook{}
	b.add(pClosing, closingWords)
	b.add(pOpener, signatureOpeners)
	b.add(pForward, forwardMarkers)
	return b
}()

// at returns the longest phrase of the book at word i of ws, and how
// many words it is (0 for none).
func (b *phraseBook) at(ws []word, i int) (class phraseClass, n int) {
	var buf [64]byte
	node := b
	for k := i; k < len(ws) && node.next != nil; k++ {
		node = node.next[string(key(buf[:], ws[k].s))]
		if node == nil {
			break
		}
		if node.class != 0 {
			class, n = node.class, k-i+1
		}
	}
	return class, n
}

// match is a phrase found in a line: its class and its first and last
// word.
type match struct {
	class      phraseClass
	first, end int // words[first:end]
}

// find returns the phrases in a line's words, appended to out[:0], left to right, the longest
// at each place; a phrase about oneself right after a negation is not one.
func (b *phraseBook) find(out []match, ws []word) []match {
	out = out[:0]
	for i := 0; i < len(ws); {
		class, best := b.at(ws, i)
		if best == 0 {
			i++
			continue
		}
		if !(class.aboutSelf() && negated(ws, i)) {
			out = append(out, match{class: class, first: i, end: i + best})
		}
		i += best
	}
	return out
}

// negated reports whether one of the two words before i is a negation.
func negated(ws []word, i int) bool {
	for k := max(i-2, 0); k < i; k++ {
		if inList(negations, ws[k].s) {
			return true
		}
	}
	return false
}

// inList reports whether word s is one of list's (lower-case) words.
func inList(list []string, s string) bool {
	for _, x := range list {
		if is(s, x) {
			return true
		}
	}
	return false
}

// bareRequest reports a line that is a request and nothing else
// ("Unsubscribe", "Please stop!") and which way it asks.
func bareRequest(ws []word) (phraseClass, bool) {
	var class phraseClass
	for i, w := range ws {
		switch {
		case inList(bareSuppress, w.s), is(w.s, "opt") && i+1 < len(ws) && is(ws[i+1].s, "out"):
			class = pSuppress
		case inList(bareRelease, w.s):
			if class == 0 {
				class = pRelease
			}
		case inList(bareAsk, w.s):
			if class == 0 {
				class = pAsk
			}
		case inList(bareFillers, w.s):
		default:
			return 0, false
		}
	}
	return class, class != 0
}
