package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

// What a pasted ticket asks, as the screens show it: a paste onto an empty
// list sets the mode the ticket proposes and says why (the header and the
// status line: the mode, the ticket's words, the line); when the ticket
// is unsure, only asks to check, or the list's mode goes against its
// words, the review asks for the mode before anything can be sent.

// pasteReadMsg is a paste read away from the screen: the text read once
// (entries, ticket, reference, proposal), and its entries and their roles
// for the mode it proposes.
type pasteReadMsg struct {
	paste  *batch.Paste
	prop   ticket.Proposal
	mode   batch.Mode
	items  []batch.Item
	roles  []ticket.Decision
	source string
}

// readPaste reads a paste in a command: nothing of it is scanned on the
// screen's thread.
func readPaste(text, source string, current batch.Mode, own ticket.Own) tea.Cmd {
	return func() tea.Msg {
		p := batch.ReadPaste(text)
		msg := pasteReadMsg{paste: p, mode: current, source: source}
		if p.Ticket != nil && p.Ticket.IsTicket() {
			msg.prop = p.Ticket.Propose(own)
			msg.mode = proposedMode(msg.prop.Mode, current)
		}
		msg.items = p.Items(msg.mode)
		msg.roles = p.Roles(msg.items, own)
		return msg
	}
}

// proposedMode is the list mode a ticket's proposal sets: add, remove by
// address, remove by ID; a check or an unsure ticket leaves the mode as it
// is (the review asks).
func proposedMode(m ticket.Mode, current batch.Mode) batch.Mode {
	switch m {
	case ticket.ModeAdd:
		return batch.Add
	case ticket.ModeRemove:
		return batch.RemoveEmails
	case ticket.ModeRemoveIDs:
		return batch.RemoveIDs
	case ticket.ModeErase:
		return batch.Erase
	}
	return current
}

// evidence is the proposal's deciding line for people: `line 6: "put me
// back"`, "" for none. The words are the ticket's: sanitized.
func evidence(p ticket.Proposal) string {
	if p.By.Line == 0 {
		return ""
	}
	words := p.Words
	if r := []rune(words); len(r) > 50 {
		words = string(r[:49]) + "…"
	}
	return fmt.Sprintf("line %d: %q", p.By.Line, safe.Text(words))
}

// proposalStatus is the status line after a paste: the mode the list is in
// and why, or why the review will ask.
func proposalStatus(p ticket.Proposal, mode batch.Mode) string {
	ev := evidence(p)
	if ev != "" {
		ev = " (" + ev + ")"
	}
	switch {
	case p.Mode == ticket.ModeCheck:
		return fmt.Sprintf("The ticket %s%s: c checks the list and sends nothing; the review asks before any change.", p.Why, ev)
	case p.Mode == ticket.ModeUnsure:
		return fmt.Sprintf("The ticket is unsure: %s%s. The review asks for the mode before anything is sent.", p.Why, ev)
	case proposedMode(p.Mode, mode) != mode:
		return fmt.Sprintf("The ticket %s%s, but the list is in %s: the review asks for the mode.", p.Why, ev, mode)
	case len(p.Ask) > 0:
		return fmt.Sprintf("Mode: %s, as the ticket %s%s; the review asks first: %s.", mode, p.Why, ev, safe.Text(p.Ask[0]))
	}
	return fmt.Sprintf("Mode: %s, as the ticket %s%s; m changes it.", mode, p.Why, ev)
}

// proposalTag is what the header says beside the mode of a list with a
// ticket: where the mode came from, or that the review will ask.
func proposalTag(t tickets, mode batch.Mode) string {
	if !t.has {
		return ""
	}
	p := t.proposal
	switch {
	case t.hasAnswer && t.answered == mode:
		return " · chosen"
	case p.Mode == ticket.ModeCheck:
		return " · ticket: check only"
	case p.Mode == ticket.ModeUnsure && t.chosen:
		return " · chosen"
	case p.Mode == ticket.ModeUnsure:
		return " · ticket unsure"
	case proposedMode(p.Mode, mode) != mode:
		return " · ticket asks " + string(p.Mode)
	case p.By.Line > 0:
		return fmt.Sprintf(" · ticket line %d", p.By.Line)
	}
	return " · ticket"
}

// modeQuestion says why the review must ask for the mode before anything
// is sent, "" when it need not: the list's tickets are unsure (and the
// agent did not choose the mode by hand), ask only to check, leave
// something to settle (an address written out), or ask for another mode
// than the list's; an answer to the question holds for its mode.
func modeQuestion(t tickets, mode batch.Mode) string {
	if !t.has || t.hasAnswer && t.answered == mode {
		return ""
	}
	p := t.proposal
	ev := evidence(p)
	if ev != "" {
		ev = " (" + ev + ")"
	}
	switch {
	case p.Mode == ticket.ModeCheck:
		return fmt.Sprintf("The ticket %s%s: it asks to change nothing.", p.Why, ev)
	case p.Mode == ticket.ModeUnsure && !t.chosen:
		return fmt.Sprintf("The ticket is unsure: %s%s.", p.Why, ev)
	case p.Mode != ticket.ModeUnsure && proposedMode(p.Mode, mode) != mode:
		return fmt.Sprintf("The ticket %s%s, but the list is in %s.", p.Why, ev, mode)
	case len(p.Ask) > 0 && p.Mode != ticket.ModeUnsure:
		return fmt.Sprintf("The ticket %s%s; but %s.", p.Why, ev, safe.Text(p.Ask[0]))
	}
	return ""
}

// modeChosenMsg is the agent's answer to the review's question: send the
// list in mode (read anew for it).
type modeChosenMsg struct{ mode batch.Mode }
