package ui

import "testing"

// Every screen is reached without function keys (laptops need Fn, some
// terminals take F1 for themselves), and ? shows all keys from the start.
func TestScreensWithoutFunctionKeys(t *testing.T) {
	s, _ := startTmux(t, 100, 30)
	// In the empty entry field, ? is the help: what works while typing.
	s.tmux("send-keys", "-t", "ui", "?")
	s.waitScreen("F1", "build list", "F2", "browse the list", "F3", "ctrl+c", "all keys")
	s.tmux("send-keys", "-t", "ui", "?")
	s.waitGone("build list")
	s.tmux("send-keys", "-t", "ui", "-l", "nav@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("List · 1 entry")
	s.esc()
	// On the list: the screens by letter.
	s.tmux("send-keys", "-t", "ui", "?")
	s.waitScreen("b/F1", "build list", "l/F2", "browse the list", "h/F3", "history")
	s.tmux("send-keys", "-t", "ui", "?")
	s.waitGone("b/F1")
	s.tmux("send-keys", "-t", "ui", "h")
	s.waitScreen("History · 0 runs")
	s.tmux("send-keys", "-t", "ui", "l")
	s.waitScreen("Browse · page 1")
	s.tmux("send-keys", "-t", "ui", "b")
	s.waitScreen("List · 1 entry", "nav@example.com")
	s.tmux("send-keys", "-t", "ui", "r")
	s.waitScreen("Review · add")
	s.tmux("send-keys", "-t", "ui", "-l", "add")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("Results · add", "1 entry: 1 added")
	s.tmux("send-keys", "-t", "ui", "h")
	s.waitScreen("History · 1 run")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("Results · add")
}
