package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// The messages that go from one screen to another through the root. A
// screen's own messages (its look-ups, pages, progress) stay beside it.

// supportsMsg is the service's answer to probe seq: whether it answers,
// whether it offers look-ups and the list, and (when asked) whether it
// refuses changes from this key.
type supportsMsg struct {
	seq   int
	ok    bool
	err   error
	asked bool
	// readOnly is the answer when asked.
	readOnly bool
}

// probeMsg is the turn of probe seq to ask the service again.
type probeMsg struct{ seq int }

// serviceNews is a message that carries what a request of a screen met:
// answered says one succeeded, which the header takes as news that the
// service answers, at once, whatever its last probe said; failed says one
// got no answer (or a 5xx), which has the header ask again now.
type serviceNews interface {
	news() (answered, failed bool)
}

// quitMsg ends the program (after a send in flight has stopped).
type quitMsg struct{}

// helpMsg asks the root to show all keys (or the short line again).
type helpMsg struct{}

// promptMsg puts a y/N question on the status line.
type promptMsg struct{ p *prompt }

// interruptedMsg offers, at start, to finish a run that did not.
type interruptedMsg struct{ run batch.RunInfo }

// startReviewMsg asks the root to open the Review screen.
type startReviewMsg struct{}

// startCheckMsg asks the root to check the build list (look up, send
// nothing).
type startCheckMsg struct{}

// backMsg asks the root to go back to the Build screen.
type backMsg struct{}

// clearMsg and deleteMsg are the Build screen's confirmed clear and
// delete of rows.
type (
	clearMsg  struct{}
	deleteMsg struct{ rows map[int]bool }
)

// useMarkedMsg carries the IDs marked in Browse to the Build screen;
// replace says the agent agreed to replace an unsent list with them.
type useMarkedMsg struct {
	ids     []string
	replace bool
}

// modeMsg is the Build screen's confirmed switch of a list with rows to
// another mode.
type modeMsg struct{ mode batch.Mode }

// restoreMsg puts rows on the Build screen as a new list: a run opened
// from History as a new list, or a draft brought back. note says so.
type restoreMsg struct {
	mode  batch.Mode
	items []batch.Item
	roles []ticket.Decision
	ref   ticket.Reference
	note  string
}

// useSearchMsg carries every match of a Browse search to the Build screen,
// to remove; replace says the agent agreed to replace an unsent list.
type useSearchMsg struct {
	search  api.Search
	emails  []string
	replace bool
}

// startSendMsg asks the root to send a plan.
type startSendMsg struct {
	job  sendJob
	plan *batch.Input
}

// runDoneMsg hands a finished (or cancelled) run to the Results screen;
// note says what went wrong beyond the results, if anything.
type runDoneMsg struct {
	run  *Run
	note string
}

// runFailedMsg says a resume could not start.
type runFailedMsg struct{ err error }

// openRunMsg is a run of the history, read for the Results screen.
type openRunMsg struct {
	run *Run
	err error
}

// retryMsg asks the root to resume a run; undoRunMsg to send the undo of
// one; newBatchMsg to start a new list, with the paste that asked for it
// (the next ticket, pasted on the Results screen), if one did.
type (
	retryMsg    struct{ run *Run }
	undoRunMsg  struct{ undo batch.Undo }
	newBatchMsg struct{ paste *tea.KeyMsg }
)
