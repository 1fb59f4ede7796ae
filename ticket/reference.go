package ticket

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/shushlist/shush/api"
)

// Reference is a ticket reference found in a ticket's text or file name,
// and where: it is offered to the agent (or sent with --reference auto),
// never made up. Value is what a run sends as its reference: "#5521" for a
// ticket number, "AB-2026-7" for a key as written.
type Reference struct {
	Value string `json:"value"`
	// Source is where it was found: "file name", "subject" or "text".
	Source string `json:"source"`
	// Line is the line of the text (0 for the file name), Text the line
	// or the file name.
	Line int    `json:"line,omitempty"`
	Text string `json:"text"`
}

// Where says where the reference was found, for people: "the file name
// TICKET-88.json", "the subject, line 3", "line 12".
func (r Reference) Where() string {
	switch r.Source {
	case "file name":
		return "the file name " + r.Text
	case "subject":
		return "the subject, line " + strconv.Itoa(r.Line)
	}
	return "line " + strconv.Itoa(r.Line)
}

// FindReference picks the likeliest ticket reference of a ticket from its
// text and its file name (either may be ""): a reference in the file name
// ("TICKET-88-IDS.JSON", "AB-2026-7.txt"), else one the subject names
// ("Re: [#5521] …", "Request 12345"), else the first one the text names
// ("case AB-2026-7", "Ticket ref BC-7781", "Ref: XY-1234", "Case #88",
// "Ticket: 88", "[#5521]", "#5521"), else a number of three or more
// digits standing alone in the subject. ok is false when there is none.
func FindReference(text, name string) (ref Reference, ok bool) {
	var f RefFinder
	f.Name(name)
	n := 0
	for line := range strings.Lines(text) {
		n++
		f.Line(n, strings.TrimRight(line, "\r\n"))
	}
	return f.Best()
}

// RefFinder finds a ticket's reference as FindReference does, fed a file
// name and the lines of a text one at a time (a list read line by line
// names its reference too).
type RefFinder struct{ refFinder }

// Name reads the input's file name.
func (f *RefFinder) Name(name string) { f.name(name) }

// Line reads line n of the text.
func (f *RefFinder) Line(n int, text string) { f.line(n, text) }

// Best is the reference found, when ok.
func (f *RefFinder) Best() (Reference, bool) { return f.best() }

// refFinder keeps the best reference found so far, by rank (lower is
// better).
type refFinder struct {
	found Reference
	rank  int // 0 for none
}

const (
	rankFileName = iota + 1
	rankSubject
	rankText
	rankTextKey
	rankSubjectNumber
)

func (f *refFinder) offer(rank int, r Reference) {
	if api.ValidReference(r.Value) != nil {
		return
	}
	if f.rank == 0 || rank < f.rank {
		f.found, f.rank = r, rank
	}
}

func (f *refFinder) best() (Reference, bool) { return f.found, f.rank != 0 }

var (
	// refKeyword is a word that introduces a reference, then what
	// introduces its number ("no.", "#", ":"), then the reference: digits,
	// or letters, digits and dashes with a digit among them.
	refKeyword = regexp.MustCompile(`(?i)\b(?:ticket|case|ref|reference|request|incident|issue|inc|sr|req|caso|fall|vorgang|anfrage|dossier|demande|pratica|richiesta|chamado|protocolo|pedido|referencia|referência|référence|riferimento|referentie|zaak|melding|ticketnummer|ticketnr|sagsnummer|saksnummer|zgloszenie|tichet)\b\.?(?:\s*(?:ref|reference|no\.?|nr\.?|n°|nº|number|id|nummer|número|numero)\b\.?)*\s*[:#(]?\s*#?([A-Za-z0-9]+(?:-[A-Za-z0-9]+)*)`)
	// refHash is "#5521" (not "&#39;", an HTML entity).
	refHash = regexp.MustCompile(`(?:^|[^\w&])#([0-9]{2,12})\b`)
	// refBracket is a helpdesk's "[#5521]", "[Support 4711]".
	refBracket = regexp.MustCompile(`\[(?:[A-Za-z][A-Za-z ]*\s)?#?([0-9]{3,12})\]`)
	// refNumber is a number standing alone, not part of a date, a time
	// or a price.
	refNumber = regexp.MustCompile(`(?:^|[\s(])([0-9]{3,12})(?:$|[\s),:;!?])`)
	// refFileKeyword and refFileKey are a file name's "TICKET-88",
	// "case_5521" and "AB-2026-7".
	refFileKeyword = regexp.MustCompile(`(?i)^(?:ticket|case|ref|req|request|inc|incident|sr|issue)[-#]?([0-9]+)$`)
	refFileKey     = regexp.MustCompile(`^([A-Z][A-Z0-9]{1,9}-[0-9]+(?:-[0-9]+)?)$`)
	refFileHash    = regexp.MustCompile(`^#([0-9]{2,12})$`)
	// refKey is a helpdesk's key standing alone ("[CS-77310]",
	// "(HLP-5120)", "Following up on SW-20417"): capitals, a dash, digits.
	refKey = regexp.MustCompile(`(?:^|[\s(\[])([A-Z]{2,6}-[0-9]{3,9}(?:-[0-9]{2,9})?)(?:$|[\s)\].,:;!?])`)
)

// number is how a ticket number is sent: "#" and its digits.
func number(digits string) string { return "#" + digits }

// keyed is a reference after a keyword: a number as "#N", a key as
// written.
func keyed(id string) string {
	if strings.Trim(id, "0123456789") == "" {
		return number(id)
	}
	return id
}

func (f *refFinder) name(name string) {
	base := filepath.Base(name)
	if name == "" || base == "." || base == "-" || base == "stdin" {
		return
	}
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	// TICKET-88-IDS: the parts a name is made of, and each run of them
	// that may be a reference (TICKET-88, AB-2026-7).
	parts := strings.FieldsFunc(stem, func(r rune) bool { return r == ' ' || r == '.' })
	for _, p := range parts {
		segs := strings.FieldsFunc(p, func(r rune) bool { return r == '-' || r == '_' })
		for i := range segs {
			for j := min(len(segs), i+3); j > i; j-- {
				s := strings.Join(segs[i:j], "-")
				if m := refFileKeyword.FindStringSubmatch(s); m != nil {
					f.offer(rankFileName, Reference{Value: number(m[1]), Source: "file name", Text: base})
					return
				}
				if m := refFileHash.FindStringSubmatch(s); m != nil {
					f.offer(rankFileName, Reference{Value: number(m[1]), Source: "file name", Text: base})
					return
				}
				if m := refFileKey.FindStringSubmatch(s); m != nil && !refWord(m[1]) {
					f.offer(rankFileName, Reference{Value: m[1], Source: "file name", Text: base})
					return
				}
			}
		}
	}
}

// refWord reports a key-like word that is no reference: an encoding, a
// standard, a date's year.
func refWord(key string) bool {
	prefix, _, _ := strings.Cut(strings.ToUpper(key), "-")
	switch prefix {
	case "UTF", "ISO", "RFC", "COVID", "SHA", "MD", "X", "IDS", "IN", "OUT":
		return true
	}
	return false
}

func (f *refFinder) line(n int, line string) {
	if f.rank != 0 && f.rank <= rankSubject {
		return // nothing in the text can do better
	}
	_, t := quoteDepth(line)
	t = strings.TrimSpace(t)
	if t == "" || !strings.ContainsAny(t, "0123456789") || !mayRefer(t) {
		return
	}
	rank, source, ok := refPlace(t)
	if !ok || rank >= f.rank && f.rank != 0 && f.rank != rankSubjectNumber {
		return
	}
	ref := Reference{Source: source, Line: n, Text: t}
	if v, ok := refIn(t); ok {
		ref.Value = v
		f.offer(rank, ref)
		return
	}
	if v, ok := keyIn(t); ok {
		// A key alone in the text ranks below one a keyword introduces.
		ref.Value = v
		f.offer(max(rank, rankTextKey), ref)
		return
	}
	if rank == rankSubject {
		if v, ok := subjectNumber(t); ok {
			ref.Value = v
			f.offer(rankSubjectNumber, ref)
		}
	}
}

// refPlace is what a line may offer a reference as: a subject's, or the
// text's; not ok for another header (Message-ID:, Date: hold numbers that
// are no reference).
func refPlace(t string) (rank int, source string, ok bool) {
	name, header := headerName(t, true)
	switch {
	case !header:
		return rankText, "text", true
	case phraseBooks().has("header-subject", name):
		return rankSubject, "subject", true
	}
	return 0, "", false
}

// refIn is the reference a line names: "[#5521]", "#5521", "case
// AB-2026-7", "Ticket ref BC-7781".
func refIn(t string) (string, bool) {
	for _, re := range []*regexp.Regexp{refBracket, refHash} {
		if m := re.FindStringSubmatch(t); m != nil {
			return number(m[1]), true
		}
	}
	for _, m := range refKeyword.FindAllStringSubmatch(t, -1) {
		id := m[1]
		if strings.Contains(id, "@") || !strings.ContainsAny(id, "0123456789") || len(strings.Trim(id, "0123456789")) == 0 && len(id) < 2 {
			continue
		}
		return keyed(id), true
	}
	return "", false
}

// keyIn is a helpdesk key the line names alone, not a standard's
// ("ISO-9001") nor the start of a longer number ("CHE-112.334.556").
func keyIn(t string) (string, bool) {
	for _, m := range refKey.FindAllStringSubmatchIndex(t, -1) {
		key, rest := t[m[2]:m[3]], t[m[3]:]
		if len(rest) > 1 && rest[0] == '.' && '0' <= rest[1] && rest[1] <= '9' {
			continue // "CHE-112.334.556": a VAT number
		}
		if !refWord(key) {
			return key, true
		}
	}
	return "", false
}

// subjectNumber is a number of three or more digits standing alone in a
// subject line, not a year.
func subjectNumber(t string) (string, bool) {
	for _, m := range refNumber.FindAllStringSubmatch(strings.TrimPrefix(t, t[:strings.IndexByte(t, ':')+1]), -1) {
		if y := m[1]; len(y) == 4 && (strings.HasPrefix(y, "19") || strings.HasPrefix(y, "20")) {
			continue // a year
		}
		return number(m[1]), true
	}
	return "", false
}

// refWords are what a line that names a reference holds at least one of
// where a word starts (lower case), unless it is a subject: the regular
// expressions run only on such lines, and a long list's lines have none.
var refWords = []string{"#", "[", "tick", "case", "ref", "req", "inc", "issue", "sr", "caso", "fall", "vorgang", "anfrage", "dossier",
	"demande", "pratica", "richiesta", "chamado", "protocolo", "pedido", "zaak", "melding", "sagsnummer", "saksnummer", "zgloszenie", "tichet"}

// mayRefer reports a line that may name a reference. A line that is one
// address and nothing else (a list's) names none.
func mayRefer(t string) bool {
	if !strings.ContainsAny(t, " \t#[") && strings.IndexByte(t, '@') >= 0 {
		return false
	}
	if name, ok := headerName(t, true); ok && phraseBooks().has("header-subject", name) {
		return true // a bare number in a subject may be the ticket's
	}
	if hasKey(t) {
		return true
	}
	var buf [256]byte
	lt := fold(buf[:0], t[:min(len(t), 240)])
	for _, w := range refWords {
		if containsWord(lt, w) {
			return true
		}
	}
	return false
}

// hasKey reports a capital letter, a dash and a digit in a row, as a
// helpdesk key has ("CS-77310"): the line may name one.
func hasKey(t string) bool {
	for i := 1; i+1 < len(t); i++ {
		if t[i] == '-' && 'A' <= t[i-1] && t[i-1] <= 'Z' && '0' <= t[i+1] && t[i+1] <= '9' {
			return true
		}
	}
	return false
}

// containsWord reports whether s holds w where a word starts ("ticket"
// in "Ticket 88", not "inc" in "incoming"; "#" and "[" anywhere).
func containsWord(s []byte, w string) bool {
	for i := 0; ; {
		k := bytes.Index(s[i:], []byte(w))
		if k < 0 {
			return false
		}
		at := i + k
		if !isLetter(w[0]) || at == 0 || !isLetter(s[at-1]) {
			return true
		}
		i = at + 1
	}
}

// isLetter reports an ASCII letter.
func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
