package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
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

// An invalid line of a megabyte is kept, echoed and journaled as its
// start and its length, not whole.
func TestHugeInvalidLineIsCut(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	huge := strings.Repeat("x", 1<<20)
	file := writeFile(t, sb.home, "list.txt", "a@example.com\n"+huge+"\n")
	r := sb.run(t, nil, "suppressions", "batch", "add", "--dry-run", "--json", "--file", file).want(t, 0)
	if len(r.stdout) > 16<<10 || !strings.Contains(r.stdout, "… (1048576 bytes in all)") {
		t.Errorf("the dry run echoed %d bytes; want the line's start and its length: %.300s", len(r.stdout), r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", file)
	total := int64(0)
	filepath.WalkDir(sb.journalDir(), func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return err
	})
	if total == 0 || total > 64<<10 {
		t.Errorf("the journals hold %d bytes; want the invalid line cut (exit %d)", total, r.code)
	}
}

// A service that answers everything 429 with Retry-After: 86400: the
// run does not wait a day in silence, it pauses at once and says what the
// service asks for and how to finish.
func TestLongRetryAfterIsSaidNotWaited(t *testing.T) {
	t.Parallel()
	var requests atomic.Int32
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Header().Set("Retry-After", "86400")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"statusCode":429,"name":"rate_limit_exceeded","message":"Too many requests."}`))
	}))
	defer evil.Close()
	sb := newSandbox(t).with("SHUSH_BASE_URL="+evil.URL, "SHUSH_API_KEY=shush_0123456789abcdef_abcdefghijklmnopqrstuvwxyz234567")
	file := writeFile(t, sb.home, "two.txt", "a@example.com\nb@example.com\n")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, shushBin, "suppressions", "batch", "add", "--file", file)
	cmd.Env, cmd.Dir = sb.env, sb.home
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("the run waited out a Retry-After of a day (killed after 30 s, %d requests): %s", requests.Load(), out)
	}
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "asks to wait 24h0m0s") || !strings.Contains(string(out), "--resume") {
		t.Errorf("exit %d: %s; want a pause naming the wait and the way to finish", cmd.ProcessState.ExitCode(), out)
	}
}

// A batch the service commits but whose answer is lost (the service
// crashed after the commit): the retry finds the addresses listed, and
// the run knows them for its own by the batch's request ID in the trail,
// so they are added by this run and its undo takes them off again.
func TestLostAnswerIsStillOurChange(t *testing.T) {
	t.Parallel()
	var cut atomic.Bool
	svc := newService(t, server.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost && r.URL.Path == "/suppressions/batch/add" && cut.CompareAndSwap(false, true) {
				// Commit, then drop the connection before answering.
				next.ServeHTTP(httptest.NewRecorder(), r)
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	svc.store.Add(t.Context(), svc.team, store.Change{RequestID: "before"}, store.Manual("old@example.com"))
	file := writeFile(t, sb.home, "list.txt", "a@example.com\nb@example.com\nold@example.com\n")
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", file).want(t, 0)
	if !cut.Load() {
		t.Fatal("the answer was never cut")
	}
	var doc struct {
		Results []struct {
			Input   string `json:"email"`
			Outcome string `json:"outcome"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	want := map[string]string{"a@example.com": "added", "b@example.com": "added", "old@example.com": "already_listed"}
	for _, x := range doc.Results {
		if want[x.Input] != x.Outcome {
			t.Errorf("%s: %s, want %s (%s)", x.Input, x.Outcome, want[x.Input], r.stdout)
		}
	}
	if len(doc.Results) != 3 {
		t.Fatalf("results: %s", r.stdout)
	}
	// The undo takes off what the run added, and leaves what was listed before.
	id := strings.TrimSpace(sb.run(t, nil, "runs", "list", "--jq", ".data[0].id").want(t, 0).stdout)
	sb.run(t, nil, "runs", "undo", id, "--yes").want(t, 0)
	if got := svc.emails(t); !slices.Equal(got, []string{"old@example.com"}) {
		t.Errorf("after the undo the list holds %v, want only old@example.com", got)
	}
}

// A run of one batch that must wait (here a Retry-After of 2 s on its
// first request) says on the terminal what it waits for, as a run of
// many batches does, rather than sit silent.
func TestOneBatchRunSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel()
	var limited atomic.Bool
	svc := newService(t, server.Options{}, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if limited.CompareAndSwap(false, true) {
				w.Header().Set("Retry-After", "2")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"statusCode":429,"name":"rate_limit_exceeded","message":"Too many requests."}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	file := writeFile(t, sb.home, "one.txt", "a@example.com\n")
	out := onPty(t, sb, "suppressions", "batch", "add", "--file", file)
	if !strings.Contains(out, "waiting") || !strings.Contains(out, "rate limit exceeded (429)") {
		t.Errorf("the wait was not said: %q", out)
	}
	if got := svc.emails(t); !slices.Equal(got, []string{"a@example.com"}) {
		t.Errorf("the list holds %v", got)
	}
}
