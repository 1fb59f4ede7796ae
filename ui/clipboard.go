package ui

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/atotto/clipboard"
	"github.com/aymanbagabas/go-osc52/v2"
)

// clipRoute is how text reached (or was offered to) the clipboard.
type clipRoute int

const (
	clipNone   clipRoute = iota // nothing could be done
	clipSystem                  // the system clipboard, read back
	clipTmux                    // tmux's paste buffer, read back; maybe forwarded
	clipOSC52                   // an OSC 52 sequence the terminal may or may not take
)

// clipResult says how far a copy got. Confirmed is true only when shush
// read the text back from where it put it.
type clipResult struct {
	Route     clipRoute
	Confirmed bool
	// Forwarded is set for tmux when tmux passes its buffer on to the
	// terminal's clipboard (set-clipboard on or external): not confirmable.
	Forwarded bool
	Err       error
}

// copier puts text on the clipboard by the best route the session offers
// and reports the truth about it: where agents work (ssh, tmux, screen)
// the system clipboard is often out of reach, and OSC 52 has no answer.
type copier struct {
	term   io.Writer               // the terminal, for OSC 52
	env    func(key string) string // os.Getenv in the program
	run    func(stdin string, env []string, args ...string) (string, error)
	system bool // try the system clipboard (xclip, wl-copy, pbcopy) first
}

func newCopier(term io.Writer) copier {
	return copier{term: term, env: os.Getenv, run: runTool, system: true}
}

// runTool runs a helper program (tmux) with a short deadline: a copy must
// never hang the UI.
func runTool(stdin string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(errb.String()); msg != "" {
			return "", fmt.Errorf("%s: %s", args[0], msg)
		}
		return "", err
	}
	return out.String(), nil
}

func (c copier) copy(text string) clipResult {
	remote := c.env("SSH_CONNECTION") != "" || c.env("SSH_TTY") != ""
	if c.system && !remote && !clipboard.Unsupported {
		if err := clipboard.WriteAll(text); err == nil {
			if back, err := clipboard.ReadAll(); err == nil && back == text {
				return clipResult{Route: clipSystem, Confirmed: true}
			}
		}
	}
	if sock := c.env("TMUX"); sock != "" {
		if r, ok := c.tmux(sock, text); ok {
			return r
		}
	}
	if c.term == nil {
		return clipResult{Route: clipNone}
	}
	seq := osc52.New(text)
	if c.env("STY") != "" {
		seq = seq.Screen()
	}
	if _, err := seq.WriteTo(c.term); err != nil {
		return clipResult{Route: clipNone, Err: err}
	}
	return clipResult{Route: clipOSC52}
}

// tmux loads text into tmux's paste buffer (with -w, tmux ≥ 3.2 also
// hands it to the outer terminal's clipboard) and reads it back.
func (c copier) tmux(sock, text string) (clipResult, bool) {
	env := []string{"TMUX=" + sock}
	if _, err := c.run(text, env, "tmux", "load-buffer", "-w", "-"); err != nil {
		if _, err := c.run(text, env, "tmux", "load-buffer", "-"); err != nil {
			return clipResult{}, false
		}
	}
	back, err := c.run("", env, "tmux", "save-buffer", "-")
	if err != nil || back != text {
		return clipResult{}, false
	}
	mode, _ := c.run("", env, "tmux", "show-options", "-gv", "set-clipboard")
	mode = strings.TrimSpace(mode)
	return clipResult{Route: clipTmux, Confirmed: true, Forwarded: mode == "on" || mode == "external"}, true
}

// clipMessage is the one line the UI shows after copying n things (what:
// "ID", "address"), true to the route taken; exportKey names the key that
// writes a file instead.
func clipMessage(r clipResult, n int, what, exportKey string) string {
	things := fmt.Sprintf("%d %s", n, pluralN(n, what))
	switch r.Route {
	case clipSystem:
		return fmt.Sprintf("Copied %s to the clipboard.", things)
	case clipTmux:
		if r.Forwarded {
			return fmt.Sprintf("Copied %s to tmux's paste buffer (prefix ] pastes); tmux passes it to your terminal's clipboard if the terminal allows it — %s writes them to a file.", things, exportKey)
		}
		return fmt.Sprintf("Copied %s to tmux's paste buffer (prefix ] pastes), not to your system clipboard (tmux's set-clipboard is off) — %s writes them to a file.", things, exportKey)
	case clipOSC52:
		return fmt.Sprintf("Sent %s to your terminal's clipboard (OSC 52); shush cannot confirm the terminal took them — %s writes them to a file instead.", things, exportKey)
	}
	if r.Err != nil {
		return fmt.Sprintf("Could not copy: %v — %s writes a file instead.", r.Err, exportKey)
	}
	return fmt.Sprintf("No clipboard is reachable from here — %s writes a file instead.", exportKey)
}
