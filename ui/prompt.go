package ui

import (
	tea "github.com/charmbracelet/bubbletea"
)

// prompt is a yes/no question before something destructive. Only y or Y
// answers yes; every other key, Enter included, answers no, so a stray key
// (or a pasted line's Enter) can never confirm.
type prompt struct {
	question string
	yes      tea.Cmd
}

type promptMsg struct{ p *prompt }

func ask(question string, yes tea.Cmd) tea.Cmd {
	return func() tea.Msg { return promptMsg{&prompt{question: question, yes: yes}} }
}

// answer handles a key and says whether the prompt is done.
func (p *prompt) answer(msg tea.KeyMsg) tea.Cmd {
	if !msg.Paste && (msg.String() == "y" || msg.String() == "Y") {
		return p.yes
	}
	return nil
}

func (p *prompt) view(c *Common) string {
	return c.Styles.Prompt.Render(p.question + " [y/N]")
}
