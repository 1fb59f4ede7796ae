package api_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

func TestNormalizeEmail(t *testing.T) {
	long := strings.Repeat("a", 64)
	for _, tc := range []struct {
		in, want string
		problem  string // a word the reason must contain; empty when valid
	}{
		{in: "Jane@Example.com", want: "jane@example.com"},
		{in: "  bob@example.org\t", want: "bob@example.org"},
		{in: "o'brien+tag/x=y@sub.example.co.uk", want: "o'brien+tag/x=y@sub.example.co.uk"},
		{in: "x@Bücher.DE", want: "x@xn--bcher-kva.de"},
		{in: "x@xn--bcher-kva.de", want: "x@xn--bcher-kva.de"},
		{in: "x@example\u3002com", want: "x@example.com"}, // ideographic full stop maps to a dot
		{in: long + "@example.com", want: long + "@example.com"},
		{in: "", problem: "empty"},
		{in: "   ", problem: "empty"},
		{in: "jane", problem: "no @"},
		{in: "@example.com", problem: "before @ is empty"},
		{in: "jane@", problem: "after @ is empty"},
		{in: "jane@localhost", problem: "no dot"},
		{in: "a@b@example.com", problem: "'@'"},
		{in: "jane doe@example.com", problem: "a space"},
		{in: ".jane@example.com", problem: "starts or ends with a dot"},
		{in: "ja..ne@example.com", problem: "two dots"},
		{in: "jane@example..com", problem: "empty label"},
		{in: "jane@example.com.", problem: "empty label"},
		{in: "jane@-example.com", problem: "hyphen"},
		{in: "jane@exa_mple.com", problem: "'_'"},
		{in: "jane@exa\tmple.com", problem: "control character"},
		{in: "Jane <jane@example.com>", problem: "contains"},
		{in: `"jane"@example.com`, problem: `'"'`},
		{in: "josé@example.com", problem: "'é'"},
		{in: "jane@[192.0.2.1]", problem: "'['"},
		{in: long + "a@example.com", problem: "longer than 64"},
		{in: "a@" + strings.Repeat("b", 64) + ".com", problem: "longer than 63"},
		{in: strings.Repeat("a", 60) + "@" + strings.Repeat(strings.Repeat("b", 60)+".", 4) + "com", problem: "longer than 254"},
		{in: "a@ex\xffample.com", problem: "UTF-8"},
	} {
		got, err := api.NormalizeEmail(tc.in)
		if tc.problem == "" {
			if err != nil || got != tc.want {
				t.Errorf("NormalizeEmail(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			if !api.ValidEmail(got) {
				t.Errorf("ValidEmail(%q) = false for a normalized address", got)
			}
			continue
		}
		if err == nil {
			t.Errorf("NormalizeEmail(%q) = %q; want an error about %q", tc.in, got, tc.problem)
		} else if !strings.Contains(err.Error(), tc.problem) {
			t.Errorf("NormalizeEmail(%q) error %q; want it to mention %q", tc.in, err, tc.problem)
		}
	}
	if api.ValidEmail("Jane@example.com") {
		t.Error("ValidEmail accepts an address that normalization would change")
	}
}

func TestNormalizeID(t *testing.T) {
	const id = "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b"
	for _, in := range []string{id, strings.ToUpper(id), " " + id + "\n"} {
		if got, err := api.NormalizeID(in); err != nil || got != id {
			t.Errorf("NormalizeID(%q) = %q, %v; want %q", in, got, err, id)
		}
	}
	for _, in := range []string{"", "not-a-uuid", "0190a6b27c3e7d4f8a1b2c3d4e5f6a7b", "{" + id + "}",
		"urn:uuid:" + id, "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7g", "0190a6b2+7c3e-7d4f-8a1b-2c3d4e5f6a7b", "jane@example.com"} {
		if got, err := api.NormalizeID(in); err == nil {
			t.Errorf("NormalizeID(%q) = %q; want an error", in, got)
		}
	}
	if !api.IsID(id) || api.IsID("jane@example.com") {
		t.Error("IsID does not tell an ID from an address")
	}
}

func TestQuoteCutsLongValues(t *testing.T) {
	q := api.Quote(strings.Repeat("é", 100))
	if !strings.HasSuffix(q, "…") || len(q) > 90 || strings.Contains(q, `\x`) {
		t.Fatalf("Quote = %s; want at most 80 bytes cut on a rune boundary", q)
	}
}

func TestValidReference(t *testing.T) {
	ValidReference := api.ValidReference
	for _, ok := range []string{"#48213", "https://support.example.com/tickets/48213", "Ticket 48213 — Jörg", strings.Repeat("x", 200)} {
		if err := ValidReference(ok); err != nil {
			t.Errorf("ValidReference(%q) = %v, want nil", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("x", 201), "#1\x1b[2J", "a\tb", "a\u202eb", "bad\xff"} {
		if err := ValidReference(bad); err == nil {
			t.Errorf("ValidReference(%q) = nil, want an error", bad)
		}
	}
}
