package sshui

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// readAll reads what the feed gives until want bytes came (or a second
// passed).
func readAll(t *testing.T, f *feed, want int) string {
	t.Helper()
	got := make(chan []byte, 1)
	go func() {
		var b []byte
		buf := make([]byte, 8)
		for len(b) < want {
			n, err := f.Read(buf)
			b = append(b, buf[:n]...)
			if err != nil {
				break
			}
		}
		got <- b
	}()
	select {
	case b := <-got:
		return string(b)
	case <-time.After(time.Second):
		t.Fatalf("the feed gave less than %d bytes", want)
		return ""
	}
}

// The terminal's answers are taken off the input and decide the
// background; what the agent typed around them reaches the UI in order.
func TestBackgroundAnswerTakenOffTheInput(t *testing.T) {
	for _, c := range []struct {
		name, answer string
		dark         bool
	}{
		{"light, ST", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[?62;22c", false},
		{"dark, BEL", "\x1b]11;rgb:1c1c/1c1c/1c1c\x07\x1b[?1;2c", true},
		{"light, 2 digits", "\x1b]11;rgb:fa/fa/f0\x07\x1b[?6c", false},
		{"no colour, attributes only", "\x1b[?1;2c", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			f := newFeed(pr)
			go func() {
				pw.Write([]byte("ab"))
				pw.Write([]byte(c.answer[:5]))
				pw.Write([]byte(c.answer[5:] + "cd"))
			}()
			var asked bytes.Buffer
			if dark := f.background(&asked); dark != c.dark {
				t.Errorf("dark = %v, want %v", dark, c.dark)
			}
			if asked.String() != "\x1b]11;?\x07\x1b[c" {
				t.Errorf("the question: %q", asked.String())
			}
			if got := readAll(t, f, 4); got != "abcd" {
				t.Errorf("the UI reads %q, want %q", got, "abcd")
			}
		})
	}
}

// A terminal that never answers costs bgWait once; the key pressed
// meanwhile is not lost (a reader left blocked would swallow it).
func TestSilentTerminalLosesNoKey(t *testing.T) {
	pr, pw := io.Pipe()
	f := newFeed(pr)
	start := time.Now()
	if !f.background(io.Discard) {
		t.Error("a terminal that does not say is taken as light")
	}
	if waited := time.Since(start); waited < bgWait {
		t.Errorf("waited %v, less than %v", waited, bgWait)
	}
	go pw.Write([]byte("q"))
	if got := readAll(t, f, 1); got != "q" {
		t.Errorf("the UI reads %q, want %q", got, "q")
	}
}
