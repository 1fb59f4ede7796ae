package api

import (
	"errors"
	"fmt"
	"strings"
)

// SearchKind is what a search (the list's `q`) matches.
type SearchKind int

// The kinds of search (contract: finding entries).
const (
	// SearchNone narrows nothing.
	SearchNone SearchKind = iota
	// SearchDomain matches every address of one domain, exactly that
	// domain (not its subdomains): `q=@example.com`.
	SearchDomain
	// SearchPrefix matches every address that starts with the prefix:
	// `q=jane*`, at least MinPrefix characters before the star.
	SearchPrefix
	// SearchExact matches one address: any other `q`.
	SearchExact
)

// MinPrefix is the fewest characters a prefix search names before its
// star: shorter ones would match a large part of any list.
const MinPrefix = 3

// Search is a parsed `q`: its kind and its value, normalized as the list
// stores addresses (lowercase, the domain in its ASCII form). The zero
// Search narrows nothing.
type Search struct {
	Kind SearchKind
	// Value is the domain (without @), the prefix (without *), or the
	// address.
	Value string
}

// ParseSearch reads a `q` as the contract says: "@domain" is a domain,
// "text*" a prefix of at least MinPrefix characters, anything else one
// address. Case does not matter. The error says in a few words what is
// wrong with it ("the domain has no dot").
func ParseSearch(q string) (Search, error) {
	q = strings.TrimSpace(q)
	switch {
	case q == "":
		return Search{}, errors.New("it is empty")
	case strings.HasPrefix(q, "@"):
		if strings.Count(q, "@") > 1 {
			return Search{}, errors.New("a domain search has one @, at its start")
		}
		d, err := asciiDomain(q[1:])
		if err != nil {
			return Search{}, err
		}
		return Search{Kind: SearchDomain, Value: d}, nil
	case strings.Contains(q, "*"):
		p, ok := strings.CutSuffix(q, "*")
		if !ok || strings.Contains(p, "*") {
			return Search{}, errors.New("a prefix search has one *, at its end (jane*)")
		}
		if n := len([]rune(p)); n < MinPrefix {
			return Search{}, fmt.Errorf("a prefix needs at least %d characters before the *", MinPrefix)
		}
		p = strings.ToLower(p)
		if strings.Count(p, "@") > 1 {
			return Search{}, errors.New("the prefix has more than one @")
		}
		for i := 0; i < len(p); i++ {
			if c := p[i]; !isAtext(c) && c != '.' && c != '@' {
				return Search{}, fmt.Errorf("the prefix contains %s, which no address holds", describeByte(p, i))
			}
		}
		return Search{Kind: SearchPrefix, Value: p}, nil
	}
	e, err := NormalizeEmail(q)
	if err != nil {
		return Search{}, fmt.Errorf("it is neither @domain, prefix* nor an address: %w", err)
	}
	return Search{Kind: SearchExact, Value: e}, nil
}

// String is the search as a `q`: "@example.com", "jane*", an address, or
// "" for none.
func (s Search) String() string {
	switch s.Kind {
	case SearchDomain:
		return "@" + s.Value
	case SearchPrefix:
		return s.Value + "*"
	case SearchExact:
		return s.Value
	}
	return ""
}

// Matches reports whether a normalized address is one the search finds;
// a client checks a service's answer with it.
func (s Search) Matches(email string) bool {
	switch s.Kind {
	case SearchDomain:
		at := strings.LastIndexByte(email, '@')
		return at >= 0 && email[at+1:] == s.Value
	case SearchPrefix:
		return strings.HasPrefix(email, s.Value)
	case SearchExact:
		return email == s.Value
	}
	return true
}

// Describe says what the search finds, for people: "everyone at
// example.com", "addresses starting with jane", "jane@example.com".
func (s Search) Describe() string {
	switch s.Kind {
	case SearchDomain:
		return "everyone at " + s.Value
	case SearchPrefix:
		return "addresses starting with " + s.Value
	}
	return s.Value
}
