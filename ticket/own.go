package ticket

import "strings"

// Own is the set of addresses and domains that are ours (config `own`):
// "x@y.z" is one address, "@ourcompany.test" or "ourcompany.test" a
// domain and its subdomains. The team's protected addresses are such a
// set too.
type Own struct {
	addrs   map[string]bool
	domains []string
}

// NewOwn reads the config's own list; entries are matched without regard
// to case.
func NewOwn(list []string) Own {
	o := Own{addrs: map[string]bool{}}
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		switch {
		case s == "" || s == "@":
		case strings.HasPrefix(s, "@"):
			o.domains = append(o.domains, s[1:])
		case strings.Contains(s, "@"):
			o.addrs[s] = true
		default:
			o.domains = append(o.domains, s)
		}
	}
	return o
}

// Has reports whether the normalized address is ours.
func (o Own) Has(addr string) bool {
	if o.addrs[addr] {
		return true
	}
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return false
	}
	domain := addr[at+1:]
	for _, d := range o.domains {
		if domain == d || strings.HasSuffix(domain, "."+d) {
			return true
		}
	}
	return false
}

// Empty reports whether no own address or domain is configured.
func (o Own) Empty() bool { return len(o.addrs) == 0 && len(o.domains) == 0 }
