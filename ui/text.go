package ui

import "github.com/charmbracelet/x/ansi"

// truncate cuts s to w cells with an ellipsis.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Truncate(s, w, "…")
}
