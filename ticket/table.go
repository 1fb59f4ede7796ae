package ticket

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A ticket may paste a table (a spreadsheet's rows, a CSV or TSV export)
// under a header row, and ask in its words for only some of its rows by
// a column's value: "suppress the people with opted_out = Y", "solo las
// filas con estado baja". The rule cannot follow such a condition, so a
// line of words that names a column of a pasted table and one of the
// values that column holds in some rows but not in all picks its targets
// by hand: the review asks. A column whose every value differs (a name,
// a phone number) picks nobody out and is not one.

// tables follows the tables of a ticket as its lines are read.
type tables struct {
	head     []string // the cells of the last line, when it may head a table
	delim    byte     // their separator
	headLine int      // its line
	cur      *table   // the table whose rows are being read
	all      []*table
	prose    []proseLine
}

// table is a pasted table: its header's cells, the column of its
// addresses, how many rows it has, and the values of its other columns.
type table struct {
	delim  byte
	head   []string // folded, each a run of words
	addr   int
	rows   int
	values []map[string]int // per column: each value's count of rows
}

// proseLine is a line of words outside any table, kept (up to
// maxProseLines) to be matched against the tables at the end.
type proseLine struct {
	n, msg int
	text   string // folded, a run of words
	raw    string
}

const (
	maxProseLines  = 400
	maxProseText   = 400
	maxTableCells  = 30
	maxCellText    = 40
	maxColumnWords = 64 // distinct values kept per column
)

// line reads line l: a table's header, a row, or a line of words.
func (ts *tables) line(l *line) {
	if ts.cur != nil && ts.cur.row(l) {
		return
	}
	ts.cur = nil
	if ts.head != nil {
		if t := ts.start(l); t != nil {
			ts.cur, ts.head = t, nil
			ts.all = append(ts.all, t)
			// The header is the table's, not a line of words.
			if k := len(ts.prose) - 1; k >= 0 && ts.prose[k].n == ts.headLine {
				ts.prose = ts.prose[:k]
			}
			return
		}
	}
	ts.head = nil
	if len(l.toks) == 0 {
		if cells, d := splitCells(l.t); len(cells) >= 2 && headerCells(cells) {
			ts.head, ts.delim, ts.headLine = cells, d, l.n
		}
	}
	if len(ts.prose) < maxProseLines && len(l.ws) > 0 {
		raw := l.t
		if len(raw) > maxProseText {
			raw = raw[:maxProseText]
		}
		ts.prose = append(ts.prose, proseLine{n: l.n, msg: l.msg, text: wordRun(raw), raw: raw})
	}
}

// start begins a table at its first row, under the header held.
func (ts *tables) start(l *line) *table {
	cells := cellsBy(l.t, ts.delim)
	addr := addressCell(cells, l.toks)
	if len(cells) != len(ts.head) || addr < 0 {
		return nil
	}
	t := &table{delim: ts.delim, addr: addr, values: make([]map[string]int, len(cells))}
	for i, h := range ts.head {
		t.head = append(t.head, wordRun(h))
		t.values[i] = map[string]int{}
	}
	t.add(cells)
	return t
}

// row reads line l as a row of t, if it is one.
func (t *table) row(l *line) bool {
	cells := cellsBy(l.t, t.delim)
	if len(cells) != len(t.head) || addressCell(cells, l.toks) != t.addr {
		return false
	}
	t.add(cells)
	return true
}

func (t *table) add(cells []string) {
	t.rows++
	for i, c := range cells {
		if i == t.addr {
			continue
		}
		v := wordRun(c)
		if v == "" {
			continue
		}
		if _, ok := t.values[i][v]; ok || len(t.values[i]) < maxColumnWords {
			t.values[i][v]++
		}
	}
}

// picks reports whether text names a column of t and a value that
// column holds in some of its rows, not all, while some other value of
// it repeats: a condition on the rows.
func (t *table) picks(text string) bool {
	if t.rows < 2 {
		return false
	}
	padded := " " + text + " "
	for i, h := range t.head {
		if i == t.addr || h == "" || len(t.values[i]) < 2 || len(t.values[i]) == t.rows || !strings.Contains(padded, " "+h+" ") {
			continue
		}
		for v, n := range t.values[i] {
			if n < t.rows && strings.Contains(padded, " "+v+" ") && v != h {
				return true
			}
		}
	}
	return false
}

// quotes reports words that quote a value a column of t holds in some of
// its rows, not all ("anyone marked \"left\"", "los que salen como
// «error de importación»"): a condition on the rows, its column unnamed.
func (t *table) quotes(raw string) bool {
	if t.rows < 2 {
		return false
	}
	for _, q := range quoted.FindAllStringSubmatch(raw, 8) {
		if c, _ := firstPhrase(phraseBooks().trees[inWords], wordsOf(nil, q[1])); c != cNone {
			// "Rows marked \"remove\"": a cell that says what to do
			// with its row, which the rule follows.
			continue
		}
		v := wordRun(q[1])
		for i, vals := range t.values {
			if n, ok := vals[v]; ok && i != t.addr && v != "" && len(vals) >= 2 && n < t.rows {
				return true
			}
		}
	}
	return false
}

// namesValue reports words that name, unquoted and with no column, a
// value that two rows of t or more hold and two or more do not, in a
// column of a few values that repeat ("kan dere sperre adressene til de
// som har sluttet?" over a Status column of "Sluttet" and "Aktiv"): a
// condition on the rows. A value that says what to do with its row is
// the rule's to follow; one of a letter or three ("ja", "x") is too
// common a word to tell.
func (t *table) namesValue(text string) bool {
	if t.rows < 4 {
		return false
	}
	padded := " " + text + " "
	for i, vals := range t.values {
		if i == t.addr || len(vals) < 2 || len(vals) >= t.rows {
			continue
		}
		for v, n := range vals {
			if n >= 2 && t.rows-n >= 2 && len([]rune(v)) >= 4 && strings.Contains(padded, " "+v+" ") && cellMark(v) == rowNone {
				return true
			}
		}
	}
	return false
}

// quoted is a few words in quotation marks.
var quoted = regexp.MustCompile(`["“«„]\s*([^"“”«»„]{1,40}?)\s*["”»“]`)

// end marks the lines of words that pick rows of a pasted table by a
// column's value.
func (ts *tables) end(r *Reader) {
	if len(ts.all) == 0 {
		return
	}
	for _, p := range ts.prose {
		k, ok := r.saidAt(p.n, p.msg)
		asks := ok && r.tk.said[k].asks&changing != 0
		if slices.ContainsFunc(ts.all, func(t *table) bool { return t.picks(p.text) || t.quotes(p.raw) || asks && t.namesValue(p.text) }) {
			r.tk.keep(p.n, p.raw)
			r.markPicked(p.n, p.msg)
		}
	}
}

// markPicked is pickedByHand for a line read before the last: the
// ticket's said lines stay in the order of the text.
func (r *Reader) markPicked(n, msg int) {
	k, ok := r.saidAt(n, msg)
	if ok {
		r.tk.said[k].selective = true
		return
	}
	r.tk.said = slices.Insert(r.tk.said, k, said{msg: msg, line: n, selective: true})
}

// saidAt finds what line n of mail msg says among the said lines, kept in
// the order of the text: its index, or where it would stand.
func (r *Reader) saidAt(n, msg int) (int, bool) {
	i, found := slices.BinarySearchFunc(r.tk.said, n, func(s said, n int) int { return s.line - n })
	for k := i; found && k < len(r.tk.said) && r.tk.said[k].line == n; k++ {
		if r.tk.said[k].msg == msg {
			return k, true
		}
	}
	return i, false
}

// splitCells splits a line into the cells of a table row by the first
// separator that makes two or more: a tab, ';', '|' or ','.
func splitCells(t string) ([]string, byte) {
	for _, d := range []byte{'\t', ';', '|', ','} {
		if cells := cellsBy(t, d); len(cells) >= 2 {
			return cells, d
		}
	}
	return nil, 0
}

// cellsBy is the cells of a row separated by d (a '|' row's outer bars
// off), or nil when it has fewer than two or more than maxTableCells.
func cellsBy(t string, d byte) []string {
	if d == '|' {
		t = strings.Trim(strings.TrimSpace(t), "|")
	}
	if strings.Count(t, string(d)) == 0 || strings.Count(t, string(d)) >= maxTableCells {
		return nil
	}
	cells := strings.Split(t, string(d))
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.Trim(strings.TrimSpace(c), `"`))
	}
	return cells
}

// headerCells reports cells that may head a table: short names, no
// address, each with a letter.
func headerCells(cells []string) bool {
	for _, c := range cells {
		if c == "" || len(c) > maxCellText || strings.Contains(c, "@") || !strings.ContainsFunc(c, unicode.IsLetter) {
			return false
		}
	}
	return true
}

// addressCell is the index of the one cell that holds the line's one
// address, -1 when there is not exactly one.
func addressCell(cells []string, toks []token) int {
	if len(toks) != 1 || toks[0].Kind != Address {
		return -1
	}
	at := -1
	for i, c := range cells {
		if strings.Contains(c, toks[0].Raw) {
			if at >= 0 {
				return -1
			}
			at = i
		}
	}
	return at
}

// wordRun is s folded, its words joined by one space: "Opted_Out = Y"
// is "opted out y".
func wordRun(s string) string {
	f := folded(s)
	var b strings.Builder
	b.Grow(len(f))
	space := false
	for _, c := range f {
		if unicode.IsLetter(c) || unicode.IsDigit(c) {
			if space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteRune(c)
			space = false
			continue
		}
		space = true
	}
	return b.String()
}
