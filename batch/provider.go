package batch

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

// Other providers' suppression lists, as their exports and tools write
// them, are read with what they say of each entry: the reason becomes the
// entry's origin (bounce, complaint, manual), and the provider, its words
// and the date go into the entry's evidence (kind import), as intake
// writes evidence. A file is known by its header or its shape, or named
// with a format (formatSendGrid…); what a format reads and what it leaves
// (a column shush has no place for) is said (Preset), and no entry is
// dropped without a word: an address that is not valid is an invalid
// entry with its line, a reason shush does not know lists the entry as
// manual with the words kept, and a date it cannot read is said
// (Input.Warnings).

// The formats an input may be named as (ReadOptions.Format): FormatAuto
// finds a provider's file by its header or shape, formatPlain reads any
// input as a plain list (its columns named as shush's own), and the
// others read it as that provider's.
const (
	FormatAuto     = ""
	formatPlain    = "plain"
	formatSendGrid = api.ProviderSendGrid
	formatMailgun  = api.ProviderMailgun
	formatSES      = api.ProviderSES
	formatPostmark = api.ProviderPostmark
	formatResend   = api.ProviderResend
)

// formats are the names ReadOptions.Format takes, for help and errors.
func formats() []string {
	return []string{"auto", formatPlain, formatSendGrid, formatMailgun, formatSES, formatPostmark, formatResend}
}

// CheckFormat accepts a format name ("auto" is FormatAuto).
func CheckFormat(f string) (string, error) {
	f = strings.ToLower(strings.TrimSpace(f))
	if f == "auto" {
		f = FormatAuto
	}
	if f == FormatAuto || slices.Contains(formats(), f) {
		return f, nil
	}
	return "", fmt.Errorf("the format %s is not one of %s", api.Quote(f), strings.Join(formats(), ", "))
}

// Preset is the provider's export an input was read as: its name for
// people, the provider, and the columns (or fields) it read and those it
// left out.
type Preset struct {
	// Provider is the provider the evidence names ("sendgrid").
	Provider string `json:"provider"`
	// Name says which of its files it is ("SendGrid bounces CSV").
	Name string `json:"name"`
	// Read names the columns or fields read into the entries; Ignored
	// those the entries have no place for.
	Read    []string `json:"read"`
	Ignored []string `json:"ignored,omitempty"`
	// Origin says how the origin is found ("bounce", or "from Reason").
	Origin string `json:"origin"`
}

// String is the preset as the review and the report name it.
func (p *Preset) String() string {
	if p == nil {
		return ""
	}
	s := fmt.Sprintf("%s (origin %s; read %s", p.Name, p.Origin, strings.Join(p.Read, ", "))
	if len(p.Ignored) > 0 {
		s += "; not kept: " + strings.Join(p.Ignored, ", ")
	}
	return s + ")"
}

// reasons maps a provider's reason words, lower-cased, to an origin.
var reasons = map[string]api.Origin{
	"bounce": api.OriginBounce, "hardbounce": api.OriginBounce, "hard_bounce": api.OriginBounce, "hard bounce": api.OriginBounce,
	"complaint": api.OriginComplaint, "spamcomplaint": api.OriginComplaint, "spam_complaint": api.OriginComplaint,
	"spam complaint": api.OriginComplaint, "spamreport": api.OriginComplaint, "spam report": api.OriginComplaint,
	"manual": api.OriginManual, "manualsuppression": api.OriginManual, "manual suppression": api.OriginManual,
	"unsubscribe": api.OriginManual, "unsubscribed": api.OriginManual,
}

// originOf maps a reason to an origin; ok is false for words shush does
// not know (the entry is then manual, and that is said).
func originOf(reason string) (api.Origin, bool) {
	o, ok := reasons[strings.ToLower(strings.TrimSpace(reason))]
	return o, ok
}

// providerRow is what a provider's file says of one entry, as text.
type providerRow struct {
	line     int
	address  string
	reason   string // the words the origin is read from
	origin   api.Origin
	status   string
	diag     string
	date     string
	sourceID string
	id       string
}

// presetReader turns a provider's rows into items: origins by its rule,
// evidence of kind import, and the warnings of what it could not read.
type presetReader struct {
	preset *Preset
	mode   Mode
	emit   func(Item)
	warn   func(string)
	// unknown and undated count the rows whose reason or date shush could
	// not read, and the first of each.
	unknown, undated           int
	firstUnknown, firstUndated string
}

// item makes the row's item and emits it.
func (pr *presetReader) item(r providerRow) {
	it := NewItem(pr.mode, r.line, angleAddress(strings.TrimSpace(r.address)))
	if !it.Valid() || pr.mode != Add {
		pr.emit(it)
		return
	}
	origin := r.origin
	if origin == "" {
		o, ok := originOf(r.reason)
		if !ok {
			o = api.OriginManual
			if pr.unknown++; pr.unknown == 1 {
				pr.firstUnknown = fmt.Sprintf("line %d: %s", r.line, api.Quote(r.reason))
			}
		}
		origin = o
	}
	ev := api.Evidence{Provider: pr.preset.Provider, Kind: api.EvidenceImport, Status: r.status, Diagnostic: r.diag}
	if r.date != "" {
		if t, ok := providerTime(r.date); ok {
			ev.ReportedAt = &api.Timestamp{Time: t}
		} else if pr.undated++; pr.undated == 1 {
			pr.firstUndated = fmt.Sprintf("line %d: %s", r.line, api.Quote(r.date))
		}
	}
	ev = ev.Clip()
	c := cells{origin: string(origin), source: r.sourceID, evidence: &ev}
	if r.id != "" {
		// A list with its own IDs (Resend's): an import that keeps IDs
		// keeps them with their dates.
		c.id, c.created = r.id, r.date
	}
	pr.emit(withCells(it, c))
}

// done says what the rows left unsaid.
func (pr *presetReader) done() {
	if pr.unknown > 0 {
		pr.warn(fmt.Sprintf("%d %s gave a reason shush does not know (the first, %s): listed as manual, the reason kept in the evidence",
			pr.unknown, entriesWord(pr.unknown), pr.firstUnknown))
	}
	if pr.undated > 0 {
		pr.warn(fmt.Sprintf("%d %s gave a date shush cannot read (the first, %s): the evidence has no date",
			pr.undated, entriesWord(pr.undated), pr.firstUndated))
	}
}

// providerTime reads the dates providers write: RFC 3339 (Postmark, the
// AWS CLI), RFC 1123 with a zone name or offset (Mailgun), "YYYY-MM-DD
// HH:MM:SS" in UTC (SendGrid's older exports), PostgreSQL's text form
// (Resend), and Unix seconds, whole or with a fraction (SendGrid's API,
// the AWS CLI without ISO times); milliseconds when the number is that
// large.
func providerTime(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, time.RFC1123, time.RFC1123Z, "2006-01-02 15:04:05", "2006-01-02 15:04:05.999999999Z07",
		"2006-01-02 15:04:05.999999999Z07:00", "Mon, 2 Jan 2006 15:04:05 MST", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f <= 0 || math.IsInf(f, 0) || math.IsNaN(f) {
		return time.Time{}, false
	}
	if f > 1e11 {
		f /= 1000 // milliseconds
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC().Truncate(time.Millisecond), true
}

// readPreset reads an input as a provider's file when it is one (or is
// named one, h.format); done is false when it is none, for the other
// readers.
func readPreset(src *source, sv *survey, name string, mode Mode, h hooks) (f Format, done bool, err error) {
	switch {
	case h.format == formatPlain, mode.byID() && h.format == FormatAuto:
		return 0, false, nil
	case mode.byID():
		return 0, true, fmt.Errorf("--format %s reads addresses, and removal by ID needs suppression IDs", h.format)
	}
	pr := &presetReader{mode: mode, emit: h.emit, warn: h.warn}
	if pr.warn == nil {
		pr.warn = func(string) {}
	}
	found := func(p *Preset) {
		pr.preset = p
		if h.preset != nil {
			h.preset(p)
		}
	}
	if c := sv.startRune; c == '{' || c == '[' {
		p := findJSONPreset(src.reader(), h.format)
		if p == nil {
			if h.format == FormatAuto {
				return 0, false, nil
			}
			return formatJSONBody, true, errLine(sv.startLine, "it is not a %s JSON file: none of its keys is one its files have", providerName(h.format))
		}
		found(p.preset())
		f = formatJSONBody
		if p == &sesImport {
			f = formatNDJSON
		}
		return f, true, readPresetJSON(src, sv, p, pr)
	}
	if h.format == FormatAuto && !sv.first.has(sv.first.delimiter()) {
		return 0, false, nil
	}
	p, preset, err := findCSVPreset(src.reader(), sv.first, h.format, name)
	switch {
	case err != nil:
		return formatCSV, true, err
	case p == nil:
		return 0, false, nil
	}
	found(preset)
	h.expect(sv.lines)
	return formatCSV, true, readPresetCSV(src.reader(), sv.first, p, pr)
}

// entriesWord is "entry" or "entries" for n.
func entriesWord(n int) string {
	if n == 1 {
		return "entry"
	}
	return "entries"
}
