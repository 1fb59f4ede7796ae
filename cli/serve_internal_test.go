package cli

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/spf13/cobra"
)

// serveOpts are serve's options as its flags make them of args, defaults
// included.
func serveOpts(t *testing.T, a *app, args ...string) *serveOptions {
	t.Helper()
	o := &serveOptions{app: a}
	cmd := &cobra.Command{}
	o.addFlags(cmd)
	if err := cmd.ParseFlags(args); err != nil {
		t.Fatal(err)
	}
	return o
}

// lockedBuffer is a buffer that the serving goroutine writes and the test
// reads.
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

func TestRunServeRefusesSettingsOutOfRange(t *testing.T) {
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "shush.db")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "0"}, "--rate must be a positive number"},
		{[]string{"--timeout", "0s"}, "--timeout must be positive"},
		{[]string{"--max-body-bytes", "10"}, "--max-body-bytes must be at least"},
		{[]string{"--max-in-flight-per-team", "0"}, "--max-in-flight-per-team must be at least 1"},
		{[]string{"--webhook-allow-cidr", "10.0.0.0/33"}, "--webhook-allow-cidr takes ranges"},
		{[]string{"--log-level", "loud"}, `--log-level must be debug, info, warn or error, not "loud"`},
		{[]string{"--log-format", "xml"}, `--log-format must be text or json, not "xml"`},
		{[]string{"--tls-cert", "cert.pem"}, "--tls-cert and --tls-key go together"},
		{[]string{"--tls-cert", "missing.pem", "--tls-key", "missing.key"}, "cannot load the TLS certificate"},
		{[]string{"--public-url", "shush.example.com"}, "--public-url"},
		{[]string{"--ssh-idle-timeout", "0s"}, "--ssh-idle-timeout must be positive"},
		{[]string{"--ssh-max-startups", "2", "--ssh-max-startups-per-source", "3"}, "--ssh-max-startups-per-source must be from 1"},
		{[]string{"--read-budget", "2s"}, "--read-budget must be more than 0 and at most 1s"},
		{[]string{"--shutdown-drain", "-1s"}, "--shutdown-drain must be 0 or positive"},
	} {
		ta.reset()
		o := serveOpts(t, ta.app, append(c.args, "--addr", "127.0.0.1:0", "--db", db)...)
		err := runServe(context.Background(), o)
		wantErr(t, err, ExitUsage, c.want)
		if ta.err.Len() != 0 {
			t.Errorf("%v: a refused setting logged %q; the error alone says it", c.args, ta.err.String())
		}
	}
}

func TestRunServeServesUntilCancelled(t *testing.T) {
	ta := newTestApp(t, nil)
	var logs lockedBuffer
	ta.io.ErrOut = &logs
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := filepath.Join(t.TempDir(), "shush.db")
	o := serveOpts(t, ta.app, "--addr", addr, "--db", db, "--shutdown-drain", "0s", "--log-format", "json")

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- runServe(ctx, o) }()
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/livez")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("/livez answered %d", resp.StatusCode)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up: %v; log %s", err, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("serve ended with %v after its context was cancelled", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	out := logs.String()
	for _, want := range []string{`"msg":"serving on http://` + addr, "the database has no API keys yet; create one with: shush keys create"} {
		if !strings.Contains(out, want) {
			t.Errorf("the log lacks %q:\n%s", want, out)
		}
	}
	if !strings.HasPrefix(out, "{") {
		t.Errorf("--log-format json logged lines that are not JSON:\n%s", out)
	}
}

func TestRunServeLogsAFailureToListen(t *testing.T) {
	ta := newTestApp(t, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	o := serveOpts(t, ta.app, "--addr", ln.Addr().String(), "--db", filepath.Join(t.TempDir(), "shush.db"))
	err = runServe(context.Background(), o)
	var logged loggedError
	if !errors.As(err, &logged) || exitCode(err) != ExitFailed {
		t.Fatalf("serve on an address in use: %v (exit %d); want a failure already logged, exit 1", err, exitCode(err))
	}
	if !strings.Contains(ta.err.String(), "level=ERROR") || !strings.Contains(ta.err.String(), ln.Addr().String()) {
		t.Errorf("the failure is not a record of the log naming the address:\n%s", ta.err.String())
	}
}
