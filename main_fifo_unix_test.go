//go:build unix

package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// --file naming a named pipe that no program writes to: shush says what
// it waits for, and SIGTERM ends it as it ends every other wait, exit
// 130; before, the open blocked out of reach of the signal. A pipe that
// is written reads as a file does.
func TestFileOnANamedPipe(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t).with("SHUSH_BASE_URL=http://127.0.0.1:9", "SHUSH_API_KEY=shush_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567")
	fifo := filepath.Join(sb.home, "ff")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes here: %v", err)
	}
	cmd := exec.Command(shushBin, "suppressions", "batch", "add", "--dry-run", "--file", fifo)
	cmd.Env, cmd.Dir = sb.env, sb.home
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	waitFor(t, "the notice of the wait", func() bool {
		return strings.Contains(errOut.String(), "Waiting for a program to write to the named pipe")
	})
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("after SIGTERM: %v, want exit 130; stderr: %s", err, errOut.String())
		}
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("SIGTERM did not end a wait on a named pipe in 10 s; stderr: %s", errOut.String())
	}

	// Written by another program, the pipe is read like a file.
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.WriteString("a@example.com\nb@example.com\n")
			f.Close()
		}
	}()
	r := sb.run(t, nil, "suppressions", "batch", "add", "--dry-run", "--file", fifo)
	if r.code != 0 || !strings.Contains(r.stdout, `"valid": 2`) {
		t.Errorf("a written pipe: %s", r)
	}
}
