package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The UI's edges in the built binary, with an agent's habits: Enter on a
// question, keys faster than the link, ctrl+s wherever the footer offers
// it, Esc to leave a search. One binary for all; each case in its own
// terminal and home.
func TestEdgesInTmux(t *testing.T) {
	bin, _ := buildShush(t)
	for _, c := range []struct {
		name string
		run  func(*testing.T, *tmuxSession, string)
		w, h int
	}{
		{"enter on the new-list question", edgeNewList, 120, 30},
		{"a key burst after Esc", edgeBurst, 100, 30},
		{"ctrl+s in the Requester section", edgeRequester, 110, 32},
		{"remove-by-ID results show each entry once", edgeOnce, 120, 30},
		{"Esc clears the History search", edgeHistory, 110, 30},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, dir := startTmuxWith(t, bin, t.TempDir(), c.w, c.h)
			c.run(t, s, dir)
		})
	}
}

// pasteFile pastes text with tmux's bracketed paste, through a file in dir.
func (s *tmuxSession) pasteFile(dir, name, text string) {
	s.t.Helper()
	path := filepath.Join(dir, name+".txt")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		s.t.Fatal(err)
	}
	s.tmux("load-buffer", "-b", name, path)
	s.tmux("paste-buffer", "-p", "-b", name, "-t", "ui")
}

// keys sends keys to the pane (tmux send-keys names, or -l and text).
func (s *tmuxSession) keys(k ...string) {
	s.t.Helper()
	s.tmux(append([]string{"send-keys", "-t", "ui"}, k...)...)
}

// Enter on "New list for this paste?" starts a new list: the second
// ticket's addresses alone, under its reference; one u brings the
// first ticket's list back.
func edgeNewList(t *testing.T, s *tmuxSession, dir string) {
	s.pasteFile(dir, "first", "Subject: [#1111] unsubscribe\nPlease remove a1@example.com and a2@example.com\n")
	s.waitScreen("List · 2 entries")
	s.pasteFile(dir, "second", "Subject: [#2222] stop\nPlease remove b1@example.com\n")
	s.waitScreen("New list for this paste? enter/y: new list · n: add it to the 2 unsent entries of ticket #1111",
		"enter/y new list • n add it to the list • esc drop the paste")
	s.keys("Enter")
	scr := s.waitScreen("List · 1 entry", "b1@example.com", "A new list for this paste (u brings back the 2 unsent entries of ticket #1111).")
	if strings.Contains(scr, "a1@example.com") {
		t.Fatalf("Enter merged the two tickets:\n%s", scr)
	}
	s.keys("C-s")
	scr = s.waitScreen("Review · add", "1 address in 1 batch", "Ticket: #2222")
	if strings.Contains(scr, "a1@example.com") || strings.Contains(scr, "#1111") {
		t.Fatalf("the review holds the first ticket:\n%s", scr)
	}
	s.esc()
	s.waitScreen("List · 1 entry")
	s.esc()
	s.keys("u")
	s.waitScreen("List · 2 entries", "a1@example.com", "Undid new list.")
}

// After Esc, a burst of keys as a slow link delivers them (several
// runes in one read; then Esc glued to the burst) are commands on the
// list: rows deleted, nothing typed.
func edgeBurst(t *testing.T, s *tmuxSession, dir string) {
	s.pasteFile(dir, "ticket", "Please remove r1@example.com r2@example.com r3@example.com r4@example.com r5@example.com r6@example.com\n")
	s.waitScreen("List · 6 entries")
	s.esc()
	s.keys("-l", "gtGdd")
	scr := s.waitScreen("List · 4 entries", "Deleted 1 row (u undoes).")
	if strings.Contains(scr, "r5@example.com") || strings.Contains(scr, "gtGdd") || strings.Contains(scr, "> gt") {
		t.Fatalf("the burst after Esc did not act on the list:\n%s", scr)
	}
	// From the entry field: Esc and the burst in one write.
	s.keys("i")
	s.waitScreen("enter add • tab/esc to the list")
	s.keys("Escape", "gtGdd")
	scr = s.waitScreen("List · 2 entries")
	if strings.Contains(scr, "gtGdd") || strings.Contains(scr, "tGdd") || strings.Contains(scr, "r3@example.com") {
		t.Fatalf("the burst glued to Esc did not act on the list:\n%s", scr)
	}
	s.waitScreen("r1@example.com", "r2@example.com", "> paste a ticket or type an address, then Enter")
}

// ctrl+s sends from the review's Requester section, as its footer
// says; Enter there goes to the confirmation.
func edgeRequester(t *testing.T, s *tmuxSession, dir string) {
	s.pasteFile(dir, "ticket", strings.Join([]string{
		"From: Jane Doe <jane@customer.test>",
		"To: support@ourcompany.test",
		"Cc: Tom Berg <tom@customer.test>",
		"Subject: Re: [#5521] product updates",
		"",
		"Please unsubscribe me and my colleague (cc'd) from the product updates.",
	}, "\n")+"\n")
	s.waitScreen("jane@customer.test  ✓ the requester asks for themselves")
	s.keys("C-s")
	s.waitScreen("Review · add", "Left out: 1, taken in: 2 · tab: choose")
	for range 4 { // the ticket, the note, the expiry, the Requester section
		s.keys("Tab")
	}
	s.waitScreen("Left out: 1, taken in: 2 · ↑/↓ choose", "ctrl+s send")
	s.keys("C-s")
	s.waitScreen("Results · add", "2 entries: 2 added", "ticket #5521")
}

// A removal by ID of a ticket that names the person by address and by
// ID: the results show the entry once, removed; the address is not
// listed again as invalid.
func edgeOnce(t *testing.T, s *tmuxSession, dir string) {
	s.pasteFile(dir, "add", "jane@example.com\n")
	s.waitScreen("List · 1 entry")
	s.keys("C-s")
	s.waitScreen("Review · add")
	s.keys("C-s")
	scr := s.waitScreen("1 entry: 1 added")
	id := uuidRE.FindString(scr)
	if id == "" {
		t.Fatalf("no ID in the results:\n%s", scr)
	}
	s.keys("n")
	s.waitScreen("List · 0 entries")
	s.esc()
	s.keys("m")
	s.waitScreen("mode: remove by address")
	s.keys("m")
	s.waitScreen("mode: remove by ID")
	s.pasteFile(dir, "remove", "Subject: [#3333] remove\nPlease release jane@example.com, suppression ID "+id+", thanks\n")
	s.waitScreen("List · 2 entries · 1 valid · 1 invalid")
	s.keys("r")
	s.waitScreen("Preview: 1 on the list", "Named twice: jane@example.com (line 2), the same entry as another row")
	s.keys("-l", "remove")
	s.keys("Enter")
	scr = s.waitScreen("Results · remove by ID", "1 entry: 1 removed", "deleted: true")
	if n := strings.Count(scr, "jane@example.com"); n != 1 || strings.Contains(scr, "invalid") {
		t.Fatalf("the results show jane@example.com %d times:\n%s", n, scr)
	}
	s.keys("h")
	scr = s.waitScreen("History · 2 runs", "1 removed")
	if strings.Contains(scr, "invalid") {
		t.Fatalf("the history counts the address as invalid:\n%s", scr)
	}
}

// Esc clears the History search, as the footer says while one is set.
func edgeHistory(t *testing.T, s *tmuxSession, dir string) {
	for _, tk := range []string{"1111", "2222"} {
		s.pasteFile(dir, tk, "Subject: [#"+tk+"] stop\nPlease stop mailing x"+tk+"@example.com\n")
		s.waitScreen("x" + tk + "@example.com")
		s.keys("C-s")
		s.waitScreen("Review · add", "Ticket: #"+tk)
		s.keys("C-s")
		s.waitScreen("1 entry: 1 added")
		s.keys("n")
		s.waitScreen("List · 0 entries")
	}
	s.esc()
	s.keys("h")
	s.waitScreen("History · 2 runs", "#1111", "#2222")
	s.keys("/")
	s.waitScreen("Find:")
	s.keys("-l", "1111")
	s.keys("Enter")
	scr := s.waitScreen(`History · 1 of 2 runs match "1111"`, "esc show all")
	if strings.Contains(scr, "#2222") {
		t.Fatalf("the search shows the other run:\n%s", scr)
	}
	s.esc()
	scr = s.waitScreen("History · 2 runs ·", "#1111", "#2222")
	if strings.Contains(scr, "match") || strings.Contains(scr, "esc show all") {
		t.Fatalf("Esc left the search on:\n%s", scr)
	}
}
