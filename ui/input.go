package ui

import (
	"bytes"
	"io"
	"time"

	tea "github.com/charmbracelet/bubbletea"
)

// Input sits between the terminal and Bubble Tea's reader and takes pastes
// off the stream before the reader sees them:
//
//   - a bracketed paste (ESC [200~ … ESC [201~) becomes one paste message,
//     read in one pass (Bubble Tea v1's reader grows its buffer a read at
//     a time and is quadratic in the paste: 100k lines took ~18 s);
//   - text that arrives faster than anyone types, without the markers
//     (terminals and multiplexers that do not bracket, tmux's plain
//     paste-buffer), is a paste too, never keystrokes: a ticket's words
//     must not delete rows or switch the mode.
//
// Everything else (keys, mouse, terminal answers) passes through
// unchanged. The terminal must be in raw mode (the caller's job: Bubble
// Tea does it only for an *os.File).
type Input struct {
	pr   *io.PipeReader
	pw   *io.PipeWriter
	src  io.Reader
	send func(tea.Msg)
	// MaxPaste, when above 0, is the most bytes one paste may hold: a
	// bigger one is dropped whole, and the UI says so (a served UI's
	// memory is the whole team's). Set it before Start.
	MaxPaste int
}

var (
	pasteStart = []byte("\x1b[200~")
	pasteEnd   = []byte("\x1b[201~")
)

// burstGap is how long after a burst more input still belongs to it: a
// big paste reaches the program in pieces a few milliseconds apart.
const burstGap = 25 * time.Millisecond

// markerWait is how long the start of what may be a paste marker (an Esc
// key alone looks like one) waits for the rest before it passes as a key.
const markerWait = 10 * time.Millisecond

// minBurst is the least a single read must hold to be a paste without
// markers when it has no line break: nobody types 16 characters within
// one read.
const minBurst = 16

// NewInput reads the terminal from src; Read gives Bubble Tea the rest.
func NewInput(src io.Reader) *Input {
	pr, pw := io.Pipe()
	return &Input{pr: pr, pw: pw, src: src}
}

// Read is what Bubble Tea reads: the input without its pastes.
func (in *Input) Read(p []byte) (int, error) { return in.pr.Read(p) }

// Close ends what Bubble Tea reads (its reader may still wait on it).
func (in *Input) Close() error { return in.pr.Close() }

// Start begins reading; pastes go to send (the program's Send).
func (in *Input) Start(send func(tea.Msg)) {
	in.send = send
	chunks := make(chan []byte, 64)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 64<<10)
			n, err := in.src.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	go in.pump(chunks)
}

// sorter is the pump's state between chunks.
type sorter struct {
	in        *Input
	bracketed bool         // inside ESC [200~
	burst     bool         // gathering a paste without markers
	paste     bytes.Buffer // the paste being gathered
	pending   []byte       // bytes that may start (or end) a marker
	dropped   int          // bytes of the paste past MaxPaste, not kept
}

// gather keeps b as part of the paste, up to MaxPaste.
func (s *sorter) gather(b []byte) {
	if limit := s.in.MaxPaste; limit > 0 && (s.dropped > 0 || s.paste.Len()+len(b) > limit) {
		s.dropped += s.paste.Len() + len(b)
		s.paste.Reset()
		return
	}
	s.paste.Write(b)
}

// done delivers the paste gathered (or says it was too big).
func (s *sorter) done() {
	if s.dropped > 0 {
		s.in.send(PasteTooBig{Limit: s.in.MaxPaste})
	} else if s.paste.Len() > 0 {
		s.in.deliver(s.paste.Bytes())
	}
	s.paste.Reset()
	s.dropped = 0
}

// PasteTooBig says a paste over Input.MaxPaste bytes was dropped.
type PasteTooBig struct{ Limit int }

// pump sorts the chunks: bracketed pastes, bursts, and keys. A burst ends
// when no text follows it within burstGap; bytes that may begin a marker
// wait markerWait for the rest.
func (in *Input) pump(chunks <-chan []byte) {
	defer in.pw.Close()
	s := &sorter{in: in}
	var timer <-chan time.Time
	for {
		select {
		case chunk, ok := <-chunks:
			if !ok {
				s.endBurst()
				return
			}
			if s.take(chunk) != nil {
				return
			}
		case <-timer:
			s.endBurst()
			if s.flushPending() != nil {
				return
			}
		}
		timer = nil
		switch {
		case s.burst:
			timer = time.After(burstGap)
		case len(s.pending) > 0 && !s.bracketed:
			timer = time.After(markerWait)
		}
	}
}

// take sorts one chunk.
func (s *sorter) take(chunk []byte) error {
	if len(s.pending) > 0 && !s.bracketed {
		next := append(s.pending[:len(s.pending):len(s.pending)], chunk...)
		if !bytes.HasPrefix(next, pasteStart) && !bytes.HasPrefix(pasteStart, next) {
			// No marker after all: what waited is a key of its own (Esc,
			// then a letter, is not Alt+letter).
			if err := s.flushPending(); err != nil {
				return err
			}
		}
	}
	data := append(s.pending, chunk...)
	s.pending = nil
	for len(data) > 0 {
		var err error
		if s.bracketed {
			data = s.inPaste(data)
		} else if data, err = s.outside(data); err != nil {
			return err
		}
	}
	return nil
}

// inPaste gathers a bracketed paste up to its end marker and returns what
// follows it.
func (s *sorter) inPaste(data []byte) []byte {
	end := bytes.Index(data, pasteEnd)
	if end < 0 {
		keep := partialSuffix(data, pasteEnd)
		s.gather(data[:len(data)-keep])
		s.pending = append([]byte(nil), data[len(data)-keep:]...)
		return nil
	}
	s.gather(data[:end])
	s.done()
	s.bracketed = false
	return data[end+len(pasteEnd):]
}

// outside sorts what comes before a paste's start marker (all of data
// when there is none) into a burst or keys, and returns what follows the
// marker.
func (s *sorter) outside(data []byte) ([]byte, error) {
	start := bytes.Index(data, pasteStart)
	head := data
	if start >= 0 {
		head = data[:start]
	} else if keep := partialSuffix(data, pasteStart); keep > 0 {
		head = data[:len(data)-keep]
		s.pending = append([]byte(nil), data[len(data)-keep:]...)
	}
	switch {
	case s.burst && isText(head):
		s.gather(head)
	case len(head) > 0 && isText(head) && looksPasted(head):
		s.burst = true
		s.gather(head)
	default:
		s.endBurst()
		if len(head) > 0 {
			if _, err := s.in.pw.Write(head); err != nil {
				return nil, err
			}
		}
	}
	if start < 0 {
		return nil, nil
	}
	s.endBurst()
	s.bracketed = true
	return data[start+len(pasteStart):], nil
}

// endBurst delivers a paste gathered without markers.
func (s *sorter) endBurst() {
	if s.burst {
		s.done()
	}
	s.burst = false
}

// flushPending passes bytes that began no marker on as keys.
func (s *sorter) flushPending() error {
	if len(s.pending) == 0 || s.bracketed {
		return nil
	}
	_, err := s.in.pw.Write(s.pending)
	s.pending = nil
	return err
}

// deliver sends a paste as Bubble Tea's own paste message, line breaks as
// it gives them.
func (in *Input) deliver(b []byte) {
	text := bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	text = bytes.ReplaceAll(text, []byte("\r"), []byte("\n"))
	in.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(string(text)), Paste: true})
}

// isText reports whether b is only text a paste holds: no escape
// sequences, no control characters but line breaks and tabs.
func isText(b []byte) bool {
	for _, c := range b {
		if c < 0x20 && c != '\n' && c != '\r' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// looksPasted reports whether one read of text came faster than typing:
// several lines, or a line of minBurst characters or more.
func looksPasted(b []byte) bool {
	breaks := bytes.Count(b, []byte("\r")) + bytes.Count(b, []byte("\n"))
	return breaks >= 2 || len(b) >= minBurst
}

// partialSuffix is the length of the longest end of b that begins marker
// (a marker cut between two reads).
func partialSuffix(b, marker []byte) int {
	for n := min(len(marker)-1, len(b)); n > 0; n-- {
		if bytes.HasSuffix(b, marker[:n]) {
			return n
		}
	}
	return 0
}
