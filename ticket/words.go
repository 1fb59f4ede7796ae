package ticket

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// How the rule reads the words of a ticket line: the line is cut into
// words, and the phrases of the phrase books (lang/*.txt) are looked up by
// their first word, the longest one at a place winning. Words are compared
// folded: lower case, "’" as "'", and the accents of Latin letters off
// ("désinscrire" and "desinscrire" are one word).

// word is one word of a line as written, where it starts in the line, and
// whether it ends a sentence (a full stop, "!" or "?" after it) or a
// clause (a comma, ";", a bracket).
type word struct {
	s    string
	off  int
	ends bool
	// clause: a comma, ";", ":" or a bracket right after the word.
	clause bool
	// opens: a bracket right before the word.
	opens bool
}

// wordsOf cuts a line into words, appended to ws[:0]: letters and
// digits, with the apostrophes, hyphens and dots inside them ("don't",
// "co-worker", "B.V."); an address is one word.
func wordsOf(ws []word, s string) []word {
	ws = ws[:0]
	start := -1
	opened := false
	flush := func(end int) {
		if start < 0 {
			return
		}
		w := strings.Trim(s[start:end], "'’-.")
		if w != "" {
			ws = append(ws, word{s: w, off: start + strings.Index(s[start:end], w), opens: opened})
			opened = false
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size, inWord := wordRune(s, i, start >= 0)
		switch {
		case inWord && start < 0:
			start = i
		case !inWord:
			flush(i)
			markEnd(ws, r, &opened)
		}
		i += size
	}
	flush(len(s))
	if strings.IndexByte(s, ';') >= 0 && greek(ws) {
		greekQuestions(ws, s)
	}
	return ws
}

// greekQuestions ends a sentence at each ";" of a line with Greek
// words: it is Greek's question mark.
func greekQuestions(ws []word, s string) {
	for i := range ws {
		rest := s[ws[i].off+len(ws[i].s):]
		if j := strings.IndexFunc(rest, func(r rune) bool { return r != ' ' && r != ')' && r != '"' }); j >= 0 && rest[j] == ';' {
			ws[i].ends = true
		}
	}
}

// wordRune reads the character at i of s and says whether it belongs to a
// word (inside one when in): a full stop before a space or the end ends
// the word, or the sentence after a closing quote ("… \"left\". The …").
func wordRune(s string, i int, in bool) (r rune, size int, inWord bool) {
	r, size = rune(s[i]), 1
	if r < utf8.RuneSelf {
		inWord = wordByte[r]
	} else {
		r, size = utf8.DecodeRuneInString(s[i:])
		inWord = unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '’'
	}
	if r == '.' && (i+size >= len(s) || s[i+size] == ' ' || s[i+size] == '\t') {
		inWord = false
	}
	return r, size, inWord
}

// markEnd notes what a character that is not a word's says of the word
// before it (the end of a sentence or a clause), or of the next one (a
// bracket opens a clause).
func markEnd(ws []word, r rune, opened *bool) {
	switch r {
	case '(', '[', '{':
		*opened = true
		if len(ws) > 0 {
			ws[len(ws)-1].clause = true
		}
	case '.', '!', '?', '¿', '¡', '\u037e':
		if len(ws) > 0 {
			ws[len(ws)-1].ends = true
		}
	case ',', ';', ':', ')', ']', '}', '—', '–':
		if len(ws) > 0 {
			ws[len(ws)-1].clause = true
		}
	}
}

// wordByte marks the ASCII characters of a word.
var wordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("'-.@_+&", byte(c)) >= 0
	}
	return t
}()

// fold is the form words are compared in, appended to buf[:0]: ASCII
// lower case, "’" as "'", a Latin letter without its accent, "ß" as "ss".
func fold(buf []byte, w string) []byte {
	buf = buf[:0]
	for i := 0; i < len(w); {
		c := w[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			buf = append(buf, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(w[i:])
		i += size
		buf = appendFolded(buf, r)
	}
	return buf
}

// appendFolded appends r folded: its base letter when it is a Latin
// letter with an accent, else its lower case.
func appendFolded(buf []byte, r rune) []byte {
	switch {
	case r == '’' || r == '‘':
		return append(buf, '\'')
	case unicode.Is(unicode.Mn, r):
		return buf // a combining accent
	case r == 'ß':
		return append(buf, 's', 's')
	}
	r = unicode.ToLower(r)
	if b, ok := latinBase[r]; ok {
		return append(buf, b...)
	}
	return utf8.AppendRune(buf, r)
}

// latinBase maps the accented Latin letters of the phrase books'
// languages to their base letters (and Greek letters to theirs).
var latinBase = func() map[rune]string {
	m := map[rune]string{'æ': "ae", 'œ': "oe", 'ø': "o", 'ð': "d", 'þ': "th", 'ł': "l", 'ς': "σ"}
	for base, letters := range map[string]string{
		"a": "àáâãäåāăą", "c": "çćĉċč", "e": "èéêëēĕėęě", "i": "ìíîïĩīĭįı", "n": "ñńņňŉ",
		"o": "òóôõöōŏő", "u": "ùúûüũūŭůűų", "y": "ýÿŷ", "s": "śŝşšș", "t": "ţťț", "d": "ď", "l": "ĺľ", "z": "źżž", "g": "ĝğġģ", "r": "ŕŗř",
		// Greek: tonos and dialytika; final sigma is sigma.
		"α": "ά", "ε": "έ", "η": "ή", "ι": "ίϊΐ", "ο": "ό", "υ": "ύϋΰ", "ω": "ώ",
	} {
		for _, r := range letters {
			m[r] = base
		}
	}
	return m
}()

// folded is fold as a string.
func folded(w string) string { return string(fold(nil, w)) }

// phraseBook holds phrases as a tree of their words: a line's words are
// looked up one map access a word, however many phrases share a start. A
// gap ("…" in a phrase) lets up to maxGap words of any kind stand between
// the words around it ("tragen Sie mich … aus").
type phraseBook struct {
	next map[string]*phraseBook
	// accented holds the words a phrase writes with their accents
	// ("chcę"), by their folded form: a writer who types accents means
	// them ("nie chce", she does not want, is not "nie chcę", I do not
	// want), so such a word matches its own spelling, or its folded one
	// on a line without accents.
	accented map[string][]spelled
	gap      *phraseBook
	class    class // the class of the phrase that ends here; 0 for none
}

// maxGap is how many words a gap in a phrase stands for at most.
const maxGap = 4

// gapWord is how a phrase writes a gap.
const gapWord = "…"

// add puts the phrase, its "{a|b}" choices spelled out, in the book;
// sp keeps how each word is spelled, worked out once for all the
// phrases that use it.
func (b *phraseBook) add(c class, phrase string, sp spellings) {
	b.addFrom(c, "", phrase, sp)
}

// addFrom adds the rest of a phrase from b: the word begun before it
// (pending, glued to a choice: "m'{écrire|envoyer}"), then its text,
// each "{a|b}" choice followed in turn; as expand spells them out, in
// the same order, without writing each spelling out whole.
func (b *phraseBook) addFrom(c class, pending, rest string, sp spellings) {
	open := strings.IndexByte(rest, '{')
	end := open + strings.IndexByte(rest[max(open, 0):], '}')
	if open < 0 || end < open {
		n, last := b.words(pending+rest, sp)
		if last != "" {
			n = n.child(sp.of(last))
		}
		if n.class == 0 {
			// A phrase in two lists keeps the first's class.
			n.class = c
		}
		return
	}
	n, last := b.words(pending+rest[:open], sp)
	for alt := range strings.SplitSeq(rest[open+1:end], "|") {
		m, glued := n.words(last+alt, sp)
		m.addFrom(c, glued, rest[end+1:], sp)
	}
}

// words follows the words of text from b, but the last when nothing
// ends it (it may go on in what follows): it returns the node reached
// and that last word.
func (b *phraseBook) words(text string, sp spellings) (n *phraseBook, last string) {
	n = b
	for text != "" {
		i := strings.IndexFunc(text, unicode.IsSpace)
		if i < 0 {
			return n, text
		}
		if i > 0 {
			n = n.child(sp.of(text[:i]))
		}
		_, size := utf8.DecodeRuneInString(text[i:])
		text = text[i+size:]
	}
	return n, ""
}

// spelling is how a phrase's word is looked up: its folded form, and,
// when it is written with accents, its lower case (accented).
type spelling struct {
	gap              bool
	folded, accented string
}

// spellings keeps the spelling of each word the books use.
type spellings map[string]spelling

func (sp spellings) of(w string) spelling {
	if s, ok := sp[w]; ok {
		return s
	}
	s := spelling{gap: w == gapWord || w == "..."}
	if !s.gap {
		s.folded = folded(w)
		if lw := strings.ToLower(w); lw != s.folded && !strings.ContainsAny(lw, "’‘") && lw != strings.ReplaceAll(s.folded, "ss", "ß") {
			s.accented = lw
		}
	}
	sp[w] = s
	return s
}

func (b *phraseBook) child(w spelling) *phraseBook {
	switch {
	case w.gap:
		if b.gap == nil {
			b.gap = &phraseBook{}
		}
		return b.gap
	case w.accented != "":
		for _, sp := range b.accented[w.folded] {
			if sp.spelling == w.accented {
				return sp.node
			}
		}
		if b.accented == nil {
			b.accented = map[string][]spelled{}
		}
		c := &phraseBook{}
		b.accented[w.folded] = append(b.accented[w.folded], spelled{w.accented, c})
		return c
	}
	if b.next == nil {
		b.next = map[string]*phraseBook{}
	}
	c := b.next[w.folded]
	if c == nil {
		c = &phraseBook{}
		b.next[w.folded] = c
	}
	return c
}

// spelled is a phrase's word written with accents, in lower case, and
// the node it leads to.
type spelled struct {
	spelling string
	node     *phraseBook
}

// lineAccented reports a line whose words carry accents: its writer types
// them.
func lineAccented(ws []word) bool {
	for _, w := range ws {
		if !plainWord(w.s) {
			return true
		}
	}
	return false
}

// expand spells out the "{a|b}" choices of a phrase, as words.
func expand(p string) [][]string {
	open := strings.IndexByte(p, '{')
	if open < 0 {
		return [][]string{strings.Fields(p)}
	}
	end := open + strings.IndexByte(p[open:], '}')
	if end < open {
		return [][]string{strings.Fields(p)}
	}
	var out [][]string
	for alt := range strings.SplitSeq(p[open+1:end], "|") {
		out = append(out, expand(p[:open]+alt+p[end+1:])...)
	}
	return out
}

// at returns the longest phrase of the book at word i of ws, and how
// many words it takes (0 for none).
func (b *phraseBook) at(ws []word, i int) (c class, n int) {
	f := b.atGap(ws, i)
	return f.c, f.n
}

// atGap is at that also says whether the phrase has a gap, and where. Of
// a phrase with a gap and one without at i that asks the other way and
// runs into the gap, the one without wins: in "stop blocking my emails"
// the words "stop blocking" release, they are not "stop … emails".
func (b *phraseBook) atGap(ws []word, i int) found {
	var buf [64]byte
	f := b.walk(ws, i, i, buf[:0], lineAccented(ws), true)
	if !f.gapped {
		return f
	}
	e := b.walk(ws, i, i, buf[:0], lineAccented(ws), false)
	ask, eask := classWays[f.c].ask&changing, classWays[e.c].ask&changing
	if e.n > f.gapAt && e.n < f.n && (ask == aSuppress && eask == aRelease || ask == aRelease && eask == aSuppress) {
		return e
	}
	return f
}

// walk matches the words from k on against the tree under b, for a
// phrase that started at i. Of two phrases as long, the one without a gap
// wins: "add me back" is a request about the writer, "add … back" about
// anyone. Without gaps, a phrase's gap matches nothing.
func (b *phraseBook) walk(ws []word, i, k int, buf []byte, accents, gaps bool) found {
	var f found
	if b.class != 0 && k > i {
		f.c, f.n = b.class, k-i
	}
	if k < len(ws) && (b.next != nil || b.accented != nil) {
		buf = fold(buf, ws[k].s)
		var at [4]*phraseBook
		for _, next := range b.nextOf(at[:0], string(buf), ws[k].s, accents) {
			f.take(next.walk(ws, i, k+1, buf, accents, gaps))
		}
		if rest := elided(ws[k].s); rest != "" {
			for _, next := range b.nextOf(at[:0], folded(rest), rest, accents) {
				f.take(next.walk(ws, i, k+1, buf, accents, gaps))
			}
		}
	}
	if b.gap != nil && gaps {
		// The gap's words, then the rest; the longest wins.
		for skip := 0; skip <= maxGap && k+skip <= len(ws); skip++ {
			if g := b.gap.walk(ws, i, k+skip, buf, accents, gaps); g.n > f.n && g.c != 0 {
				f = found{c: g.c, n: g.n, gapped: true, gapAt: k - i}
			}
		}
	}
	return f
}

// elided is the word w without the article or particle elided onto it
// ("d'arrêter", "l’adresse", "qu'il", "dell'indirizzo"): a phrase's word
// ("arrêter") stands after it. "" when w has none.
func elided(w string) string {
	i := strings.IndexAny(w, "'’")
	if i < 1 || i > 4 {
		return ""
	}
	rest := w[i+1:]
	if w[i] != '\'' {
		rest = w[i+len("’"):]
	}
	if rest == "" || !elisions[strings.ToLower(w[:i])] {
		return ""
	}
	return rest
}

// elisions are the French and Italian words elided before a vowel.
var elisions = map[string]bool{
	"d": true, "l": true, "j": true, "m": true, "n": true, "s": true, "t": true, "c": true, "qu": true,
	"dell": true, "all": true, "dall": true, "nell": true, "sull": true, "un": true, "quest": true,
}

// found is the longest phrase a walk has found: its class, how many
// words it takes, and whether it has a gap and how many words stand
// before its first.
type found struct {
	c      class
	n      int
	gapped bool
	gapAt  int
}

// take keeps a phrase longer than the one found.
func (f *found) take(g found) {
	if g.n > f.n && g.c != 0 {
		*f = g
	}
}

// nextOf appends to out, in the order they are tried, the nodes under b
// that the word w (folded fw) leads to: its folded form's, and its
// accented spellings'. Written without accents on a line without any, a
// word may be any spelling of its folded form, an accented one first (the
// books write the writer's own forms with their accents: "chcę"). On a
// line with accents, a word written with them stands for its own
// spelling (or that spelling with some of its accents left off, "cıkarın"
// or upper case "ÇIKARIN" for "çıkarın"); one written without, for any
// spelling, unless the books know its folded form as a word of its own at
// that place ("nie chce", she does not want, beside "nie chcę", I do not
// want).
func (b *phraseBook) nextOf(out []*phraseBook, fw, w string, accents bool) []*phraseBook {
	next, spellings := b.next[fw], b.accented[fw]
	if accents && next != nil {
		out = append(out, next)
	}
	switch {
	case len(spellings) == 0:
	case accents && !plainWord(w):
		lw := strings.ToLower(w)
		for _, sp := range spellings {
			if sp.spelling == lw || fewerAccents(lw, sp.spelling) {
				out = append(out, sp.node)
			}
		}
	case !accents || next == nil:
		for _, sp := range spellings {
			out = append(out, sp.node)
		}
	}
	if !accents && next != nil {
		out = append(out, next)
	}
	return out
}

// fewerAccents reports a lower-case word w that is the accented spelling
// sp with some of its accents left off: a Turkish word typed partly
// without its letters ("cıkarın", "çikarin"), or in upper case, where
// "I" is dotless "ı" and "İ" lower-cases to "i" and a combining dot.
func fewerAccents(w, sp string) bool {
	var buf [8]byte
	for _, r := range w {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		s, size := utf8.DecodeRuneInString(sp)
		if size == 0 {
			return false
		}
		sp = sp[size:]
		if r != s && string(appendFolded(buf[:0], s)) != string(r) {
			return false
		}
	}
	return sp == ""
}

// plainWord reports a word written in ASCII alone.
func plainWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// match is a phrase found in a line: its class and its first and last
// word.
type match struct {
	class      class
	first, end int // words[first:end]
	negated    bool
	// runOn: the words of the line above it begins with, when it runs
	// on from there (Reader.runOn).
	runOn string
}

// find returns the phrases in a line's words, appended to out[:0], left
// to right, the longest at each place (the words in a phrase's gap are
// read as well, and those a narrative holds dropped); one right after a
// negation is marked so.
func (b *phraseBook) find(out []match, ws []word, neg *phraseBook) []match {
	out = out[:0]
	gapEnd := 0 // the end of the last phrase with a gap that asks a change
	reqEnd := 0 // the end of the last request or withdrawal ("vil I ikke nok": no negation in it)
	for i := 0; i < len(ws); {
		f := b.atGap(ws, i)
		c, best, gapped := f.c, f.n, f.gapped
		if best == 0 || i+best <= gapEnd && classWays[c].ask&changing != 0 {
			// "heben Sie die Sperre wieder auf": the noun in the gap of a
			// phrase that asks is that phrase's, not a request of its own;
			// so is the list in a question about it ("was x@… added to
			// your suppression list?").
			i++
			continue
		}
		if gapped && classWays[c].ask&(changing|aCheck) != 0 {
			gapEnd = i + best
		}
		if c == cNotAfter {
			if c = notAfter(ws, i, i+best); c == 0 {
				i++
				continue
			}
		}
		if c == cExceptAfter && b.openNegation(ws, i+best, neg) {
			// "info@… doch nicht aufgelassen": the "not" turns the verb
			// after it around, it leaves nothing out.
			i++
			continue
		}
		out = append(out, match{class: c, first: i, end: i + best, negated: negated(ws[reqEnd:], i-reqEnd, neg)})
		if c == cRequest || c == cWithdraw {
			// A withdrawal's own "no" ("enfin non en fait, gardez-moi
			// …") negates nothing after it either.
			reqEnd = i + best
		}
		if gapped || c == cNarrative {
			// What stands in the gap is read too: "remove my colleague
			// from the newsletter" names a colleague.
			i++
			continue
		}
		i += best
	}
	carryNegation(out, ws)
	return untold(out)
}

// notAfter is what a "not" after an address says (cNotAfter): it leaves
// out the address right before it when it ends its clause, else nothing.
func notAfter(ws []word, first, end int) class {
	last := ws[end-1]
	if first == 0 || !strings.Contains(ws[first-1].s, "@") || !(last.ends || last.clause || end == len(ws)) {
		return 0
	}
	return cExceptAfter
}

// openNegation reports a phrase ending at end in a negation ("doch
// nicht") that does not end its clause: a verb follows that it negates
// ("doch nicht aufgelassen"), not a change it says not to make ("bitte
// nicht sperren" leaves out what stands before it).
func (b *phraseBook) openNegation(ws []word, end int, neg *phraseBook) bool {
	last := ws[end-1]
	if end == len(ws) || last.ends || last.clause {
		return false
	}
	if _, n := neg.at(ws, end-1); n != 1 {
		return false
	}
	c, _ := b.at(ws, end)
	return classWays[c].ask&changing == 0
}

// carryNegation marks negated a phrase joined by "or" to a negated one
// right before it, or to a phrase that says not to ("don't block"):
// "don't block or unblock anything" asks neither.
func carryNegation(ms []match, ws []word) {
	for k := 1; k < len(ms); k++ {
		p, m := ms[k-1], ms[k]
		if (p.negated || p.class == cNotSuppress) && !m.negated && m.first == p.end+1 && !ws[p.end-1].clause && !ws[p.end-1].ends && orWords[string(fold(nil, ws[p.end].s))] {
			ms[k].negated = true
		}
	}
}

// orWords join two phrases a negation before the first turns both
// around, in the books' languages.
var orWords = map[string]bool{"or": true, "nor": true, "oder": true, "noch": true, "ou": true, "ni": true, "o": true, "ne": true, "of": true, "nem": true}

// untold drops the phrases a narrative holds ("I clicked unsubscribe"
// tells what the writer did, it does not ask it), but not one that goes
// on past it ("we unsubscribed by accident").
func untold(ms []match) []match {
	keep := ms[:0]
	for i, m := range ms {
		if m.class == cNarrative || !insideNarrative(ms[:i], m) {
			keep = append(keep, m)
		}
	}
	return keep
}

// insideNarrative reports a narrative among before that holds m whole.
func insideNarrative(before []match, m match) bool {
	for _, n := range before {
		if n.class == cNarrative && n.first <= m.first && m.end <= n.end {
			return true
		}
	}
	return false
}

// negated reports whether one of the three words before i is a negation,
// in the same clause.
func negated(ws []word, i int, neg *phraseBook) bool {
	for k := i - 1; k >= max(i-3, 0); k-- {
		if ws[k].clause || ws[k].ends {
			return false
		}
		if c, n := neg.at(ws, k); c == cNegation && k+n <= i && !(k+n < i && negationIdioms[folded(ws[k+n].s)]) {
			return true
		}
	}
	return false
}

// negationIdioms are the nouns after which a negation negates nothing
// that follows ("no idea how she's still getting them", "keine Ahnung,
// warum", "no wonder").
var negationIdioms = wordSet("idea clue doubt wonder matter ahnung zweifel wunder idee twijfel duda dubbio idé aning tvivel anelse")

// is reports whether word w is the phrase word p (folded).
func is(w, p string) bool {
	var buf [64]byte
	return string(fold(buf[:0], w)) == p
}
