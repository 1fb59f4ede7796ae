package api

import (
	"strings"
	"testing"
)

func TestParseSearch(t *testing.T) {
	for _, c := range []struct {
		q    string
		kind SearchKind
		v    string
	}{
		{"@Example.COM", SearchDomain, "example.com"},
		{" @bücher.example ", SearchDomain, "xn--bcher-kva.example"},
		{"Jane*", SearchPrefix, "jane"},
		{"jane@ex*", SearchPrefix, "jane@ex"},
		{"Jane@Example.com", SearchExact, "jane@example.com"},
	} {
		s, err := ParseSearch(c.q)
		if err != nil || s.Kind != c.kind || s.Value != c.v {
			t.Errorf("ParseSearch(%q) = %+v, %v; want %d %q", c.q, s, err, c.kind, c.v)
		}
	}
	for q, says := range map[string]string{
		"":              "empty",
		"ja*":           "at least 3 characters",
		"*jane":         "one *, at its end",
		"ja*ne*":        "one *, at its end",
		"@nodot":        "no dot",
		"@a@b.example":  "one @",
		"jane doe*":     "contains a space",
		"firm.example":  "neither @domain, prefix* nor an address",
		"a@@b.example*": "more than one @",
	} {
		if _, err := ParseSearch(q); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("ParseSearch(%q): %v; want an error saying %q", q, err, says)
		}
	}
	if s, _ := ParseSearch("@firm.example"); !s.Matches("a@firm.example") || s.Matches("a@sub.firm.example") || s.Matches("a@firm.example.org") {
		t.Error("a domain search matches exactly that domain")
	}
}

// A search that parses reads back as itself, and matches what it says.
func FuzzParseSearch(f *testing.F) {
	for _, q := range []string{"@example.com", "jane*", "jane@example.com", "@bücher.example", "ja*", "*", "@", "a@b@c*"} {
		f.Add(q)
	}
	f.Fuzz(func(t *testing.T, q string) {
		s, err := ParseSearch(q)
		if err != nil {
			return
		}
		again, err := ParseSearch(s.String())
		if err != nil || again != s {
			t.Fatalf("%q parses as %+v, whose String %q parses as %+v, %v", q, s, s.String(), again, err)
		}
		if s.Kind == SearchPrefix && !s.Matches(s.Value+"x@example.com") {
			t.Fatalf("the prefix %q does not match an address that starts with it", s.Value)
		}
	})
}
