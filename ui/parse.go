package ui

import (
	"strings"
	"unicode"

	"github.com/shushlist/shush/api"
)

// item is one value read from a paste, a typed line or a file, before it
// joins the list.
type item struct {
	raw     string
	line    int
	value   string
	problem string
}

// validate normalizes raw for the mode; problem is set when it is invalid.
func validate(raw string, mode Mode) (value, problem string) {
	var err error
	if mode == ModeRemoveIDs {
		value, err = api.NormalizeID(raw)
	} else {
		value, err = api.NormalizeEmail(raw)
	}
	if err != nil {
		return "", err.Error()
	}
	return value, ""
}

// normalizeNewlines turns \r\n and lone \r (what terminals send on paste)
// into \n.
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// parseText extracts the entries of free text pasted from a ticket: on each
// line, the words that look like addresses (they hold an @) or, in ID mode,
// like IDs. A line with no such word but something else on it is kept as
// one invalid entry only when it is the whole input of a typed line
// (see parseTyped); in pasted text it is ordinary prose and skipped.
func parseText(text string, mode Mode) []item {
	text = normalizeNewlines(text)
	var items []item
	line := 0
	for len(text) > 0 {
		line++
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		items = appendCandidates(items, l, line, mode)
	}
	return items
}

// parseTyped reads one typed line: its candidate words, or, when it has
// none, the whole line as an entry (so that the agent sees why it is not
// valid).
func parseTyped(l string, mode Mode) []item {
	items := appendCandidates(nil, normalizeNewlines(l), 1, mode)
	if len(items) == 0 && strings.TrimSpace(l) != "" {
		raw := strings.TrimSpace(l)
		v, p := validate(raw, mode)
		items = append(items, item{raw: raw, line: 1, value: v, problem: p})
	}
	return items
}

func appendCandidates(items []item, l string, line int, mode Mode) []item {
	for _, w := range strings.FieldsFunc(l, isSeparator) {
		w = strings.Trim(w, "<>()[]{}\"'`.,;:!?*")
		w = strings.TrimPrefix(w, "mailto:")
		if w == "" || !looksLike(w, mode) {
			continue
		}
		v, p := validate(w, mode)
		items = append(items, item{raw: w, line: line, value: v, problem: p})
	}
	return items
}

func isSeparator(r rune) bool {
	return unicode.IsSpace(r) || r == ',' || r == ';' || r == '|'
}

// looksLike says whether a word is meant as an entry of the mode: an
// address holds an @; an ID is 32 hex digits with hyphens, give or take a
// mistyped character (so that a broken ID is shown as invalid rather than
// silently ignored).
func looksLike(w string, mode Mode) bool {
	if mode != ModeRemoveIDs {
		return strings.Contains(w, "@")
	}
	if strings.Count(w, "-") < 3 || len(w) < 30 || len(w) > 40 {
		return false
	}
	hex := 0
	for _, r := range w {
		if unicode.Is(unicode.ASCII_Hex_Digit, r) {
			hex++
		}
	}
	return hex >= len(w)*3/4
}
