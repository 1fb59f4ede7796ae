package api

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestOneClickTokenRoundTrip: a minted token parses back to its team,
// address and day, verifies with its secret only, and is URL-safe.
func TestOneClickTokenRoundTrip(t *testing.T) {
	secret := bytes.Repeat([]byte{9}, 32)
	day := time.Date(2026, 11, 27, 23, 59, 0, 0, time.FixedZone("east", 3*3600))
	for _, email := range []string{"bob@example.com", "o'neil&co+x@bücher.example", strings.Repeat("a", 64) + "@" + strings.Repeat("b", 63) + ".example"} {
		tok := MintOneClick("acme-team", secret, email, day)
		if strings.ContainsAny(tok, "+/=%?#& ") || len(tok) > MaxOneClickToken {
			t.Errorf("the token of %s is not URL-safe or too long: %q", email, tok)
		}
		got, err := ParseOneClick(tok)
		if err != nil || got.Team != "acme-team" || got.Email != email || got.Issued.Format("20060102") != "20261127" {
			t.Fatalf("ParseOneClick(%q) = %+v, %v", tok, got, err)
		}
		if !got.Verify(secret) || got.Verify(bytes.Repeat([]byte{8}, 32)) || got.Verify(nil) {
			t.Errorf("the token of %s verifies wrongly", email)
		}
	}
	key := FormatUnsubscribeKey("acme", secret)
	if team, s, err := ParseUnsubscribeKey(key + "\n"); err != nil || team != "acme" || !bytes.Equal(s, secret) {
		t.Errorf("ParseUnsubscribeKey: %q %v", team, err)
	}
	for _, bad := range []string{"", "shush-uk1.", "shush-uk1.YWNtZQ", "shush-uk2.YWNtZQ.AAAA", "shush-uk1.YWNtZQ.AAAA", "shush-uk1..CQkJCQkJCQkJCQkJCQkJCQ"} {
		if _, _, err := ParseUnsubscribeKey(bad); err == nil {
			t.Errorf("ParseUnsubscribeKey(%q) took it", bad)
		}
	}
}

// TestDomainEntries: domain entries normalize as an address's domain
// does; DomainKeys are the entries that could list an address, nearest
// first.
func TestDomainEntries(t *testing.T) {
	for in, want := range map[string]string{
		" @Evil.Example ": "@evil.example", "*.EVIL.example": "*.evil.example", "@bücher.example": "@xn--bcher-kva.example",
		"*.a.b.example": "*.a.b.example", "bob@Example.com": "bob@example.com", "*.x@example.com": "*.x@example.com",
	} {
		if got, err := NormalizeEntry(in); err != nil || got != want {
			t.Errorf("NormalizeEntry(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"@", "*.", "@nodot", "*.nodot", "@a@b.example", "*.*.example", "@-x.example", "@x..example", "@ex ample.com"} {
		if got, err := NormalizeEntry(bad); err == nil {
			t.Errorf("NormalizeEntry(%q) = %q, want an error", bad, got)
		}
	}
	if got := strings.Join(DomainKeys("x@a.b.evil.example"), " "); got != "@a.b.evil.example *.b.evil.example *.evil.example" {
		t.Errorf("DomainKeys = %s", got)
	}
	if got := DomainKeys("@evil.example"); got != nil {
		t.Errorf("a domain entry's DomainKeys = %v, want none", got)
	}
}

// FuzzParseOneClick: any text a client puts in the path parses without
// panic, and what parses is at most MaxOneClickToken bytes.
func FuzzParseOneClick(f *testing.F) {
	f.Add(MintOneClick("acme", []byte("0123456789abcdef"), "bob@example.com", time.Now()))
	f.Add("a.b.20260101.c")
	f.Add("....")
	f.Fuzz(func(t *testing.T, s string) {
		tok, err := ParseOneClick(s)
		if err == nil && (len(s) > MaxOneClickToken || tok.Team == "" || tok.Email == "") {
			t.Fatalf("ParseOneClick(%q) took it: %+v", s, tok)
		}
	})
}

// FuzzNormalizeEntry: a normalized entry normalizes to itself.
func FuzzNormalizeEntry(f *testing.F) {
	for _, s := range []string{"@evil.example", "*.evil.example", "bob@example.com", "@bücher.example", "*.x@y.example"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := NormalizeEntry(s)
		if err != nil {
			return
		}
		if again, err := NormalizeEntry(n); err != nil || again != n {
			t.Fatalf("NormalizeEntry(%q) = %q, then %q, %v", s, n, again, err)
		}
	})
}
