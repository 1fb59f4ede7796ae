// Package termprobe keeps shush from stalling on a terminal that never
// answers queries (a pty nobody reads: script, ssh -tt into a pipe, some
// CI runners).
//
// Bubble Tea v1 asks the terminal for its background colour in its package
// init (through Lip Gloss and termenv), and termenv waits up to five
// seconds for the answer, so every command, even --version, stalls there.
// Setting Lip Gloss's background explicitly cannot come first: a package
// that imports lipgloss becomes ready to initialize in the same step as
// bubbletea, and Go initializes ready packages in import-path order,
// github.com/charmbracelet/bubbletea before github.com/shushlist/shush/….
// This package imports neither, so it is initialized well before termenv
// (GODEBUG=inittrace=1 shows the order). Its init asks the terminal for
// the cursor position, which every terminal emulator answers at once; when
// nothing answers within probeWait, it sets TERM=dumb for the moment, which
// termenv takes as "do not query", and Restore (called first thing in the
// program) puts TERM back before anything is drawn.
package termprobe

import (
	"os"
	"strings"
	"sync"
	"time"
)

// probeWait is how long the probe waits for the terminal's answer; a
// terminal emulator answers in well under a millisecond, a remote one in a
// round trip.
const probeWait = 250 * time.Millisecond

var (
	mu       sync.Mutex
	saved    string
	replaced bool
	// Silent reports whether the probe found a terminal that does not
	// answer (for tests and diagnostics).
	Silent bool
)

func init() {
	if !shouldProbe() {
		return
	}
	if answered(probeWait) {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	saved, replaced, Silent = os.Getenv("TERM"), true, true
	os.Setenv("TERM", "dumb")
}

// shouldProbe mirrors when termenv would query: stdout a terminal, not
// under CI, not screen, tmux or a dumb terminal.
func shouldProbe() bool {
	if os.Getenv("CI") != "" {
		return false
	}
	term := os.Getenv("TERM")
	for _, p := range []string{"screen", "tmux", "dumb"} {
		if strings.HasPrefix(term, p) {
			return false
		}
	}
	return isTerminal(os.Stdout)
}

// Restore puts TERM back as it was, once the packages' init queries are
// past; the program draws with the terminal's real capabilities.
func Restore() {
	mu.Lock()
	defer mu.Unlock()
	if replaced {
		os.Setenv("TERM", saved)
		replaced = false
	}
}
