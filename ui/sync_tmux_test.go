package ui

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// History's sync in a real terminal: the local list (here) and a shush
// serve named by a profile (there). s shows the plan as a review, every
// address with what the direction does; p pushes, ctrl+s applies. Once
// they agree, a removal here is shown as removed since the last sync;
// with b the apply asks first, Enter answers no, y removes it there.
func TestSyncFromHistoryInTmux(t *testing.T) {
	bin, dir := buildShush(t)
	srv := startServe(t, bin, dir, "jane")
	srv.run("suppressions", "add", "there@example.com")
	home := filepath.Join(dir, "home")
	cfg := filepath.Join(home, ".config", "shush", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[profiles.srv]\nbase_url = \""+srv.base+"\"\napi_key = \""+srv.key+"\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	local := func(args ...string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
			"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"), "PATH=" + os.Getenv("PATH")}
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("shush %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	local("suppressions", "add", "here@example.com")
	local("suppressions", "add", "gone@example.com")

	s, _ := startTmuxWith(t, bin, dir, 110, 30)
	s.tmux("send-keys", "-t", "ui", "F3")
	s.waitScreen("History", "s sync with another profile's list")
	s.tmux("send-keys", "-t", "ui", "s")
	s.waitScreen("Sync with srv · here 2, there 1", "No earlier sync of these lists is on record",
		"Only here, new (2): left as they are", "here@example.com", "gone@example.com", "Only there, new (1)", "there@example.com")
	s.tmux("send-keys", "-t", "ui", "p")
	s.waitScreen("push: here's new entries there", "Only here, new (2): to be added there", "Only there, new (1): left as they are")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Add there: 2 added")
	s.esc()
	s.waitScreen("sync with srv")
	if got := srv.run("suppressions", "list", "--all", "--jq", ".data[].email"); !strings.Contains(got, "here@example.com") || !strings.Contains(got, "gone@example.com") {
		t.Fatalf("there, after the push: %s", got)
	}

	local("suppressions", "remove", "gone@example.com", "--yes")
	s.tmux("send-keys", "-t", "ui", "s")
	s.waitScreen("Since the last sync", "Removed here since, still there (1): left as they are", "gone@example.com")
	s.tmux("send-keys", "-t", "ui", "b")
	s.waitScreen("to be removed there", "to be added here")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Remove 0 here and 1 there, as removed on the other side since the last sync? [y/N]")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("Nothing was applied.")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("[y/N]")
	s.tmux("send-keys", "-t", "ui", "y")
	s.waitScreen("Add here: 1 added", "Remove there: 1 removed")
	if got := srv.run("suppressions", "list", "--all", "--jq", ".data[].email"); strings.Contains(got, "gone@example.com") {
		t.Fatalf("there, after the removal: %s", got)
	}
}
