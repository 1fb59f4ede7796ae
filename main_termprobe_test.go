package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// On a terminal that never answers queries (a pty nobody reads, as under
// script, ssh -tt into a pipe or a CI runner), a command does not wait out
// termenv's five-second query timeout: --version answers, and the colour
// query (OSC 11) is never sent.
func TestSilentTerminalDoesNotStall(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed: it provides the silent pty for this test")
	}
	// Well under termenv's 5 s OSC timeout: a stall would run into it.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", shushBin+" --version", "/dev/null")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "TERM=xterm-256color", "HOME=" + t.TempDir()} // no CI: termenv would query
	out, err := cmd.Output()
	if ctx.Err() != nil {
		t.Fatalf("shush --version stalled on a terminal that does not answer (killed after 4 s): %q", out)
	}
	if err != nil {
		t.Fatalf("script: %v: %q", err, out)
	}
	if !strings.Contains(string(out), "shush version") {
		t.Errorf("output %q", out)
	}
	if strings.Contains(string(out), "\x1b]11;?") {
		t.Errorf("the colour query was sent to a terminal known not to answer: %q", out)
	}
}
