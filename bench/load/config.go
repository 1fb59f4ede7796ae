package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Bounds that keep one run from growing without limit, whatever the flags.
const (
	maxClients  = 1024
	maxDuration = 2 * time.Hour
	maxFill     = 10_000_000
)

// usageError is a mistake in the flags (exit status 2).
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// failedError says the run finished but some requests failed for a reason
// other than the rate limit (exit status 1).
type failedError struct{ error }

func exitCode(err error) int {
	var u usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

// op is one kind of request the clients send.
type op int

const (
	opAdd op = iota
	opRemove
	opList
	numOps
)

var opNames = [numOps]string{"add", "remove", "list"}

// config is what the flags say.
type config struct {
	urls        []*url.URL
	key         string
	clients     int
	duration    time.Duration
	maxRequests int
	mix         [numOps]int
	batch       int
	pool        int
	fill        int
	seed        uint64
	prefix      string
	timeout     time.Duration
	jsonOut     bool
}

func parseFlags(args []string, stderr io.Writer, getenv func(string) string) (config, error) {
	var (
		c       config
		urls    string
		keyFlag string
		keyFile string
		mix     string
	)
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&urls, "url", "http://127.0.0.1:8080", "base URL of the service; several, comma-separated, spread the clients over them (loopback only)")
	fs.StringVar(&keyFile, "key-file", "", "file holding the API key (default: $SHUSH_API_KEY)")
	fs.StringVar(&keyFlag, "key", "", "the API key itself (visible in the process list; prefer -key-file)")
	fs.IntVar(&c.clients, "clients", 8, "concurrent clients, each with one request in flight")
	fs.DurationVar(&c.duration, "duration", 30*time.Second, "how long to send requests (after -fill)")
	fs.IntVar(&c.maxRequests, "max-requests", 1_000_000, "stop after this many requests even before -duration")
	fs.StringVar(&mix, "mix", "add=70,remove=20,list=10", "relative weights of batch adds, batch removes and list pages")
	fs.IntVar(&c.batch, "batch", 100, "addresses per batch add or remove (1-100)")
	fs.IntVar(&c.pool, "pool", 0, "draw addresses from this many (clients overlap); 0: adds use new addresses and removes take back the client's own earlier adds")
	fs.IntVar(&c.fill, "fill", 0, "first add this many distinct addresses (not measured), so the list is that long")
	fs.Uint64Var(&c.seed, "seed", 1, "seed of the random choices")
	fs.StringVar(&c.prefix, "prefix", "", "local-part prefix of generated addresses (default: one per run, from the seed and the time)")
	fs.DurationVar(&c.timeout, "timeout", 30*time.Second, "longest wait for one response")
	fs.BoolVar(&c.jsonOut, "json", false, "print the results as JSON instead of a table")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return c, err
		}
		return c, usageError{err}
	}
	if fs.NArg() > 0 {
		return c, usagef("unexpected argument %q (every setting is a flag)", fs.Arg(0))
	}
	for _, raw := range strings.Split(urls, ",") {
		u, err := checkURL(strings.TrimSpace(raw))
		if err != nil {
			return c, err
		}
		c.urls = append(c.urls, u)
	}
	if err := c.checkRanges(); err != nil {
		return c, err
	}
	var err error
	if c.mix, err = parseMix(mix); err != nil {
		return c, err
	}
	if c.key, err = readKey(keyFlag, keyFile, getenv); err != nil {
		return c, err
	}
	if c.prefix == "" {
		c.prefix = fmt.Sprintf("load%x", uint32(c.seed*2654435761)^uint32(time.Now().UnixNano()))
	}
	return c, nil
}

// checkRanges refuses a number flag out of its range.
func (c config) checkRanges() error {
	switch {
	case c.clients < 1 || c.clients > maxClients:
		return usagef("-clients must be 1-%d, not %d", maxClients, c.clients)
	case c.duration <= 0 || c.duration > maxDuration:
		return usagef("-duration must be positive and at most %v, not %v", maxDuration, c.duration)
	case c.maxRequests < 1:
		return usagef("-max-requests must be positive, not %d", c.maxRequests)
	case c.batch < 1 || c.batch > 100:
		return usagef("-batch must be 1-100, not %d", c.batch)
	case c.pool < 0:
		return usagef("-pool must not be negative, not %d", c.pool)
	case c.pool > 0 && c.pool < c.batch:
		return usagef("-pool (%d) must be at least -batch (%d)", c.pool, c.batch)
	case c.fill < 0 || c.fill > maxFill:
		return usagef("-fill must be 0-%d, not %d", maxFill, c.fill)
	case c.timeout <= 0:
		return usagef("-timeout must be positive, not %v", c.timeout)
	}
	return nil
}

// checkURL accepts an http(s) URL whose host is a loopback address, or
// localhost when every address it resolves to is one.
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, usagef("-url %q is not an http:// or https:// URL", raw)
	}
	host := u.Hostname()
	if ip := net.ParseIP(host); ip != nil {
		if !ip.IsLoopback() {
			return nil, usagef("refusing to load %s: %s is not a loopback address; this tool only targets a service on this machine (127.0.0.1, ::1, localhost)", raw, host)
		}
		return u, nil
	}
	if !strings.EqualFold(host, "localhost") {
		return nil, usagef("refusing to load %s: host %q is not a loopback address; this tool only targets a service on this machine (127.0.0.1, ::1, localhost)", raw, host)
	}
	addrs, err := net.DefaultResolver.LookupIPAddr(context.Background(), host)
	if err != nil {
		return nil, usagef("cannot resolve %s: %v", host, err)
	}
	for _, a := range addrs {
		if !a.IP.IsLoopback() {
			return nil, usagef("refusing to load %s: localhost resolves to %s, which is not a loopback address", raw, a.IP)
		}
	}
	return u, nil
}

func parseMix(s string) ([numOps]int, error) {
	var mix [numOps]int
	total := 0
	for _, part := range strings.Split(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		i := slices.Index(opNames[:], name)
		n, err := strconv.Atoi(val)
		if !ok || i < 0 || err != nil || n < 0 {
			return mix, usagef("-mix %q: each part must be add=N, remove=N or list=N with N >= 0", s)
		}
		mix[i] = n
		total += n
	}
	if total == 0 {
		return mix, usagef("-mix %q gives every operation weight 0", s)
	}
	return mix, nil
}

func readKey(flagKey, file string, getenv func(string) string) (string, error) {
	key := flagKey
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", usagef("read the key file: %v", err)
		}
		key = string(b)
	}
	if key == "" {
		key = getenv("SHUSH_API_KEY")
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return "", usagef("no API key: pass -key-file FILE or set SHUSH_API_KEY")
	}
	return key, nil
}
