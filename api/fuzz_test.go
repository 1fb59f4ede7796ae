package api_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
)

// FuzzNormalizeEmail checks the address rule on any input: it never
// panics; what it accepts is a valid, normalized address (lowercase, no
// white space, within the length limits, ASCII after punycode); and
// normalizing that again gives the same address.
func FuzzNormalizeEmail(f *testing.F) {
	for _, s := range []string{
		"jane@example.com", "  Jane.Doe+tag@Example.COM \n", "bob@", "@example.com",
		"a@b", "x@bücher.de", "X@XN--BCHER-KVA.DE", "a..b@example.com", ".a@example.com",
		"Bob <bob@example.com>", "\"quoted\"@example.com", "a@-x.com", "a@x-.com",
		"a@example..com", "a@" + strings.Repeat("b", 64) + ".com", strings.Repeat("a", 65) + "@example.com",
		"a\x00b@example.com", "\xff@example.com", "a@ex\u200bample.com", "a@example.com.",
		"a@@example.com", "ß@straße.de", "a@xn--.com", "a@xn--zz.com", "UPPER@İSTANBUL.tr",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := api.NormalizeEmail(s)
		if err != nil {
			if n != "" {
				t.Fatalf("NormalizeEmail(%q) returned %q with error %v", s, n, err)
			}
			if err.Error() == "" {
				t.Fatalf("NormalizeEmail(%q): empty error message", s)
			}
			return
		}
		switch {
		case n == "" || !utf8.ValidString(n):
			t.Fatalf("NormalizeEmail(%q) = %q: not text", s, n)
		case len(n) > api.MaxAddressLen:
			t.Fatalf("NormalizeEmail(%q) = %q: %d octets", s, n, len(n))
		case strings.ToLower(n) != n:
			t.Fatalf("NormalizeEmail(%q) = %q: not lowercase", s, n)
		case strings.ContainsAny(n, " \t\r\n\x00"):
			t.Fatalf("NormalizeEmail(%q) = %q: contains white space or NUL", s, n)
		case strings.Count(n, "@") != 1:
			t.Fatalf("NormalizeEmail(%q) = %q: not exactly one @", s, n)
		}
		local, domain, _ := strings.Cut(n, "@")
		if len(local) == 0 || len(local) > api.MaxLocalLen || !strings.Contains(domain, ".") {
			t.Fatalf("NormalizeEmail(%q) = %q: local part or domain out of rule", s, n)
		}
		for i := 0; i < len(domain); i++ {
			if domain[i] >= utf8.RuneSelf {
				t.Fatalf("NormalizeEmail(%q) = %q: domain not ASCII", s, n)
			}
		}
		again, err := api.NormalizeEmail(n)
		if err != nil || again != n {
			t.Fatalf("NormalizeEmail is not idempotent: %q -> %q -> %q (%v)", s, n, again, err)
		}
		if !api.ValidEmail(n) {
			t.Fatalf("ValidEmail(%q) is false for a normalized address", n)
		}
		if api.IsID(n) {
			t.Fatalf("%q is both an address and an ID", n)
		}
	})
}

// FuzzNormalizeID checks the ID rule the same way: what it accepts is a
// canonical lowercase UUID that normalizes to itself.
func FuzzNormalizeID(f *testing.F) {
	for _, s := range []string{
		"01a1fe15-ef7e-7c10-a222-42a32cbb09a1", " 01A1FE15-EF7E-7C10-A222-42A32CBB09A1\t",
		"{01a1fe15-ef7e-7c10-a222-42a32cbb09a1}", "urn:uuid:01a1fe15-ef7e-7c10-a222-42a32cbb09a1",
		"01a1fe15ef7e7c10a22242a32cbb09a1", "not-a-uuid", "", "01a1fe15-ef7e-7c10-a222-42a32cbb09aZ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := api.NormalizeID(s)
		if err != nil {
			if api.IsID(s) {
				t.Fatalf("IsID(%q) is true but NormalizeID fails: %v", s, err)
			}
			return
		}
		if len(n) != 36 || strings.ToLower(n) != n || strings.Count(n, "-") != 4 {
			t.Fatalf("NormalizeID(%q) = %q: not a canonical UUID", s, n)
		}
		if again, err := api.NormalizeID(n); err != nil || again != n {
			t.Fatalf("NormalizeID is not idempotent: %q -> %q -> %q (%v)", s, n, again, err)
		}
	})
}
