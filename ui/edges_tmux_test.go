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
	start := func(t *testing.T, w, h int) (*tmuxSession, string) {
		return startTmuxWith(t, bin, t.TempDir(), w, h)
	}
	paste := func(s *tmuxSession, dir, name, text string) {
		path := filepath.Join(dir, name+".txt")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		s.tmux("load-buffer", "-b", name, path)
		s.tmux("paste-buffer", "-p", "-b", name, "-t", "ui")
	}
	keys := func(s *tmuxSession, k ...string) { s.tmux(append([]string{"send-keys", "-t", "ui"}, k...)...) }

	// Enter on "New list for this paste?" starts a new list: the second
	// ticket's addresses alone, under its reference; one u brings the
	// first ticket's list back.
	t.Run("enter on the new-list question", func(t *testing.T) {
		s, dir := start(t, 120, 30)
		paste(s, dir, "first", "Subject: [#1111] unsubscribe\nPlease remove a1@example.com and a2@example.com\n")
		s.waitScreen("List · 2 entries")
		paste(s, dir, "second", "Subject: [#2222] stop\nPlease remove b1@example.com\n")
		s.waitScreen("New list for this paste? enter/y: new list · n: add it to the 2 unsent entries of ticket #1111",
			"enter/y new list • n add it to the list • esc drop the paste")
		keys(s, "Enter")
		scr := s.waitScreen("List · 1 entry", "b1@example.com", "A new list for this paste (u brings back the 2 unsent entries of ticket #1111).")
		if strings.Contains(scr, "a1@example.com") {
			t.Fatalf("Enter merged the two tickets:\n%s", scr)
		}
		keys(s, "C-s")
		scr = s.waitScreen("Review · add", "1 address in 1 batch", "Ticket: #2222")
		if strings.Contains(scr, "a1@example.com") || strings.Contains(scr, "#1111") {
			t.Fatalf("the review holds the first ticket:\n%s", scr)
		}
		s.esc()
		s.waitScreen("List · 1 entry")
		s.esc()
		keys(s, "u")
		s.waitScreen("List · 2 entries", "a1@example.com", "Undid new list.")
	})

	// After Esc, a burst of keys as a slow link delivers them (several
	// runes in one read; then Esc glued to the burst) are commands on the
	// list: rows deleted, nothing typed.
	t.Run("a key burst after Esc", func(t *testing.T) {
		s, dir := start(t, 100, 30)
		paste(s, dir, "ticket", "Please remove r1@example.com r2@example.com r3@example.com r4@example.com r5@example.com r6@example.com\n")
		s.waitScreen("List · 6 entries")
		s.esc()
		keys(s, "-l", "gtGdd")
		scr := s.waitScreen("List · 4 entries", "Deleted 1 row (u undoes).")
		if strings.Contains(scr, "r5@example.com") || strings.Contains(scr, "gtGdd") || strings.Contains(scr, "> gt") {
			t.Fatalf("the burst after Esc did not act on the list:\n%s", scr)
		}
		// From the entry field: Esc and the burst in one write.
		keys(s, "i")
		s.waitScreen("enter add • tab/esc to the list")
		keys(s, "Escape", "gtGdd")
		scr = s.waitScreen("List · 2 entries")
		if strings.Contains(scr, "gtGdd") || strings.Contains(scr, "tGdd") || strings.Contains(scr, "r3@example.com") {
			t.Fatalf("the burst glued to Esc did not act on the list:\n%s", scr)
		}
		s.waitScreen("r1@example.com", "r2@example.com", "> paste a ticket or type an address, then Enter")
	})

	// ctrl+s sends from the review's Requester section, as its footer
	// says; Enter there goes to the confirmation.
	t.Run("ctrl+s in the Requester section", func(t *testing.T) {
		s, dir := start(t, 110, 32)
		paste(s, dir, "ticket", strings.Join([]string{
			"From: Jane Doe <jane@customer.test>",
			"To: support@ourcompany.test",
			"Cc: Tom Berg <tom@customer.test>",
			"Subject: Re: [#5521] product updates",
			"",
			"Please unsubscribe me and my colleague (cc'd) from the product updates.",
		}, "\n")+"\n")
		s.waitScreen("jane@customer.test  ✓ the requester asks for themselves")
		keys(s, "C-s")
		s.waitScreen("Review · add", "Left out: 1, taken in: 2 · tab: choose")
		for range 4 { // the ticket, the note, the expiry, the Requester section
			keys(s, "Tab")
		}
		s.waitScreen("Left out: 1, taken in: 2 · ↑/↓ choose", "ctrl+s send")
		keys(s, "C-s")
		s.waitScreen("Results · add", "2 entries: 2 added", "ticket #5521")
	})

	// A removal by ID of a ticket that names the person by address and by
	// ID: the results show the entry once, removed; the address is not
	// listed again as invalid.
	t.Run("remove-by-ID results show each entry once", func(t *testing.T) {
		s, dir := start(t, 120, 30)
		paste(s, dir, "add", "jane@example.com\n")
		s.waitScreen("List · 1 entry")
		keys(s, "C-s")
		s.waitScreen("Review · add")
		keys(s, "C-s")
		scr := s.waitScreen("1 entry: 1 added")
		id := uuidRE.FindString(scr)
		if id == "" {
			t.Fatalf("no ID in the results:\n%s", scr)
		}
		keys(s, "n")
		s.waitScreen("List · 0 entries")
		s.esc()
		keys(s, "m")
		s.waitScreen("mode: remove by address")
		keys(s, "m")
		s.waitScreen("mode: remove by ID")
		paste(s, dir, "remove", "Subject: [#3333] remove\nPlease release jane@example.com, suppression ID "+id+", thanks\n")
		s.waitScreen("List · 2 entries · 1 valid · 1 invalid")
		keys(s, "r")
		s.waitScreen("Preview: 1 on the list", "Named twice: jane@example.com (line 2), the same entry as another row")
		keys(s, "-l", "remove")
		keys(s, "Enter")
		scr = s.waitScreen("Results · remove by ID", "1 entry: 1 removed", "deleted: true")
		if n := strings.Count(scr, "jane@example.com"); n != 1 || strings.Contains(scr, "invalid") {
			t.Fatalf("the results show jane@example.com %d times:\n%s", n, scr)
		}
		keys(s, "h")
		scr = s.waitScreen("History · 2 runs", "1 removed")
		if strings.Contains(scr, "invalid") {
			t.Fatalf("the history counts the address as invalid:\n%s", scr)
		}
	})

	// Esc clears the History search, as the footer says while one is set.
	t.Run("Esc clears the History search", func(t *testing.T) {
		s, dir := start(t, 110, 30)
		for _, tk := range []string{"1111", "2222"} {
			paste(s, dir, tk, "Subject: [#"+tk+"] stop\nPlease stop x"+tk+"@example.com\n")
			s.waitScreen("x" + tk + "@example.com")
			keys(s, "C-s")
			s.waitScreen("Review · add", "Ticket: #"+tk)
			keys(s, "C-s")
			s.waitScreen("1 entry: 1 added")
			keys(s, "n")
			s.waitScreen("List · 0 entries")
		}
		s.esc()
		keys(s, "h")
		s.waitScreen("History · 2 runs", "#1111", "#2222")
		keys(s, "/")
		s.waitScreen("Find:")
		keys(s, "-l", "1111")
		keys(s, "Enter")
		scr := s.waitScreen(`History · 1 of 2 runs match "1111"`, "esc show all")
		if strings.Contains(scr, "#2222") {
			t.Fatalf("the search shows the other run:\n%s", scr)
		}
		s.esc()
		scr = s.waitScreen("History · 2 runs ·", "#1111", "#2222")
		if strings.Contains(scr, "match") || strings.Contains(scr, "esc show all") {
			t.Fatalf("Esc left the search on:\n%s", scr)
		}
	})
}
