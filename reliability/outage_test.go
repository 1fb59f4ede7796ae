package reliability

import (
	"context"
	"io"
	"net"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// proxy forwards TCP connections to a target until it is taken down, which
// also cuts the connections open through it: to the service it looks like
// the database went away.
type proxy struct {
	t      *testing.T
	addr   string
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	p := &proxy{t: t, target: target}
	p.up()
	t.Cleanup(p.down)
	return p
}

func (p *proxy) up() {
	addr := p.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	var err error
	for range 50 { // the port may linger for a moment after down
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatalf("proxy: %v", err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, u)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(u, c); u.Close() }()
			go func() { _, _ = io.Copy(c, u); c.Close() }()
		}
	}()
}

func (p *proxy) down() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// TestPostgresOutage takes the database away under a running service: the
// service answers 503 service_unavailable (never 500), changes nothing, and
// works again, with the list intact, once the database is back.
func TestPostgresOutage(t *testing.T) {
	dsn := pgtest.DSN(t)
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	px := newProxy(t, u.Host)
	u.Host = px.addr
	q := u.Query()
	q.Set("connect_timeout", "2")
	u.RawQuery = q.Encode()
	st, err := postgres.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := httptest.NewServer(server.New(st, server.Options{Rate: 100000, RequestTimeout: 5 * time.Second}))
	defer ts.Close()
	_, key, err := server.CreateKey(context.Background(), st, "outage", false)
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(ts.URL, key)
	ctx := context.Background()
	before, a := c.add(ctx, []string{"before-1@example.com", "before-2@example.com"})
	if a.status != 201 {
		t.Fatalf("add before the outage: %d %s", a.status, a.body)
	}

	px.down()
	for _, r := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/suppressions/batch/add", api.BatchAddRequest{Emails: []string{"during@example.com"}}},
		{"POST", "/suppressions/batch/remove", api.BatchRemoveRequest{IDs: before}},
		{"POST", "/suppressions/batch/remove", api.BatchRemoveRequest{Emails: []string{"before-1@example.com"}}},
		{"GET", "/suppressions", nil},
		{"GET", "/suppressions/before-1@example.com", nil},
		{"DELETE", "/suppressions/" + before[0], nil},
	} {
		got := c.do(ctx, r.method, r.path, r.body)
		if got.err != nil {
			t.Fatalf("%s %s during the outage: %v", r.method, r.path, got.err)
		}
		// A key check that needs the database fails the same way.
		if e := got.apiError(); got.status != 503 || e.Name != api.ErrServiceUnavailable {
			t.Errorf("%s %s during the outage: %d %s, want 503 service_unavailable", r.method, r.path, got.status, got.body)
		}
	}
	report(t, "database unreachable: batch add, batch remove (IDs, addresses), list, get, delete all answered 503 service_unavailable")

	px.up()
	deadline := time.Now().Add(15 * time.Second)
	var back time.Duration
	start := time.Now()
	for {
		ids, a := c.add(ctx, []string{"after@example.com"})
		if a.status == 201 && len(ids) == 1 {
			back = time.Since(start)
			break
		}
		if a.status != 503 {
			t.Fatalf("add after the outage: %d %s", a.status, a.body)
		}
		if time.Now().After(deadline) {
			t.Fatal("the service did not recover within 15s of the database coming back")
		}
		time.Sleep(50 * time.Millisecond)
	}
	got := map[string]bool{}
	for _, e := range c.list(t) {
		got[e.Email] = true
	}
	if len(got) != 3 || !got["before-1@example.com"] || !got["before-2@example.com"] || !got["after@example.com"] || got["during@example.com"] {
		t.Errorf("after the outage the list holds %v", got)
	}
	report(t, "database back: the first add succeeded after %v; the list holds exactly the entries added before and after", back.Round(time.Millisecond))
}
