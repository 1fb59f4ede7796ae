package server

import (
	"errors"
	"fmt"
	"net/netip"
	"path"
	"strings"

	gossh "golang.org/x/crypto/ssh"
)

// An agent's key may carry authorized_keys options. shush honours from=
// (the addresses the agent may log in from) and refuses, at
// registration, every option it would not apply, so that none is ignored
// without a word. The restrictions below hold for every agent anyway: the
// SSH listener forwards nothing and runs no rc file; they are accepted
// and not kept.
var heldRestrictions = map[string]bool{
	"no-port-forwarding":  true,
	"no-agent-forwarding": true,
	"no-x11-forwarding":   true,
	"no-user-rc":          true,
}

// AgentKeyOptions checks the options of an agent's key and returns those
// to keep with it: its from= (checked, see FromRule), none else. Another
// option is an *AgentError naming it.
func AgentKeyOptions(opts []string) ([]string, error) {
	var kept []string
	for _, o := range opts {
		name, value, hasValue := strings.Cut(o, "=")
		lower := strings.ToLower(name)
		switch {
		case heldRestrictions[lower] && !hasValue:
		case lower == "from" && hasValue:
			if len(kept) > 0 {
				return nil, &AgentError{"the key has from= twice; give one list of addresses"}
			}
			if _, err := parseFrom(value); err != nil {
				return nil, &AgentError{"the key's from= option is not one shush can apply: " + err.Error()}
			}
			kept = append(kept, "from="+value)
		default:
			return nil, &AgentError{fmt.Sprintf("the key has the option %s, which shush does not apply to an agent's login; remove it (from=\"addresses\" is honoured)", quoteOption(name))}
		}
	}
	return kept, nil
}

// quoteOption shows an option's name, cut and quoted: it is the caller's
// text.
func quoteOption(name string) string {
	if len(name) > 40 {
		name = name[:40] + "…"
	}
	return fmt.Sprintf("%q", name)
}

// FromRule is the from= option of an agent's key: the client addresses
// the agent may log in from, by OpenSSH's rule (a pattern list of
// addresses, CIDR ranges and * ? wildcards, each possibly negated with !:
// a negated match refuses, else a plain match admits, else nothing
// does). Host names are not looked up, as OpenSSH does without UseDNS,
// and so are refused when the key is registered.
type FromRule struct {
	allow, deny []fromPattern
}

type fromPattern struct {
	prefix netip.Prefix // valid for an address or a range
	glob   string       // else a wildcard pattern over the address's text
}

func (p fromPattern) matches(ip netip.Addr) bool {
	if p.prefix.IsValid() {
		return p.prefix.Contains(ip)
	}
	ok, _ := path.Match(p.glob, ip.String())
	return ok
}

// AgentFrom reads the from= rule of an agent's stored key (its
// authorized_keys form); nil when it has none: the agent may log in from
// anywhere.
func AgentFrom(authorized string) (*FromRule, error) {
	_, _, opts, _, err := gossh.ParseAuthorizedKey([]byte(authorized))
	if err != nil {
		return nil, err
	}
	for _, o := range opts {
		if name, value, ok := strings.Cut(o, "="); ok && strings.EqualFold(name, "from") {
			return parseFrom(value)
		}
	}
	return nil, nil
}

// Allows reports whether a client at ip may log in under the rule; a nil
// rule allows every address.
func (r *FromRule) Allows(ip netip.Addr) bool {
	if r == nil {
		return true
	}
	ip = ip.Unmap()
	for _, p := range r.deny {
		if p.matches(ip) {
			return false
		}
	}
	for _, p := range r.allow {
		if p.matches(ip) {
			return true
		}
	}
	return false
}

// parseFrom reads a from= value: "pattern,pattern,…", quoted.
func parseFrom(value string) (*FromRule, error) {
	list, ok := strings.CutPrefix(value, `"`)
	if !ok || !strings.HasSuffix(list, `"`) {
		return nil, errors.New(`its value is not in double quotes (from="10.0.0.0/8")`)
	}
	list = strings.TrimSuffix(list, `"`)
	r := &FromRule{}
	for _, raw := range strings.Split(list, ",") {
		neg := strings.HasPrefix(raw, "!")
		p, err := parseFromPattern(strings.TrimPrefix(raw, "!"))
		if err != nil {
			return nil, err
		}
		if neg {
			r.deny = append(r.deny, p)
		} else {
			r.allow = append(r.allow, p)
		}
	}
	if len(r.allow) == 0 {
		return nil, errors.New("it lets no address in (only ! patterns); name the addresses the agent logs in from")
	}
	return r, nil
}

// parseFromPattern reads one pattern: an address, a CIDR range, or a
// wildcard pattern of an address's characters.
func parseFromPattern(s string) (fromPattern, error) {
	if s == "" {
		return fromPattern{}, errors.New("it has an empty pattern")
	}
	if p, err := netip.ParsePrefix(s); err == nil {
		return fromPattern{prefix: p.Masked()}, nil
	}
	if a, err := netip.ParseAddr(s); err == nil {
		return fromPattern{prefix: netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())}, nil
	}
	if strings.ContainsAny(s, "*?") && strings.Trim(strings.ToLower(s), "0123456789abcdef.:*?") == "" {
		return fromPattern{glob: strings.ToLower(s)}, nil
	}
	return fromPattern{}, fmt.Errorf("%q is not an address, a CIDR range or an address pattern (host names are not looked up)", cut(s))
}

func cut(s string) string {
	if len(s) > 60 {
		return s[:60] + "…"
	}
	return s
}
