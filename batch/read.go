package batch

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

// MaxInput is the largest input Read accepts (256 MiB, a few million
// addresses).
const MaxInput = 256 << 20

// Format is how an input was written.
type Format int

// The formats Read recognizes.
const (
	// Lines holds one entry per line.
	Lines Format = iota
	// Text is free text (a ticket, a mail): entries are found in prose.
	Text
	// JSONArray is a JSON array of strings.
	JSONArray
	// JSONBody is a request body, {"emails": [...]} or {"ids": [...]}.
	JSONBody
	// CSV is comma, semicolon or tab separated values; the column is found
	// by its header, or is the only column.
	CSV
)

// String names the format for people.
func (f Format) String() string {
	switch f {
	case Lines:
		return "one entry per line"
	case Text:
		return "free text"
	case JSONArray:
		return "JSON array"
	case JSONBody:
		return "JSON request body"
	case CSV:
		return "CSV"
	}
	return "unknown format"
}

// Read reads every entry of an input for mode. The format is found from the
// content and from name's extension (.json, .csv, .tsv, .txt; any case): a
// JSON array of strings, a JSON request body ({"emails": [...]} or
// {"ids": [...]}), CSV with a header (or one column), one entry per line,
// or free text pasted from a ticket. A UTF-8 byte order mark and CRLF line
// ends are fine. name labels errors ("" reads as "input").
//
// Entries that cannot be sent (not an address, null in a JSON array) are
// items with a Problem, not errors. The error is for an input that is not
// what it claims to be, in one sentence with the line, for example
// "orders.json: line 3: invalid character '}' looking for beginning of value".
func Read(r io.Reader, name string, mode Mode) ([]Item, error) {
	items, _, err := ReadFormat(r, name, mode)
	return items, err
}

// ReadFormat is Read that also says which format it found.
func ReadFormat(r io.Reader, name string, mode Mode) ([]Item, Format, error) {
	var items []Item
	f, err := scan(r, name, mode, func(it Item) { items = append(items, it) }, nil)
	if err != nil {
		return nil, f, err
	}
	return items, f, nil
}

// scan reads an input as Read does and hands each entry to emit as it
// comes, in order, so that a caller keeps only what it needs of them.
// expect, when not nil, hears how many lines the input has before the
// entries of a list or a CSV come (no more entries than that). After an
// error, what emit was given is not the input's.
func scan(r io.Reader, name string, mode Mode, emit func(Item), expect func(lines int)) (Format, error) {
	label := name
	switch {
	case label == "":
		label = "input"
	case strings.ContainsFunc(label, unicode.IsControl):
		label = api.Quote(label)
	}
	src, err := openSource(r)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", label, err)
	}
	defer src.close()
	f, err := parse(src, name, mode, emit, expect)
	if err != nil {
		return f, fmt.Errorf("%s: %w", label, err)
	}
	return f, nil
}

// lineError is an error about one line of the input.
type lineError struct {
	line int
	msg  string
}

func (e *lineError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

func errLine(line int, format string, args ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
}

func parse(src *source, name string, mode Mode, emit func(Item), expect func(int)) (Format, error) {
	var head [3]byte
	n := src.readAt(head[:], 0)
	switch b := head[:n]; {
	case bytes.HasPrefix(b, []byte{0xEF, 0xBB, 0xBF}):
		src.off += 3
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}), bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return 0, errors.New("it is UTF-16 text; save it as UTF-8")
	}
	sv, err := surveyText(src)
	switch {
	case err != nil:
		return 0, err
	case sv.nul >= 0:
		return 0, errLine(sv.nulLine, "it holds binary data (a NUL byte), not text")
	case sv.bad >= 0:
		return 0, errLine(sv.badLine, "it is not UTF-8 text; save it as UTF-8")
	case sv.start < 0:
		return 0, errors.New("it is empty")
	}
	if expect == nil {
		expect = func(int) {}
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch c := sv.startRune; {
	case c == '[' || c == '{':
		return readJSON(src, &sv, mode, emit)
	case ext == ".json":
		return JSONArray, errLine(sv.startLine,
			"a .json file must hold a JSON array or a request body object, but it starts with %q", c)
	case ext == ".csv" || ext == ".tsv":
		expect(sv.lines)
		return CSV, readCSV(src.reader(), sv.first, mode, ext == ".tsv", emit)
	}
	if sv.single {
		expect(sv.lines)
		return Lines, readLines(src.reader(), mode, emit)
	}
	if looksCSV(src.reader(), sv.first, mode) {
		expect(sv.lines)
		return CSV, readCSV(src.reader(), sv.first, mode, false, emit)
	}
	return Text, parseFree(src.reader(), mode, emit)
}

// ParseText reads text pasted by a user (the terminal UI calls it on every
// paste): a list with one entry per line, or free text from a ticket or a
// mail, where addresses are found in prose ("Jane <Jane@Example.com>",
// mailto: links, lists separated by commas, semicolons or spaces,
// ">"-quoted replies). Line ends may be \n, \r\n or \r. In free text, words
// that are not meant as an entry are ignored, but a token with an @ that is
// not a valid address is kept as an invalid item. In line form every
// non-empty line counts.
func ParseText(s string, mode Mode) []Item {
	s = strings.TrimPrefix(s, "\uFEFF")
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	var items []Item
	emit := func(it Item) { items = append(items, it) }
	// Reading a string fails not.
	if singleTokenLines(s) {
		_ = readLines(strings.NewReader(s), mode, emit)
	} else {
		_ = parseFree(strings.NewReader(s), mode, emit)
	}
	return items
}

// headerWords are first lines of a plain list that name the column rather
// than being an entry.
var headerWords = map[string]bool{
	"email": true, "emails": true, "e-mail": true, "email address": true, "email_address": true,
	"address": true, "addresses": true, "id": true, "ids": true, "suppression_id": true,
}

// readLines reads one entry per line.
func readLines(r io.Reader, mode Mode, emit func(Item)) error {
	lr := newLineReader(r)
	first := true
	for {
		b, ok := lr.next()
		if !ok {
			return lr.err
		}
		b = trimLineBytes(b)
		if len(b) == 0 {
			continue
		}
		line := string(b)
		if first {
			first = false
			if headerWords[strings.ToLower(line)] {
				continue
			}
		}
		emit(NewItem(mode, lr.n, line))
	}
}

// bareCRs counts \r not followed by \n: old Mac line ends. A \r at the
// end of b counts.
func bareCRs(b []byte) int {
	n := 0
	for i := bytes.IndexByte(b, '\r'); i >= 0; {
		if i+1 >= len(b) || b[i+1] != '\n' {
			n++
		}
		j := bytes.IndexByte(b[i+1:], '\r')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n
}

func invalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// jsonReader reads a JSON array of strings or a request body object,
// handing on each element as the decoder reaches it.
type jsonReader struct {
	src   *source
	sv    *survey
	dec   *json.Decoder
	track *lineTrack
	mode  Mode
	emit  func(Item)
}

// readJSON reads a JSON array of strings or a request body object.
func readJSON(src *source, sv *survey, mode Mode, emit func(Item)) (Format, error) {
	track := &lineTrack{r: src.reader(), line: 1}
	jr := &jsonReader{src: src, sv: sv, dec: json.NewDecoder(track), track: track, mode: mode, emit: emit}
	dec := jr.dec
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return JSONArray, jr.error(err)
	}
	format := JSONArray
	switch tok {
	case json.Delim('['):
		if err := jr.array(""); err != nil {
			return format, err
		}
	case json.Delim('{'):
		format = JSONBody
		if err := jr.body(); err != nil {
			return format, err
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		if err != nil {
			return format, jr.error(err)
		}
		return format, errLine(src.lineOf(off), "there is more after the end of the JSON value")
	}
	return format, nil
}

// lineAt is the line of offset off, counted as lineCounter did: \n only.
func (jr *jsonReader) lineAt(off int64) int {
	if line, ok := jr.track.at(off); ok {
		return line
	}
	return jr.src.lineOf(off)
}

func (jr *jsonReader) body() error {
	dec := jr.dec
	have := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jr.error(err)
		}
		key, _ := tok.(string)
		line := jr.lineAt(dec.InputOffset())
		if key != "emails" && key != "ids" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return jr.error(err)
			}
			continue
		}
		have[key] = line
		next, err := dec.Token()
		if err != nil {
			return jr.error(err)
		}
		if next != json.Delim('[') {
			what := jsonKind(next)
			return errLine(line, "%q is %s; it must be an array of %s", key, what, nounFor(key))
		}
		if err := jr.array(key); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return jr.error(err)
	}
	el, hasE := have["emails"]
	il, hasI := have["ids"]
	switch mode := jr.mode; {
	case hasE && hasI:
		return errLine(max(el, il), `the body has both "emails" and "ids"; a request gives one of them`)
	case !hasE && !hasI:
		return errLine(1, `the body has neither "emails" nor "ids"`)
	case mode == RemoveIDs && hasE:
		return errLine(el, `the body holds "emails", but removal by ID needs "ids" (remove by address instead)`)
	case mode == Add && hasI:
		return errLine(il, `the body holds "ids", but adding needs "emails"`)
	case mode == RemoveEmails && hasI:
		return errLine(il, `the body holds "ids"; remove by ID instead`)
	}
	return nil
}

func nounFor(key string) string {
	if key == "ids" {
		return "suppression IDs"
	}
	return "email addresses"
}

func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return "not a string"
}

// array reads the elements after an opening bracket, up to and including
// the closing one. Strings become items; null, numbers, booleans, objects
// and arrays become invalid items that say what they are.
func (jr *jsonReader) array(field string) error {
	dec := jr.dec
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jr.error(err)
		}
		end := dec.InputOffset()
		line := jr.lineAt(end - int64(len(raw)))
		where := fmt.Sprintf("item %d", i)
		if field != "" {
			where = fmt.Sprintf("%s[%d]", field, i)
		}
		if raw[0] != '"' {
			var tok any
			if raw[0] == '{' {
				tok = json.Delim('{')
			} else if raw[0] == '[' {
				tok = json.Delim('[')
			} else {
				d := json.NewDecoder(bytes.NewReader(raw))
				d.UseNumber()
				tok, _ = d.Token()
			}
			jr.emit(Item{Line: line, Raw: shorten(string(raw)),
				Problem: fmt.Sprintf("%s is %s, not a string", where, jsonKind(tok))})
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return errLine(line, "%s: %v", where, err)
		}
		jr.emit(NewItem(jr.mode, line, s))
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return jr.error(err)
	}
	return nil
}

func shorten(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

// error says where the JSON went wrong.
func (jr *jsonReader) error(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	src := jr.src
	switch {
	case errors.As(err, &se):
		// The offset of an error within a value counts only the bytes of
		// the values scanned so far, not the commas and brackets between
		// them: deep into a large array it lags far behind. The decoder
		// stands at the start of the value it failed on, which the bad
		// character cannot precede.
		return errLine(src.lineOf(badByte(src, max(se.Offset-1, jr.dec.InputOffset()), se.Error())), "%v", se)
	case errors.As(err, &te):
		return errLine(src.lineOf(te.Offset), "%v", te)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errLine(jr.sv.lines, "the JSON ends before it is complete")
	}
	return errLine(src.lineOf(jr.dec.InputOffset()), "%v", err)
}

// badByte finds the character a syntax error is about. The decoder's
// offset may point a few bytes before it (at the end of the previous value)
// or at it; the message names it ("invalid character '}' …"), so the first
// such character from the offset on is the one, and its line is the line
// the user must fix.
func badByte(src *source, off int64, msg string) int64 {
	off = min(max(off, 0), src.end-src.off)
	var buf [64]byte
	if _, rest, ok := strings.Cut(msg, "invalid character '"); ok {
		if r, size := utf8.DecodeRuneInString(rest); size > 0 && r != '\\' {
			n := src.readAt(buf[:8+utf8.UTFMax], off)
			if i := bytes.IndexRune(buf[:n], r); i >= 0 && i < 8 {
				return off + int64(i)
			}
		}
	}
	for {
		n := src.readAt(buf[:], off)
		if n == 0 {
			return off
		}
		for _, c := range buf[:n] {
			if strings.IndexByte(" \t\r\n,:", c) < 0 {
				return off
			}
			off++
		}
	}
}

// Column headers that name the entries of a mode, compared after
// lowercasing and dropping spaces, dashes and underscores.
var (
	emailHeaders = []string{"email", "emailaddress", "emails", "mail", "address", "recipient", "to"}
	idHeaders    = []string{"id", "ids", "suppressionid", "uuid"}
)

func headerKey(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' || r == '_' {
			return -1
		}
		return r
	}, s)
}

// findColumn returns the column whose header names the mode's entries:
// an exact name first, then a header that contains "email" (or
// "suppressionid").
func findColumn(header []string, mode Mode) int {
	if c := exactColumn(header, mode); c >= 0 {
		return c
	}
	part := "email"
	if mode.byID() {
		part = "suppressionid"
	}
	for i, h := range header {
		if strings.Contains(headerKey(h), part) {
			return i
		}
	}
	return -1
}

// exactColumn returns the column whose header is one of the mode's names.
func exactColumn(header []string, mode Mode) int {
	names := emailHeaders
	if mode.byID() {
		names = idHeaders
	}
	for _, want := range names {
		for i, h := range header {
			if headerKey(h) == want {
				return i
			}
		}
	}
	return -1
}

// looksCSV reports whether text without a .csv name is CSV: its first line
// has separators and a header with exactly the name of the mode's column,
// and the next line has as many fields. Prose that happens to mention
// "email" on its first line stays free text.
func looksCSV(text io.Reader, first firstLine, mode Mode) bool {
	d := first.delimiter()
	if !first.has(d) {
		return false
	}
	r := csv.NewReader(text)
	r.Comma = d
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil || exactColumn(header, mode) < 0 {
		return false
	}
	row, err := r.Read()
	return err == io.EOF || err == nil && len(row) == len(header)
}

func readCSV(text io.Reader, first firstLine, mode Mode, tab bool, emit func(Item)) error {
	d := first.delimiter()
	if tab {
		d = '\t'
	}
	r := csv.NewReader(text)
	r.Comma = d
	r.TrimLeadingSpace = d != '\t'
	r.ReuseRecord = false
	col := -1
	width := 0
	for rec := 0; ; rec++ {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					return errLine(pe.StartLine, "it has %d %s, but the first line has %d", len(row), plural(len(row), "field"), width)
				}
				return errLine(pe.Line, "%v", pe.Err)
			}
			return fmt.Errorf("cannot read it: %w", err)
		}
		line, _ := r.FieldPos(0)
		if rec == 0 {
			width = len(row)
			var header bool
			col, header = chooseColumn(row, mode)
			if col < 0 {
				return errLine(line, "no column looks like %s (headers: %s)%s",
					describeEntry(mode), strings.Join(trimAll(row), ", "), wrongModeHint(row, mode))
			}
			if header {
				continue
			}
		}
		line, _ = r.FieldPos(col)
		v := strings.TrimSpace(row[col])
		if v == "" {
			emit(Item{Line: line, Problem: "the " + mode.noun() + " column is empty on this line"})
			continue
		}
		if !mode.byID() {
			v = angleAddress(v)
		}
		emit(NewItem(mode, line, v))
	}
	return nil
}

// angleAddress returns the address of a cell written as a mail header
// would ("Jane Doe <jane@example.com>"), and any other cell as it is.
func angleAddress(v string) string {
	open := strings.LastIndexByte(v, '<')
	if open < 0 || !strings.HasSuffix(v, ">") {
		return v
	}
	return strings.TrimSpace(v[open+1 : len(v)-1])
}

func describeEntry(m Mode) string {
	if m.byID() {
		return "a suppression ID"
	}
	return "an email address"
}

func wrongModeHint(header []string, mode Mode) string {
	other := Add
	if !mode.byID() {
		other = RemoveIDs
	}
	if findColumn(header, other) < 0 {
		return ""
	}
	if mode.byID() {
		return "; it has an email column: remove by address instead"
	}
	return "; it has an ID column: remove by ID instead"
}

// chooseColumn picks the column of the first record: by header name; else,
// when the first record is data, the one column whose value is a valid
// entry; else the only column. header says whether the first record is a
// header to skip.
func chooseColumn(row []string, mode Mode) (col int, header bool) {
	if c := findColumn(row, mode); c >= 0 {
		return c, true
	}
	valid := -1
	for i, v := range row {
		if _, err := mode.Normalize(v); err == nil {
			if valid >= 0 {
				return -1, false
			}
			valid = i
		}
	}
	if valid >= 0 {
		return valid, false
	}
	if len(row) == 1 {
		v := strings.TrimSpace(row[0])
		// A single column whose first value is not meant as an entry is
		// its title ("Customers"); one that is meant but invalid is data.
		return 0, !looksMeant(v, mode)
	}
	return -1, false
}

func looksMeant(v string, mode Mode) bool {
	if mode.byID() {
		return looksLikeID(v)
	}
	return strings.Contains(v, "@")
}

func trimAll(row []string) []string {
	out := make([]string, len(row))
	for i, v := range row {
		out[i] = strings.TrimSpace(v)
		switch {
		case out[i] == "":
			out[i] = `""`
		case strings.ContainsFunc(out[i], unicode.IsControl) || len(out[i]) > 40:
			out[i] = api.Quote(out[i])
		}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// isSep reports whether r separates tokens in free text. ':' splits
// "mailto:x@y" and "Email:x@y"; the rest never occur in a bare address.
func isSep(r rune) bool {
	switch r {
	case ',', ';', '<', '>', '(', ')', '[', ']', '"', '`', ':', '\u00ab', '\u00bb', '\u2018', '\u2019', '\u201c', '\u201d':
		return true
	}
	return unicode.IsSpace(r) || isInvisible(r)
}

// isInvisible reports whether r is a zero-width character that web pages
// and chat tools put into copied text; it never belongs to an entry.
func isInvisible(r rune) bool {
	switch r {
	case '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff':
		return true
	}
	return false
}

// trimLine trims white space and zero-width characters around an entry.
func trimLine(s string) string {
	s = strings.TrimSpace(s)
	if s != "" && (s[0] >= utf8.RuneSelf || s[len(s)-1] >= utf8.RuneSelf) {
		s = strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || isInvisible(r) })
	}
	return s
}

// trimLineBytes is trimLine of a line as read.
func trimLineBytes(b []byte) []byte {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && (b[0] >= utf8.RuneSelf || b[len(b)-1] >= utf8.RuneSelf) {
		b = bytes.TrimFunc(b, func(r rune) bool { return unicode.IsSpace(r) || isInvisible(r) })
	}
	return b
}

// parseFree finds entries in free text. The entries of a line are handed
// on once the next line is read: an attribution over two lines ("On Mon,
// … Jane <jane@…>" then "wrote:") is known only at its second.
func parseFree(r io.Reader, mode Mode, emit func(Item)) error {
	var (
		z    zoner
		prev []Item // the entries of the line before
	)
	lr := newLineReader(r)
	for {
		b, ok := lr.next()
		if !ok {
			break
		}
		n, line := lr.n, string(b)
		zone, prevToo := z.line(n, line)
		for _, it := range prev {
			if prevToo && it.Line == n-1 {
				it.Zone = zone
			}
			emit(it)
		}
		prev = prev[:0]
		fields(line, func(tok string) {
			candidates(tok, func(cand string) {
				if it, ok := freeItem(cand, n, mode); ok {
					it.Zone = zone
					prev = append(prev, it)
				}
			})
		})
	}
	for _, it := range prev {
		emit(it)
	}
	return lr.err
}

// fields calls fn with each token of s between separators (isSep), like
// strings.FieldsFunc without building a slice: free text is read in bulk.
func fields(s string, fn func(string)) {
	start := -1
	for i := 0; i < len(s); {
		r, size := rune(s[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(s[i:])
		}
		if isSep(r) {
			if start >= 0 {
				fn(s[start:i])
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		fn(s[start:])
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
