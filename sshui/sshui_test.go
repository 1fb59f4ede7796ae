package sshui

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The host key is made once, 0600, and kept: a second start has the same
// fingerprint. A key file others can read is used, with a warning that
// says how to fix it.
func TestHostKeyMadeOnceAndKeptPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "keys", "host")
	start := func() (*Server, string) {
		t.Helper()
		var log bytes.Buffer
		s, err := Listen(Config{Addr: "127.0.0.1:0", HostKey: path, Logger: slog.New(slog.NewTextHandler(&log, nil))})
		if err != nil {
			t.Fatal(err)
		}
		s.ln.Close()
		return s, log.String()
	}
	first, log := start()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(first.Fingerprint(), "SHA256:") || log != "" {
		t.Fatalf("the new host key: %v %v %q %q", fi, err, first.Fingerprint(), log)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	again, log := start()
	if again.Fingerprint() != first.Fingerprint() {
		t.Errorf("the host key changed: %s, then %s", first.Fingerprint(), again.Fingerprint())
	}
	if !strings.Contains(log, "is readable by other users (mode 0644); run: chmod 600") {
		t.Errorf("no warning for a host key others can read: %q", log)
	}
	if err := os.WriteFile(path, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(Config{Addr: "127.0.0.1:0", HostKey: path}); err == nil || !strings.Contains(err.Error(), "is not an unencrypted private key") {
		t.Errorf("a host key file that holds no key: %v", err)
	}
}
