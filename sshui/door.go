package sshui

import (
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charmbracelet/ssh"
	"github.com/prometheus/client_golang/prometheus"
	gossh "golang.org/x/crypto/ssh"
)

// Defaults of the door's settings (Config).
const (
	// DefaultLoginTimeout closes a connection that has not logged in by
	// then: time to type a key's passphrase, not to hold a descriptor.
	DefaultLoginTimeout = 20 * time.Second
	// DefaultMaxStartups is how many connections may be logging in at
	// once, from everywhere; more are closed at once (OpenSSH's
	// MaxStartups, without its random early drop).
	DefaultMaxStartups = 100
	// DefaultMaxStartupsPerSource is how many of them one address may
	// have (OpenSSH's PerSourceMaxStartups).
	DefaultMaxStartupsPerSource = 10
	// DefaultFailedLogins is how many failed logins an address may make
	// in a burst; it gets one more every FailedLoginEvery. Past them its
	// connections are closed at once until it has one again.
	DefaultFailedLogins = 10
	// DefaultFailedLoginEvery is how often an address earns a failed
	// login back.
	DefaultFailedLoginEvery = 6 * time.Second
)

// maxSources bounds the addresses the door remembers failures of: past
// it, those that have every failed login back again are forgotten, which
// loses nothing.
const maxSources = 10000

// door keeps the SSH listener's entrance: every connection must log in
// within the login timeout; few may be logging in at once, from one
// address and in all; an address whose logins keep failing waits before
// it may try again. An agent's work (after login) is not its concern.
type door struct {
	timeout      time.Duration
	perSource    int
	total        int
	failBurst    float64
	failEvery    time.Duration
	now          func() time.Time
	mu           sync.Mutex
	pending      map[netip.Addr]int
	pendingTotal int
	failures     map[netip.Addr]*credit
	refused      *prometheus.CounterVec
	timeouts     prometheus.Counter
	failedLogins prometheus.Counter
}

// credit is an address's failed logins left: up to failBurst, one more
// every failEvery.
type credit struct {
	left float64
	at   time.Time
}

// gate is one connection going through the door.
type gate struct {
	d      *door
	ip     netip.Addr
	authed atomic.Bool
	done   sync.Once
	timer  *time.Timer
}

// gateKey holds a connection's gate in its context.
type gateKey struct{}

func newDoor(cfg Config) *door {
	d := &door{
		timeout: cfg.LoginTimeout, perSource: cfg.MaxStartupsPerSource, total: cfg.MaxStartups,
		failBurst: float64(cfg.FailedLogins), failEvery: cfg.FailedLoginEvery, now: time.Now,
		pending: map[netip.Addr]int{}, failures: map[netip.Addr]*credit{},
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shush_ssh_connections_refused_total",
			Help: "SSH connections closed at once, before any byte: too many logging in from their address (per_source) or in all (total), or their address failed too many logins (failed_logins).",
		}, []string{"reason"}),
		timeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shush_ssh_login_timeouts_total",
			Help: "SSH connections closed for not logging in within the login timeout.",
		}),
		failedLogins: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "shush_ssh_failed_logins_total",
			Help: "SSH connections that ended without logging in (a key refused, a handshake failed or timed out), each counted against its address.",
		}),
	}
	for _, r := range []string{"per_source", "total", "failed_logins"} {
		d.refused.WithLabelValues(r)
	}
	return d
}

// collectors are the door's metrics.
func (d *door) collectors() []prometheus.Collector {
	return []prometheus.Collector{d.refused, d.timeouts, d.failedLogins}
}

// unauthenticated is how many connections are logging in now.
func (d *door) unauthenticated() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.pendingTotal
}

// addrOf is a connection's remote address, without its port.
func addrOf(a net.Addr) netip.Addr {
	if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}

// enter lets a new connection in, or closes it (nil) when its address
// has failed too many logins or too many are logging in: the
// ConnCallback of the listener.
func (d *door) enter(ctx ssh.Context, c net.Conn) net.Conn {
	ip := addrOf(c.RemoteAddr())
	if reason := d.take(ip); reason != "" {
		d.refused.WithLabelValues(reason).Inc()
		return nil
	}
	g := &gate{d: d, ip: ip}
	ctx.SetValue(gateKey{}, g)
	g.timer = time.AfterFunc(d.timeout, func() {
		if !g.authed.Load() {
			d.timeouts.Inc()
			c.Close()
		}
	})
	return &gatedConn{Conn: c, g: g}
}

// take counts a connection logging in, or says which rule refuses it.
func (d *door) take(ip netip.Addr) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if c := d.failures[ip]; c != nil && d.refill(c) < 1 {
		return "failed_logins"
	}
	switch {
	case d.pending[ip] >= d.perSource:
		return "per_source"
	case d.pendingTotal >= d.total:
		return "total"
	}
	d.pending[ip]++
	d.pendingTotal++
	return ""
}

// refill brings an address's credit up to now and returns it.
func (d *door) refill(c *credit) float64 {
	now := d.now()
	c.left = min(d.failBurst, c.left+float64(now.Sub(c.at))/float64(d.failEvery))
	c.at = now
	return c.left
}

// leave forgets a connection logging in: it logged in, or it ended
// without (a failed login, counted against its address).
func (g *gate) leave(loggedIn bool) {
	g.done.Do(func() {
		d := g.d
		g.timer.Stop()
		d.mu.Lock()
		defer d.mu.Unlock()
		if d.pending[g.ip]--; d.pending[g.ip] <= 0 {
			delete(d.pending, g.ip)
		}
		d.pendingTotal--
		if loggedIn {
			return
		}
		d.failedLogins.Inc()
		c := d.failures[g.ip]
		if c == nil {
			d.forgetSome()
			c = &credit{left: d.failBurst, at: d.now()}
			d.failures[g.ip] = c
		}
		d.refill(c)
		c.left = max(0, c.left-1)
	})
}

// forgetSome drops, when the door remembers maxSources addresses, those
// whose credit is whole again.
func (d *door) forgetSome() {
	if len(d.failures) < maxSources {
		return
	}
	for ip, c := range d.failures {
		if d.refill(c) >= d.failBurst {
			delete(d.failures, ip)
		}
	}
}

// authLog is the handshake's report of each login attempt: a success
// lets the connection through the door.
func authLog(ctx ssh.Context) func(gossh.ConnMetadata, string, error) {
	return func(_ gossh.ConnMetadata, _ string, err error) {
		if err != nil {
			return
		}
		if g, ok := ctx.Value(gateKey{}).(*gate); ok {
			g.authed.Store(true)
			g.leave(true)
		}
	}
}

// gatedConn ends its gate when it closes: a connection that closes
// before it logged in is a failed login.
type gatedConn struct {
	net.Conn
	g *gate
}

func (c *gatedConn) Close() error {
	err := c.Conn.Close()
	c.g.leave(c.g.authed.Load())
	return err
}
