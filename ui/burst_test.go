package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// Keys that reach the program together, as a slow SSH link delivers them
// (several runes in one message, an Esc glued to the key after it), are
// keys: each a command while no text field has focus, in order; the text
// of a field once one of them opens it; never a question's yes.
func TestKeysThatComeTogetherAreKeys(t *testing.T) {
	h := newHarness(t, service(t, nil), 100, 30)
	h.paste("r1@example.com r2@example.com r3@example.com r4@example.com r5@example.com")
	h.mustSee("List · 5 entries")

	// Esc alone, then g t G d d in one message: to the top, t (row 1 is
	// the ticket's: it says so), to the bottom, delete the last two rows.
	h.keys("esc", "gtGdd")
	h.mustSee("List · 3 entries", "r1@example.com", "r3@example.com")
	h.mustNotSee("r4@example.com", "r5@example.com", "> gtGdd")
	if v := h.m.build.input.Value(); v != "" {
		t.Fatalf("the burst typed %q into the entry field", v)
	}

	// From the entry field, Esc glued to the burst (Alt+g on the wire).
	h.keys("i")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("g"), Alt: true})
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("dd")})
	h.mustSee("List · 1 entry", "r3@example.com")
	if v := h.m.build.input.Value(); v != "" || h.m.build.focus != focusList {
		t.Fatalf("the burst after Esc typed %q (focus %d)", v, h.m.build.focus)
	}

	// A key that opens a field: the rest of the burst is its text.
	h.keys("is1@example.com")
	if v := h.m.build.input.Value(); v != "s1@example.com" {
		t.Fatalf("after i the burst typed %q, want s1@example.com", v)
	}
	h.keys("enter", "esc")
	h.mustSee("List · 2 entries", "s1@example.com")

	// A question the burst raises takes the rest as its default: X then
	// y in one message clears nothing.
	h.keys("Xy")
	h.mustSee("List · 2 entries")
	h.mustNotSee("Clear all", "Cleared")

	// A key with something to do first (the review) has it done before
	// the next: r then "add" types the confirmation.
	h.keys("radd")
	h.mustSee("Review · add", `Type "add" and press Enter to send: add`)
	if strings.Contains(h.view(), "List · ") {
		t.Fatalf("the review did not open:\n%s", h.view())
	}
}

// pasteUnread sends a bracketed paste and keeps the command that reads it:
// the keys a test sends next arrive while the paste is being read.
func (h *harness) pasteUnread(s string) tea.Cmd {
	h.t.Helper()
	nm, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true})
	h.m = nm.(Model)
	if h.m.build.reading == 0 {
		h.t.Fatal("the paste is not being read")
	}
	return cmd
}

// Keys pressed while a paste is read wait for it, and then are keys, one
// by one, as keys that came together: Esc and a burst g t G d d typed
// during the read delete rows of the pasted list and type nothing.
func TestKeysHeldDuringAPasteReadAreKeys(t *testing.T) {
	h := newHarness(t, service(t, nil), 100, 30)
	read := h.pasteUnread("r1@example.com r2@example.com r3@example.com r4@example.com r5@example.com")
	h.keys("esc", "gtGdd")
	h.mustSee("List · 0 entries")
	h.run(read)
	h.mustSee("List · 3 entries", "r1@example.com", "r3@example.com")
	h.mustNotSee("r4@example.com", "r5@example.com", "gtGdd")
	if v := h.m.build.input.Value(); v != "" || h.m.build.focus != focusList {
		t.Fatalf("the held burst typed %q (focus %d)", v, h.m.build.focus)
	}

	// Keys held, a field opened by one of them: the runes after it are
	// its text, and the Enter after them is Enter.
	h = newHarness(t, service(t, nil), 100, 30)
	read = h.pasteUnread("s1@example.com")
	h.keys("esc", "i", "s2@example.com", "enter")
	h.run(read)
	h.mustSee("List · 2 entries", "s1@example.com", "s2@example.com")
	if v := h.m.build.input.Value(); v != "" || h.m.build.focus != focusEntry {
		t.Fatalf("the entry field holds %q (focus %d)", v, h.m.build.focus)
	}
}

// A paste of another ticket asks where it goes; the keys typed while it
// was read answer nothing (they are dropped, and said so); Enter starts a
// new list in the mode the new ticket proposes, and u brings the first
// ticket's list back with its reference and its proposal.
func TestNewListForAnotherTicketProposesItsMode(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.paste("Subject: [#1111] unsubscribe\nPlease unsubscribe a1@example.com and a2@example.com\n")
	h.mustSee("List · 2 entries", "mode: add · ticket line 2")
	read := h.pasteUnread(putMeBack)
	h.keys("n", "y")
	h.run(read)
	h.mustSee("New list for this paste? enter/y: new list · n: add it to the 2 unsent entries of ticket #1111")
	if !strings.Contains(h.m.notice, "2 keys typed while the paste was read were dropped") {
		t.Fatalf("notice %q", h.m.notice)
	}
	h.mustSee("List · 2 entries")
	h.keys("enter")
	h.mustSee("List · 2 entries · 2 valid · 0 invalid · 1 left out", "omar@customer.test", "mode: remove by address · ticket line 5",
		"A new list for this paste (u brings back the 2 unsent entries of ticket #1111).",
		`Mode: remove by address, as the ticket asks to get mail again`)
	h.mustNotSee("a1@example.com")
	h.keys("ctrl+s")
	h.mustSee("Review · remove by address", "Ticket: #7001")
	h.mustNotSee("Which mode?")
	h.keys("esc", "esc", "u")
	h.mustSee("List · 2 entries", "a1@example.com", "mode: add · ticket line 2", "Undid new list.")
	h.mustNotSee("omar@customer.test", "u brings back")
	h.keys("ctrl+s")
	h.mustSee("Review · add", "Ticket: #1111")
	h.mustNotSee("#7001", "Which mode?")
}
