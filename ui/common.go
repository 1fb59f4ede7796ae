package ui

import "github.com/charmbracelet/lipgloss"

// Common is what every screen shares: the space it has, the styles and the
// target it works on.
type Common struct {
	Width, Height int
	Styles        Styles
	Target        Target
	r             *lipgloss.Renderer
}

// Minimum terminal size; below it the UI shows a message instead.
const (
	minWidth  = 60
	minHeight = 16
)
