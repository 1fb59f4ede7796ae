package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestOnATerminal runs the CLI in a tmux pane, where stdin, stdout and
// stderr are a terminal: human summaries and tables instead of JSON, and a
// removal that asks first.
func TestOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the test of the CLI on a terminal")
	}
	t.Parallel()
	sb := newSandbox(t)
	var body strings.Builder
	for i := range 250 {
		fmt.Fprintf(&body, "user%d@example.com\n", i)
	}
	body.WriteString("broken@\n")
	writeFile(t, sb.home, "in.txt", body.String())
	writeFile(t, sb.home, "ticket.txt", "Please block Jane <Jane@Example.com> and user7@example.com.\n")
	// The shell survives the Ctrl-C sent to shush, as an interactive one
	// would, to print the exit status.
	script := strings.Join([]string{
		"trap : INT",
		shushBin + " suppressions batch add --file in.txt",
		shushBin + " suppressions batch add --file ticket.txt",
		shushBin + " suppressions list --limit 2",
		shushBin + " suppressions batch remove --file in.txt",
		`echo "batch remove exit $?"`,
		shushBin + " suppressions remove user1@example.com",
		`echo "remove exit $?"`,
		"read next",
		"clear",
		shushBin + " runs list",
		"read next",
		"clear",
		shushBin + " runs show $(" + shushBin + ` runs list --json | sed -n 's/^ *"id": "\(.*\)",$/\1/p' | tail -n 1)`,
	}, "; ")
	writeFile(t, sb.home, "script.sh", script+"\n")
	socket := fmt.Sprintf("shush-cli-test-%d", os.Getpid())
	tmux := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("tmux", append([]string{"-L", socket}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	env := []string{"TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	for _, kv := range sb.env {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_") {
			env = append(env, kv)
		}
	}
	var quoted []string
	for _, kv := range env {
		quoted = append(quoted, shQuote(kv))
	}
	// -f /dev/null: none of the machine's tmux settings.
	tmux("-f", os.DevNull, "new-session", "-d", "-s", "cli", "-x", "160", "-y", "50", "-c", sb.home,
		"env -i "+strings.Join(quoted, " ")+" sh script.sh; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", socket, "kill-server").Run() })

	wait := func(want ...string) string {
		t.Helper()
		var screen string
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			screen = tmux("capture-pane", "-p", "-t", "cli")
			ok := true
			for _, w := range want {
				ok = ok && strings.Contains(screen, w)
			}
			if ok {
				return screen
			}
		}
		t.Fatalf("the terminal never showed %q; it shows:\n%s", want, screen)
		return ""
	}
	screen := wait("Add on the local list (", "3 batches: 250 added.", "Left out: 0 duplicates, 1 invalid.", `line 251: "broken@"`,
		"(--json lists every entry with its ID.)",
		"ADDRESS", "OUTCOME", "jane@example.com", "user7@example.com", "already listed", "1 added, 1 already listed.",
		"EMAIL", "ORIGIN", "manual", "More entries: shush suppressions list --after",
		"Remove 250 addresses from the local list (", "? [y/N]")
	if strings.Contains(screen, `"data"`) {
		t.Errorf("JSON on a terminal without --json:\n%s", screen)
	}
	tmux("send-keys", "-t", "cli", "y", "Enter")
	wait("Remove by address on the local list (", "250 removed.", "batch remove exit 0", "Remove user1@example.com from the local list (")
	// Ctrl-C at the question stops without removing, and says so.
	tmux("send-keys", "-t", "cli", "C-c")
	wait("interrupted: nothing removed", "remove exit 130")
	tmux("send-keys", "-t", "cli", "Enter")
	// The runs are listed and shown with their target named as people
	// know it, and the first run with the entry it left out.
	for _, want := range [][]string{{"REFERENCE", "TARGET", "local list"}, {"Invalid, not sent: 1 entry.", `line 251: "broken@"`}} {
		if screen := wait(want...); strings.Contains(screen, "shush.local") {
			t.Errorf("the local list is named by its URL:\n%s", screen)
		}
		tmux("send-keys", "-t", "cli", "Enter")
	}
}

func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
