package api

import (
	"errors"
	"fmt"
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
}

// TeamPatch is the body of PATCH /team: the fields given replace the
// team's; those left out stay.
type TeamPatch struct {
	Protected        *[]string          `json:"protected,omitempty"`
	ComplaintRemoval *string            `json:"complaint_removal,omitempty"`
	Intake           *IntakePolicyPatch `json:"intake,omitempty"`
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
// protected list: an address, or @ and a domain (every address of exactly
// that domain), each in its normalized form.
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

// Protected is a team's protected list, for matching addresses.
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
// address: the address itself, or its @domain.
func (p Protected) Match(email string) (string, bool) {
	if len(p) == 0 {
		return "", false
	}
	if p[email] {
		return email, true
	}
	if at := strings.LastIndexByte(email, '@'); at >= 0 && p[email[at:]] {
		return email[at:], true
	}
	return "", false
}
