package batch

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/shushlist/shush/api"
)

// csvPreset is one provider file's columns, by headerKey: the address
// column, those it always has (need) and may have (optional), and which
// give the origin (a fixed one, or read from reason), the status, the
// provider's words, the date, a source ID and the entry's ID.
type csvPreset struct {
	provider, name string
	addr           string
	need, optional []string
	origin         api.Origin
	reason         string
	status, diag   string
	date           string
	source, id     string
	// words, when set, writes the evidence's words from the row (by
	// column key) instead of the diag column alone.
	words func(get func(string) string) string
	// shape, when set, must hold of the first row for the file to be
	// found as this preset's without its format named: its columns are
	// another's too.
	shape func(get func(string) string) bool
}

// pgText is a time as PostgreSQL writes it ("2026-10-06 23:47:56.678+00"),
// as the hosted service writes its entries' created_at, and shush never.
var pgText = regexp.MustCompile(`^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?[+-]\d\d(:?\d\d)?$`)

// csvPresets are the providers' CSV files, the most specific first: a
// file is read as the first whose columns it has exactly (named with a
// format, as the first of that provider whose columns it has).
var csvPresets = []csvPreset{
	{provider: formatSendGrid, name: "SendGrid bounces CSV", addr: "email", need: []string{"created", "reason", "status"},
		origin: api.OriginBounce, status: "status", diag: "reason", date: "created"},
	{provider: formatSendGrid, name: "SendGrid invalid emails CSV", addr: "email", need: []string{"created", "reason"},
		origin: api.OriginBounce, diag: "reason", date: "created"},
	{provider: formatSendGrid, name: "SendGrid spam reports CSV", addr: "email", need: []string{"created", "ip"},
		origin: api.OriginComplaint, date: "created"},
	{provider: formatSendGrid, name: "SendGrid unsubscribes CSV", addr: "email", need: []string{"created"},
		origin: api.OriginManual, date: "created"},
	{provider: formatMailgun, name: "Mailgun bounces CSV", addr: "address", need: []string{"code", "error", "createdat"},
		origin: api.OriginBounce, status: "error", date: "createdat", words: func(get func(string) string) string {
			code, err := get("code"), get("error")
			if code == "" || strings.HasPrefix(err, code) {
				return err
			}
			return strings.TrimSpace(code + " " + err)
		}},
	{provider: formatMailgun, name: "Mailgun unsubscribes CSV", addr: "address", need: []string{"tags", "createdat"},
		origin: api.OriginManual, date: "createdat", words: func(get func(string) string) string {
			if t := get("tags"); t != "" {
				return "unsubscribed from tags: " + t
			}
			return ""
		}},
	{provider: formatMailgun, name: "Mailgun complaints CSV", addr: "address", need: []string{"createdat"},
		origin: api.OriginComplaint, date: "createdat"},
	{provider: formatSES, name: "Amazon SES suppression list CSV", addr: "emailaddress", need: []string{"reason"},
		optional: []string{"lastupdatetime"}, reason: "reason", diag: "reason", date: "lastupdatetime"},
	{provider: formatResend, name: "Resend suppressions export CSV", addr: "email", need: []string{"origin", "createdat"},
		optional: []string{"id", "sourceid"}, reason: "origin", date: "createdat", source: "sourceid", id: "id",
		// A shush export without notes has these columns too; the
		// hosted service's times are PostgreSQL's text.
		shape: func(get func(string) string) bool { return pgText.MatchString(get("createdat")) }},
}

// enhancedCode finds an SMTP enhanced status code (RFC 3463) in words.
var enhancedCode = regexp.MustCompile(`\b[245]\.\d{1,3}\.\d{1,3}\b`)

// fits reports whether the header keys are the preset's: its address
// column and needs, and (exact) nothing but its optional columns besides.
func (p *csvPreset) fits(keys []string, exact bool) bool {
	if !slices.Contains(keys, p.addr) {
		return false
	}
	for _, n := range p.need {
		if !slices.Contains(keys, n) {
			return false
		}
	}
	if !exact {
		return true
	}
	for _, k := range keys {
		if k != p.addr && !slices.Contains(p.need, k) && !slices.Contains(p.optional, k) {
			return false
		}
	}
	return true
}

// preset says what the preset reads of a file with this header.
func (p *csvPreset) preset(header, keys []string, file string) *Preset {
	out := &Preset{Provider: p.provider, Name: p.name}
	if p.provider == formatSendGrid && p.status != "" && strings.Contains(strings.ToLower(filepath.Base(file)), "block") {
		// Blocks have the bounces' columns; only the file's name tells.
		out.Name = "SendGrid blocks CSV"
	}
	used := []string{p.addr, p.reason, p.status, p.diag, p.date, p.source, p.id}
	if p.words != nil {
		used = append(used, p.need...)
	}
	for i, k := range keys {
		if slices.Contains(used, k) && k != "" {
			out.Read = append(out.Read, strings.TrimSpace(header[i]))
		} else {
			out.Ignored = append(out.Ignored, strings.TrimSpace(header[i]))
		}
	}
	out.Origin = string(p.origin)
	if p.origin == "" {
		out.Origin = "from column " + strings.TrimSpace(header[slices.Index(keys, p.reason)])
	}
	return out
}

// sesBare is SES's own bulk file: no header, an address and BOUNCE or
// COMPLAINT a row.
var sesBare = csvPreset{provider: formatSES, name: "Amazon SES bulk suppression CSV (address,reason)", reason: "reason", diag: "reason"}

// findCSVPreset reads the first record of a CSV and picks the provider's
// file it is: by its header, or SES's headerless shape. format narrows it
// to one provider (an error when the file is not one of its files).
func findCSVPreset(text io.Reader, first firstLine, format, file string) (*csvPreset, *Preset, error) {
	r := csv.NewReader(text)
	r.Comma = first.delimiter()
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		if format == FormatAuto {
			return nil, nil, nil
		}
		return nil, nil, fmt.Errorf("it is not a %s CSV: its first line cannot be read as CSV", providerName(format))
	}
	keys := make([]string, len(header))
	for i, h := range header {
		keys[i] = headerKey(h)
	}
	row, _ := r.Read()
	if p := matchCSVPreset(keys, row, format); p != nil {
		return p, p.preset(header, keys, file), nil
	}
	if (format == FormatAuto || format == formatSES) && len(header) == 2 {
		if _, ok := originOf(header[1]); ok && strings.Contains(header[0], "@") {
			return &sesBare, &Preset{Provider: formatSES, Name: sesBare.name, Read: []string{"address", "reason"}, Origin: "from the reason"}, nil
		}
	}
	if format == FormatAuto {
		return nil, nil, nil
	}
	return nil, nil, errLine(1, "it is not a %s CSV: its header (%s) has none of its files' columns (%s)",
		providerName(format), strings.Join(trimAll(header), ", "), presetColumns(format))
}

// matchCSVPreset is the preset whose columns the header has: exactly,
// and (a format named) at least; its first row is checked where the
// columns are another's too.
func matchCSVPreset(keys, row []string, format string) *csvPreset {
	get := func(k string) string { return cell(row, slices.Index(keys, k)) }
	for _, exact := range []bool{true, false} {
		if !exact && format == FormatAuto {
			break
		}
		for i := range csvPresets {
			p := &csvPresets[i]
			if format == FormatAuto && p.shape != nil && !p.shape(get) {
				continue
			}
			if (format == FormatAuto || p.provider == format) && p.fits(keys, exact) {
				return p
			}
		}
	}
	return nil
}

// providerName is a format's provider as people write it.
func providerName(format string) string {
	switch format {
	case formatSendGrid:
		return "SendGrid"
	case formatMailgun:
		return "Mailgun"
	case formatSES:
		return "Amazon SES"
	case formatPostmark:
		return "Postmark"
	case formatResend:
		return "Resend"
	}
	return format
}

// presetColumns lists the columns of a provider's CSV files.
func presetColumns(format string) string {
	var out []string
	for _, p := range csvPresets {
		if p.provider == format {
			out = append(out, strings.Join(append([]string{p.addr}, p.need...), ","))
		}
	}
	if format == formatSES {
		out = append(out, "address,BOUNCE without a header")
	}
	if len(out) == 0 {
		return "it has no CSV shush reads; its export is JSON"
	}
	return strings.Join(out, "; ")
}

// readPresetCSV reads a provider's CSV as p says, a row an entry.
func readPresetCSV(text io.Reader, first firstLine, p *csvPreset, pr *presetReader) error {
	r := csv.NewReader(text)
	r.Comma = first.delimiter()
	r.TrimLeadingSpace = true
	bare := p == &sesBare
	var keys []string
	for rec := 0; ; rec++ {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				if errors.Is(pe.Err, csv.ErrFieldCount) {
					return errLine(pe.StartLine, "it has %d %s, but the first line has %d", len(row), plural(len(row), "field"), len(keys))
				}
				return errLine(pe.Line, "%v", pe.Err)
			}
			return fmt.Errorf("cannot read it: %w", err)
		}
		if rec == 0 && !bare {
			keys = make([]string, len(row))
			for i, h := range row {
				keys[i] = headerKey(h)
			}
			continue
		}
		if bare {
			keys = []string{"address", "reason"}
		}
		line, _ := r.FieldPos(0)
		pr.item(p.row(line, keys, row))
	}
	pr.done()
	return nil
}

// row reads one record by the preset's columns.
func (p *csvPreset) row(line int, keys, row []string) providerRow {
	get := func(k string) string {
		if k == "" {
			return ""
		}
		return cell(row, slices.Index(keys, k))
	}
	addr := get(p.addr)
	if p == &sesBare {
		addr = cell(row, 0)
	}
	out := providerRow{line: line, address: addr, origin: p.origin, reason: get(p.reason),
		status: get(p.status), diag: get(p.diag), date: get(p.date), sourceID: get(p.source), id: get(p.id)}
	if p.words != nil {
		out.diag = p.words(get)
	}
	if p.status != "" && !enhancedCode.MatchString(out.status) || p.status == "error" {
		out.status = enhancedCode.FindString(out.status)
	}
	if out.origin == "" && out.reason == "" {
		out.reason = "(none given)"
	}
	return out
}
