package api

import (
	"errors"
	"strings"
)

// Domain entries: a list may hold, beside addresses, entries that block a
// whole domain for a while (an incident, an attack): "@d" lists every
// address of the domain d, "*.d" every address of d's subdomains (not of
// d itself). They are stored and shown as entries whose email is the
// entry itself, so a client of the hosted service's API sees an ordinary
// entry; shush's own answers say which address a domain entry lists
// ("listed by @d").

// IsDomainEntry reports whether s, as given, names a domain entry rather
// than an address: it starts with @ (an address never does), or with *.
// and has no @.
func IsDomainEntry(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "@") || strings.HasPrefix(s, "*.") && !strings.Contains(s, "@")
}

// NormalizeDomainEntry applies the address rule to a domain entry: "@"
// or "*." and a domain, lowercased, an internationalized domain in its
// ASCII (punycode) form, as an address's domain is normalized.
func NormalizeDomainEntry(s string) (string, error) {
	s = strings.TrimSpace(s)
	var prefix, domain string
	switch {
	case strings.HasPrefix(s, "@"):
		prefix, domain = "@", s[1:]
	case strings.HasPrefix(s, "*."):
		prefix, domain = "*.", s[2:]
	default:
		return "", errors.New("a domain entry starts with @ (the domain) or *. (its subdomains)")
	}
	// What reads as an address with nothing before its @ is said so
	// first: it is more often that than a domain entry.
	why := ""
	if prefix == "@" {
		why = "the part before @ is empty, and as a domain entry "
	}
	if domain == "" {
		return "", errors.New(why + "the domain after " + prefix + " is empty")
	}
	if strings.ContainsAny(domain, "@*") {
		return "", errors.New(why + "the domain after " + prefix + " holds @ or *")
	}
	// A domain is valid when an address of it is.
	addr, err := NormalizeEmail("x@" + domain)
	if err != nil {
		return "", errors.New(why + err.Error())
	}
	return prefix + addr[2:], nil
}

// NormalizeEntry applies the list's rule to what an add or a removal
// names: a domain entry (NormalizeDomainEntry) or an address
// (NormalizeEmail).
func NormalizeEntry(s string) (string, error) {
	if IsDomainEntry(s) {
		return NormalizeDomainEntry(s)
	}
	return NormalizeEmail(s)
}

// DomainKeys are the domain entries that would list a normalized
// address, the nearest first: "@" and its domain, then "*." and each of
// the domain's parents that has a dot (x@a.b.example: @a.b.example,
// *.b.example). A domain entry itself has none.
func DomainKeys(email string) []string {
	at := strings.LastIndexByte(email, '@')
	if at <= 0 {
		return nil
	}
	d := email[at+1:]
	keys := []string{"@" + d}
	for {
		dot := strings.IndexByte(d, '.')
		if dot < 0 {
			return keys
		}
		d = d[dot+1:]
		if !strings.Contains(d, ".") {
			return keys
		}
		keys = append(keys, "*."+d)
	}
}
