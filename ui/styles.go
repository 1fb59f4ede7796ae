package ui

import "github.com/charmbracelet/lipgloss"

// Styles are every style of the UI, built once from adaptive colours so that
// they read on light and dark terminals.
type Styles struct {
	Header   lipgloss.Style
	Mode     lipgloss.Style
	Title    lipgloss.Style
	Muted    lipgloss.Style
	Row      lipgloss.Style
	Cursor   lipgloss.Style
	Selected lipgloss.Style
	Invalid  lipgloss.Style
	Good     lipgloss.Style
	Warn     lipgloss.Style
	Bad      lipgloss.Style
	Box      lipgloss.Style
	Focused  lipgloss.Style
	Prompt   lipgloss.Style
	Help     lipgloss.Style
	Key      lipgloss.Style
}

func newStyles(r *lipgloss.Renderer) Styles {
	var (
		accent = lipgloss.AdaptiveColor{Light: "#5A3FC0", Dark: "#B7A6FF"}
		muted  = lipgloss.AdaptiveColor{Light: "#6B6B6B", Dark: "#8C8C8C"}
		good   = lipgloss.AdaptiveColor{Light: "#1B7F3B", Dark: "#5FD787"}
		warn   = lipgloss.AdaptiveColor{Light: "#8A5A00", Dark: "#FFD75F"}
		bad    = lipgloss.AdaptiveColor{Light: "#B00020", Dark: "#FF6B6B"}
		border = lipgloss.AdaptiveColor{Light: "#A0A0A0", Dark: "#5F5F5F"}
		hiBg   = lipgloss.AdaptiveColor{Light: "#E4DEFF", Dark: "#3A2F6B"}
	)
	s := r.NewStyle
	return Styles{
		Header:   s().Bold(true),
		Mode:     s().Bold(true).Foreground(accent),
		Title:    s().Bold(true).Foreground(accent),
		Muted:    s().Foreground(muted),
		Row:      s(),
		Cursor:   s().Background(hiBg).Bold(true),
		Selected: s().Foreground(accent),
		Invalid:  s().Foreground(bad).Italic(true),
		Good:     s().Foreground(good),
		Warn:     s().Foreground(warn),
		Bad:      s().Foreground(bad).Bold(true),
		Box:      s().Border(lipgloss.NormalBorder()).BorderForeground(border).Padding(0, 1),
		Focused:  s().Border(lipgloss.NormalBorder()).BorderForeground(accent).Padding(0, 1),
		Prompt:   s().Foreground(accent).Bold(true),
		Help:     s().Foreground(muted),
		Key:      s().Bold(true),
	}
}
