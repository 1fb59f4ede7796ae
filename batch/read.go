package batch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

// MaxInput is the largest input Read accepts (256 MiB, a few million
// addresses).
const MaxInput = 256 << 20

// Format is how an input was written.
type Format int

// The formats Read recognizes.
const (
	// formatLines holds one entry per line.
	formatLines Format = iota
	// Text is free text (a ticket, a mail): entries are found in prose.
	Text
	// formatJSONArray is a JSON array of strings.
	formatJSONArray
	// formatJSONBody is a request body, {"emails": [...]} or {"ids": [...]}.
	formatJSONBody
	// formatCSV is comma, semicolon or tab separated values; the column is found
	// by its header, or is the only column.
	formatCSV
	// formatNDJSON is one JSON object a line, as the export writes the list.
	formatNDJSON
)

// String names the format for people.
func (f Format) String() string {
	switch f {
	case formatLines:
		return "one entry per line"
	case Text:
		return "free text"
	case formatJSONArray:
		return "JSON array"
	case formatJSONBody:
		return "JSON request body"
	case formatCSV:
		return "CSV"
	case formatNDJSON:
		return "NDJSON"
	}
	return "unknown format"
}

// ReadFormat reads every entry of an input for mode, and says which format
// it found. The format is found from the content and from name's extension
// (.json, .csv, .tsv, .txt; any case): a JSON array of strings, a JSON
// request body ({"emails": [...]} or {"ids": [...]}), CSV with a header (or
// one column), one entry per line, or free text pasted from a ticket. A
// UTF-8 byte order mark and CRLF line ends are fine. name labels errors (""
// reads as "input").
//
// Entries that cannot be sent (not an address, null in a JSON array) are
// items with a Problem, not errors. The error is for an input that is not
// what it claims to be, in one sentence with the line, for example
// "orders.json: line 3: invalid character '}' looking for beginning of value".
func ReadFormat(r io.Reader, name string, mode Mode) ([]Item, Format, error) {
	got, err := ReadAs(r, name, mode, FormatAuto)
	return got.Items, got.Format, err
}

// Reading is what ReadAs read: the items, the format, and the provider's
// file it was (Preset, nil for none) with what its entries left unsaid.
type Reading struct {
	Items    []Item
	Format   Format
	Preset   *Preset
	Warnings []string
}

// ReadAs is Read of an input in the given format (see CheckFormat).
func ReadAs(r io.Reader, name string, mode Mode, format string) (Reading, error) {
	var got Reading
	f, err := scan(r, name, mode, hooks{emit: func(it Item) { got.Items = append(got.Items, it) }, format: format,
		preset: func(p *Preset) { got.Preset = p },
		warn:   func(w string) { got.Warnings = append(got.Warnings, w) }})
	got.Format = f
	if err != nil {
		return Reading{Format: f}, err
	}
	return got, nil
}

// ReadTicket is ReadFormat that also returns the ticket a free text is
// read as (package ticket: whom it is about, what it asks), nil for any
// other format.
func ReadTicket(r io.Reader, name string, mode Mode) ([]Item, Format, *ticket.Ticket, error) {
	var items []Item
	var tk *ticket.Ticket
	f, err := scan(r, name, mode, hooks{emit: func(it Item) { items = append(items, it) }, ticket: func(t *ticket.Ticket) { tk = t }})
	if err != nil {
		return nil, f, nil, err
	}
	return items, f, tk, nil
}

// hooks are what a scan hands on as it reads. emit hears each entry as it
// comes, in order, so that a caller keeps only what it needs of them.
// expect, when not nil, hears how many lines the input has before the
// entries of a list or a CSV come (no more entries than that). line, when
// not nil, hears each line of free text.
type hooks struct {
	emit   func(Item)
	expect func(lines int)
	line   func(n int, text string)
	// format names the input's format (FormatAuto finds it); preset, when
	// not nil, hears the provider's file the input was read as, and warn
	// what its entries left unsaid.
	format string
	preset func(*Preset)
	warn   func(string)
	// ticket, when not nil, hears the ticket free text is read as, before
	// its first entry.
	ticket func(*ticket.Ticket)
}

// scan reads an input as ReadFormat does and hands on what it reads to h. After
// an error, what h was given is not the input's.
func scan(r io.Reader, name string, mode Mode, h hooks) (Format, error) {
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
	f, err := parse(src, name, mode, h)
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

func parse(src *source, name string, mode Mode, h hooks) (Format, error) {
	emit, expect := h.emit, h.expect
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
		h.expect = expect
	}
	if f, done, err := readPreset(src, &sv, name, mode, h); done {
		return f, err
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch c := sv.startRune; {
	case ext == ".ndjson" || ext == ".jsonl" || c == '{' && looksNDJSON(src.reader()):
		expect(sv.lines)
		return formatNDJSON, readNDJSON(src.reader(), mode, emit)
	case c == '[' || c == '{':
		return readJSON(src, &sv, mode, emit)
	case ext == ".json":
		return formatJSONArray, errLine(sv.startLine,
			"a .json file must hold a JSON array or a request body object, but it starts with %q", c)
	case ext == ".csv" || ext == ".tsv":
		expect(sv.lines)
		return formatCSV, readCSV(src.reader(), sv.first, mode, ext == ".tsv", emit)
	}
	if sv.single {
		expect(sv.lines)
		return formatLines, readLines(src.reader(), mode, emit)
	}
	if looksCSV(src.reader(), sv.first, mode) {
		expect(sv.lines)
		return formatCSV, readCSV(src.reader(), sv.first, mode, false, emit)
	}
	_, err = parseFree(src.reader(), mode, emit, h)
	return Text, err
}

// ParseText reads text pasted by a user as ReadPaste does and returns its
// entries for mode. In free text, words that are not meant as an entry
// are ignored, but a token with an @ that is not a valid address is kept
// as an invalid item. In line form every non-empty line counts.
func ParseText(s string, mode Mode) []Item {
	return ReadPaste(s).Items(mode)
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
