package ui

import (
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
)

// prompt is a yes/no question before something destructive. Only y or Y
// answers yes; every other key, Enter included, answers no, so a stray key
// (or a pasted line's Enter) can never confirm.
// yesKey answers a prompt; any other key is no.
var yesKey = key.NewBinding(key.WithKeys("y", "Y"))

type prompt struct {
	question string
	yes, no  tea.Cmd
}

func ask(question string, yes tea.Cmd) tea.Cmd { return askOr(question, yes, nil) }

// askOr is ask with what any other answer does.
func askOr(question string, yes, no tea.Cmd) tea.Cmd {
	return func() tea.Msg { return promptMsg{&prompt{question: question, yes: yes, no: no}} }
}

// answer handles a key and says what follows.
func (p *prompt) answer(msg tea.KeyMsg) tea.Cmd {
	if !msg.Paste && key.Matches(msg, yesKey) {
		return p.yes
	}
	return p.no
}

// view is the question on one line; a question too long for the
// terminal is cut, never its [y/N].
func (p *prompt) view(c *Common) string {
	const yn = " [y/N]"
	return c.Styles.Prompt.Render(truncate(p.question, max(c.Width-len(yn), 10)) + yn)
}
