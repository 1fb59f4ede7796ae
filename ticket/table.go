package ticket

import (
	"encoding/csv"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/shushlist/shush/api"
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
	msg    int              // the mail it is pasted in
	list   []pastedRow      // its rows (up to maxRecords)
}

// pastedRow is a row of a table: its line, its address, its suppression
// ID when a cell holds one, and its cells as runs of words.
type pastedRow struct {
	n        int
	addr, id string
	others   []string // the addresses its other cells name
	cells    []string
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
	maxProseText   = 1200 // bytes: a long paragraph of accented words
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
			raw = strings.ToValidUTF8(raw[:maxProseText], "")
		}
		ts.prose = append(ts.prose, proseLine{n: l.n, msg: l.msg, text: wordRun(raw), raw: raw})
	}
}

// start begins a table at its first row, under the header held.
func (ts *tables) start(l *line) *table {
	cells, ok := padCells(cellsBy(l.t, ts.delim), len(ts.head))
	addr := addressCell(cells, l.toks)
	if !ok || addr < 0 {
		return nil
	}
	t := &table{delim: ts.delim, addr: addr, values: make([]map[string]int, len(cells)), msg: l.msg}
	for i, h := range ts.head {
		t.head = append(t.head, wordRun(h))
		t.values[i] = map[string]int{}
	}
	t.add(cells, l)
	return t
}

// row reads line l as a row of t, if it is one.
func (t *table) row(l *line) bool {
	cells, ok := padCells(cellsBy(l.t, t.delim), len(t.head))
	if !ok || !oneAddressIn(cells[t.addr], l.toks) {
		return false
	}
	t.add(cells, l)
	return true
}

func (t *table) add(cells []string, l *line) {
	t.rows++
	row := pastedRow{cells: make([]string, len(cells)), n: l.n}
	for _, f := range l.toks {
		switch {
		case f.Kind == Address && strings.Contains(cells[t.addr], f.Raw):
			row.addr = f.Value
		case f.Kind == Address:
			// "new address: bruce@…" in a note: the row's too.
			row.others = append(row.others, f.Value)
		case f.Kind == ID:
			row.id, _ = api.NormalizeID(f.Raw)
		}
	}
	for i, c := range cells {
		if i == t.addr {
			continue
		}
		v := wordRun(cellValue(c))
		row.cells[i] = v
		if v == "" {
			continue
		}
		if _, ok := t.values[i][v]; ok || len(t.values[i]) < maxColumnWords {
			t.values[i][v]++
		}
	}
	if len(t.list) < maxRecords {
		t.list = append(t.list, row)
	}
}

// picks reports whether text names a column of t and a value that
// column holds in some of its rows, not all: a condition on the rows.
func (t *table) picks(text string) bool {
	n := valuesNamed{col: -1}
	if t.rows >= 2 {
		t.columnValues(" "+text+" ", &n)
	}
	return len(n.vals) > 0
}

// quotes reports words that quote a value a column of t holds in some of
// its rows, not all ("anyone marked \"left\"", "los que salen como
// «error de importación»"): a condition on the rows, its column unnamed.
// A quoted cell that says what to do with its row ("rows marked
// \"remove\"") is the rule's to follow.
func (t *table) quotes(raw string) bool {
	n := valuesNamed{col: -1}
	if t.rows >= 2 {
		t.quotedValues(raw, &n)
	}
	return len(n.vals) > 0
}

// namesValue reports words that name, unquoted and with no column, a
// value that two rows of t or more hold and two or more do not, in a
// column of a few values that repeat ("kan dere sperre adressene til de
// som har sluttet?" over a Status column of "Sluttet" and "Aktiv"): a
// condition on the rows. A value that says what to do with its row is
// the rule's to follow; one of a letter or three ("ja", "x") is too
// common a word to tell.
func (t *table) namesValue(text string) bool {
	n := valuesNamed{col: -1}
	if t.rows >= 4 {
		t.repeatedValues(" "+text+" ", &n)
	}
	return len(n.vals) > 0
}

// quoted is a few words in quotation marks.
var quoted = regexp.MustCompile(`["“«„]\s*([^"“”«»„]{1,40}?)\s*["”»“]`)

// end follows the lines of words that pick rows of a pasted table by a
// column's value: where each sentence that names a value plainly asks
// the change for its rows ("anyone marked \"left\" please suppress") or
// keeps them ("the \"active\" ones … keep them as they are"), and all
// of them name values of one column, the rows the words do not pick are
// left out with the line that says so; else the review asks.
func (ts *tables) end(r *Reader) {
	for _, t := range ts.all {
		picked, c := ts.picking(r, t)
		if len(picked) == 0 {
			ts.keptByName(r, t)
			continue
		}
		if left := t.unpicked(c); left != nil {
			r.leaveUnpicked(left, c.line, picked)
			continue
		}
		for _, p := range picked {
			r.tk.keep(p.n, p.raw)
			r.markPicked(p.n, p.msg)
		}
	}
}

// keptByName leaves out the rows of t that a sentence of its mail keeps,
// asking nothing, by a cell of a column whose every row differs, a name
// ("la famille Moreau reste chez nous …, donc ne touchez pas à leur
// adresse" over a row "MOREAU  Hugo  4eA  c.moreau@…"), with its line.
func (ts *tables) keptByName(r *Reader, t *table) {
	for _, p := range ts.prose {
		if p.msg != t.msg {
			continue
		}
		ws := wordsOf(nil, p.raw)
		for from := 0; from < len(ws); {
			to := sentenceEnd(ws, from)
			lo, hi := sentenceText(p.raw, ws, from, to)
			if left := t.namedRows(ws[from:to], " "+wordRun(p.raw[lo:hi])+" "); len(left) > 0 && len(left) < len(t.list) {
				r.leaveUnpicked(left, p, []proseLine{p})
			}
			from = to
		}
	}
}

// namedRows is the rows of t a sentence of words ws (padded, its run of
// words) keeps by a name, when it keeps and asks nothing.
func (t *table) namedRows(ws []word, padded string) []pastedRow {
	if len(t.list) != t.rows {
		return nil
	}
	if asks, keeps := polarity(ws); (asks || !keeps) && !opensExcept(ws) {
		return nil
	}
	var rows []pastedRow
	for _, row := range t.list {
		for i, v := range row.cells {
			if i != t.addr && len(t.values[i]) == t.rows && len([]rune(v)) >= 4 && strings.Contains(padded, " "+v+" ") {
				rows = append(rows, row)
				break
			}
		}
	}
	return rows
}

// opensExcept reports a sentence that opens with an exception ("Behalve
// de laatste (inkoop), die moet gewoon blijven ontvangen"): what it
// names is kept, whatever else it says of it.
func opensExcept(ws []word) bool {
	ms := phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])
	return len(ms) > 0 && ms[0].first == 0 && ms[0].class == cExclude && !ms[0].negated
}

// sentenceEnd is where the sentence of words that begins at ws[from]
// ends (the index after its last word).
func sentenceEnd(ws []word, from int) int {
	to := from
	for to < len(ws) && !ws[to].ends {
		to++
	}
	return min(to+1, len(ws))
}

// picking is the lines of words that pick rows of t, and what the ones
// in t's mail say of its rows.
func (ts *tables) picking(r *Reader, t *table) ([]proseLine, conditions) {
	var picked []proseLine
	var c conditions
	for _, p := range ts.prose {
		k, ok := r.saidAt(p.n, p.msg)
		asks := ok && r.tk.said[k].asks&changing != 0
		if !t.picks(p.text) && !t.quotes(p.raw) && !(asks && t.namesValue(p.text)) {
			continue
		}
		picked = append(picked, p)
		if p.msg == t.msg {
			c.read(t, p)
		}
	}
	return picked, c
}

// leaveUnpicked leaves out the rows left, by line: the lines that pick
// no longer ask the review to choose.
func (r *Reader) leaveUnpicked(left []pastedRow, line proseLine, picked []proseLine) {
	r.tk.keep(line.n, line.raw)
	for _, row := range left {
		if k, ok := r.saidAt(row.n, line.msg); ok {
			// "contact@…	NU	dezabonare proprie": a note of a row the
			// ticket does not ask for asks nothing.
			s := &r.tk.said[k]
			s.asks, s.weak, s.self = 0, 0, sNone
		}
		for _, v := range append([]string{row.addr}, row.others...) {
			if len(r.tk.unpicked) < maxRecords && v != "" {
				r.tk.unpicked[v] = line.n
			}
		}
		if row.id != "" && len(r.tk.keptIDs) < maxRecords {
			r.tk.keptIDs[row.id] = line.n
		}
	}
	for _, p := range picked {
		if k, ok := r.saidAt(p.n, p.msg); ok {
			r.tk.said[k].selective = false
		}
	}
}

// conditions are what the sentences of a table's mail say of its rows:
// the values whose rows they ask the change for (pos) and those whose
// rows they keep (neg), all in column col; mixed when a sentence cannot
// be read so (a value beside both a request and a keep, values of two
// columns, a value named by a sentence that does neither and nothing
// else picks). line is the first line that picks.
type conditions struct {
	col      int
	pos, neg []string
	neutral  bool
	mixed    bool
	line     proseLine
	has      bool
}

// read reads the sentences of line p against table t.
func (c *conditions) read(t *table, p proseLine) {
	ws := wordsOf(nil, p.raw)
	for from := 0; from < len(ws); {
		to := sentenceEnd(ws, from)
		lo, hi := sentenceText(p.raw, ws, from, to)
		c.sentence(t, p, ws[from:to], lo, hi)
		from = to
	}
}

// sentenceText is where the sentence of words ws[from:to] stands in raw:
// from the end of the sentence before it to the start of the next, the
// quotation marks and brackets that open the next left to it.
func sentenceText(raw string, ws []word, from, to int) (lo, hi int) {
	if from > 0 {
		lo = ws[from-1].off + len(ws[from-1].s)
	}
	hi = len(raw)
	if to < len(ws) {
		hi = ws[to].off
		for hi > lo && strings.ContainsRune(`"“«„'(`, rune(raw[hi-1])) {
			hi--
		}
	}
	return lo, hi
}

// sentence reads one sentence of line p.
func (c *conditions) sentence(t *table, p proseLine, ws []word, lo, hi int) {
	raw := p.raw[lo:hi]
	vals, col := t.valuesIn(wordRun(raw), raw)
	if len(vals) == 0 {
		return
	}
	if c.has && col != c.col {
		c.mixed = true
		return
	}
	if !c.has {
		c.col, c.line, c.has = col, p, true
	}
	asks, keeps := polarity(ws)
	if (asks && keeps || len(vals) > 1) && c.clauses(t, ws, p.raw[:hi], lo) {
		return
	}
	c.take(vals, asks, keeps)
}

// take notes what a sentence or a clause that names vals says of them.
func (c *conditions) take(vals []string, asks, keeps bool) {
	switch {
	case asks && keeps:
		c.mixed = true
	case asks:
		c.pos = append(c.pos, vals...)
	case keeps:
		c.neg = append(c.neg, vals...)
	default:
		c.neutral = true
	}
}

// clauses reads a sentence that both asks and keeps, or names more
// than one value, clause by clause, an exception opening one ("block only the rows where the
// Consent column says No; everyone else … should keep getting our
// mail", "block everyone who said yes to opt out – the \"no\" one just
// wanted to change her address"): a clause that names values says of
// them what its own words say. It reports false, noting nothing, when
// no clause that names values asks or keeps by its own words: the
// sentence is read whole.
func (c *conditions) clauses(t *table, ws []word, raw string, start int) bool {
	type clause struct {
		vals        []string
		asks, keeps bool
	}
	var cs []clause
	own := false
	cut := exceptionStarts(ws)
	for from := 0; from < len(ws); {
		to := clauseEnd(ws, from, cut)
		lo, hi := sentenceText(raw, ws, from, to)
		lo = max(lo, start)
		if vals, col := t.valuesIn(wordRun(raw[lo:hi]), raw[lo:hi]); len(vals) > 0 {
			if col != c.col {
				return false
			}
			asks, keeps := polarity(ws[from:to])
			cs = append(cs, clause{vals, asks, keeps})
			own = own || asks || keeps
		}
		from = to
	}
	if !own {
		return false
	}
	for _, cl := range cs {
		c.take(cl.vals, cl.asks, cl.keeps)
	}
	return true
}

// exceptionStarts are the words where an exception opens a clause of its
// own: "re-enable the rows below except the one with \"N\" under
// Confirmed".
func exceptionStarts(ws []word) map[int]bool {
	cut := map[int]bool{}
	for _, m := range phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations]) {
		if (m.class == cExclude || m.class == cExcept) && !m.negated && m.first > 0 {
			cut[m.first] = true
		}
	}
	return cut
}

// clauseEnd is where the clause of words that begins at ws[from] ends
// (the index after its last word): a comma, a clause's mark, a
// sentence's end or a word of cut.
func clauseEnd(ws []word, from int, cut map[int]bool) int {
	to := from
	for to < len(ws)-1 && !ws[to].clause && !ws[to].ends && !cut[to+1] {
		to++
	}
	return to + 1
}

// polarity reports a sentence whose words ask a change, and one whose
// words keep what it names (a keep, an exception, a change said not to
// be made).
func polarity(ws []word) (asks, keeps bool) { return sentencePolarity(ws, false) }

// sentencePolarity reads polarity; outright, a change asks only when it
// is a phrase of words, opens the sentence, or has a request word before
// it (askedOrKept).
func sentencePolarity(ws []word, outright bool) (asks, keeps bool) {
	ms := phraseBooks().trees[inWords].find(nil, ws, phraseBooks().trees[negations])
	for _, m := range ms {
		if labelUse(ws, m) {
			continue // "the resubscribe one"
		}
		changes := classWays[m.class].ask&changing != 0
		switch {
		case changes && !m.negated:
			asks = asks || !outright || m.end-m.first > 1 || m.first == 0 ||
				slices.ContainsFunc(ms, func(o match) bool { return o.class == cRequest && !o.negated && o.end <= m.first })
		case changes && m.negated, keepClasses[m.class] && !m.negated:
			keeps = true
		}
	}
	return asks, keeps
}

// keepClasses are the phrases that keep what their sentence names.
var keepClasses = map[class]bool{cExcept: true, cExclude: true, cExceptAfter: true, cNotSuppress: true, cWaveOff: true, cKeepAll: true}

// valuesIn is the values of one column of t that the words of a sentence
// name as picks, quotes and namesValue find them, and that column; none
// when they name values of two columns.
func (t *table) valuesIn(text, raw string) ([]string, int) {
	n := valuesNamed{col: -1}
	t.columnValues(" "+text+" ", &n)
	t.quotedValues(raw, &n)
	if t.rows >= 4 {
		t.repeatedValues(" "+text+" ", &n)
	}
	if n.two {
		return nil, -1
	}
	return n.vals, n.col
}

// valuesNamed collects the values a sentence names and their column; two: it
// names values of two columns.
type valuesNamed struct {
	vals []string
	col  int
	two  bool
}

func (n *valuesNamed) note(i int, v string) {
	if n.col >= 0 && n.col != i {
		n.two = true
		return
	}
	n.col = i
	if !slices.Contains(n.vals, v) {
		n.vals = append(n.vals, v)
	}
}

// columnValues notes the values of a column the padded words name with
// the column's name (picks).
func (t *table) columnValues(padded string, n *valuesNamed) {
	for i, h := range t.head {
		if i == t.addr || h == "" || len(t.values[i]) < 2 || len(t.values[i]) == t.rows || !strings.Contains(padded, " "+h+" ") {
			continue
		}
		for v, c := range t.values[i] {
			if c < t.rows && v != h && strings.Contains(padded, " "+v+" ") {
				n.note(i, v)
			}
		}
	}
}

// quotedValues notes the values the words quote (quotes).
func (t *table) quotedValues(raw string, n *valuesNamed) {
	for _, q := range quoted.FindAllStringSubmatch(raw, 8) {
		v := wordRun(q[1])
		for i, vals := range t.values {
			if c, ok := vals[v]; ok && i != t.addr && v != "" && len(vals) >= 2 && c < t.rows {
				n.note(i, v)
			}
		}
	}
}

// repeatedValues notes the values the padded words name unquoted and
// with no column (namesValue).
func (t *table) repeatedValues(padded string, n *valuesNamed) {
	for i, vals := range t.values {
		if i == t.addr || len(vals) < 2 || len(vals) >= t.rows {
			continue
		}
		for v, c := range vals {
			if c >= 2 && t.rows-c >= 2 && len([]rune(v)) >= 4 && strings.Contains(padded, " "+v+" ") && cellMark(v) == rowNone {
				n.note(i, v)
			}
		}
	}
}

// unpicked is the rows of t that conditions c leave out, nil when they
// cannot be followed: a mixed sentence, no value asked or kept, a value
// named by a sentence that neither asks nor keeps while none is asked,
// all the rows or none of them left.
func (t *table) unpicked(c conditions) []pastedRow {
	if !c.has || c.mixed || len(c.pos)+len(c.neg) == 0 || c.neutral && len(c.pos) == 0 || len(t.list) != t.rows {
		return nil
	}
	var left []pastedRow
	for _, row := range t.list {
		v := row.cells[c.col]
		if len(c.pos) > 0 && !slices.Contains(c.pos, v) || slices.Contains(c.neg, v) {
			left = append(left, row)
		}
	}
	if len(left) == 0 || len(left) == len(t.list) {
		return nil
	}
	return left
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
	if (d == ',' || d == ';') && strings.Contains(t, `"`) {
		// "\"Nguyen, Jacqui\"": a CSV's quoted field holds its
		// separator, and "" for a quote.
		if rec, err := csvRecord(t, d); err == nil && len(rec) >= 2 {
			cells = rec
		}
	}
	for i, c := range cells {
		cells[i] = strings.TrimSpace(strings.Trim(strings.TrimSpace(c), `"`))
	}
	return cells
}

// padCells fits a row's cells to a header of n: a row whose last cells
// are empty ("Ben Carter⇥…⇥No⇥", its trailing tab trimmed with the
// line) has them back.
func padCells(cells []string, n int) ([]string, bool) {
	if len(cells) < 2 || len(cells) > n {
		return cells, false
	}
	for len(cells) < n {
		cells = append(cells, "")
	}
	return cells, true
}

// csvRecord reads line t as one record of a CSV separated by d.
func csvRecord(t string, d byte) ([]string, error) {
	r := csv.NewReader(strings.NewReader(t))
	r.Comma, r.LazyQuotes, r.FieldsPerRecord = rune(d), true, -1
	return r.Read()
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

// cellValue is a cell but a note in brackets after it: "WYPISAĆ
// (odeszła z firmy)" holds the value "WYPISAĆ".
func cellValue(c string) string {
	if i := strings.IndexByte(c, '('); i > 0 && strings.HasSuffix(strings.TrimSpace(c), ")") {
		return c[:i]
	}
	return c
}

// oneAddressIn reports a row's cell that holds one address of its tokens
// and no other, the row at most one suppression ID.
func oneAddressIn(cell string, toks []token) bool {
	n, ids := 0, 0
	for _, f := range toks {
		switch {
		case f.Kind == ID:
			ids++
		case f.Kind != Address:
			return false
		case strings.Contains(cell, f.Raw):
			n++
		}
	}
	return n == 1 && ids <= 1
}

// addressCell is the index of the one cell that holds the line's one
// address (a suppression ID may stand in another), -1 when there is not
// exactly one.
func addressCell(cells []string, toks []token) int {
	var a *token
	ids := 0
	for i := range toks {
		switch toks[i].Kind {
		case Address:
			if a != nil {
				return -1
			}
			a = &toks[i]
		case ID:
			ids++
		default:
			return -1
		}
	}
	if a == nil || ids > 1 {
		return -1
	}
	at := -1
	for i, c := range cells {
		if strings.Contains(c, a.Raw) {
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
