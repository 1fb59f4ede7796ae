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
