package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// hostileID is an ID a malicious or tampered-with service could answer:
// a clipboard write (OSC 52), a title change and a screen clear.
const hostileID = "\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b]0;PWNED\x07\x1b[2J"

// The single-entry commands print the ID the service answered with its
// control characters shown, never sent to the terminal.
func TestSingleEntryCommandsEscapeTheServicesID(t *testing.T) {
	t.Parallel()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.Method {
		case http.MethodDelete:
			w.Write([]byte(`{"object":"suppression","id":"` + jsonEscape(hostileID) + `","deleted":true}`))
		default:
			w.WriteHeader(http.StatusCreated)
			w.Write([]byte(`{"object":"suppression","id":"` + jsonEscape(hostileID) + `","email":"bob@example.com","origin":"manual","source_id":null,"created_at":"2026-11-24T10:00:00.000Z"}`))
		}
	}))
	defer evil.Close()
	sb := newSandbox(t).with("SHUSH_BASE_URL="+evil.URL, "SHUSH_API_KEY=shush_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567")
	for _, args := range [][]string{
		{"suppressions", "remove", "bob@example.com", "--yes"},
		{"suppressions", "add", "bob@example.com"},
	} {
		out := onPty(t, sb, args...)
		if strings.Contains(out, "\x1b]") || strings.Contains(out, "\x1b[2J") || strings.Contains(out, "\x07") || !strings.Contains(out, `(ID \x1b]52;c;`) {
			t.Errorf("shush %s: the service's ID reached the terminal raw: %q", strings.Join(args, " "), out)
		}
	}
}

// onPty runs the binary on a terminal (script's pty) and returns the bytes
// it wrote there.
func onPty(t *testing.T, sb *sandbox, args ...string) string {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("script (util-linux) is not installed: it provides the pty for this test")
	}
	line := shQuote(shushBin)
	for _, a := range args {
		line += " " + shQuote(a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "script", "-qec", line, "/dev/null")
	cmd.Env = append(sb.env, "TERM=xterm-256color")
	cmd.Dir = sb.home
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("shush %s on a terminal: %v: %q", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// jsonEscape writes s's control characters as JSON escapes.
func jsonEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 {
			b.WriteString(`\u00`)
			b.WriteByte("0123456789abcdef"[r>>4])
			b.WriteByte("0123456789abcdef"[r&15])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
