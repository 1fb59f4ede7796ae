package ui

import (
	"github.com/charmbracelet/bubbles/help"
	tea "github.com/charmbracelet/bubbletea"
)

// screen is what every screen of the UI implements. The root holds the
// screens and routes to the one in front; it never writes their fields:
// what it asks of a screen is a method the screen owns.
type screen interface {
	// update handles a message meant for the screen.
	update(msg tea.Msg) tea.Cmd
	// render draws the screen's body.
	render() string
	// help is the screen's keys for the footer (the help is the
	// behaviour: the same bindings are matched).
	help(g globalKeys) help.KeyMap
	// setSize gives the screen the space below the header and above the
	// footer.
	setSize(w, h int)
	// keyMode says who gets a key while the screen is in front.
	keyMode() inputMode
	// owns reports whether msg is the screen's own: the answer to work
	// it started, which reaches it whether it is in front or not.
	owns(msg tea.Msg) bool
}

// inputMode decides at the root who gets a key.
type inputMode int

const (
	// normal: the global keys (help, screens, quit), then the screen's.
	normal inputMode = iota
	// typing: a text field has focus and takes every key but ctrl+c and
	// the function keys F1-F3.
	typing
	// sending: a send runs; its screen takes the keys (cancel), ctrl+c
	// asks to stop and quit.
	sending
)

// screenID names a screen.
type screenID int

const (
	scrBuild screenID = iota
	scrReview
	scrSend
	scrResults
	scrBrowse
	scrHistory
	scrCheck
	scrIntake
	scrDomains
	screenCount
)

// The modes of the screens.

func (b *build) keyMode() inputMode {
	if b.focus != focusList {
		return typing
	}
	return normal
}

// keyMode of the review: its fields take the keys, but the Requester
// section is a list, whose keys are commands. The question for the mode
// takes its keys as a field does: keys that came together reach it as
// one text, which answers nothing ("add1" is not a 1).
func (r *review) keyMode() inputMode {
	if r.focus == focusPeople {
		return normal
	}
	return typing
}

func (s *sender) keyMode() inputMode { return sending }

func (r *results) keyMode() inputMode {
	if r.exporting {
		return typing
	}
	return normal
}

func (b *browse) keyMode() inputMode {
	if b.looking {
		return typing
	}
	return normal
}

func (h *history) keyMode() inputMode {
	switch {
	case h.sync != nil && h.sync.busy():
		return sending
	case h.typing, h.sync != nil:
		return typing
	}
	return normal
}

// What each screen owns.

func (b *build) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case fileLoadedMsg, pasteReadMsg, pasteMsg:
		return true
	}
	return false
}

func (r *review) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case previewMsg, complaintsOKMsg:
		return true
	}
	return false
}

func (s *sender) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case progressMsg, sentMsg:
		return true
	}
	return false
}

func (r *results) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case exportedMsg, undoPlannedMsg:
		return true
	}
	return false
}

func (b *browse) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case pageMsg, takenMsg:
		return true
	}
	return false
}

func (h *history) owns(msg tea.Msg) bool {
	_, ok := msg.(historyMsg)
	return ok
}

func (c *checker) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case checkedMsg, checkWrittenMsg, trailMsg:
		return true
	}
	return false
}

func (in *intake) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case reviewMsg, decidedMsg, intakeTickMsg:
		return true
	}
	return false
}

func (d *domains) owns(msg tea.Msg) bool {
	switch msg.(type) {
	case domainsMsg, domainsTickMsg:
		return true
	}
	return false
}
