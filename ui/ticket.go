package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
)

// One ticket, one list: a list that went out does not stay on the Build
// screen to be appended to or sent again under the next ticket; nothing
// replaces an unsent list without asking (x in Browse, a mode switch with
// rows, a paste of another ticket, a run opened as a new list); and the
// unsent list is kept as a draft (draft.go).

// listSent starts the Build screen empty, in add mode, for the next
// ticket once the build list went out: the run keeps it (History, where o
// opens it as a new list). A list whose run could not be recorded, with
// entries left to send, stays: nothing else holds it.
func (m *Model) listSent(run *Run) {
	if run.ID == "" && run.Counts[batch.Failed]+run.Counts[batch.Unsent] > 0 {
		m.draftGen = -1 // kept: it is a draft again
		return
	}
	m.build.nextTicket()
}

// useMarked makes the entries marked in Browse the list, asking first when
// it would replace an unsent list.
func (m *Model) useMarked(msg useMarkedMsg) tea.Cmd {
	if n := m.build.list.len(); n > 0 && !msg.replace {
		ids := msg.ids
		return ask(fmt.Sprintf("Replace the %d unsent %s with the %d marked? (u brings %s back)",
			n, pluralN(n, "entry"), len(ids), itThem(n)),
			func() tea.Msg { return useMarkedMsg{ids: ids, replace: true} })
	}
	m.build.useMarked(msg.ids)
	m.browse.taken()
	m.goTo(scrBuild)
	return nil
}

// useSearch puts every match of a Browse search on the Build screen, to
// remove, asking first when it would replace an unsent list.
func (m *Model) useSearch(msg useSearchMsg) tea.Cmd {
	if n := m.build.list.len(); n > 0 && !msg.replace {
		again := msg
		again.replace = true
		return ask(fmt.Sprintf("The list holds %d unsent %s. Replace %s with the %d matches of %s? (u brings %s back)",
			n, pluralN(n, "entry"), itThem(n), len(msg.emails), msg.search, itThem(n)),
			func() tea.Msg { return again })
	}
	m.build.useSearch(msg.search, msg.emails)
	m.goTo(scrBuild)
	return nil
}

// listReadMsg is a recorded run read to be opened as a new list.
type listReadMsg struct {
	list restoreMsg
	err  error
}

// openList puts a run read from History on the Build screen as a new
// list, asking first when it would replace an unsent one.
func (m *Model) openList(msg listReadMsg) tea.Cmd {
	if msg.err != nil {
		m.notice = capitalize(msg.err.Error()) + "."
		return nil
	}
	list := msg.list
	open := func() tea.Msg { return list }
	if n := m.build.list.len(); n > 0 {
		return ask(fmt.Sprintf("Replace the %d unsent %s with this run's %d? (u brings %s back)",
			n, pluralN(n, "entry"), len(list.items), itThem(n)), open)
	}
	return open
}

// itThem is "it" for one, "them" for more.
func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}
