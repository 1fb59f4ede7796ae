package safe

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"alice@example.com", "alice@example.com"},
		{"", ""},
		{"jörg@bücher.example", "jörg@bücher.example"},
		{"名前@例え.jp", "名前@例え.jp"},
		// OSC 52 writes the clipboard; BEL ends it.
		{"\x1b]52;c;aGk=\x07x@y.z", `\x1b]52;c;aGk=\x07x@y.z`},
		// CSI clears the screen and homes the cursor.
		{"\x1b[2J\x1b[Hall batches succeeded", `\x1b[2J\x1b[Hall batches succeeded`},
		// OSC 0 sets the window title.
		{"\x1b]0;pwned\x1b\\", `\x1b]0;pwned\x1b\`},
		// A bidi override shows "moc.elpmaxe@bob" reversed.
		{"bob@\u202eelpmaxe.com", `bob@\u202eelpmaxe.com`},
		{"a\u2066b\u2069c", `a\u2066b\u2069c`},
		{"zero\u200bwidth", `zero\u200bwidth`},
		{"\ufeffemail", `\ufeffemail`},
		{"soft\u00adhyphen", `soft\u00adhyphen`},
		// C1 controls, as UTF-8: U+009B is CSI, U+009D OSC.
		{"x\u009b2Jy", `x\u009b2Jy`},
		{"a\tb\r\nc", `a\tb\r\nc`},
		{"del\x7f", `del\x7f`},
		{"bad \xff\xfe bytes", `bad \xff\xfe bytes`},
		{"line\u2028sep", `line\u2028sep`},
		// Tag characters (U+E0000 block) are format characters beyond the BMP.
		{"tag\U000e0041", `tag\U000e0041`},
	}
	for _, tc := range tests {
		if got := Text(tc.in); got != tc.want {
			t.Errorf("Text(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestCleanTextIsNotCopied(t *testing.T) {
	s := strings.Repeat("user@example.com ", 100)
	if allocs := testing.AllocsPerRun(100, func() { _ = Text(s) }); allocs != 0 {
		t.Errorf("Text of clean text allocates %v times, want 0", allocs)
	}
	if !Clean(s) || Clean("a\x1bb") {
		t.Error("Clean disagrees with Text")
	}
}

func TestJSONStaysExactAndPrintable(t *testing.T) {
	in := map[string]string{"email": "bob@\u202eelpmaxe.com", "id": "x\u009b2J", "tag": "t\U000e0041", "ok": "jörg", "esc": "\x1b[2J"}
	raw, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(raw)
	if !Clean(string(out)) {
		t.Fatalf("JSON output still holds characters a terminal acts on: %q", out)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("JSON output does not parse: %v (%s)", err, out)
	}
	for k, v := range in {
		if back[k] != v {
			t.Errorf("%s: %q came back as %q", k, v, back[k])
		}
	}
	if !strings.Contains(string(out), `\u202e`) || !strings.Contains(string(out), "jörg") {
		t.Errorf("JSON output %s: want \\u202e escaped and ö kept", out)
	}
	plain := []byte(`{"a":"b"}`)
	if got := JSON(plain); &got[0] != &plain[0] {
		t.Error("JSON copied a document with nothing to escape")
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"a@b.c", "\x1b]52;c;x\x07", "\u202e", "\xff", "\u009b", "tab\there"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Text(s)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q is not UTF-8", s, out)
		}
		for _, r := range out {
			if unsafeRune(r) {
				t.Fatalf("Text(%q) = %q still holds %U", s, out, r)
			}
		}
		if Clean(s) != (out == s) {
			t.Fatalf("Clean(%q) = %v but Text changed it: %v", s, Clean(s), out != s)
		}
		js, _ := json.Marshal(s)
		var want, got string
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(JSON(js), &got); err != nil || got != want {
			t.Fatalf("JSON(%s) reads back as %q (%v), want %q", js, got, err, want)
		}
	})
}

func TestCell(t *testing.T) {
	tests := map[string]string{
		"=1+2@example.com":  "'=1+2@example.com",
		"+1@example.com":    "'+1@example.com",
		"-x@example.com":    "'-x@example.com",
		"@SUM(A1)":          "'@SUM(A1)",
		"\t=cmd":            "'\t=cmd",
		"\r=cmd":            "'\r=cmd",
		"alice@example.com": "alice@example.com",
		"a=b@example.com":   "a=b@example.com",
		"":                  "",
	}
	for in, want := range tests {
		if got := Cell(in); got != want {
			t.Errorf("Cell(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestViewKeepsStylingOnly(t *testing.T) {
	for in, want := range map[string]string{
		"plain\nlines":                       "plain\nlines",
		"\x1b[1;38;2;255;0;0mred\x1b[0m":     "\x1b[1;38;2;255;0;0mred\x1b[0m",
		"\x1b[38:5:196mx\x1b[m":              "\x1b[38:5:196mx\x1b[m",
		"name\x1b]52;c;aGk=\x07.txt":         `name\x1b]52;c;aGk=\x07.txt`,
		"\x1b[2J\x1b[Hall batches succeeded": `\x1b[2J\x1b[Hall batches succeeded`,
		"\x1b]0;title\x07":                   `\x1b]0;title\x07`,
		"abc\u202edef":                       `abc\u202edef`,
		"cr\roverwrite":                      `cr\roverwrite`,
		"\u009b2J":                           `\u009b2J`,
		"\x9b2J":                             `\x9b2J`,
		"\x1b[":                              `\x1b[`,
		"bad\xffbyte":                        `bad\xffbyte`,
	} {
		if got := View(in); got != want {
			t.Errorf("View(%q) = %q; want %q", in, got, want)
		}
	}
}

// TestJSONFindsAnOverrideAnywhere: the first character to escape is found
// wherever it stands among ASCII (the scan skips ASCII a word at a time).
func TestJSONFindsAnOverrideAnywhere(t *testing.T) {
	for n := 0; n < 24; n++ {
		for _, c := range []string{"\u202e", "\u009b", "ö\u202e"} {
			raw := []byte(`"` + strings.Repeat("a", n) + c + `z"`)
			want := n + 1
			if c == "ö\u202e" {
				want += len("ö")
			}
			if got := firstUnsafeJSON(raw); got != want {
				t.Errorf("%q: first at %d; want %d", raw, got, want)
			}
		}
	}
}

// Clean reports whether s would come back from Text unchanged.
func Clean(s string) bool { return firstUnsafe(s) < 0 }
