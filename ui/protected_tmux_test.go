package ui

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The UI on a service with team rules (here the local list's, team
// "local") greys the team's protected addresses with the reason, and
// leaves them out of the send, as soon as the service told it.
func TestProtectedAddressesGreyedLocally(t *testing.T) {
	bin, dir := buildShush(t)
	db := filepath.Join(dir, "home", ".local", "share", "shush", "shush.db")
	if out, err := exec.Command(bin, "team", "set", "--team", "local", "--protect", "@own.test", "--db", db).CombinedOutput(); err != nil {
		t.Fatalf("team set: %v\n%s", err, out)
	}
	s, _ := startTmuxWith(t, bin, dir, 110, 30)
	s.tmux("send-keys", "-t", "ui", "-l", "help@own.test")
	s.tmux("send-keys", "-t", "ui", "Enter")
	scr := s.waitScreen("help@own.test", "left out: protected by the team's rules")
	if strings.Contains(scr, "help@own.test  ✓") {
		t.Fatalf("a protected address is taken in:\n%s", scr)
	}
	s.tmux("send-keys", "-t", "ui", "-l", "pat@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("pat@example.com")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", "1 address", "Excluded: 1 protected by the team's rules, never sent: help@own.test")
}
