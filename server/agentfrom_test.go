package server_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"
)

// TestAgentKeyFrom: a key's from= is kept with the key and admits the
// addresses it names by OpenSSH's rule (a ! match refuses first); the
// restrictions that hold anyway are dropped; any other option is refused
// by name.
func TestAgentKeyFrom(t *testing.T) {
	key := agentKey(t)
	stored, _, err := server.ParseAgentKey(`from="192.0.2.*,10.0.0.0/8,!10.9.9.9,2001:db8::/32",no-port-forwarding ` + key)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stored, `from="192.0.2.*,10.0.0.0/8,!10.9.9.9,2001:db8::/32" ssh-ed25519 `) {
		t.Fatalf("the stored key: %q", stored)
	}
	rule, err := server.AgentFrom(stored)
	if err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]bool{
		"192.0.2.7": true, "192.0.3.7": false, "10.1.2.3": true, "10.9.9.9": false,
		"::ffff:10.1.2.3": true, "2001:db8::1": true, "2001:db9::1": false, "127.0.0.1": false,
	} {
		if got := rule.Allows(netip.MustParseAddr(addr)); got != want {
			t.Errorf("from %s: %v; want %v", addr, got, want)
		}
	}
	if rule, err := server.AgentFrom(key); err != nil || !rule.Allows(netip.MustParseAddr("203.0.113.9")) {
		t.Errorf("a key without from=: %v, %v; want every address", rule, err)
	}
	for options, want := range map[string]string{
		`command="/bin/sh"`:              `the option "command"`,
		`from=10.0.0.1`:                  "not in double quotes",
		`from="10.0.0.1",from="1.2.3.4"`: "from= twice",
		`from="*.example.com"`:           "is not an address",
		`restrict`:                       `the option "restrict"`,
	} {
		if _, _, err := server.ParseAgentKey(options + " " + key); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a key with %s: %v; want %q", options, err, want)
		}
	}
}
