package ui

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// A ticket that asks to be forgotten, in the built binary on the local
// list: it opens in the mode erase with its words and line, the review
// says what erasing means and wants the word "erase" typed, the results
// say erased; afterwards the address's bytes are in none of the files of
// the data and state directories (the local list's database, the run
// journals, the drafts), though an earlier add run named it.
func TestEraseTicketInTmux(t *testing.T) {
	s, dir := startTmux(t, 140, 36)
	const addr = "ana.gone@customer.test"
	s.keys("-l", addr)
	s.keys("Enter")
	s.waitScreen("List · 1 entry")
	s.esc()
	s.keys("r")
	s.waitScreen("Review · add")
	s.keys("-l", "add")
	s.keys("Enter")
	s.waitScreen("Results · add", "1 entry: 1 added")
	home := filepath.Join(dir, "home", ".local")
	if len(filesHolding(t, home, addr)) == 0 {
		t.Fatal("no file names the address after the add: the search would find nothing")
	}

	s.keys("b")
	s.waitScreen("List · 0 entries") // a sent list is cleared for the next ticket
	s.pasteFile(dir, "forget", "From: Ana Gone <"+addr+">\nSubject: right to be forgotten\n\n"+
		"Hello, I am exercising my right to erasure. Please delete my data and never email me again.\n\nAna\n")
	s.waitScreen("mode: erase · ticket line 4", "asks to be forgotten", addr)
	s.keys("C-s")
	s.waitScreen("Review · erase", "This erases 1 address", "It cannot be undone")
	s.keys("C-s") // no quick send for an erasure: the word must be typed
	s.keys("-l", "erase")
	s.keys("Enter")
	s.waitScreen("Results · erase", "1 entry: 1 erased")
	if got := filesHolding(t, home, addr); len(got) > 0 {
		t.Errorf("after the erasure the address is in %v", got)
	}
}

// filesHolding names the files under root that hold s.
func filesHolding(t *testing.T, root, s string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if bytes.Contains(bytes.ToLower(b), []byte(s)) {
			out = append(out, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
