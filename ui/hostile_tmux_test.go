package ui

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
	"github.com/shushlist/shush/server/store"
)

// Hostile text in a pasted ticket and in a file name reaches the terminal
// as visible escapes: the bytes the pane received hold no OSC 52 (the
// clipboard), no screen clear or cursor move from the text, no bidi
// override; the screen shows what the text holds.
func TestHostileTextNeverReachesTheTerminal(t *testing.T) {
	s, dir := startTmux(t, 120, 30)
	raw := filepath.Join(dir, "pane.raw")
	s.tmux("pipe-pane", "-O", "-t", "ui", "cat >> "+raw)

	ticket := "Please block ok@example.com and\n" +
		"x\x1b]52;c;aGk=\x07@example.com\n" +
		"y\x1b[2J\x1b[Hall-batches-succeeded@example.com\n" +
		"moc.elpmaxe@\u202eevil\n" +
		"title\x1b]0;pwned\x07@example.com\n"
	tf := filepath.Join(dir, "hostile-ticket.txt")
	os.WriteFile(tf, []byte(ticket), 0o600)
	s.tmux("load-buffer", "-b", "hostile", tf)
	s.tmux("paste-buffer", "-p", "-b", "hostile", "-t", "ui")
	// The ticket's tokens end at the escape's own separators; what is left
	// of each shows its control and format characters as escapes.
	s.waitScreen(`aGk=\x07@example.com  ✗`, `moc.elpmaxe@\u202eevil  ✗`, `pwned\x07@example.com  ✗`)

	// A file whose name carries an OSC 52 sequence, in the picker.
	evil := "evil\x1b]52;c;aGk=\x07name.txt"
	if err := os.WriteFile(filepath.Join(dir, evil), []byte("a@example.com\n"), 0o600); err != nil {
		t.Skipf("this file system refuses the name: %v", err)
	}
	s.tmux("send-keys", "-t", "ui", "C-o")
	s.waitScreen("Open a file", `evil\x1b]52;c;aGk=\x07name.txt`)
	s.tmux("send-keys", "-t", "ui", "Escape")
	time.Sleep(300 * time.Millisecond)
	s.tmux("pipe-pane", "-t", "ui") // stop piping, flush

	got, err := os.ReadFile(raw)
	if err != nil || len(got) == 0 {
		t.Fatalf("the pane's bytes were not recorded: %v", err)
	}
	for _, bad := range []string{"\x1b]52;", "\x1b]0;pwned", "\xe2\x80\xae", "\x1b[Hall"} {
		if bytes.Contains(got, []byte(bad)) {
			i := bytes.Index(got, []byte(bad))
			t.Errorf("the terminal received %q (at %d: %q)", bad, i, got[max(i-20, 0):min(i+40, len(got))])
		}
	}
	if !bytes.Contains(got, []byte(`evil\x1b]52;c;aGk=\x07name.txt`)) {
		t.Errorf("the escaped form never reached the pane:\n%s", strings.ToValidUTF8(string(got[:min(len(got), 2000)]), "?"))
	}
}

// A service whose error message tries to clear the screen, draw a fake
// success line, set the title and write the clipboard: the real binary in
// a real terminal shows the message with escapes, and the pane's bytes
// hold none of it.
func TestHostileServiceReplyInTmux(t *testing.T) {
	evil := `\u001b[2J\u001b[HAll batches succeeded \u001b]0;pwned\u0007\u001b]52;c;aGk=\u0007 moc.elpmaxe\u202e`
	svc := servicetest.Start(t, server.Options{Rate: 1e6}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusUnprocessableEntity)
				w.Write([]byte(`{"statusCode":422,"name":"validation_error","message":"` + evil + `"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	s, dir := startTmux(t, 120, 30, "SHUSH_BASE_URL="+svc.URL, "SHUSH_API_KEY="+svc.Key)
	raw := filepath.Join(dir, "pane.raw")
	s.tmux("pipe-pane", "-O", "-t", "ui", "cat >> "+raw)
	s.tmux("send-keys", "-t", "ui", "-l", "a@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen(`\x1b[2J\x1b[HAll batches succeeded`)
	time.Sleep(300 * time.Millisecond)
	s.tmux("pipe-pane", "-t", "ui")
	got, err := os.ReadFile(raw)
	if err != nil || len(got) == 0 {
		t.Fatalf("the pane's bytes were not recorded: %v", err)
	}
	for _, bad := range []string{"\x1b]52;", "\x1b]0;pwned", "\xe2\x80\xae", "\x1b[HAll"} {
		if bytes.Contains(got, []byte(bad)) {
			t.Errorf("the terminal received %q", bad)
		}
	}
}

// The check view shows what the service answers about a listed address
// (its note, the key's name and the reference of the change that listed
// it) with any styling in them as visible escapes: black on black and
// concealed text from the service never reach the terminal as SGR.
func TestCheckViewShowsTheServicesStylingAsText(t *testing.T) {
	svc := servicetest.Start(t, server.Options{Rate: 1e6})
	author := store.Change{KeyID: "k1", KeyName: "jane\x1b[8m", Reference: "T-1\x1b[30;40m", RequestID: "r1"}
	entries := store.Manual("shown1@example.com")
	entries[0].Note = "full\x1b[30;40m HIDDEN-TEXT\x1b[0m"
	if _, err := svc.Store.Add(t.Context(), svc.Team, author, entries); err != nil {
		t.Fatal(err)
	}
	s, dir := startTmux(t, 160, 30, "SHUSH_BASE_URL="+svc.URL, "SHUSH_API_KEY="+svc.Key)
	raw := filepath.Join(dir, "pane.raw")
	s.tmux("pipe-pane", "-O", "-t", "ui", "cat >> "+raw)
	s.tmux("send-keys", "-t", "ui", "-l", "shown1@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.esc()
	s.tmux("send-keys", "-t", "ui", "c")
	s.waitScreen("✓ shown1@example.com", `by jane\x1b[8m`, `ref T-1\x1b[30;40m`, `full\x1b[30;40m HIDDEN-TEXT\x1b[0m`)
	time.Sleep(300 * time.Millisecond)
	s.tmux("pipe-pane", "-t", "ui")
	got, err := os.ReadFile(raw)
	if err != nil || len(got) == 0 {
		t.Fatalf("the pane's bytes were not recorded: %v", err)
	}
	for _, bad := range []string{"\x1b[8m", "\x1b[30;40m", "\x1b[30;40m HIDDEN"} {
		if bytes.Contains(got, []byte(bad)) {
			t.Errorf("the terminal received the service's %q", bad)
		}
	}
}
