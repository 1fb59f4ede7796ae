package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// prompt is a question on the status line, answered by one key. Its
// default is the safe choice: Enter and every key the prompt does not
// name give it, and so does a paste or keys that came together, so a
// stray key (or a pasted line's Enter) never picks another answer.
type prompt struct {
	question string
	// legend says what the keys do, after the question: "[y/N]" for a
	// yes/no question, whose default is no.
	legend string
	// def is the default's command, defHelp what the footer says of it;
	// other are the answers by key.
	def     tea.Cmd
	defHelp key.Binding
	other   []answer
}

// answer is a key of a prompt and what it does.
type answer struct {
	keys key.Binding
	do   tea.Cmd
}

// yesKey says yes to a yes/no question; any other key is no.
var yesKey = kbh("y", "yes", "y", "Y")

// ask is a yes/no question before something destructive: only y says yes.
func ask(question string, yes tea.Cmd) tea.Cmd { return askOr(question, yes, nil) }

// askOr is ask with what any other answer does.
func askOr(question string, yes, no tea.Cmd) tea.Cmd {
	return choose(question, "[y/N]", kbh("enter/any other key", "no", "enter"), no, answer{yesKey, yes})
}

// choose is a question whose answers each do something: def is the safe
// choice (Enter and any key not named; defHelp says what it does), other
// the answers by key; the question (or legend) names every key and what
// it does.
func choose(question, legend string, defHelp key.Binding, def tea.Cmd, other ...answer) tea.Cmd {
	p := &prompt{question: question, legend: legend, def: def, defHelp: defHelp, other: other}
	return func() tea.Msg { return promptMsg{p} }
}

// help is the footer while the question waits: its keys, the default
// first.
func (p *prompt) help() keyMap {
	b := []key.Binding{p.defHelp}
	for _, a := range p.other {
		b = append(b, a.keys)
	}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

// answer handles a key and says what follows.
func (p *prompt) answer(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste {
		return p.def
	}
	for _, a := range p.other {
		if key.Matches(msg, a.keys) {
			return a.do
		}
	}
	return p.def
}

// view is the question on one line; a question too long for the
// terminal is cut, never its legend. A question that names its keys
// itself (no legend) puts them first and is cut at its end.
func (p *prompt) view(c *Common) string {
	if p.legend == "" {
		return c.Styles.Prompt.Render(truncate(p.question, c.Width))
	}
	legend := " " + p.legend
	return c.Styles.Prompt.Render(truncate(p.question, max(c.Width-lipgloss.Width(legend), 10)) + legend)
}
