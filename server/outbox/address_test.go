package outbox_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/shushlist/shush/server/outbox"
)

// TestAddressPolicy: the classifier over a table of addresses, in process
// (nothing is dialled). Each row says whether the default policy, the
// policy with private addresses allowed, and one with 10.1.0.0/16 and
// 169.254.169.254/32 named, let a delivery connect.
func TestAddressPolicy(t *testing.T) {
	deflt := outbox.AddressPolicy{}
	private := outbox.AddressPolicy{AllowPrivate: true}
	named := outbox.AddressPolicy{Allow: []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("169.254.169.254/32")}}
	for _, c := range []struct {
		addr                     string
		byDefault, priv, byNamed bool
	}{
		// public
		{"93.184.215.14", true, true, true},
		{"1.1.1.1", true, true, true},
		{"2606:4700:4700::1111", true, true, true},
		{"::ffff:93.184.215.14", true, true, true},
		{"64:ff9b::5db8:d70e", true, true, true}, // NAT64 of a public address
		{"2002:5db8:d70e::1", true, true, true},  // 6to4 of a public address
		// loopback and private networks
		{"127.0.0.1", false, true, false},
		{"127.0.0.2", false, true, false},
		{"::1", false, true, false},
		{"10.0.0.1", false, true, false},
		{"10.1.2.3", false, true, true},
		{"172.16.0.1", false, true, false},
		{"192.168.1.1", false, true, false},
		{"100.64.0.1", false, true, false},   // CGNAT
		{"198.18.0.1", false, true, false},   // benchmarking
		{"fd12:3456::1", false, true, false}, // unique-local
		{"fc00::1", false, true, false},
		{"64:ff9b:1::a00:1", false, true, false}, // local-use NAT64
		// IPv4 inside IPv6: classified by the IPv4 address
		{"::ffff:127.0.0.1", false, true, false},
		{"::ffff:7f00:1", false, true, false},
		{"::7f00:1", false, true, false},        // IPv4-compatible loopback
		{"64:ff9b::7f00:1", false, true, false}, // NAT64 of loopback
		{"2002:7f00:1::1", false, true, false},  // 6to4 of loopback
		{"::ffff:10.1.0.5", false, true, true},  // mapped, inside a named range
		// a named range covers the address and its IPv4-mapped form only
		{"64:ff9b::a9fe:a9fe", false, false, false}, // NAT64 of the metadata address
		{"2002:a9fe:a9fe::1", false, false, false},  // 6to4 of it
		{"::a9fe:a9fe", false, false, false},        // IPv4-compatible form
		{"::ffff:169.254.169.254", false, false, true},
		// link-local and cloud metadata: never, unless named
		{"169.254.169.254", false, false, true},
		{"169.254.1.1", false, false, false},
		{"169.254.170.2", false, false, false},
		{"fe80::1", false, false, false},
		{"fe80::1%eth0", false, false, false},
		{"fd00:ec2::254", false, false, false},   // AWS over IPv6 (inside unique-local)
		{"100.100.100.200", false, false, false}, // Alibaba (inside CGNAT)
		{"168.63.129.16", false, false, false},   // Azure WireServer (a public address)
		{"192.0.0.192", false, false, false},     // Oracle
		{"fec0::1", false, false, false},         // site-local
		// nowhere
		{"0.0.0.0", false, false, false},
		{"0.1.2.3", false, false, false},
		{"::", false, false, false},
		{"224.0.0.1", false, false, false},
		{"239.255.255.250", false, false, false},
		{"ff02::1", false, false, false},
		{"255.255.255.255", false, false, false},
		{"240.0.0.1", false, false, false},
		{"192.0.2.1", false, false, false},
		{"2001:db8::1", false, false, false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false, false, false}, // Teredo
	} {
		ip := netip.MustParseAddr(c.addr)
		for _, p := range []struct {
			name string
			pol  outbox.AddressPolicy
			want bool
		}{{"default", deflt, c.byDefault}, {"allow-private", private, c.priv}, {"allow-cidr", named, c.byNamed}} {
			err := p.pol.Check(ip)
			if (err == nil) != p.want {
				t.Errorf("%s under %s: allowed %v; want %v (%v)", c.addr, p.name, err == nil, p.want, err)
			}
			if err != nil && !strings.Contains(err.Error(), "is not allowed") {
				t.Errorf("%s: refusal %q does not say the address is not allowed", c.addr, err)
			}
		}
	}
}
