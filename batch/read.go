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
	label := name
	switch {
	case label == "":
		label = "input"
	case strings.ContainsFunc(label, unicode.IsControl):
		label = api.Quote(label)
	}
	data, err := io.ReadAll(io.LimitReader(r, MaxInput+1))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: cannot read it: %w", label, err)
	}
	if len(data) > MaxInput {
		return nil, 0, fmt.Errorf("%s: it is larger than %d MiB; split it into smaller files", label, MaxInput>>20)
	}
	items, f, err := parse(data, name, mode)
	if err != nil {
		return nil, f, fmt.Errorf("%s: %w", label, err)
	}
	return items, f, nil
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

func parse(data []byte, name string, mode Mode) ([]Item, Format, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		data = data[3:]
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}), bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return nil, 0, errors.New("it is UTF-16 text; save it as UTF-8")
	}
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return nil, 0, errLine(lineOf(data, i), "it holds binary data (a NUL byte), not text")
	}
	if !utf8.Valid(data) {
		return nil, 0, errLine(lineOf(data, invalidUTF8(data)), "it is not UTF-8 text; save it as UTF-8")
	}
	start := firstNonSpace(data)
	if start < 0 {
		return nil, 0, errors.New("it is empty")
	}
	ext := strings.ToLower(filepath.Ext(name))
	c := data[start]
	switch {
	case c == '[' || c == '{':
		items, f, err := readJSON(data, mode)
		return items, f, err
	case ext == ".json":
		return nil, JSONArray, errLine(lineOf(data, start),
			"a .json file must hold a JSON array or a request body object, but it starts with %s", quoteRune(data[start:]))
	case ext == ".csv" || ext == ".tsv":
		items, err := readCSV(string(data), mode, ext == ".tsv")
		return items, CSV, err
	}
	s := string(data)
	if singleTokenLines(s) {
		return readLines(s, mode), Lines, nil
	}
	if looksCSV(s, mode) {
		items, err := readCSV(s, mode, false)
		return items, CSV, err
	}
	return parseFree(s, mode), Text, nil
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
	if singleTokenLines(s) {
		return readLines(s, mode)
	}
	return parseFree(s, mode)
}

// eachLine calls fn with every line of s and its number; \n, \r\n and \r
// all end a line.
func eachLine(s string, fn func(n int, line string)) {
	n := 0
	for len(s) > 0 {
		n++
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			fn(n, s)
			return
		}
		fn(n, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// singleTokenLines reports whether every non-empty line of s holds one
// token with no separator in it: a plain list.
func singleTokenLines(s string) bool {
	ok := true
	eachLine(s, func(_ int, line string) {
		if !ok {
			return
		}
		line = trimLine(line)
		for i := 0; i < len(line); i++ {
			c := line[i]
			if c == ' ' || c == '\t' || c == ',' || c == ';' || c == ':' || c == '<' || c == '>' || c == '"' {
				ok = false
				return
			}
			if c >= utf8.RuneSelf {
				r, size := utf8.DecodeRuneInString(line[i:])
				if unicode.IsSpace(r) || isInvisible(r) {
					ok = false
					return
				}
				i += size - 1
			}
		}
	})
	return ok
}

// headerWords are first lines of a plain list that name the column rather
// than being an entry.
var headerWords = map[string]bool{
	"email": true, "emails": true, "e-mail": true, "email address": true, "email_address": true,
	"address": true, "addresses": true, "id": true, "ids": true, "suppression_id": true,
}

func readLines(s string, mode Mode) []Item {
	items := make([]Item, 0, strings.Count(s, "\n")+1)
	first := true
	eachLine(s, func(n int, line string) {
		line = trimLine(line)
		if line == "" {
			return
		}
		if first {
			first = false
			if headerWords[strings.ToLower(line)] {
				return
			}
		}
		items = append(items, NewItem(mode, n, line))
	})
	return items
}

// lineOf is the 1-based line of byte offset off.
func lineOf(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	return 1 + bytes.Count(data[:off], []byte{'\n'}) + bareCRs(data[:off])
}

// bareCRs counts \r not followed by \n: old Mac line ends.
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

func firstNonSpace(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if !unicode.IsSpace(r) {
			return i
		}
		i += size
	}
	return -1
}

func quoteRune(b []byte) string {
	r, _ := utf8.DecodeRune(b)
	return fmt.Sprintf("%q", r)
}

// lineCounter turns increasing byte offsets into line numbers without
// counting from the start each time.
type lineCounter struct {
	data []byte
	off  int
	line int
}

func (lc *lineCounter) at(off int) int {
	if off < lc.off {
		return lineOf(lc.data, off)
	}
	lc.line += bytes.Count(lc.data[lc.off:off], []byte{'\n'})
	lc.off = off
	return lc.line
}

// readJSON reads a JSON array of strings or a request body object.
func readJSON(data []byte, mode Mode) ([]Item, Format, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lc := &lineCounter{data: data, line: 1}
	tok, err := dec.Token()
	if err != nil {
		return nil, JSONArray, jsonError(data, dec, err)
	}
	var items []Item
	format := JSONArray
	switch tok {
	case json.Delim('['):
		if items, err = readJSONArray(data, dec, lc, mode, ""); err != nil {
			return nil, format, err
		}
	case json.Delim('{'):
		format = JSONBody
		if items, err = readJSONBody(data, dec, lc, mode); err != nil {
			return nil, format, err
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		off := int(dec.InputOffset())
		if err != nil {
			return nil, format, jsonError(data, dec, err)
		}
		return nil, format, errLine(lineOf(data, off), "there is more after the end of the JSON value")
	}
	return items, format, nil
}

func readJSONBody(data []byte, dec *json.Decoder, lc *lineCounter, mode Mode) ([]Item, error) {
	var items []Item
	have := map[string]int{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, dec, err)
		}
		key, _ := tok.(string)
		line := lc.at(int(dec.InputOffset()))
		if key != "emails" && key != "ids" {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, jsonError(data, dec, err)
			}
			continue
		}
		have[key] = line
		next, err := dec.Token()
		if err != nil {
			return nil, jsonError(data, dec, err)
		}
		if next != json.Delim('[') {
			what := jsonKind(next)
			return nil, errLine(line, "%q is %s; it must be an array of %s", key, what, nounFor(key))
		}
		got, err := readJSONArray(data, dec, lc, mode, key)
		if err != nil {
			return nil, err
		}
		items = append(items, got...)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, jsonError(data, dec, err)
	}
	el, hasE := have["emails"]
	il, hasI := have["ids"]
	switch {
	case hasE && hasI:
		return nil, errLine(max(el, il), `the body has both "emails" and "ids"; a request gives one of them`)
	case !hasE && !hasI:
		return nil, errLine(1, `the body has neither "emails" nor "ids"`)
	case mode == RemoveIDs && hasE:
		return nil, errLine(el, `the body holds "emails", but removal by ID needs "ids" (remove by address instead)`)
	case mode == Add && hasI:
		return nil, errLine(il, `the body holds "ids", but adding needs "emails"`)
	case mode == RemoveEmails && hasI:
		return nil, errLine(il, `the body holds "ids"; remove by ID instead`)
	}
	return items, nil
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

// readJSONArray reads the elements after an opening bracket, up to and
// including the closing one. Strings become items; null, numbers, booleans,
// objects and arrays become invalid items that say what they are.
func readJSONArray(data []byte, dec *json.Decoder, lc *lineCounter, mode Mode, field string) ([]Item, error) {
	var items []Item
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, jsonError(data, dec, err)
		}
		end := int(dec.InputOffset())
		line := lc.at(end - len(raw))
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
			items = append(items, Item{Line: line, Raw: shorten(string(raw)),
				Problem: fmt.Sprintf("%s is %s, not a string", where, jsonKind(tok))})
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, errLine(line, "%s: %v", where, err)
		}
		items = append(items, NewItem(mode, line, s))
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return nil, jsonError(data, dec, err)
	}
	return items, nil
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

// jsonError says where the JSON went wrong.
func jsonError(data []byte, dec *json.Decoder, err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return errLine(lineOf(data, badByte(data, int(se.Offset)-1, se.Error())), "%v", se)
	case errors.As(err, &te):
		return errLine(lineOf(data, int(te.Offset)), "%v", te)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errLine(lineOf(data, len(data)), "the JSON ends before it is complete")
	}
	return errLine(lineOf(data, int(dec.InputOffset())), "%v", err)
}

// badByte finds the character a syntax error is about. The decoder's
// offset may point a few bytes before it (at the end of the previous value)
// or at it; the message names it ("invalid character '}' …"), so the first
// such character from the offset on is the one, and its line is the line
// the user must fix.
func badByte(data []byte, off int, msg string) int {
	off = min(max(off, 0), len(data))
	if _, rest, ok := strings.Cut(msg, "invalid character '"); ok {
		if r, size := utf8.DecodeRuneInString(rest); size > 0 && r != '\\' {
			if i := bytes.IndexRune(data[off:], r); i >= 0 && i < 8 {
				return off + i
			}
		}
	}
	for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
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

// delimiter guesses the separator of a CSV from its first line.
func delimiter(first string) rune {
	best, n := ',', strings.Count(first, ",")
	for _, d := range []rune{';', '\t'} {
		if c := strings.Count(first, string(d)); c > n {
			best, n = d, c
		}
	}
	return best
}

func firstLine(s string) string {
	var out string
	done := false
	eachLine(s, func(_ int, line string) {
		if !done && strings.TrimSpace(line) != "" {
			out, done = line, true
		}
	})
	return out
}

// looksCSV reports whether text without a .csv name is CSV: its first line
// has separators and a header with exactly the name of the mode's column,
// and the next line has as many fields. Prose that happens to mention
// "email" on its first line stays free text.
func looksCSV(s string, mode Mode) bool {
	first := firstLine(s)
	d := delimiter(first)
	if !strings.ContainsRune(first, d) {
		return false
	}
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = d
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err != nil || exactColumn(header, mode) < 0 {
		return false
	}
	row, err := r.Read()
	return err == io.EOF || err == nil && len(row) == len(header)
}

func readCSV(s string, mode Mode, tab bool) ([]Item, error) {
	d := delimiter(firstLine(s))
	if tab {
		d = '\t'
	}
	r := csv.NewReader(strings.NewReader(s))
	r.Comma = d
	r.TrimLeadingSpace = d != '\t'
	r.ReuseRecord = false
	var items []Item
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
					return nil, errLine(pe.StartLine, "it has %d %s, but the first line has %d", len(row), plural(len(row), "field"), width)
				}
				return nil, errLine(pe.Line, "%v", pe.Err)
			}
			return nil, err
		}
		line, _ := r.FieldPos(0)
		if rec == 0 {
			width = len(row)
			var header bool
			col, header = chooseColumn(row, mode)
			if col < 0 {
				return nil, errLine(line, "no column looks like %s (headers: %s)%s",
					describeEntry(mode), strings.Join(trimAll(row), ", "), wrongModeHint(row, mode))
			}
			if header {
				continue
			}
		}
		line, _ = r.FieldPos(col)
		v := strings.TrimSpace(row[col])
		if v == "" {
			items = append(items, Item{Line: line, Problem: "the " + mode.noun() + " column is empty on this line"})
			continue
		}
		if !mode.byID() {
			v = angleAddress(v)
		}
		items = append(items, NewItem(mode, line, v))
	}
	return items, nil
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

// parseFree finds entries in free text.
func parseFree(s string, mode Mode) []Item {
	var (
		items []Item
		z     zoner
	)
	eachLine(s, func(n int, line string) {
		zone, prevToo := z.line(n, line)
		if prevToo {
			for i := len(items) - 1; i >= 0 && items[i].Line == n-1; i-- {
				items[i].Zone = zone
			}
		}
		fields(line, func(tok string) {
			candidates(tok, func(cand string) {
				if it, ok := freeItem(cand, n, mode); ok {
					it.Zone = zone
					items = append(items, it)
				}
			})
		})
	})
	return items
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
