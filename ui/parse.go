package ui

import (
	"strings"

	"github.com/shushlist/shush/batch"
)

// item is one value read from a paste, a typed line or a file, before it
// joins the list.
type item struct {
	raw     string
	line    int
	value   string
	problem string
}

// validate normalizes raw for the mode with the service's rule; problem
// says why it is invalid.
func validate(raw string, mode batch.Mode) (value, problem string) {
	v, err := mode.Normalize(raw)
	if err != nil {
		return "", err.Error()
	}
	return v, ""
}

// normalizeNewlines turns \r\n and lone \r (what terminals send on paste)
// into \n.
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

func fromBatch(in []batch.Item) []item {
	out := make([]item, len(in))
	for i, it := range in {
		out[i] = item{raw: it.Raw, line: it.Line, value: it.Value, problem: it.Problem}
	}
	return out
}

// parseText extracts the entries of text pasted from a ticket (or a plain
// list), with batch's rules.
func parseText(text string, mode batch.Mode) []item {
	return fromBatch(batch.ParseText(text, mode))
}

// parseTyped reads one typed line: the entries in it or, when it holds
// none, the whole line as one entry (so that the agent sees why it is not
// valid).
func parseTyped(l string, mode batch.Mode) []item {
	items := parseText(l, mode)
	if len(items) == 0 && strings.TrimSpace(l) != "" {
		raw := strings.TrimSpace(l)
		v, p := validate(raw, mode)
		items = append(items, item{raw: raw, line: 1, value: v, problem: p})
	}
	return items
}
