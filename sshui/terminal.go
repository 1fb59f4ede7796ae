package sshui

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/ssh"
	"github.com/muesli/termenv"
)

// feed is the session's input, read by one goroutine for the session's
// whole life: the background query below takes the terminal's answers off
// it with a deadline, and no read is left behind to swallow a keystroke
// (a reader that cannot be cancelled would, after a timeout).
type feed struct {
	chunks chan []byte
	mu     sync.Mutex
	rest   []byte // read, not yet given
	last   atomic.Int64
}

func newFeed(r io.Reader) *feed {
	f := &feed{chunks: make(chan []byte, 16)}
	f.last.Store(time.Now().UnixNano())
	go func() {
		defer close(f.chunks)
		for {
			buf := make([]byte, 32<<10)
			n, err := r.Read(buf)
			if n > 0 {
				f.last.Store(time.Now().UnixNano())
				f.chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	return f
}

// lastInput is when the agent last sent anything.
func (f *feed) lastInput() time.Time { return time.Unix(0, f.last.Load()) }

// Read gives what the session sent, in order.
func (f *feed) Read(p []byte) (int, error) {
	f.mu.Lock()
	if len(f.rest) > 0 {
		n := copy(p, f.rest)
		f.rest = f.rest[n:]
		f.mu.Unlock()
		return n, nil
	}
	f.mu.Unlock()
	b, ok := <-f.chunks
	if !ok {
		return 0, io.EOF
	}
	n := copy(p, b)
	if n < len(b) {
		f.mu.Lock()
		f.rest = append(f.rest, b[n:]...)
		f.mu.Unlock()
	}
	return n, nil
}

// bgWait bounds the wait for the terminal's answer about its background:
// most answer within a round trip; one that never does costs this once.
const bgWait = 750 * time.Millisecond

var (
	// An OSC 11 answer: ESC ] 11 ; rgb:R/G/B, ended by BEL or ST.
	oscBackground = regexp.MustCompile(`\x1b\]11;rgb:([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})/([0-9a-fA-F]{1,4})(?:\x07|\x1b\\)`)
	// A primary device attributes answer: ESC [ ? … c.
	deviceAttributes = regexp.MustCompile(`\x1b\[\?[0-9;]*c`)
)

// background asks the terminal for its background colour and whether it
// is dark (true when it does not say). It asks for the device attributes
// after it, which every terminal answers, so that a terminal without the
// colour query ends the wait at once. What else the agent sent meanwhile
// stays in the feed for the UI.
func (f *feed) background(w io.Writer) bool {
	if _, err := io.WriteString(w, "\x1b]11;?\x07\x1b[c"); err != nil {
		return true
	}
	var got []byte
	deadline := time.After(bgWait)
wait:
	for !deviceAttributes.Match(got) {
		select {
		case b, ok := <-f.chunks:
			if !ok {
				break wait
			}
			got = append(got, b...)
		case <-deadline:
			break wait
		}
	}
	dark := true
	if m := oscBackground.FindSubmatch(got); m != nil {
		dark = luminance(m[1], m[2], m[3]) < 0.5
	}
	got = oscBackground.ReplaceAll(got, nil)
	got = deviceAttributes.ReplaceAll(got, nil)
	f.mu.Lock()
	f.rest = append(bytes.Clone(got), f.rest...)
	f.mu.Unlock()
	return dark
}

// luminance is the relative lightness (0 to 1) of an X11 colour's hex
// components.
func luminance(r, g, b []byte) float64 {
	c := func(h []byte) float64 {
		v, _ := strconv.ParseUint(string(h), 16, 16)
		return float64(v) / float64(uint64(1)<<(4*len(h))-1)
	}
	return 0.2126*c(r) + 0.7152*c(g) + 0.0722*c(b)
}

// environ is the session's environment for termenv: what the client sent
// and the terminal type of its PTY.
type environ []string

func (e environ) Environ() []string { return e }

func (e environ) Getenv(k string) string {
	for _, v := range e {
		if name, val, ok := strings.Cut(v, "="); ok && name == k {
			return val
		}
	}
	return ""
}

// renderer is the session's own lipgloss renderer: the colour profile of
// the agent's terminal (its TERM, and NO_COLOR when sent), and its
// background, asked once here so that nothing asks later.
func renderer(sess ssh.Session, pty ssh.Pty, in *feed) *lipgloss.Renderer {
	env := environ(append(sess.Environ(), "TERM="+pty.Term))
	if pty.Term == "" || pty.Term == "dumb" {
		r := lipgloss.NewRenderer(sess, termenv.WithProfile(termenv.Ascii))
		r.SetHasDarkBackground(true)
		return r
	}
	r := lipgloss.NewRenderer(sess, termenv.WithEnvironment(env), termenv.WithUnsafe(), termenv.WithColorCache(true))
	r.SetHasDarkBackground(in.background(sess))
	return r
}
