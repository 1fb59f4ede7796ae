package ui

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// tmuxSession runs the built shush binary in a detached tmux session on a
// private server, with HOME and XDG_* in a temp dir (so it starts on a
// fresh embedded default).
type tmuxSession struct {
	t      *testing.T
	socket string
	bin    string // the built binary
	cmd    string // the pane's command line: shush in its environment
}

func (s *tmuxSession) tmux(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", s.socket}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (s *tmuxSession) screen() string { return s.tmux("capture-pane", "-p", "-t", "ui") }

// waitScreen polls the pane until it shows every string.
func (s *tmuxSession) waitScreen(want ...string) string {
	s.t.Helper()
	var scr string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		scr = s.screen()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(scr, w)
		}
		if ok {
			return scr
		}
	}
	s.t.Fatalf("the pane never showed %q; it shows:\n%s", want, scr)
	return ""
}

// waitGone polls the pane until it no longer shows text: a key that
// closes something has taken effect, and the next keys cannot reach the
// program in the same read as it.
func (s *tmuxSession) waitGone(text string) {
	s.t.Helper()
	var scr string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if scr = s.screen(); !strings.Contains(scr, text) {
			return
		}
	}
	s.t.Fatalf("the pane kept showing %q:\n%s", text, scr)
}

// buildShush builds the binary into a temp dir and returns both; it
// skips without tmux or with -short.
func buildShush(t *testing.T) (bin, dir string) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed: skipping the test of the built binary in a terminal")
	}
	if testing.Short() {
		t.Skip("-short: skipping the test that builds the binary")
	}
	dir = t.TempDir()
	bin = filepath.Join(dir, "shush")
	build := exec.Command("go", "build", "-o", bin, "github.com/shushlist/shush")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin, dir
}

func startTmux(t *testing.T, w, h int, extraEnv ...string) (*tmuxSession, string) {
	t.Helper()
	bin, dir := buildShush(t)
	return startTmuxWith(t, bin, dir, w, h, extraEnv...)
}

// startTmuxWith runs the built binary bin in tmux, its home under dir.
func startTmuxWith(t *testing.T, bin, dir string, w, h int, extraEnv ...string) (*tmuxSession, string) {
	t.Helper()
	home := filepath.Join(dir, "home")
	os.MkdirAll(home, 0o700)
	// A socket of its own per session: a server that a previous test killed
	// may still be going away.
	s := &tmuxSession{t: t, socket: fmt.Sprintf("shush-ui-test-%d-%d", os.Getpid(), sessions.Add(1))}
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"TERM=xterm-256color",
		"PATH=" + os.Getenv("PATH"),
	}
	env = append(env, extraEnv...)
	// -f /dev/null: none of the machine's tmux settings.
	s.bin, s.cmd = bin, "env -i "+strings.Join(env, " ")+" "+bin+"; sleep 30"
	s.tmux("-f", "/dev/null", "new-session", "-d", "-s", "ui", "-c", dir, "-x", itoaP(w), "-y", itoaP(h), s.cmd)
	t.Cleanup(func() { exec.Command("tmux", "-L", s.socket, "kill-server").Run() })
	s.waitScreen("mode: add")
	return s, dir
}

func itoaP(i int) string { return fmtN(i) }

// sessions numbers the tmux servers of this test process.
var sessions atomic.Int32

// esc presses Esc alone: a key sent right after it could reach the
// program in the same read and make Alt+key, as on any terminal.
func (s *tmuxSession) esc() {
	s.t.Helper()
	s.tmux("send-keys", "-t", "ui", "Escape")
	time.Sleep(150 * time.Millisecond)
}

// kill ends shush with SIGKILL, as a closed terminal or a dropped SSH
// session can: no chance to clean up.
func (s *tmuxSession) kill() {
	s.t.Helper()
	// The pattern is shush's whole command line: the tmux server's holds
	// the binary's path too.
	if out, err := exec.Command("pkill", "-KILL", "-f", "^"+regexp.QuoteMeta(s.bin)+"$").CombinedOutput(); err != nil {
		s.t.Fatalf("pkill: %v %s", err, out)
	}
}

// restart starts shush again in the pane, in the same environment.
func (s *tmuxSession) restart() {
	s.t.Helper()
	s.tmux("respawn-pane", "-k", "-t", "ui", s.cmd)
}

// The built binary in a real terminal: a ticket pasted with tmux's
// bracketed paste (paste-buffer -p) and one pasted without brackets, sent,
// and the results read off the screen.
func TestBinaryInTmux(t *testing.T) {
	s, dir := startTmux(t, 100, 30)
	ticketFile := filepath.Join(dir, "ticket.txt")
	os.WriteFile(ticketFile, []byte(strings.ReplaceAll(ticketText, "\r\n", "\n")), 0o600)
	s.tmux("load-buffer", "-b", "ticket", ticketFile)
	s.tmux("paste-buffer", "-p", "-b", "ticket", "-t", "ui")
	s.waitScreen("Paste: 3 added, 1 skipped as duplicates, 1 invalid.", "dave@  ✗")
	capture(t, "build", s.screen())

	// Without brackets every line comes as keys and Enter.
	plain := filepath.Join(dir, "plain.txt")
	os.WriteFile(plain, []byte("erin@example.com\nfrank@example.com\nerin@example.com\n"), 0o600)
	s.tmux("load-buffer", "-b", "plain", plain)
	s.tmux("paste-buffer", "-b", "plain", "-t", "ui")
	// A second paste onto the list asks whether it is another ticket's;
	// n adds it to this one.
	s.waitScreen("New list for this paste? enter/y: new list · n: add it to the 4 unsent entries of another paste")
	s.tmux("send-keys", "-t", "ui", "n")
	s.waitScreen("List · 6 entries · 5 valid · 1 invalid")

	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", "5 addresses in 1 batch")
	s.tmux("send-keys", "-t", "ui", "Tab")
	s.tmux("send-keys", "-t", "ui", "-l", "T-4711")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.tmux("send-keys", "-t", "ui", "-l", "add")
	capture(t, "review", s.waitScreen("Ticket: T-4711", `send: add`))
	s.tmux("send-keys", "-t", "ui", "Enter")
	scr := s.waitScreen("5 entries: 5 added")
	capture(t, "results", scr)
	if n := len(uuidRE.FindAllString(scr, -1)); n != 5 {
		t.Fatalf("the results show %d IDs, want 5:\n%s", n, scr)
	}

	s.tmux("send-keys", "-t", "ui", "F2")
	capture(t, "browse", s.waitScreen("Browse · page 1", "frank@example.com"))
	s.tmux("send-keys", "-t", "ui", "F3")
	capture(t, "history", s.waitScreen("History · 1 run", "T-4711"))
	s.tmux("send-keys", "-t", "ui", "F1")
	s.tmux("send-keys", "-t", "ui", "Escape")
	s.waitScreen("i/a type entries •")
	s.tmux("send-keys", "-t", "ui", "?")
	capture(t, "help", s.waitScreen("first row"))
	s.tmux("send-keys", "-t", "ui", "?")
	// Keys that reach the program in one read look like a paste; wait for
	// each to land.
	s.waitScreen("i/a type entries •")

	// The list that went out left the Build screen: it is empty for the
	// next ticket. Remove by address: the preview finds one address and
	// not the other.
	s.waitScreen("List · 0 entries")
	s.tmux("send-keys", "-t", "ui", "m")
	s.waitScreen("mode: remove by address")
	remove := filepath.Join(dir, "remove.txt")
	os.WriteFile(remove, []byte("Please remove Alice@Example.com and nobody@example.com, thanks.\n"), 0o600)
	s.tmux("load-buffer", "-b", "remove", remove)
	s.tmux("paste-buffer", "-p", "-b", "remove", "-t", "ui")
	s.waitScreen("Paste: 2 added")
	s.tmux("send-keys", "-t", "ui", "r")
	capture(t, "review-remove", s.waitScreen("Preview: 1 on the list · 1 not on the list", "This removes 1 entry from the list."))
	s.tmux("send-keys", "-t", "ui", "-l", "remove")
	s.tmux("send-keys", "-t", "ui", "Enter")
	capture(t, "results-remove", s.waitScreen("2 entries: 1 removed · 1 not on the list", "deleted: true"))
	s.tmux("send-keys", "-t", "ui", "q")
	writeScreensDoc(t)

	// The list was sent, so q quits at once and the alternate screen goes.
	for deadline := time.Now().Add(10 * time.Second); strings.Contains(s.screen(), "mode: add"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("q did not quit:\n%s", s.screen())
		}
	}
}

// capture writes a screen to docs/screens/<name>.txt when -update is given
// (the README's pictures are these captures).
func capture(t *testing.T, name, screen string) {
	t.Helper()
	if !updating() {
		return
	}
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	dir := filepath.Join("..", "docs", "screens")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// screenDocs are the captures in the order docs/screens/screens.md shows
// them, with their captions.
var screenDocs = []struct{ name, caption string }{
	{"build", "Build: a ticket pasted (tmux paste-buffer -p, a bracketed paste); addresses extracted, normalized, de-duplicated; the invalid one stays visible with its reason."},
	{"review", "Review of an addition: count, batches, target, what is excluded and why, the ticket reference, the typed confirmation."},
	{"results", "Results of the addition: one ID per address."},
	{"review-remove", "Review of a removal by address: the preview looked every address up."},
	{"results-remove", "Results of the removal: `deleted: true` for the entry removed by ID, \"not on the list\" for the other."},
	{"browse", "Browse: the service's list, newest first."},
	{"history", "History: the runs kept in the state directory."},
	{"help", "Build with the full help (?)."},
}

// writeScreensDoc gathers the captures into docs/screens/screens.md (with
// -update).
func writeScreensDoc(t *testing.T) {
	t.Helper()
	intro := "Captured from the built binary in tmux at 100x30 on a fresh embedded default\n" +
		"(`tmux capture-pane -p`). Remake them (needs tmux) with:\n\n```\ngo test ./ui -run TestBinaryInTmux -update\n```\n"
	writeCapturesDoc(t, "screens.md", "shush terminal UI: screens", intro, screenDocs, false)
}

// writeCapturesDoc writes docs/screens/<file>: a title, an intro and each
// capture under its caption (numbered when numbered), with -update.
func writeCapturesDoc(t *testing.T, file, title, intro string, docs []struct{ name, caption string }, numbered bool) {
	t.Helper()
	if !updating() {
		return
	}
	var b strings.Builder
	b.WriteString("# " + title + "\n\n" + intro)
	for i, d := range docs {
		data, err := os.ReadFile(filepath.Join("..", "docs", "screens", d.name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		head := d.name + "\n\n" + d.caption
		if numbered {
			head = fmt.Sprintf("%d. %s", i+1, d.caption)
		}
		b.WriteString("\n## " + head + "\n\n```text\n" + string(data) + "```\n")
	}
	if err := os.WriteFile(filepath.Join("..", "docs", "screens", file), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// served is shush serve run from the built binary for a tmux test: its
// base URL, a key of the team "support" named after the agent, and run,
// which runs the binary's other commands against it.
type served struct {
	base, key string
	run       func(args ...string) string
}

// startServe runs `bin serve` on a free port, its database and home under
// dir, until the test ends.
func startServe(t *testing.T, bin, dir, agent string) served {
	t.Helper()
	home := filepath.Join(dir, "home")
	env := []string{
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PATH=" + os.Getenv("PATH"),
	}
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("shush %s: %v", strings.Join(args, " "), err)
		}
		return string(out)
	}
	db := filepath.Join(dir, "service.db")
	var created struct{ Key string }
	if err := json.Unmarshal([]byte(run("keys", "create", "--team", "support", "--name", agent, "--db", db, "--json")), &created); err != nil || created.Key == "" {
		t.Fatalf("keys create: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	serve := exec.Command(bin, "serve", "--addr", addr, "--db", db, "--rate", "1000")
	serve.Env = env
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { serve.Process.Kill(); serve.Wait() })
	base := "http://" + addr
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/healthz"); err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("shush serve did not answer")
		}
	}
	env = append(env, "SHUSH_BASE_URL="+base, "SHUSH_API_KEY="+created.Key)
	return served{base: base, key: created.Key, run: run}
}
