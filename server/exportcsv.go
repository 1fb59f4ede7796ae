package server

import (
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/server/store"
)

// appendCSV appends one entry as a record of the CSV export: the bytes
// encoding/csv writes for the same cells (comma-separated, LF-terminated,
// a cell quoted when it holds a comma, a quote, a line break or begins
// with a space), into a buffer the caller reuses, so that a row costs no
// allocation of its own. IDs, origins and times never need quoting; the
// cells from outside (address, source, note, the evidence's texts) get
// safe.Cell's formula guard first, as before.
func appendCSV(b []byte, x store.Entry) []byte {
	b = append(b, x.ID...)
	b = append(b, ',')
	b = appendCell(b, x.Email)
	b = append(b, ',')
	b = append(b, x.Origin...)
	b = append(b, ',')
	if x.SourceID != nil {
		b = appendCell(b, *x.SourceID)
	}
	b = append(b, ',')
	b = appendTimestamp(b, x.CreatedAt)
	b = append(b, ',')
	b = appendCell(b, x.Note)
	b = append(b, ',')
	if !x.ExpiresAt.IsZero() {
		b = appendTimestamp(b, x.ExpiresAt)
	}
	b = append(appendEvidence(b, x.Evidence), ',')
	if store.IsErased(x.Email) {
		b = appendCell(b, x.ErasedDomain)
	}
	return append(b, '\n')
}

// appendEvidence appends the evidence's eight cells, each after a comma;
// empty for none.
func appendEvidence(b []byte, ev *api.Evidence) []byte {
	if ev == nil {
		return append(b, ",,,,,,,,"...)
	}
	for _, cell := range []string{ev.Provider, ev.Kind, ev.EventID, ev.MessageID, ev.Status, ev.Diagnostic, ev.ReportingMTA} {
		b = appendCell(append(b, ','), cell)
	}
	b = append(b, ',')
	if ev.ReportedAt != nil {
		b = appendTimestamp(b, ev.ReportedAt.Time)
	}
	return b
}

// appendCell appends a cell from outside: formula-guarded, and quoted as
// encoding/csv quotes (a quote doubled inside).
func appendCell(b []byte, s string) []byte {
	s = safe.Cell(s)
	if !needsQuotes(s) {
		return append(b, s...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

// needsQuotes is encoding/csv's rule for a comma-separated cell.
func needsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, "\",\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// appendTimestamp appends t in UTC as api.TimestampLayout writes it
// (2006-01-02T15:04:05.000Z) without parsing the layout for each row.
func appendTimestamp(b []byte, t time.Time) []byte {
	t = t.UTC()
	y, mo, d := t.Date()
	if y < 0 || y > 9999 {
		return t.AppendFormat(b, api.TimestampLayout)
	}
	h, mi, s := t.Clock()
	ms := t.Nanosecond() / int(time.Millisecond)
	return append(b,
		byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+mo/10), byte('0'+mo%10), '-', byte('0'+d/10), byte('0'+d%10), 'T',
		byte('0'+h/10), byte('0'+h%10), ':', byte('0'+mi/10), byte('0'+mi%10), ':', byte('0'+s/10), byte('0'+s%10), '.',
		byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}
