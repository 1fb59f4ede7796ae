package ui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/shushlist/shush/safe"
)

// truncate cuts s to w cells with an ellipsis. It is where most text
// reaches the screen, so it also makes it safe: escape sequences other
// than styling, control and format characters (from a ticket, a file name,
// a service's answer) show as visible escapes, and a line feed as \n.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = safe.View(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.ReplaceAll(s, "\n", `\n`)
	}
	return ansi.Truncate(s, w, "…")
}

// minAddressWidth is the least an address column gets before IDs are
// shortened to make room.
const minAddressWidth = 24

// shortIDWidth is the ID column of a narrow table: 8 characters and "…".
const shortIDWidth = 9

// shortID cuts an ID to w cells, keeping its start.
func shortID(id string, w int) string {
	if len(id) <= w {
		return id
	}
	return id[:w-1] + "…"
}

// cell is outside text for one cell of a table: plain, on one line.
func cell(s string) string { return safe.Text(s) }
