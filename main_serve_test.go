package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer collects a process's stderr while the test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// waitFor polls cond until it holds or 30 s pass: a process started
// under the race detector while every package's tests run at once can
// take more than 10 s to answer, and waiting longer costs only a test
// that fails anyway.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSecondInterruptExitsAtOnce: the first SIGINT lets a request in flight
// finish (serve waits for it); a second one ends the process at once with
// status 130, without waiting for the request.
func TestSecondInterruptExitsAtOnce(t *testing.T) {
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "shush.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", db).want(t, 0).stdout)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	cmd := exec.Command(shushBin, "serve", "--addr", addr, "--db", db)
	cmd.Env = sb.env
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
	})
	waitFor(t, "serve to answer", func() bool {
		resp, err := http.Get("http://" + addr + "/livez")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})

	// A slow request: its body is announced but only partly sent.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"emails":["slow@example.com"]}`
	fmt.Fprintf(conn, "POST /suppressions/batch/add HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		addr, key, len(body), body[:5])
	// A round trip on another connection gives the service time to read
	// the slow request's head.
	waitFor(t, "a round trip", func() bool {
		resp, err := http.Get("http://" + addr + "/livez")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})

	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the shutdown notice", func() bool { return strings.Contains(errOut.String(), "shutting down") })
	select {
	case err := <-exited:
		t.Fatalf("serve exited on the first interrupt with a request in flight: %v\n%s", err, errOut.String())
	default:
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("after the second interrupt: %v, want exit status 130", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve still runs after a second interrupt\n%s", errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupted again") {
		t.Errorf("no word about the second interrupt: %s", errOut.String())
	}
	// The slow request was cut off, not answered.
	conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(bufio.NewReader(conn), nil); err == nil {
		t.Errorf("the request in flight got an answer (%d) after the forced exit", resp.StatusCode)
	}
}

// TestSIGTERMDrainsFirst: on SIGTERM, shush serve answers /readyz with 503
// for --shutdown-drain while it still answers requests, and only then
// closes its listener and exits 0. Before, the listener closed at once.
func TestSIGTERMDrainsFirst(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "shush.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", db).want(t, 0).stdout)
	addr := freeAddr(t)
	cmd := exec.Command(shushBin, "serve", "--addr", addr, "--db", db, "--shutdown-drain", "2s")
	cmd.Env = sb.env
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	status := func(path string) int {
		req, _ := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	waitFor(t, "serve to answer", func() bool { return status("/readyz") == http.StatusOK })
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "/readyz to answer 503", func() bool { return status("/readyz") == http.StatusServiceUnavailable })
	if got := status("/suppressions?limit=1"); got != http.StatusOK {
		t.Errorf("a request during the drain: %d; want 200", got)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("serve after SIGTERM: %v\n%s", err, errOut.String())
		}
		if took := time.Since(start); took < 2*time.Second {
			t.Errorf("serve exited %v after SIGTERM; want the drain of 2s first", took.Round(time.Millisecond))
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve still runs 20 s after SIGTERM\n%s", errOut.String())
	}
	if !strings.Contains(errOut.String(), "/readyz answers 503 for 2s") {
		t.Errorf("the log does not say it drains:\n%s", errOut.String())
	}
}
