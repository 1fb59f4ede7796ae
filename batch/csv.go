package batch

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

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
	// An addition keeps what a file gives of each entry, as a shush
	// export writes it (origin, source ID, note, expiry, evidence).
	var cols *exportColumns
	var names []string // the header, when the file has one
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
				cols = exportColumnsFor(row, mode)
				if !mode.byID() {
					if other := secondAddressColumn(row, col); other >= 0 {
						return errLine(line, "the columns %q and %q both name addresses, and shush reads one column: keep one, or give the other's addresses rows of their own",
							strings.TrimSpace(row[col]), strings.TrimSpace(row[other]))
					}
				}
				names = row
				continue
			}
		}
		if !mode.byID() {
			// An address in another column would be dropped without a
			// word, and that person stay mailable.
			for i, v := range row {
				if i == col || cols.free(i) {
					continue
				}
				if _, err := api.NormalizeEmail(angleAddress(unguard(strings.TrimSpace(v)))); err == nil {
					at, _ := r.FieldPos(i)
					return errLine(at, "column %s holds an address too, and shush reads only column %s: keep one address column, or give the other's addresses rows of their own",
						columnName(names, i), columnName(names, col))
				}
			}
		}
		line, _ = r.FieldPos(col)
		v := unguard(strings.TrimSpace(row[col]))
		if v == "" {
			emit(Item{Line: line, Problem: "the " + mode.noun() + " column is empty on this line"})
			continue
		}
		if !mode.byID() {
			v = angleAddress(v)
		}
		emit(cols.item(NewItem(mode, line, v), row))
	}
	return nil
}

// secondAddressColumn is a column other than col whose header names
// addresses too (secondary_email, "mail"), or -1.
func secondAddressColumn(header []string, col int) int {
	for i, h := range header {
		if i == col {
			continue
		}
		k := headerKey(h)
		if strings.Contains(k, "email") || slices.Contains(emailHeaders, k) {
			return i
		}
	}
	return -1
}

// columnName names column i for a message: its header in quotes, or its
// number when the file has no header.
func columnName(header []string, i int) string {
	if i < len(header) && strings.TrimSpace(header[i]) != "" {
		return fmt.Sprintf("%q", strings.TrimSpace(header[i]))
	}
	return fmt.Sprint(i + 1)
}

// unguard undoes the formula guard of a CSV cell (safe.Cell): a leading
// apostrophe before = + - @, a tab or a carriage return is what a
// spreadsheet-safe export put there, not data. "'=1+2@example.com" reads
// as the valid address =1+2@example.com it was written for.
func unguard(v string) string {
	if len(v) >= 2 && v[0] == '\'' && strings.IndexByte("=+-@\t\r", v[1]) >= 0 {
		return v[1:]
	}
	return v
}

// headerIndex is the column whose header, as headerKey reads it, is name;
// -1 for none.
func headerIndex(header []string, name string) int {
	for i, h := range header {
		if headerKey(h) == name {
			return i
		}
	}
	return -1
}

// cell is row's field i, trimmed and unguarded ("" for none).
func cell(row []string, i int) string {
	if i < 0 || i >= len(row) {
		return ""
	}
	return unguard(strings.TrimSpace(row[i]))
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
		return ticket.LooksLikeID(v)
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
