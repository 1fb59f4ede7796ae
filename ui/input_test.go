package ui

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
)

// chunked is a terminal that delivers its input in the given reads, with
// a pause between them.
type chunked struct {
	reads [][]byte
	pause time.Duration
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.reads) == 0 {
		return 0, io.EOF
	}
	time.Sleep(c.pause)
	n := copy(p, c.reads[0])
	c.reads = c.reads[1:]
	return n, nil
}

// feed runs reads through an Input and returns the pastes it delivered
// and the bytes it passed to Bubble Tea.
func feedInput(t *testing.T, pause time.Duration, reads ...string) (pastes []string, keys string) {
	t.Helper()
	c := &chunked{pause: pause}
	for _, r := range reads {
		c.reads = append(c.reads, []byte(r))
	}
	in := NewInput(c)
	got := make(chan string, 16)
	in.Start(func(m tea.Msg) { got <- string(m.(tea.KeyMsg).Runes) })
	rest, _ := io.ReadAll(in)
	close(got)
	for p := range got {
		pastes = append(pastes, p)
	}
	return pastes, string(rest)
}

func TestInputTakesPastesOffTheStream(t *testing.T) {
	cases := []struct {
		name   string
		pause  time.Duration
		reads  []string
		pastes []string
		keys   string
	}{
		{"keys pass", 0, []string{"a", "\r", "\x1b[A", "d"}, nil, "a\r\x1b[Ad"},
		{"bracketed", 0, []string{"x\x1b[200~one\r\ntwo\x1b[201~y"}, []string{"one\ntwo"}, "xy"},
		{"markers cut between reads", 0, []string{"\x1b[20", "0~a@b.c\rd@e.f\x1b[2", "01~"}, []string{"a@b.c\nd@e.f"}, ""},
		{"a lone Esc is a key", 30 * time.Millisecond, []string{"\x1b", "m"}, nil, "\x1bm"},
		{"F9 is a key", 0, []string{"\x1b[20~"}, nil, "\x1b[20~"},
		{"unbracketed lines are a paste", 0, []string{"delete me\rmove dan@example.com\r"}, []string{"delete me\nmove dan@example.com\n"}, ""},
		{"a long line at once is a paste", 0, []string{"mmmm dddd uuuu xxxx"}, []string{"mmmm dddd uuuu xxxx"}, ""},
		{"a burst in pieces is one paste", 5 * time.Millisecond, []string{"a@b.c\rd@e.f\r", "g@h.i\r", "j@k.l\r"}, []string{"a@b.c\nd@e.f\ng@h.i\nj@k.l\n"}, ""},
		{"typing after a burst is keys", 60 * time.Millisecond, []string{"a@b.c\rd@e.f\r", "d"}, []string{"a@b.c\nd@e.f\n"}, "d"},
		{"a word and Enter is typing", 0, []string{"remove\r"}, nil, "remove\r"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pastes, keys := feedInput(t, c.pause, c.reads...)
			if strings.Join(pastes, "|") != strings.Join(c.pastes, "|") || keys != c.keys {
				t.Errorf("pastes %q keys %q; want %q and %q", pastes, keys, c.pastes, c.keys)
			}
		})
	}
}

// Esc and then a letter are two keys, not Alt+letter, even when the Esc
// waited to see whether a paste marker followed: they reach Bubble Tea in
// two reads.
func TestInputKeepsEscApart(t *testing.T) {
	in := NewInput(&chunked{reads: [][]byte{[]byte("\x1b"), []byte("o")}})
	in.Start(func(tea.Msg) { t.Error("a paste") })
	var reads []string
	buf := make([]byte, 64)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			reads = append(reads, string(buf[:n]))
		}
		if err != nil {
			break
		}
	}
	if strings.Join(reads, "|") != "\x1b|o" {
		t.Errorf("reads %q; want Esc and o apart", reads)
	}
}

// BenchmarkBracketedPaste measures a bracketed paste of n lines from the
// terminal's bytes to the Build screen's summary: the Input takes it off
// the stream, the model reads it (once, in a command). Beside it, its
// floor: the same bytes split into lines and each address normalized, the
// least any reading of the paste does.
//
//	go test -run '^$' -bench BracketedPaste -benchtime 5x ./ui
func BenchmarkBracketedPaste(b *testing.B) {
	for _, n := range []int{50_000, 100_000} {
		var buf bytes.Buffer
		buf.WriteString("\x1b[200~")
		for i := range n {
			buf.WriteString("user" + fmtN(i) + "@example.com\r\n")
		}
		buf.WriteString("\x1b[201~")
		raw := buf.Bytes()
		b.Run(fmtN(n/1000)+"k", func(b *testing.B) {
			for b.Loop() {
				m := New(Options{Target: Target{Label: "local list"}, Renderer: asciiRenderer()})
				m = frame(m, tea.WindowSizeMsg{Width: 120, Height: 40})
				m = frame(m, tea.KeyMsg{Type: tea.KeyEsc})
				in := NewInput(bytes.NewReader(raw))
				got := make(chan tea.Msg, 1)
				in.Start(func(msg tea.Msg) { got <- msg })
				m = frame(m, <-got)
				if !strings.Contains(m.View(), "Paste: "+fmtN(n)+" added") {
					b.Fatalf("no summary:\n%s", m.View())
				}
			}
		})
		b.Run(fmtN(n/1000)+"k-floor", func(b *testing.B) {
			for b.Loop() {
				text := string(raw[len("\x1b[200~") : len(raw)-len("\x1b[201~")])
				values := make([]string, 0, n)
				for line := range strings.Lines(text) {
					if v, err := api.NormalizeEmail(strings.TrimSpace(line)); err == nil {
						values = append(values, v)
					}
				}
				if len(values) != n {
					b.Fatalf("%d values", len(values))
				}
			}
		})
	}
}

// Past MaxPaste a paste is dropped whole and said to be, bracketed or a
// burst without markers; the keys around it and the next paste pass.
func TestInputDropsAPasteOverItsLimit(t *testing.T) {
	big := strings.Repeat("x@example.com\r", 20) // 280 bytes
	for _, c := range []struct {
		name  string
		pause time.Duration
		reads []string
	}{
		{"bracketed, in pieces", 0, []string{"a\x1b[200~" + big[:100], big[100:] + "\x1b[201~b", "\x1b[200~ok@example.com\x1b[201~"}},
		{"a burst", 50 * time.Millisecond, []string{"a", big, "b", "\x1b[200~ok@example.com\x1b[201~"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := &chunked{pause: c.pause}
			for _, s := range c.reads {
				r.reads = append(r.reads, []byte(s))
			}
			in := NewInput(r)
			in.MaxPaste = 200
			got := make(chan tea.Msg, 16)
			in.Start(func(m tea.Msg) { got <- m })
			rest, _ := io.ReadAll(in)
			close(got)
			var msgs []tea.Msg
			for m := range got {
				msgs = append(msgs, m)
			}
			if len(msgs) != 2 || msgs[0] != (PasteTooBig{Limit: 200}) || string(msgs[1].(tea.KeyMsg).Runes) != "ok@example.com" {
				t.Errorf("messages: %#v", msgs)
			}
			if string(rest) != "ab" {
				t.Errorf("keys: %q, want %q", rest, "ab")
			}
		})
	}
}
