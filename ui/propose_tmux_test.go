package ui

import (
	"strings"
	"testing"
	"time"
)

// The mode a ticket asks for, in the built binary: a "put me back" ticket
// opens in remove by address with its words and line; a ticket that only
// asks whether its writer is blocked sends nothing on ctrl+s ctrl+s (the
// review asks for the mode); a ticket of suppression IDs pasted in add
// keeps its IDs when switched to remove by ID.
func TestTicketModeInTmux(t *testing.T) {
	s, dir := startTmux(t, 120, 32)
	s.pasteFile(dir, "back", putMeBack)
	s.waitScreen("mode: remove by address · ticket line 5",
		`Mode: remove by address, as the ticket asks to get mail again (line 5: "I unsubscribed by mistake")`,
		"omar@customer.test  ✓ the requester asks for themselves")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · remove by address", "Ticket: #7001")
	s.esc()
	s.waitScreen("List · 2 entries")
	s.esc() // to the list

	// A check ticket: the habit sends nothing.
	s.tmux("send-keys", "-t", "ui", "X")
	s.waitScreen("Clear all 2 entries? [y/N]")
	s.tmux("send-keys", "-t", "ui", "y")
	s.waitScreen("List · 0 entries")
	s.tmux("send-keys", "-t", "ui", "m")
	s.waitScreen("mode: remove by ID")
	s.tmux("send-keys", "-t", "ui", "m")
	s.waitScreen("mode: add")
	s.pasteFile(dir, "check", "From: Lena <lena@customer.test>\nTo: support@ourcompany.test\n\nAm I on your block list? The invoices stopped arriving.\n")
	s.waitScreen("mode: add · ticket: check only", "lena@customer.test")
	for _, k := range []string{"C-s", "C-s", "Enter"} {
		s.tmux("send-keys", "-t", "ui", k)
		time.Sleep(150 * time.Millisecond)
	}
	s.waitScreen("Which mode? The ticket only asks whether they are blocked", "Choose the mode first", "nothing was sent")
	s.esc()
	s.tmux("send-keys", "-t", "ui", "F3")
	scr := s.waitScreen("History · ")
	if !strings.Contains(scr, "History · 0 runs") {
		t.Fatalf("a run was made from a ticket that only asks to check:\n%s", scr)
	}

	// A ticket of IDs that asks nothing clear: pasted in add it has no
	// rows of IDs; remove by ID reads the ticket again, and they are there.
	s.tmux("send-keys", "-t", "ui", "F1")
	s.waitScreen("List · 2 entries")
	s.esc()
	s.tmux("send-keys", "-t", "ui", "X")
	s.waitScreen("Clear all 2 entries? [y/N]")
	s.tmux("send-keys", "-t", "ui", "y")
	s.waitScreen("List · 0 entries")
	s.pasteFile(dir, "ids", "From: ops@customer.test\n\nThese two entries look wrong to us: 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a and "+
		"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b (jane@customer.test). What are they?\n")
	s.waitScreen("mode: add", "jane@customer.test")
	for _, k := range []string{"m", "y", "m", "y"} {
		s.tmux("send-keys", "-t", "ui", k)
		time.Sleep(150 * time.Millisecond)
	}
	s.waitScreen("mode: remove by ID", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b")
}
