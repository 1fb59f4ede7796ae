package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A ticket pasted without bracketed-paste markers (tmux's plain
// paste-buffer, screen, some terminals) while the list has focus is text:
// its words do not delete rows, switch the mode or open anything.
func TestUnbracketedPasteIsText(t *testing.T) {
	s, dir := startTmux(t, 100, 30)
	s.tmux("send-keys", "-t", "ui", "-l", "first@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("List · 1 entry ")
	s.esc()
	ticket := "dd mm uu x o q\r\nplease delete my data and move me off: dan@example.com\r\neve@example.com too, thanks\r\n"
	path := filepath.Join(dir, "plain.txt")
	os.WriteFile(path, []byte(ticket), 0o600)
	s.tmux("load-buffer", "-b", "plain", path)
	s.tmux("paste-buffer", "-b", "plain", "-t", "ui")
	// The first address, sent at once, came as a paste too: the second
	// paste asks whether it is another ticket's (n adds it to this list).
	s.waitScreen("New list for this paste? enter/y: new list · n: add it to the 1 unsent entry of another paste")
	s.tmux("send-keys", "-t", "ui", "n")
	scr := s.waitScreen("Paste: 2 added, 0 skipped as duplicates, 0 invalid.", "List · 3 entries · 3 valid")
	for _, want := range []string{"mode: add", "first@example.com", "dan@example.com", "eve@example.com"} {
		if !strings.Contains(scr, want) {
			t.Fatalf("after the paste the screen lacks %q:\n%s", want, scr)
		}
	}
	if strings.Contains(scr, "Open a file") || strings.Contains(scr, "Clear all") {
		t.Fatalf("the paste's words acted as keys:\n%s", scr)
	}
}
