package outbox

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// AddressClass is what an address is, as far as webhook deliveries care.
type AddressClass int

// The classes of addresses, from the most to the least open.
const (
	// Public addresses are reached by default.
	Public AddressClass = iota
	// Private addresses (loopback, RFC 1918, CGNAT, unique-local,
	// site-local, benchmarking, protocol assignments, local NAT64) belong
	// to the deployment's own networks: refused unless the operator
	// allows private addresses or names their range.
	Private
	// Forbidden addresses (link-local, cloud metadata services,
	// unspecified, multicast, broadcast, reserved, documentation, Teredo)
	// are refused unless the operator names them in an allowed range.
	Forbidden
)

// String names the class in refusals.
func (c AddressClass) String() string {
	switch c {
	case Public:
		return "public"
	case Private:
		return "private"
	}
	return "forbidden"
}

// metadataAddrs are the instance metadata and platform services of the
// large clouds, which answer credentials to whoever asks from the
// instance. Several sit outside link-local space (a public address for
// Azure's WireServer, CGNAT for Alibaba's, a unique-local IPv6 address for
// AWS), so no range rule alone catches them.
var metadataAddrs = map[netip.Addr]bool{
	netip.MustParseAddr("169.254.169.254"): true, // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle…
	netip.MustParseAddr("169.254.170.2"):   true, // AWS ECS task credentials
	netip.MustParseAddr("169.254.169.253"): true, // AWS DNS
	netip.MustParseAddr("169.254.169.123"): true, // AWS time
	netip.MustParseAddr("169.254.0.23"):    true, // Tencent Cloud
	netip.MustParseAddr("100.100.100.200"): true, // Alibaba Cloud
	netip.MustParseAddr("168.63.129.16"):   true, // Azure WireServer
	netip.MustParseAddr("192.0.0.192"):     true, // Oracle Cloud
	netip.MustParseAddr("fd00:ec2::254"):   true, // AWS IMDS over IPv6
	netip.MustParseAddr("fd00:ec2::23"):    true, // AWS DNS over IPv6
	netip.MustParseAddr("fd00:ec2::123"):   true, // AWS time over IPv6
}

func prefixes(ss ...string) []netip.Prefix {
	ps := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		ps[i] = netip.MustParsePrefix(s)
	}
	return ps
}

var (
	forbidden4 = prefixes(
		"0.0.0.0/8",       // "this network"
		"169.254.0.0/16",  // link-local
		"192.0.2.0/24",    // documentation
		"198.51.100.0/24", // documentation
		"203.0.113.0/24",  // documentation
		"224.0.0.0/4",     // multicast
		"240.0.0.0/4",     // reserved, and the broadcast address
	)
	private4 = prefixes(
		"10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", // RFC 1918
		"127.0.0.0/8",    // loopback
		"100.64.0.0/10",  // CGNAT (RFC 6598)
		"192.0.0.0/24",   // IETF protocol assignments
		"198.18.0.0/15",  // benchmarking
		"192.88.99.0/24", // 6to4 relay anycast
	)
	forbidden6 = prefixes(
		"fe80::/10",       // link-local
		"ff00::/8",        // multicast
		"2001::/32",       // Teredo: the IPv4 inside is obfuscated and the tunnel goes anywhere
		"2001:db8::/32",   // documentation
		"3fff::/20",       // documentation
		"100::/64",        // discard-only
		"2001:10::/28",    // ORCHID
		"2001:20::/28",    // ORCHIDv2
		"5f00::/16",       // segment routing SIDs
		"fec0::/10",       // site-local (deprecated); some stacks still route it locally
		"::/128",          // unspecified
		"::ffff:0:0:0/96", // SIIT translated
	)
	private6 = prefixes(
		"::1/128",        // loopback
		"fc00::/7",       // unique-local
		"64:ff9b:1::/48", // local-use NAT64: the IPv4 inside is the deployment's
		"2001:2::/48",    // benchmarking
	)
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
	compat    = netip.MustParsePrefix("::/96")
)

// Classify says what ip is. IPv6 forms that carry an IPv4 address
// (IPv4-mapped, IPv4-compatible, NAT64's well-known prefix, 6to4) are
// classified by the IPv4 address inside, so that 64:ff9b::a9fe:a9fe is the
// metadata address it translates to.
func Classify(ip netip.Addr) AddressClass {
	ip = ip.WithZone("")
	if metadataAddrs[ip] {
		return Forbidden
	}
	if ip.Is4In6() {
		return Classify(ip.Unmap())
	}
	if ip.Is4() {
		return classifyIn(ip, forbidden4, private4)
	}
	if v4, ok := embeddedIPv4(ip); ok {
		return Classify(v4)
	}
	return classifyIn(ip, forbidden6, private6)
}

func classifyIn(ip netip.Addr, forbidden, private []netip.Prefix) AddressClass {
	for _, p := range forbidden {
		if p.Contains(ip) {
			return Forbidden
		}
	}
	for _, p := range private {
		if p.Contains(ip) {
			return Private
		}
	}
	return Public
}

// embeddedIPv4 is the IPv4 address inside a NAT64 (well-known prefix),
// 6to4 or IPv4-compatible IPv6 address.
func embeddedIPv4(ip netip.Addr) (netip.Addr, bool) {
	b := ip.As16()
	switch {
	case nat64.Contains(ip):
		return netip.AddrFrom4([4]byte(b[12:16])), true
	case sixToFour.Contains(ip):
		return netip.AddrFrom4([4]byte(b[2:6])), true
	case compat.Contains(ip) && ip != netip.IPv6Unspecified() && ip != netip.IPv6Loopback():
		return netip.AddrFrom4([4]byte(b[12:16])), true
	}
	return netip.Addr{}, false
}

// AddressPolicy decides which addresses webhook deliveries may connect
// to. The zero value reaches public addresses only.
type AddressPolicy struct {
	// AllowPrivate opens the private class (loopback, RFC 1918, CGNAT,
	// unique-local…), never link-local or metadata addresses.
	AllowPrivate bool
	// Allow opens every address inside these ranges, whatever its class.
	Allow []netip.Prefix
}

// Check says whether a delivery may connect to ip; the error names the
// address and why not.
func (p AddressPolicy) Check(ip netip.Addr) error {
	ip = ip.WithZone("")
	for _, r := range p.Allow {
		if r.Contains(ip) || (ip.Is4In6() && r.Contains(ip.Unmap())) {
			return nil
		}
	}
	switch c := Classify(ip); {
	case c == Public, c == Private && p.AllowPrivate:
		return nil
	default:
		return errDeniedAddress{ip: ip.String(), class: c}
	}
}

// errDeniedAddress is a connection the address policy refused.
type errDeniedAddress struct {
	ip    string
	class AddressClass
}

func (e errDeniedAddress) Error() string {
	return "the endpoint's address " + e.ip + " is not allowed (" + e.class.String() + ")"
}

// control checks the address each connection is about to reach, after
// name resolution, so that a host name cannot resolve around it.
func (p AddressPolicy) control(_, address string, _ syscall.RawConn) error {
	host, _, err := net.SplitHostPort(address)
	if err != nil {
		return err
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return errDeniedAddress{ip: host, class: Forbidden}
	}
	return p.Check(ip)
}

// transport is the deliveries' HTTP transport: every connection it makes
// is checked against the policy on the address dialled; through a proxy
// (only when opts.Proxy is set), the endpoint's host is resolved and every one of
// its addresses checked before the request is handed to the proxy, which
// itself is trusted because the operator named it.
func (p AddressPolicy) transport(opts DelivererConfig) *http.Transport {
	checked := &net.Dialer{Timeout: opts.Timeout, Control: p.control}
	tr := &http.Transport{
		DialContext:           checked.DialContext,
		TLSHandshakeTimeout:   opts.Timeout,
		ResponseHeaderTimeout: opts.Timeout,
		MaxIdleConnsPerHost:   max(opts.Workers, 1),
		IdleConnTimeout:       90 * time.Second,
	}
	proxyOf := opts.Proxy
	if proxyOf == nil {
		return tr // no proxy: HTTP_PROXY and friends are not consulted
	}
	var proxies sync.Map // host:port of every proxy handed to the transport
	plain := &net.Dialer{Timeout: opts.Timeout}
	tr.Proxy = func(req *http.Request) (*url.URL, error) {
		u, err := proxyOf(req)
		if err != nil || u == nil {
			return u, err
		}
		ips, err := net.DefaultResolver.LookupNetIP(req.Context(), "ip", req.URL.Hostname())
		if err != nil {
			return nil, err
		}
		for _, ip := range ips {
			if err := p.Check(ip.Unmap()); err != nil {
				return nil, err
			}
		}
		proxies.Store(hostPort(u), true)
		return u, nil
	}
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if _, ok := proxies.Load(addr); ok {
			return plain.DialContext(ctx, network, addr)
		}
		return checked.DialContext(ctx, network, addr)
	}
	return tr
}

// hostPort is the address the transport dials for a proxy URL.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "socks5": "1080", "socks5h": "1080"}[u.Scheme]
	}
	return net.JoinHostPort(u.Hostname(), port)
}
