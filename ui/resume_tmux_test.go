package ui

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A UI killed during a send (a closed terminal) leaves its run recorded:
// started again, it offers to finish it with its counts, and the list
// ends with exactly the intended entries. A finished list is not sent
// again by ctrl+s alone.
func TestKilledSendResumesOnRestart(t *testing.T) {
	s, dir := startTmux(t, 110, 30)
	const n = 60_000
	sendBigFile(s, dir, "k", n)
	s.kill()

	s.restart()
	scr := s.waitScreen("A run did not finish: add", "Resume it now? [y/N]")
	if strings.Contains(scr, fmt.Sprintf("%d of %d entries sent", n, n)) || !strings.Contains(scr, fmt.Sprintf("of %d entries sent", n)) {
		t.Fatalf("the offer does not give the run's counts:\n%s", scr)
	}
	s.tmux("send-keys", "-t", "ui", "y")
	scr = s.waitScreen("60000 entries:")
	if strings.Contains(scr, "failed") || strings.Contains(scr, "unsent") {
		t.Fatalf("the resumed run did not finish:\n%s", scr)
	}

	// The list holds exactly the file's addresses.
	home := filepath.Join(dir, "home")
	cmd := exec.Command(s.bin, "suppressions", "export", "--format", "ndjson")
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		seen[line[strings.Index(line, `"email":"`)+9:][:len("k000000@example.com")]] = true
	}
	if len(seen) != n || !seen["k000000@example.com"] || !seen["k059999@example.com"] {
		t.Fatalf("the list holds %d distinct addresses, want the %d of the file", len(seen), n)
	}
}

// Quitting during a send (ctrl+c, y) stops it, journals the batch in
// flight and quits within a second or so; the run is recorded as stopped,
// not cut off, with what it sent.
func TestQuitDuringSendJournals(t *testing.T) {
	s, dir := startTmux(t, 110, 30)
	const n = 60_000
	sendBigFile(s, dir, "q", n)
	s.tmux("send-keys", "-t", "ui", "C-c")
	s.waitScreen("A send is running. Cancel it and quit?")
	asked := time.Now()
	s.tmux("send-keys", "-t", "ui", "y")
	for strings.Contains(s.screen(), "mode: add") {
		if time.Since(asked) > 3*time.Second {
			t.Fatalf("shush did not quit:\n%s", s.screen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	home := filepath.Join(dir, "home")
	cmd := exec.Command(s.bin, "runs", "list", "--json")
	cmd.Env = []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var runs struct {
		Data []struct {
			State  string
			Counts map[string]int
		}
	}
	if err := json.Unmarshal(out, &runs); err != nil || len(runs.Data) != 1 {
		t.Fatalf("runs: %s %v", out, err)
	}
	r := runs.Data[0]
	if r.State != "stopped" || r.Counts["added"] < 400 || r.Counts["added"]+r.Counts["unsent"]+r.Counts["failed"] != n {
		t.Errorf("the run after quitting: %+v", r)
	}
}

// sendBigFile opens a file of n addresses (prefix000000@example.com, …) in
// the UI and sends it, returning once batch 5 is under way.
func sendBigFile(s *tmuxSession, dir, prefix string, n int) {
	s.t.Helper()
	var body strings.Builder
	for i := range n {
		fmt.Fprintf(&body, "%s%06d@example.com\n", prefix, i)
	}
	os.WriteFile(filepath.Join(dir, "big.txt"), []byte(body.String()), 0o600)
	s.esc()
	s.tmux("send-keys", "-t", "ui", "o")
	s.waitScreen("Open a file", "big.txt")
	s.tmux("send-keys", "-t", "ui", "Down", "Enter")
	s.waitScreen(fmt.Sprintf("big.txt: %d added", n))
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", fmt.Sprintf("%d addresses", n))
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Sending · add", "Batch 5")
}
