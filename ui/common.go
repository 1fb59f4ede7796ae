package ui

import (
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// Common is what every screen shares: the space it has, the styles and the
// target it works on.
type Common struct {
	Width, Height int
	Styles        Styles
	Target        Target
	// Service is the service the UI works on; Runs its run service, where
	// its runs (and the CLI's) are recorded.
	Service *client.Client
	Runs    *batch.Runs
	// Checker says which addresses are listed (the bulk check, or look-ups
	// once the service has shown it has none), for the check and the
	// review.
	Checker *batch.Checker
	// Own is our own addresses and domains (config own): never sent.
	Own ticket.Own
	r   *lipgloss.Renderer
	// after schedules msg in d (tea.Tick); the tests that drive the model
	// by hand, to quiescence, have no clock to wait on.
	after func(d time.Duration, msg tea.Msg) tea.Cmd
}

// targetOf names where a run was sent: this UI's target label when it is
// this service, else as people know it (client.TargetName): a local list
// (of another database) is never named by its made-up URL.
func (c *Common) targetOf(target string) string {
	if c.Service != nil && client.SameTarget(target, c.Service.BaseURL()) {
		return c.Target.label()
	}
	if name := client.TargetName(target); name != "local list" {
		return name
	}
	return "another local list"
}

// ours reports whether a recorded run was sent to the service the UI
// works on, so that it can be resumed or undone here.
func (c *Common) ours(run *Run) bool {
	return run.ID != "" && c.Runs.Dir != "" && c.Service != nil && client.SameTarget(run.Target, c.Service.BaseURL())
}

// lines is the height of one line of text in each style, borders,
// padding and margins included: the chrome around a screen's flexible
// part, measured as it renders rather than counted by hand.
func lines(styles ...lipgloss.Style) int {
	n := 0
	for _, s := range styles {
		n += lipgloss.Height(s.Render("x"))
	}
	return n
}

// Minimum terminal size; below it the UI shows a message instead.
const (
	minWidth  = 60
	minHeight = 16
)

// newTable is a focused table in the UI's styles.
func (c *Common) newTable() table.Model {
	t := table.New(table.WithFocused(true))
	ts := table.DefaultStyles()
	ts.Header = c.r.NewStyle().Bold(true).Padding(0, 1)
	ts.Cell = c.r.NewStyle().Padding(0, 1)
	ts.Selected = c.Styles.Cursor
	t.SetStyles(ts)
	return t
}

// fieldKey handles a key for an open one-line field: esc closes it, enter
// closes it and submits its trimmed value (submitted is false when there
// is none), any other key edits it.
func fieldKey(in *textinput.Model, msg tea.KeyMsg) (value string, submitted, closed bool, cmd tea.Cmd) {
	enter := key.Matches(msg, fieldKeys.Submit)
	if enter || key.Matches(msg, fieldKeys.Cancel) {
		in.Blur()
		value = strings.TrimSpace(in.Value())
		return value, enter && value != "", true, nil
	}
	*in, cmd = in.Update(msg)
	return "", false, false, cmd
}
