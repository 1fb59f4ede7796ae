package jsonstr

// A Scanner reads JSON of a shape its caller knows, in one pass, for the
// few documents read per entry of a large run. It reads only the plain
// form: strings without escapes, control or non-ASCII bytes, and it gives
// up (Bad) at anything else, so that its caller leaves the document to
// encoding/json, whose result and errors stand. It never guesses.
type Scanner struct {
	b   []byte
	i   int
	bad bool
}

// NewScanner scans b.
func NewScanner(b []byte) *Scanner { return &Scanner{b: b} }

// Bad reports whether the scanner gave up.
func (s *Scanner) Bad() bool { return s.bad }

// Fail makes the scanner give up.
func (s *Scanner) Fail() { s.bad = true }

// End reads the whitespace after the document and reports whether the
// whole of it was read, without giving up.
func (s *Scanner) End() bool {
	s.space()
	return !s.bad && s.i == len(s.b)
}

// space skips JSON whitespace.
func (s *Scanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Peek skips whitespace and reports whether c comes next.
func (s *Scanner) Peek(c byte) bool {
	s.space()
	return !s.bad && s.i < len(s.b) && s.b[s.i] == c
}

// Next reads c when it comes next and reports whether it did.
func (s *Scanner) Next(c byte) bool {
	if s.Peek(c) {
		s.i++
		return true
	}
	return false
}

// Expect reads c, or gives up.
func (s *Scanner) Expect(c byte) {
	if !s.Next(c) {
		s.bad = true
	}
}

// Key reads an object's key and its colon; nil when it cannot.
func (s *Scanner) Key() []byte {
	k := s.Raw()
	s.Expect(':')
	if s.bad {
		return nil
	}
	return k
}

// Raw reads a string and returns its bytes between the quotes.
func (s *Scanner) Raw() []byte {
	start, end := s.Token()
	if s.bad {
		return nil
	}
	return s.b[start+1 : end-1]
}

// Token reads a string and returns where it starts and ends, quotes
// included.
func (s *Scanner) Token() (start, end int) {
	s.space()
	if s.bad || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.bad = true
		return 0, 0
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			start, s.i = s.i, j+1
			return start, s.i
		case c == '\\' || c < 0x20 || c >= 0x80:
			s.bad = true
			return 0, 0
		}
	}
	s.bad = true
	return 0, 0
}

// Bytes is b[start:end], what Token returned.
func (s *Scanner) Bytes(start, end int) []byte { return s.b[start:end] }

// Str reads a string value.
func (s *Scanner) Str() string { return string(s.Raw()) }

// Null reads a null when one comes next.
func (s *Scanner) Null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

// Bool reads true or false.
func (s *Scanner) Bool() bool {
	s.space()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false
	}
	s.bad = true
	return false
}

// Int reads a whole number of at most 9 digits without a sign, exponent
// or leading zero (what a count or a version is written as).
func (s *Scanner) Int() int {
	s.space()
	n, j := 0, s.i
	for ; j < len(s.b) && j-s.i < 10 && s.b[j] >= '0' && s.b[j] <= '9'; j++ {
		n = n*10 + int(s.b[j]-'0')
	}
	switch {
	case j == s.i, j-s.i > 9, j-s.i > 1 && s.b[s.i] == '0':
		s.bad = true
		return 0
	case j < len(s.b) && (s.b[j] == '.' || s.b[j] == 'e' || s.b[j] == 'E'):
		s.bad = true
		return 0
	}
	s.i = j
	return n
}
