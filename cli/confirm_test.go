package cli

import (
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// stdinLine is the first line of stdin, trimmed, with or without its
// newline; a read that fails is an error, not an empty answer.
func TestStdinLine(t *testing.T) {
	for in, want := range map[string]string{
		"re_123abc\n":           "re_123abc",
		"  yes \r\n":            "yes",
		"no newline at the end": "no newline at the end",
		"first\nsecond\n":       "first",
		"":                      "",
		"\n":                    "",
	} {
		ta := bareApp().stdin(in)
		got, err := ta.stdinLine()
		if err != nil || got != want {
			t.Errorf("%q: %q, %v; want %q", in, got, err, want)
		}
	}
	ta := bareApp()
	ta.io.In = iotest.ErrReader(errors.New("stdin is closed"))
	if got, err := ta.stdinLine(); err == nil || got != "" {
		t.Errorf("an unreadable stdin: %q, %v; want an error", got, err)
	}
	long := strings.Repeat("k", 5000) + "\n"
	if got, err := bareApp().stdin(long).stdinLine(); err != nil || len(got) != 4096 {
		t.Errorf("a line over 4 KiB: %d bytes, %v; want the first 4096", len(got), err)
	}
}
