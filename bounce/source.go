package bounce

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/shushlist/shush/api"
)

// Message is one raw message of a source.
type Message struct {
	// Source says where the message is: its file, "file:line" for a
	// message of an mbox (the line of its "From " separator), or
	// "stdin"/"stdin:line".
	Source string
	// Raw is the message as written, without an mbox's separator line and
	// with its ">From " lines unescaped.
	Raw []byte
}

// Messages yields the messages of a source: a single message file, an mbox
// (mboxo or mboxrd: "From " separator lines, ">From " lines unescaped) or
// a Maildir folder (the files of its new/ and cur/, in name order); path
// "-" reads stdin, a message or an mbox. A message that cannot be
// read is an error naming its file (and, in an mbox, the line where it
// starts), and the messages after it still come; an error that ends the
// source (a file that cannot be opened or read) is the last thing yielded.
func Messages(path string, stdin io.Reader) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		if path == "-" {
			readStream(stdin, "stdin", MaxMessageSize, yield)
			return
		}
		name := label(path)
		info, err := os.Stat(path)
		if err != nil {
			yield(Message{}, fmt.Errorf("%s: %w", name, unwrapPath(err)))
			return
		}
		if info.IsDir() {
			readMaildir(path, MaxMessageSize, yield)
			return
		}
		f, err := os.Open(path)
		if err != nil {
			yield(Message{}, fmt.Errorf("%s: %w", name, unwrapPath(err)))
			return
		}
		defer f.Close()
		readStream(f, name, MaxMessageSize, yield)
	}
}

// label is a file name fit to begin an error: quoted when it holds control
// characters.
func label(path string) string {
	if strings.ContainsFunc(path, unicode.IsControl) {
		return api.Quote(path)
	}
	return path
}

// unwrapPath drops the operation and path of an *os.PathError: the error
// names the file once, first.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// readStream yields the messages of r: an mbox when it starts with "From ",
// else one message.
func readStream(r io.Reader, name string, limit int, yield func(Message, error) bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(5)
	if err != nil && !errors.Is(err, io.EOF) {
		yield(Message{}, fmt.Errorf("%s: %w", name, err))
		return
	}
	if string(head) == "From " {
		readMbox(br, name, limit, yield)
		return
	}
	raw, err := io.ReadAll(io.LimitReader(br, int64(limit)+1))
	switch {
	case err != nil:
		yield(Message{}, fmt.Errorf("%s: %w", name, err))
	case len(raw) > limit:
		yield(Message{}, fmt.Errorf("%s: %w", name, tooLarge(limit)))
	default:
		yield(Message{Source: name, Raw: raw}, nil)
	}
}

func tooLarge(limit int) error {
	if limit == MaxMessageSize {
		return errTooLarge
	}
	return fmt.Errorf("the message is larger than %d bytes", limit)
}

// mbox splits an mbox into messages. A separator is a line starting
// "From " at the start of the file or after an empty line; the empty line
// before a separator belongs to the mbox, not to the message.
type mbox struct {
	name    string
	limit   int
	line    int          // lines read
	start   int          // the line of the current message's separator
	msg     bytes.Buffer // the current message
	blank   []byte       // an empty line held back: it may precede a separator
	tooBig  bool
	atStart bool // the next chunk starts a line
	skip    bool // the rest of a separator line is still to come
}

// readMbox yields the messages of an mbox whose first line is a separator.
func readMbox(br *bufio.Reader, name string, limit int, yield func(Message, error) bool) {
	m := &mbox{name: name, limit: limit, atStart: true}
	prevEmpty := true
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			lineStart := m.atStart
			m.atStart = chunk[len(chunk)-1] == '\n'
			if lineStart {
				m.line++
			}
			if lineStart && isSeparator(chunk, prevEmpty) {
				if m.start > 0 && !m.emit(yield) {
					return
				}
				m.begin()
				m.skip = !m.atStart
			} else {
				m.add(chunk, lineStart)
			}
			prevEmpty = lineStart && m.atStart && isEmptyLine(chunk)
		}
		switch {
		case err == nil, errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if m.start > 0 {
				m.emit(yield)
			}
		default:
			yield(Message{}, fmt.Errorf("%s:%d: %w", name, m.line, err))
		}
		return
	}
}

// isSeparator reports whether a line starts a message of an mbox: "From "
// after an empty line (or at the start), or anywhere when it reads like a
// separator ("From sender date" with a time), as some writers leave out
// the empty line.
func isSeparator(line []byte, afterEmpty bool) bool {
	rest, ok := bytes.CutPrefix(line, []byte("From "))
	if !ok {
		return false
	}
	if afterEmpty {
		return true
	}
	f := bytes.Fields(rest)
	return len(f) >= 3 && hasClock(rest)
}

// hasClock reports whether s holds a time of day, "hh:mm".
func hasClock(s []byte) bool {
	for i := 0; i+5 <= len(s); i++ {
		if isDigit(s[i]) && isDigit(s[i+1]) && s[i+2] == ':' && isDigit(s[i+3]) && isDigit(s[i+4]) {
			return true
		}
	}
	return false
}

// begin starts a message at the current line.
func (m *mbox) begin() {
	m.start, m.tooBig, m.blank = m.line, false, nil
	m.msg.Reset()
}

// add appends a chunk of a line to the current message, unescaping
// ">From " and holding back an empty line.
func (m *mbox) add(chunk []byte, lineStart bool) {
	if m.skip {
		m.skip = !m.atStart
		return
	}
	if m.blank != nil {
		m.write(m.blank)
		m.blank = nil
	}
	if lineStart && isEmptyLine(chunk) {
		m.blank = append([]byte(nil), chunk...)
		return
	}
	if lineStart && isEscapedFrom(chunk) {
		chunk = chunk[1:]
	}
	m.write(chunk)
}

func (m *mbox) write(b []byte) {
	if m.tooBig {
		return
	}
	if m.msg.Len()+len(b) > m.limit {
		m.tooBig = true
		m.msg.Reset()
		return
	}
	m.msg.Write(b)
}

// emit yields the current message; it reports whether to go on.
func (m *mbox) emit(yield func(Message, error) bool) bool {
	source := fmt.Sprintf("%s:%d", m.name, m.start)
	if m.tooBig {
		return yield(Message{}, fmt.Errorf("%s: %w", source, tooLarge(m.limit)))
	}
	return yield(Message{Source: source, Raw: bytes.Clone(m.msg.Bytes())}, nil)
}

func isEmptyLine(b []byte) bool {
	return len(b) == 1 && b[0] == '\n' || len(b) == 2 && b[0] == '\r' && b[1] == '\n'
}

// isEscapedFrom reports whether a line is ">From ", ">>From ", ...: an
// mboxrd escape, which also unescapes mboxo's ">From ".
func isEscapedFrom(b []byte) bool {
	i := 0
	for i < len(b) && b[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(b[i:], []byte("From "))
}

// readMaildir yields the messages of a Maildir folder: the files of new/
// then cur/, in name order, skipping names that start with a dot.
func readMaildir(dir string, limit int, yield func(Message, error) bool) {
	var subs []string
	for _, sub := range []string{"new", "cur"} {
		if info, err := os.Stat(filepath.Join(dir, sub)); err == nil && info.IsDir() {
			subs = append(subs, sub)
		}
	}
	if len(subs) == 0 {
		yield(Message{}, fmt.Errorf("%s: a folder but not a Maildir (it has no cur/ or new/)", label(dir)))
		return
	}
	for _, sub := range subs {
		entries, err := os.ReadDir(filepath.Join(dir, sub))
		if err != nil {
			if !yield(Message{}, fmt.Errorf("%s: %w", label(filepath.Join(dir, sub)), unwrapPath(err))) {
				return
			}
			continue
		}
		for _, ent := range entries {
			if ent.IsDir() || strings.HasPrefix(ent.Name(), ".") {
				continue
			}
			if !yield(readFile(filepath.Join(dir, sub, ent.Name()), limit)) {
				return
			}
		}
	}
}

// readFile reads one message file of at most limit bytes.
func readFile(path string, limit int) (Message, error) {
	name := label(path)
	f, err := os.Open(path)
	if err != nil {
		return Message{}, fmt.Errorf("%s: %w", name, unwrapPath(err))
	}
	defer f.Close()
	raw, err := io.ReadAll(io.LimitReader(f, int64(limit)+1))
	switch {
	case err != nil:
		return Message{}, fmt.Errorf("%s: %w", name, err)
	case len(raw) > limit:
		return Message{}, fmt.Errorf("%s: %w", name, tooLarge(limit))
	}
	return Message{Source: name, Raw: raw}, nil
}
