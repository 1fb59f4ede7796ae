package ui

import (
	"bytes"
	"flag"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
)

// updating reports whether -update was given (the flag is defined by
// charmbracelet/x/exp/golden, which teatest imports).
func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// service starts the real service (servicetest.Start) behind an optional
// wrapper that injects faults at the HTTP layer, and returns a client of it.
func service(t testing.TB, wrap func(http.Handler) http.Handler) *client.Client {
	t.Helper()
	svc := servicetest.Start(t, server.Options{Rate: 1e6}, wrap)
	return client.New(svc.URL, svc.Key, client.WithRetry(1, time.Millisecond, time.Millisecond))
}

// countingService is service counting the batches that send entries
// (batchSend) through it.
func countingService(t testing.TB) (*client.Client, *atomic.Int32) {
	var n atomic.Int32
	return service(t, countSends(&n)), &n
}

// countSends wraps a handler to count in n the batches that send entries.
func countSends(n *atomic.Int32) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) {
				n.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	}
}

// batchSend reports whether r sends entries to a batch endpoint: not the
// header's question whether the key may change the list (a batch add of
// no address, client.ReadOnly). It leaves r's body as it was.
func batchSend(r *http.Request) bool {
	if !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") || r.URL.Path == "/suppressions/batch/check" {
		return false
	}
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	return !bytes.Equal(bytes.Join(bytes.Fields(body), nil), []byte(`{"emails":[]}`))
}

// asciiRenderer renders without colour, like a terminal under NO_COLOR.
func asciiRenderer() *lipgloss.Renderer {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	r.SetHasDarkBackground(true)
	return r
}

// harness drives the root model the way the Bubble Tea runtime does, but
// synchronously: each message goes through Update and every command it
// returns is run, and its message fed back, until none is left.
type harness struct {
	t     testing.TB
	m     Model
	quit  bool
	state string
	dir   string
}

func newHarness(t testing.TB, svc *client.Client, w, h int) *harness {
	t.Helper()
	// The state directory is apart from the picker's: a draft written
	// there is not one of the files a test opens.
	return harnessAt(t, svc, t.TempDir(), filepath.Join(t.TempDir(), "state"), w, h)
}

// harnessAt is newHarness with the picker's directory and the state
// directory given: a second session of the same agent.
func harnessAt(t testing.TB, svc *client.Client, dir, state string, w, h int) *harness {
	t.Helper()
	m := New(Options{
		Service:   svc,
		Target:    Target{Profile: "default", Label: "local list", MaskedKey: "shush_ab…wxyz"},
		StateDir:  state,
		Runs:      &batch.Runs{Dir: filepath.Join(state, "journal"), Client: svc, Source: "ui"},
		StartDir:  dir,
		Clipboard: io.Discard,
		Renderer:  asciiRenderer(),
	})
	hs := newHarnessOf(t, m, dir, state)
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	return hs
}

// newHarnessOf drives m by hand. Nothing it schedules for later (the
// header's next probe) comes: the harness runs to quiescence, and a test
// sends such a message itself.
func newHarnessOf(t testing.TB, m Model, dir, state string) *harness {
	m.c.after = func(time.Duration, tea.Msg) tea.Cmd { return nil }
	return &harness{t: t, m: m, state: state, dir: dir}
}

func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	nm, cmd := h.m.Update(msg)
	h.m = nm.(Model)
	h.run(cmd)
}

func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
	case tea.QuitMsg:
		h.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			h.run(c)
		}
	default:
		h.send(msg)
	}
}

// typeText sends text as typed keys, one rune at a time.
func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

func (h *harness) key(k tea.KeyType) { h.send(tea.KeyMsg{Type: k}) }

// keys presses keys by name ("enter", "ctrl+r", "pgdown", "f3", "space")
// or as runes ("d"); a name of no key is its runes in one message, as
// keys that reach the program together.
func (h *harness) keys(s ...string) {
	for _, k := range s {
		if t, ok := keyTypes[k]; ok && len([]rune(k)) > 1 {
			h.key(t)
			continue
		}
		h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)})
	}
}

// keyTypes names Bubble Tea's key types as key.Matches does.
var keyTypes = func() map[string]tea.KeyType {
	m := map[string]tea.KeyType{"space": tea.KeySpace, "enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab}
	for t := tea.KeyType(-100); t <= 127; t++ {
		if name := t.String(); name != "" {
			if _, ok := m[name]; !ok {
				m[name] = t
			}
		}
	}
	return m
}()

// paste sends text as one bracketed paste.
func (h *harness) paste(s string) {
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s), Paste: true})
}

// plainPaste sends text as a terminal without bracketed paste does: each
// line's runes in one message, then Enter.
func (h *harness) plainPaste(s string) {
	for _, l := range strings.Split(normalizeNewlines(s), "\n") {
		if l != "" {
			h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(l)})
		}
		h.key(tea.KeyEnter)
	}
}

func (h *harness) view() string { return h.m.View() }

func (h *harness) mustSee(want ...string) {
	h.t.Helper()
	v := h.view()
	for _, w := range want {
		if !strings.Contains(v, w) {
			h.t.Fatalf("the screen does not show %q:\n%s", w, v)
		}
	}
}

func (h *harness) mustNotSee(want ...string) {
	h.t.Helper()
	v := h.view()
	for _, w := range want {
		if strings.Contains(v, w) {
			h.t.Fatalf("the screen shows %q:\n%s", w, v)
		}
	}
}

// results is the run shown on the Results screen.
func (h *harness) results() *Run {
	h.t.Helper()
	if h.m.screen != scrResults {
		h.t.Fatalf("not on the Results screen:\n%s", h.view())
	}
	return h.m.results.run
}

var (
	uuidRE  = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	cutIDRE = regexp.MustCompile(`…[0-9a-f-]*[0-9a-f]{8}`)
	timeRE  = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d(:\d\d)?`)
	fileRE  = regexp.MustCompile(`shush-results-\d{8}-\d{6}`)
	// Temp paths differ in length from machine to machine, so lines that
	// show one are cut where they would be truncated differently.
	pickRE = regexp.MustCompile(`(Open a file \([^)]*\)  ).*`)
	histRE = regexp.MustCompile(`(History · \d+ runs?(?: · row \d+)?) · .*`)
)

// scrub replaces what changes from run to run (IDs, times, temp paths) so
// that a screen can be compared with a golden file.
func scrub(s string, tmp string) string {
	s = uuidRE.ReplaceAllString(s, "xxxxxxxx-xxxx-7xxx-xxxx-xxxxxxxxxxxx")
	s = cutIDRE.ReplaceAllString(s, "…xxxxxxxx")
	s = timeRE.ReplaceAllStringFunc(s, func(m string) string {
		if len(m) > 16 {
			return "YYYY-MM-DD hh:mm:ss"
		}
		return "YYYY-MM-DD hh:mm"
	})
	s = fileRE.ReplaceAllString(s, "shush-results-YYYYMMDD-hhmmss")
	s = pickRE.ReplaceAllString(s, "$1<dir>")
	s = histRE.ReplaceAllString(s, "$1 · <state dir>/journal")
	if tmp != "" {
		s = strings.ReplaceAll(s, tmp, "/tmp/test")
	}
	return s
}

// golden compares a screen with testdata/<name>.golden (rewritten with -update).
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if updating() {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./ui -run %s -update to create it)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file %s:\n--- got ---\n%s\n--- want ---\n%s", name, path, got, want)
	}
}

// normalizeNewlines turns \r\n and lone \r (what terminals send on paste)
// into \n.
func normalizeNewlines(s string) string {
	if !strings.ContainsRune(s, '\r') {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// values are the valid values of the list that a batch sends, in order.
func (l *entries) values() []string {
	out := make([]string, 0, l.valid)
	for _, e := range l.rows {
		if e.Valid() && !e.rule(l.mode).Leave {
			out = append(out, e.Value)
		}
	}
	return out
}
