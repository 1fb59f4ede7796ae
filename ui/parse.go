package ui

import (
	"strings"

	"github.com/shushlist/shush/batch"
)

// parseText extracts the entries of text pasted from a ticket (or a plain
// list), with batch's rules.
func parseText(text string, mode batch.Mode) []batch.Item {
	return batch.ParseText(text, mode)
}

// parseTyped reads one typed line: the entries in it or, when it holds
// none, the whole line as one entry (so that the agent sees why it is not
// valid).
func parseTyped(l string, mode batch.Mode) []batch.Item {
	items := parseText(l, mode)
	if len(items) == 0 && strings.TrimSpace(l) != "" {
		items = append(items, batch.NewItem(mode, 1, strings.TrimSpace(l)))
	}
	return items
}
