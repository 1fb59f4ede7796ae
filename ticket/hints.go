package ticket

import (
	"bufio"
	_ "embed"
	"strings"
)

// A "did you mean" for an address whose domain looks like a common mail
// provider's with a slip of the keys (gmial.com, hotmial.fr, gmail.con).
// It is only ever a hint: the address is sent as written, unless the
// agent edits it.

//go:embed lang/providers.list
var providerList string

// providers are the domains of common mail providers, one a line.
var providers = func() map[string]bool {
	m := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(providerList))
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			m[strings.ToLower(l)] = true
		}
	}
	return m
}()

// tldSlips are misspelled top-level domains and what they likely meant.
var tldSlips = map[string]string{"con": "com", "cmo": "com", "ocm": "com", "vom": "com", "xom": "com", "comm": "com", "coom": "com", "cpm": "com", "cim": "com", "ney": "net", "nte": "net", "ogr": "org", "rog": "org"}

// Hint returns the domain an address likely meant when its domain looks
// like a common provider's with a typo: the address with that domain.
func Hint(addr string) (string, bool) {
	at := strings.LastIndexByte(addr, '@')
	if at <= 0 {
		return "", false
	}
	domain := strings.ToLower(addr[at+1:])
	if providers[domain] {
		return "", false
	}
	if d, ok := tldHint(domain); ok {
		return addr[:at+1] + d, true
	}
	if len(domain) < 7 {
		return "", false // short domains are too close to each other to guess
	}
	best, dist := "", 3
	for p := range providers {
		if n := editDistance(domain, p, 2); n < dist || n == dist && p < best {
			best, dist = p, n
		}
	}
	if best == "" || dist > 1 && len(best) < 9 {
		return "", false
	}
	return addr[:at+1] + best, true
}

// tldHint is the domain with its top-level domain's typo mended, when the
// rest is a provider's or the typo is unmistakable.
func tldHint(domain string) (string, bool) {
	dot := strings.LastIndexByte(domain, '.')
	if dot < 0 {
		return "", false
	}
	fixed, ok := tldSlips[domain[dot+1:]]
	if !ok {
		return "", false
	}
	return domain[:dot+1] + fixed, true
}

// editDistance is the optimal string alignment distance of a and b (an
// adjacent swap costs one), or limit+1 once it is sure to exceed limit.
func editDistance(a, b string, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return limit + 1
	}
	var rows [3][64]int
	if len(b) >= len(rows[0]) {
		return limit + 1
	}
	prev2, prev, cur := rows[0][:len(b)+1], rows[1][:len(b)+1], rows[2][:len(b)+1]
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		low := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
			low = min(low, cur[j])
		}
		if low > limit {
			return limit + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
