package batch

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"unicode"
	"unicode/utf8"
)

// An input is read in passes, never held whole: a survey of its bytes
// (encoding, line count, the signs of its format), then the pass of its
// format that hands on each entry as it comes. A file is read from disk
// each time; an input that cannot be read twice (a pipe) is copied to a
// temporary file first, or kept in memory when it is small.

// source is an input that can be read from its start again.
type source struct {
	ra  io.ReaderAt
	off int64 // where the text starts (after a byte order mark)
	end int64
	tmp *os.File // the copy of a pipe, removed by close
}

// spoolAt is the most of an unseekable input kept in memory; a larger one
// goes to a temporary file.
const spoolAt = 1 << 20

// openSource makes r readable from its start again. Its errors are about
// the input ("cannot read it: …"), for the caller to prefix with its name.
func openSource(r io.Reader) (*source, error) {
	if src, ok, err := seekable(r); ok || err != nil {
		return src, err
	}
	head := make([]byte, spoolAt)
	n, err := io.ReadFull(r, head)
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &source{ra: bytes.NewReader(head[:n]), end: int64(n)}, nil
	case err != nil:
		return nil, fmt.Errorf("cannot read it: %w", err)
	}
	tmp, err := os.CreateTemp("", "shush-input-*")
	if err != nil {
		// No temporary directory to write to: read it into memory, as a
		// small input is.
		rest, err := io.ReadAll(io.LimitReader(r, MaxInput+1-spoolAt))
		if err != nil {
			return nil, fmt.Errorf("cannot read it: %w", err)
		}
		data := append(head, rest...)
		if len(data) > MaxInput {
			return nil, tooLarge()
		}
		return &source{ra: bytes.NewReader(data), end: int64(len(data))}, nil
	}
	src := &source{ra: tmp, tmp: tmp}
	// Gone from the directory at once where the system allows it (an open
	// file stays readable), so that a crash leaves no copy behind.
	_ = os.Remove(tmp.Name())
	if _, err := tmp.Write(head); err != nil {
		src.close()
		return nil, fmt.Errorf("cannot copy it to a temporary file: %w", err)
	}
	n64, err := io.Copy(tmp, io.LimitReader(r, MaxInput+1-spoolAt))
	if err != nil {
		src.close()
		return nil, fmt.Errorf("cannot read it: %w", err)
	}
	src.end = spoolAt + n64
	if src.end > MaxInput {
		src.close()
		return nil, tooLarge()
	}
	return src, nil
}

// seekable uses r as it is when it can be read at any offset: a regular
// file, or a reader over memory. ok is false for anything else.
func seekable(r io.Reader) (src *source, ok bool, err error) {
	ra, isAt := r.(io.ReaderAt)
	sk, isSeeker := r.(io.Seeker)
	if !isAt || !isSeeker {
		return nil, false, nil
	}
	if f, isFile := r.(*os.File); isFile {
		// A pipe, a terminal or /proc's files seek oddly or not at all.
		if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
			return nil, false, nil
		}
	}
	cur, err := sk.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil, false, nil
	}
	end, err := sk.Seek(0, io.SeekEnd)
	if err != nil {
		return nil, false, nil
	}
	if _, err := sk.Seek(cur, io.SeekStart); err != nil {
		return nil, false, nil
	}
	if end-cur > MaxInput {
		return nil, true, tooLarge()
	}
	return &source{ra: ra, off: cur, end: end}, true, nil
}

func tooLarge() error {
	return fmt.Errorf("it is larger than %d MiB; split it into smaller files", MaxInput>>20)
}

func (s *source) close() {
	if s.tmp != nil {
		name := s.tmp.Name()
		s.tmp.Close()
		_ = os.Remove(name)
		s.tmp = nil
	}
}

// reader reads the text from its start.
func (s *source) reader() io.Reader {
	return io.NewSectionReader(s.ra, s.off, s.end-s.off)
}

// readAt reads up to len(p) bytes of the text at off (relative to its
// start); fewer at its end.
func (s *source) readAt(p []byte, off int64) int {
	off = min(max(off, 0), s.end-s.off)
	n, _ := s.ra.ReadAt(p[:min(int64(len(p)), s.end-s.off-off)], s.off+off)
	return n
}

// lineOf is the 1-based line of byte offset off of the text: \n, \r\n and
// a lone \r each end a line (a \r just before off counts as lone).
func (s *source) lineOf(off int64) int {
	off = min(max(off, 0), s.end-s.off)
	line := 1
	var buf [64 << 10]byte
	cr := false // the previous chunk ended with \r
	for at := int64(0); at < off; {
		n := s.readAt(buf[:min(int64(len(buf)), off-at)], at)
		if n == 0 {
			break
		}
		b := buf[:n]
		if cr && b[0] == '\n' {
			line-- // counted as lone before this chunk showed its \n
		}
		line += bytes.Count(b, []byte{'\n'}) + bareCRs(b)
		cr = b[n-1] == '\r'
		at += int64(n)
	}
	return line
}

// survey is what a first pass over the text finds: where it stops being
// text (a NUL, a byte that is not UTF-8), where its first character is,
// how many lines it has, and the signs of its format.
type survey struct {
	nul, bad         int64 // offsets of the first NUL and bad byte; -1 for none
	nulLine, badLine int
	start            int64 // offset of the first character that is not white space; -1 for none
	startLine        int
	startRune        rune
	lines            int  // the line of the end of the text
	single           bool // every line holds one token (singleTokenLines)
	first            firstLine
}

// firstLine counts the separators of the first line with text, from which
// a CSV's delimiter is guessed.
type firstLine struct {
	found             bool
	comma, semi, tabs int
}

// delimiter guesses the separator of a CSV from its first line.
func (f firstLine) delimiter() rune {
	best, n := ',', f.comma
	if f.semi > n {
		best, n = ';', f.semi
	}
	if f.tabs > n {
		best = '\t'
	}
	return best
}

// has reports whether the first line holds d.
func (f firstLine) has(d rune) bool {
	switch d {
	case ';':
		return f.semi > 0
	case '\t':
		return f.tabs > 0
	}
	return f.comma > 0
}

// surveyor reads a text in chunks that never split a character nor a
// \r\n; see survey.
type surveyor struct {
	survey
	off int64 // offset of the next chunk
	// The line being read: whether it has had a token character, and white
	// space after one; and its first-line counts.
	token, gap bool
	text       bool
	cur        firstLine
}

func newSurveyor() *surveyor {
	return &surveyor{survey: survey{nul: -1, bad: -1, start: -1, lines: 1, single: true}}
}

// surveyText runs the first pass over src.
func surveyText(src *source) (survey, error) {
	sv := newSurveyor()
	r := src.reader()
	buf := make([]byte, 64<<10)
	carry := 0
	for {
		n, err := io.ReadFull(r, buf[carry:])
		data := buf[:carry+n]
		last := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !last {
			return survey{}, fmt.Errorf("cannot read it: %w", err)
		}
		cut := len(data)
		if !last {
			cut = chunkEnd(data)
		}
		sv.feed(data[:cut], last)
		if last {
			break
		}
		carry = copy(buf, data[cut:])
	}
	return sv.survey, nil
}

// chunkEnd is where a chunk read from the middle of a text may end: before
// a character cut short, and before a \r whose \n may follow.
func chunkEnd(b []byte) int {
	end := len(b)
	for i := end - 1; i >= 0 && i >= end-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:end]) {
				end = i
			}
			break
		}
	}
	if end > 0 && b[end-1] == '\r' {
		end--
	}
	return end
}

// feed surveys the next chunk of the text; last says it is the end.
func (sv *surveyor) feed(b []byte, last bool) {
	if sv.nul < 0 {
		if i := bytes.IndexByte(b, 0); i >= 0 {
			sv.nul, sv.nulLine = sv.off+int64(i), sv.lines+bytes.Count(b[:i], []byte{'\n'})+bareCRs(b[:i])
		}
	}
	if sv.bad < 0 && !utf8.Valid(b) {
		i := invalidUTF8(b)
		sv.bad, sv.badLine = sv.off+int64(i), sv.lines+bytes.Count(b[:i], []byte{'\n'})+bareCRs(b[:i])
	}
	if sv.single || !sv.first.found || sv.start < 0 {
		sv.scan(b)
	} else {
		// Only the line count is left to find.
		sv.lines += bytes.Count(b, []byte{'\n'}) + bareCRs(b)
	}
	if last {
		sv.endLine()
	}
	sv.off += int64(len(b))
}

// scan follows b character by character: line ends, the first character,
// whether each line is one token once trimmed (trimLine), and the first
// line's separators.
func (sv *surveyor) scan(b []byte) {
	for i := 0; i < len(b); {
		c := b[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(b[i:])
		}
		switch {
		case c == '\n' || c == '\r':
			if c == '\r' && i+1 < len(b) && b[i+1] == '\n' {
				size = 2
			}
			sv.endLine()
			sv.lines++
		case c == ' ' || c == '\t' || c >= utf8.RuneSelf && (unicode.IsSpace(r) || isInvisible(r)):
			// Trimmed at the ends of a line, a separator within it.
			if sv.token {
				sv.gap = true
			}
			if c == '\t' {
				sv.cur.tabs++
			}
			if isInvisible(r) {
				sv.noteText(i, r)
			}
		case c == '\v' || c == '\f':
			// Trimmed at the ends of a line, but no separator within it.
		default:
			sv.textChar(c)
			sv.noteText(i, r)
		}
		i += size
	}
}

// textChar notes a character of a line's text: a separator, or any after
// a gap, makes the line more than one token; commas and semicolons are
// counted.
func (sv *surveyor) textChar(c byte) {
	switch c {
	case ',':
		sv.cur.comma++
		sv.single = false
	case ';':
		sv.cur.semi++
		sv.single = false
	case ':', '<', '>', '"':
		sv.single = false
	}
	if sv.gap {
		sv.single = false
	}
	sv.token = true
}

// noteText marks the line as having text (strings.TrimSpace leaves
// something) and notes the first character of the whole text.
func (sv *surveyor) noteText(i int, r rune) {
	sv.text = true
	if sv.start < 0 {
		sv.start, sv.startLine, sv.startRune = sv.off+int64(i), sv.lines, r
	}
}

// endLine closes the line being read.
func (sv *surveyor) endLine() {
	if sv.text && !sv.first.found {
		sv.first = sv.cur
		sv.first.found = true
	}
	sv.token, sv.gap, sv.text = false, false, false
	sv.cur = firstLine{}
}

// singleTokenLines reports whether every non-empty line of s holds one
// token with no separator in it: a plain list.
func singleTokenLines(s string) bool {
	sv := newSurveyor()
	sv.scan([]byte(s))
	return sv.single
}

// lineReader reads lines as eachLine splits them: \n, \r\n and \r all end
// a line, and an end of text after a line end adds no empty line. It holds
// one line at a time (and what it read ahead).
type lineReader struct {
	r    io.Reader
	buf  []byte
	i, j int // buf[i:j] is read and not yet handed out
	// cr is the index of the next \r in buf[i:j], -1 when there is none,
	// -2 when not yet looked for: a list without \r would otherwise be
	// searched to the end of the buffer for every line.
	cr  int
	eof bool
	err error
	n   int // the number of the last line handed out
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: r, buf: make([]byte, 64<<10), cr: -2}
}

// next returns the next line without its end; it is valid until the next
// call. ok is false at the end of the text or on a read error (err).
func (lr *lineReader) next() (line []byte, ok bool) {
	for {
		if lr.cr == -2 || lr.cr >= 0 && lr.cr < lr.i {
			lr.cr = -1
			if k := bytes.IndexByte(lr.buf[lr.i:lr.j], '\r'); k >= 0 {
				lr.cr = lr.i + k
			}
		}
		end := -1
		if k := bytes.IndexByte(lr.buf[lr.i:lr.j], '\n'); k >= 0 {
			end = lr.i + k
		}
		if lr.cr >= 0 && (end < 0 || lr.cr < end) {
			end = lr.cr
		}
		if end >= 0 {
			skip := 1
			if lr.buf[end] == '\r' {
				switch {
				case end+1 < lr.j:
					if lr.buf[end+1] == '\n' {
						skip = 2
					}
				case !lr.eof:
					lr.fill() // is a \n next?
					continue
				}
			}
			line = lr.buf[lr.i:end]
			lr.i = end + skip
			lr.n++
			return line, true
		}
		if lr.eof {
			if lr.i < lr.j {
				line = lr.buf[lr.i:lr.j]
				lr.i = lr.j
				lr.n++
				return line, true
			}
			return nil, false
		}
		lr.fill()
	}
}

// fill reads more, moving what is left to the front of the buffer and
// growing it for a line longer than the buffer.
func (lr *lineReader) fill() {
	if lr.i > 0 {
		lr.j = copy(lr.buf, lr.buf[lr.i:lr.j])
		lr.i = 0
	}
	if lr.j == len(lr.buf) {
		lr.buf = append(lr.buf, make([]byte, len(lr.buf))...)
	}
	n, err := lr.r.Read(lr.buf[lr.j:])
	lr.j += n
	lr.cr = -2
	switch {
	case errors.Is(err, io.EOF):
		lr.eof = true
	case err != nil:
		lr.eof, lr.err = true, fmt.Errorf("cannot read it: %w", err)
	}
}

// lineTrack counts the lines (\n only) of what a JSON decoder reads, up to
// the offsets asked for, which come in increasing order. It keeps only
// what was read beyond the last offset asked for.
type lineTrack struct {
	r    io.Reader
	buf  []byte // what was read from off on
	off  int64
	line int // the line at off
}

func (t *lineTrack) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	return n, err
}

// at returns the line of offset off, or false when off is behind the last
// offset asked for.
func (t *lineTrack) at(off int64) (int, bool) {
	if off < t.off || off-t.off > int64(len(t.buf)) {
		return 0, false
	}
	k := off - t.off
	t.line += bytes.Count(t.buf[:k], []byte{'\n'})
	t.buf = t.buf[k:]
	t.off = off
	return t.line, true
}
