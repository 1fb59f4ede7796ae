// Package safe makes text from outside (tickets, files, file names, a
// service's answers) fit to reach a terminal. A terminal obeys control
// characters and escape sequences: an OSC 52 sequence writes the clipboard,
// OSC 0 the window title, CSI moves the cursor and clears the screen, and
// bidi overrides reorder what is shown. Every such character is shown as a
// visible escape instead (\x1b, \u202e), so what reaches the screen is
// exactly what the text holds, and nothing more happens.
//
// Text is for human output; JSON keeps JSON exact while making
// it safe to print. Apply them once, where outside text is rendered.
package safe

import (
	"encoding/binary"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text returns s for one line of a terminal: control characters (C0 and
// C1, including tab and line ends), Unicode format characters (bidi
// controls, zero-width characters, the byte order mark), line and paragraph
// separators, and bytes that are not UTF-8 become visible escapes. Text
// without any of them comes back unchanged, without a copy.
func Text(s string) string { return escape(s) }

func escape(s string) string {
	i := firstUnsafe(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// firstUnsafe returns the index of the first byte of s that must be
// escaped, or -1. Printable ASCII, the common case, is checked a byte at a
// time without decoding.
func firstUnsafe(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			return i
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size <= 1) || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether a terminal could act on r, or show it as
// nothing (so that it hides or reorders what is around it).
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f:
		return true
	case r >= 0x80 && r < 0xa0: // C1 controls: 0x9b is CSI, 0x9d is OSC
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Cf, r)
}

func writeEscape(b *strings.Builder, r rune) {
	switch {
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80:
		fmt.Fprintf(b, `\x%02x`, r)
	case r <= 0xffff:
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		fmt.Fprintf(b, `\U%08x`, r)
	}
}

// JSON returns JSON text with the characters that encoding/json leaves raw
// but a terminal would act on (C1 controls, format characters such as bidi
// overrides) written as \u escapes, so that the document means exactly
// the same and is safe to print. Such characters can only stand inside
// strings, where a \u escape is their exact equivalent. encoding/json
// already escapes C0 controls and U+2028/U+2029; b is returned as is when
// it holds nothing to escape.
func JSON(b []byte) []byte {
	i := firstUnsafeJSON(b)
	if i < 0 {
		return b
	}
	out := make([]byte, 0, len(b)+32)
	out = append(out, b[:i]...)
	for i < len(b) {
		r, size := utf8.DecodeRune(b[i:])
		if size > 1 && unsafeRune(r) {
			out = appendJSONEscape(out, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

func firstUnsafeJSON(b []byte) int {
	// Skip ASCII eight bytes at a time: a run prints an item per entry
	// through JSON, and most of them are all ASCII.
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.NativeEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			break
		}
	}
	for i < len(b) {
		if b[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if size > 1 && unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

func appendJSONEscape(out []byte, r rune) []byte {
	if r > 0xffff {
		r1, r2 := utf16Pair(r)
		out = fmt.Appendf(out, `\u%04x\u%04x`, r1, r2)
		return out
	}
	return fmt.Appendf(out, `\u%04x`, r)
}

func utf16Pair(r rune) (rune, rune) {
	r -= 0x10000
	return 0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff
}

// Cell returns s for a cell of a CSV file meant for a spreadsheet: a cell
// that starts with = + - @, a tab or a carriage return would be run as a
// formula (=1+2@example.com is a valid address), so it gets a leading
// apostrophe, which spreadsheets take as "this is text" and do not show.
func Cell(s string) string {
	if s == "" {
		return s
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return "'" + s
	}
	return s
}

// View returns a rendered screen (a Bubble Tea view) fit for the terminal:
// line feeds and the SGR sequences that style it (ESC [ digits and ; or :
// then m, which only set colours and attributes) pass; every other control
// character, escape sequence and format character is escaped as Text
// does. It is the backstop at the render boundary for text that a
// component renders itself (a file name in a picker): whatever outside text
// holds, it cannot move the cursor, clear the screen, set the title, write
// the clipboard or reorder the line.
func View(s string) string {
	i := firstUnsafeView(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		if n := sgrLen(s[i:]); n > 0 {
			b.WriteString(s[i : i+n])
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteByte('\n')
		case unsafeRune(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func firstUnsafeView(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c < 0x7f, c == '\n':
			i++
		case c == 0x1b:
			n := sgrLen(s[i:])
			if n == 0 {
				return i
			}
			i += n
		case c < utf8.RuneSelf:
			return i
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size <= 1) || unsafeRune(r) {
				return i
			}
			i += size
		}
	}
	return -1
}

// sgrLen returns the length of the SGR sequence s starts with (ESC [
// params m), or 0.
func sgrLen(s string) int {
	if len(s) < 3 || s[0] != 0x1b || s[1] != '[' {
		return 0
	}
	for i := 2; i < len(s) && i < 64; i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9', c == ';', c == ':':
		case c == 'm':
			return i + 1
		default:
			return 0
		}
	}
	return 0
}
