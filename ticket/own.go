package ticket

import (
	"strings"

	"github.com/shushlist/shush/api"
)

// Own is the set of addresses and domains that are ours (config `own`,
// or a team's protected list): "x@y.z" is one address, "@ourcompany.test"
// or "ourcompany.test" a domain and its subdomains. It matches by the
// service's own rule for protected entries (api.Protected), so that what a
// client leaves out is what the service refuses.
type Own struct {
	set api.Protected
}

// NewOwn reads the config's own list; entries are matched without regard
// to case.
func NewOwn(list []string) Own {
	o := Own{set: api.Protected{}}
	for _, s := range list {
		s = strings.ToLower(strings.TrimSpace(s))
		switch {
		case s == "" || s == "@":
		case strings.HasPrefix(s, "@"):
			o.set[s] = true
		case strings.Contains(s, "@"):
			o.set[s] = true
		default:
			o.set["@"+s] = true
		}
	}
	return o
}

// Has reports whether the normalized address is ours.
func (o Own) Has(addr string) bool {
	_, ok := o.set.Match(addr)
	return ok
}

// Empty reports whether no own address or domain is configured.
func (o Own) Empty() bool { return len(o.set) == 0 }

// named reports whether name is the first label of one of the own
// domains or addresses ("lumenly" for "@lumenly.example"): a helpdesk
// writes our company's name beside our agents ("Jordan (Lumenly)").
func (o Own) named(name string) bool {
	for entry := range o.set {
		if domainNamed(entry, name) {
			return true
		}
	}
	return false
}

// domainNamed reports whether name is the first label of the domain of
// addr ("x@lumenly.example", "@lumenly.example"), its words joined as the
// label joins them ("boligportal nord" for boligportal-nord.example).
func domainNamed(addr, name string) bool {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 || name == "" {
		return false
	}
	label, _, _ := strings.Cut(addr[at+1:], ".")
	return label == name || strings.Contains(name, " ") && (label == strings.ReplaceAll(name, " ", "-") || label == strings.ReplaceAll(name, " ", ""))
}
