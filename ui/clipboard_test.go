package ui

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// Under tmux the IDs land in tmux's paste buffer, read back by shush, and
// the message says whether tmux forwards them to the terminal's clipboard.
func TestCopyUnderTmuxReachesItsBuffer(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed; the clipboard-under-tmux test needs it")
	}
	sock := "shush-clip-" + strings.ReplaceAll(t.Name(), "/", "-")
	tm := func(args ...string) string {
		out, err := exec.Command("tmux", append([]string{"-L", sock}, args...)...).CombinedOutput()
		if err != nil {
			t.Fatalf("tmux %v: %v %s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	tm("-f", "/dev/null", "new-session", "-d", "-x", "80", "-y", "24")
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	path := tm("display-message", "-p", "#{socket_path}")
	env := map[string]string{"TMUX": path + ",1,0", "SSH_CONNECTION": "10.0.0.1 22 10.0.0.2 22"}

	for _, mode := range []string{"off", "on"} {
		tm("set-option", "-g", "set-clipboard", mode)
		var term bytes.Buffer
		c := copier{term: &term, env: func(k string) string { return env[k] }, run: runTool, system: true}
		text := "id-1\nid-2 " + mode
		r := c.copy(text)
		if r.Route != clipTmux || !r.Confirmed {
			t.Fatalf("set-clipboard %s: route %v confirmed %v err %v", mode, r.Route, r.Confirmed, r.Err)
		}
		if got := tm("save-buffer", "-"); got != text {
			t.Errorf("tmux buffer holds %q; want %q", got, text)
		}
		if term.Len() != 0 {
			t.Errorf("an OSC 52 sequence was written as well: %q", term.String())
		}
		msg := clipMessage(r, 2, "ID", "w")
		want := map[string]string{
			"off": "not to your system clipboard (tmux's set-clipboard is off)",
			"on":  "tmux passes it to your terminal's clipboard if the terminal allows it",
		}[mode]
		if !strings.Contains(msg, "Copied 2 IDs to tmux's paste buffer") || !strings.Contains(msg, want) {
			t.Errorf("set-clipboard %s: message %q; want it to say %q", mode, msg, want)
		}
	}
}

// Without tmux or a system clipboard, OSC 52 is all there is: the message
// says it cannot be confirmed and offers the file; under screen the
// sequence is wrapped so screen passes it on.
func TestCopyByOSC52SaysItIsUnconfirmed(t *testing.T) {
	for _, tc := range []struct {
		env    map[string]string
		prefix string
	}{
		{map[string]string{}, "\x1b]52;c;"},
		{map[string]string{"STY": "1234.pts-0.host"}, "\x1bP\x1b]52;c;"},
	} {
		var term bytes.Buffer
		c := copier{term: &term, env: func(k string) string { return tc.env[k] }, run: runTool}
		r := c.copy("id-1")
		if r.Route != clipOSC52 || r.Confirmed {
			t.Fatalf("%v: route %v confirmed %v", tc.env, r.Route, r.Confirmed)
		}
		if !strings.HasPrefix(term.String(), tc.prefix) {
			t.Errorf("%v: terminal got %q; want prefix %q", tc.env, term.String(), tc.prefix)
		}
		if msg := clipMessage(r, 1, "ID", "w"); !strings.Contains(msg, "cannot confirm") || !strings.Contains(msg, "w writes them to a file") {
			t.Errorf("message %q", msg)
		}
	}
	if msg := clipMessage(copier{env: func(string) string { return "" }}.copy("x"), 1, "ID", "w"); !strings.Contains(msg, "No clipboard is reachable") {
		t.Errorf("no terminal: %q", msg)
	}
}
