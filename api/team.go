package api

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The objects of the team's rules and of agents (contract: agents and team
// rules).
const (
	ObjectTeam  = "team"
	ObjectAgent = "agent"
)

// How a team lets entries of origin complaint be removed (Team's
// ComplaintRemoval).
const (
	// ComplaintConfirm: anyone who may change the list may remove one;
	// clients ask a second confirmation that names the complaint.
	ComplaintConfirm = "confirm"
	// ComplaintOverride: only a key or agent with the override
	// permission may remove one; others get 403 restricted_api_key.
	ComplaintOverride = "override"
)

// MaxProtected is the most addresses and domains a team may protect.
const MaxProtected = 1000

// Team is a team's rules (GET /team, the answer of PATCH /team).
type Team struct {
	Object string `json:"object"`
	Name   string `json:"name"`
	// Protected are addresses and @domains that are never suppressed.
	Protected        []string `json:"protected"`
	ComplaintRemoval string   `json:"complaint_removal"`
	// Intake is the team's rule for temporary failures taken in from
	// providers and bounce mail.
	Intake *IntakePolicy `json:"intake,omitempty"`
	// ErasureKeepsDomain has an erasure keep the address's domain in
	// clear beside its hash (docs/erasure.md, "The domain"); off by
	// default.
	ErasureKeepsDomain bool `json:"erasure_keeps_domain"`
}

// TeamPatch is the body of PATCH /team: the fields given replace the
// team's; those left out stay.
type TeamPatch struct {
	Protected        *[]string          `json:"protected,omitempty"`
	ComplaintRemoval *string            `json:"complaint_removal,omitempty"`
	Intake           *IntakePolicyPatch `json:"intake,omitempty"`
	// ErasureKeepsDomain sets Team's ErasureKeepsDomain.
	ErasureKeepsDomain *bool `json:"erasure_keeps_domain,omitempty"`
}

// IntakePolicyPatch changes a team's intake policy: the fields given
// replace the team's.
type IntakePolicyPatch struct {
	Threshold *int    `json:"soft_bounce_threshold,omitempty"`
	Window    *string `json:"soft_bounce_window,omitempty"`
	Expiry    *string `json:"soft_bounce_expiry,omitempty"`
}

// Agent is a person of a team who works the list in the terminal UI over
// SSH (GET /agents, POST /agents).
type Agent struct {
	Object string `json:"object"`
	ID     string `json:"id"`
	Name   string `json:"name"`
	Team   string `json:"team"`
	// Fingerprint is the SHA256 fingerprint of the agent's public key, as
	// ssh-keygen -l shows it.
	Fingerprint string    `json:"fingerprint"`
	ReadOnly    bool      `json:"read_only"`
	Override    bool      `json:"override"`
	CreatedAt   Timestamp `json:"created_at"`
}

// NewAgent is the body of POST /agents.
type NewAgent struct {
	Name string `json:"name"`
	// PublicKey is the agent's SSH public key, as in authorized_keys
	// ("ssh-ed25519 AAAA… comment").
	PublicKey string `json:"public_key"`
	ReadOnly  bool   `json:"read_only,omitempty"`
	Override  bool   `json:"override,omitempty"`
}

// AgentList is the answer of GET /agents.
type AgentList struct {
	Object string  `json:"object"`
	Data   []Agent `json:"data"`
}

// DeletedAgent is the answer of DELETE /agents/{id-or-name}.
type DeletedAgent struct {
	Object  string `json:"object"`
	ID      string `json:"id"`
	Deleted bool   `json:"deleted"`
}

// MaxAgentName is the longest name an agent may have, in characters.
const MaxAgentName = 64

// ValidAgentName reports why name cannot be an agent's: it must be 1 to
// MaxAgentName printable characters (it is shown in the trail and in
// every session's header), not starting or ending with a space.
func ValidAgentName(name string) error {
	n, ok := printable(name)
	switch {
	case !ok:
		return fmt.Errorf("the agent name %s holds a character that is not printable", Quote(name))
	case n == 0:
		return errors.New("the agent name is empty")
	case n > MaxAgentName:
		return fmt.Errorf("the agent name is %d characters long; at most %d are allowed", n, MaxAgentName)
	case strings.TrimSpace(name) != name:
		return fmt.Errorf("the agent name %s starts or ends with a space", Quote(name))
	}
	return nil
}

// NormalizeProtected applies the address rule to an entry of a team's
// protected list: an address, or @ and a domain (every address of that
// domain and of its subdomains), each in its normalized form.
func NormalizeProtected(s string) (string, error) {
	s = strings.TrimSpace(s)
	if domain, ok := strings.CutPrefix(s, "@"); ok {
		// A domain is valid when an address of it is.
		addr, err := NormalizeEmail("x@" + domain)
		if err != nil {
			return "", err
		}
		return addr[1:], nil
	}
	return NormalizeEmail(s)
}

// Protected is a team's protected list, for matching addresses: the one
// rule of what a protected entry covers, which the service applies to
// every add (whatever path it comes by) and the clients to what they
// offer to send.
type Protected map[string]bool

// NewProtected makes the set of a protected list (normalized entries).
func NewProtected(list []string) Protected {
	p := make(Protected, len(list))
	for _, s := range list {
		p[s] = true
	}
	return p
}

// Match returns the entry of the list that protects a normalized
// address: the address itself, or an @domain that is its domain or a
// parent of it (@corp.test protects x@corp.test and x@sub.corp.test).
// A domain entry ("@domain" or "*.domain", as a list may hold them) is
// protected when it would cover a protected address or domain, or lies
// inside a protected domain.
func (p Protected) Match(email string) (string, bool) {
	if len(p) == 0 {
		return "", false
	}
	if d, sub, ok := domainEntry(email); ok {
		return p.matchDomainEntry(d, sub)
	}
	if p[email] {
		return email, true
	}
	at := strings.LastIndexByte(email, '@')
	if at < 0 {
		return "", false
	}
	return p.matchDomain(email[at+1:])
}

// matchDomain finds the protected @domain that is d or one of its
// parents.
func (p Protected) matchDomain(d string) (string, bool) {
	for {
		if p["@"+d] {
			return "@" + d, true
		}
		dot := strings.IndexByte(d, '.')
		if dot < 0 {
			return "", false
		}
		d = d[dot+1:]
	}
}

// domainEntry reads an entry that names a domain rather than an address:
// "@d" is every address of d, "*.d" every address of d's subdomains.
func domainEntry(s string) (domain string, subdomains, ok bool) {
	switch {
	case strings.HasPrefix(s, "@") && strings.Count(s, "@") == 1:
		return s[1:], false, true
	case strings.HasPrefix(s, "*.") && !strings.Contains(s, "@"):
		return s[2:], true, true
	}
	return "", false, false
}

// matchDomainEntry is Match for a domain entry of d (its subdomains only,
// with sub): protected when it lies inside a protected domain, or covers
// a protected entry.
func (p Protected) matchDomainEntry(d string, sub bool) (string, bool) {
	if rule, ok := p.matchDomain(d); ok {
		return rule, true
	}
	var found []string
	for rule := range p {
		x := rule[strings.LastIndexByte(rule, '@')+1:]
		if !sub && x == d || sub && strings.HasSuffix(x, "."+d) {
			found = append(found, rule)
		}
	}
	if len(found) == 0 {
		return "", false
	}
	slices.Sort(found)
	return found[0], true
}
