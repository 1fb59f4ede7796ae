package api

import (
	"testing"
	"time"
)

// TestProtectedMatch: the one rule of what a team's protected list
// covers: an address itself; an @domain its own addresses and those of
// every subdomain, never a look-alike or a parent; a domain entry when it
// would cover a protected address or domain, or lies inside one.
func TestProtectedMatch(t *testing.T) {
	p := NewProtected([]string{"support@acme.test", "@corp.test", "@mail.partner.test"})
	for _, c := range []struct {
		email, rule string
	}{
		{"support@acme.test", "support@acme.test"},
		{"sales@acme.test", ""},
		{"x@corp.test", "@corp.test"},
		{"x@sub.corp.test", "@corp.test"},
		{"x@a.b.sub.corp.test", "@corp.test"},
		{"x@notcorp.test", ""},
		{"x@corp.test.example", ""},
		{"x@partner.test", ""},
		{"x@eu.mail.partner.test", "@mail.partner.test"},
		{"@corp.test", "@corp.test"},
		{"@eu.corp.test", "@corp.test"},
		{"*.corp.test", "@corp.test"},
		{"*.partner.test", "@mail.partner.test"},
		{"@partner.test", ""},
		{"@acme.test", "support@acme.test"},
		{"*.acme.test", ""},
		{"*.test", "@corp.test"},
	} {
		rule, ok := p.Match(c.email)
		if rule != c.rule || ok != (c.rule != "") {
			t.Errorf("Match(%q) = %q, %v; want %q", c.email, rule, ok, c.rule)
		}
	}
	if rule, ok := Protected(nil).Match("x@corp.test"); ok || rule != "" {
		t.Errorf("an empty list matched: %q", rule)
	}
}

// A span is written as a person types it, and reads back as the same span.
func TestFormatSpan(t *testing.T) {
	for _, c := range []struct {
		in   time.Duration
		want string
	}{
		{7 * 24 * time.Hour, "7d"},
		{36 * time.Hour, "36h"},
		{90 * time.Minute, "1h30m"},
		{10 * time.Minute, "10m"},
		{time.Hour + 10*time.Second, "1h0m10s"},
	} {
		got := FormatSpan(c.in)
		if got != c.want {
			t.Errorf("FormatSpan(%v) = %q, want %q", c.in, got, c.want)
		}
		if back, err := ParseSpan(got); err != nil || back != c.in {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v", got, back, err, c.in)
		}
	}
}
