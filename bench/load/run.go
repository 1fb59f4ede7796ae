package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
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
	switch {
	case c.clients < 1 || c.clients > maxClients:
		return c, usagef("-clients must be 1-%d, not %d", maxClients, c.clients)
	case c.duration <= 0 || c.duration > maxDuration:
		return c, usagef("-duration must be positive and at most %v, not %v", maxDuration, c.duration)
	case c.maxRequests < 1:
		return c, usagef("-max-requests must be positive, not %d", c.maxRequests)
	case c.batch < 1 || c.batch > 100:
		return c, usagef("-batch must be 1-100, not %d", c.batch)
	case c.pool < 0:
		return c, usagef("-pool must not be negative, not %d", c.pool)
	case c.pool > 0 && c.pool < c.batch:
		return c, usagef("-pool (%d) must be at least -batch (%d)", c.pool, c.batch)
	case c.fill < 0 || c.fill > maxFill:
		return c, usagef("-fill must be 0-%d, not %d", maxFill, c.fill)
	case c.timeout <= 0:
		return c, usagef("-timeout must be positive, not %v", c.timeout)
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

// sample is what one client measured.
type sample struct {
	latency  [numOps][]time.Duration
	ok       [numOps]int
	items    [numOps]int
	byStatus map[string]int
}

func newSample() *sample { return &sample{byStatus: map[string]int{}} }

// client is one simulated user: one request in flight at a time.
type client struct {
	cfg  *config
	http *http.Client
	base *url.URL
	rng  *rand.Rand
	n    int
	// mine holds addresses this client added and has not removed yet, for
	// removes when addresses are not drawn from a shared pool.
	mine []string
	// lastID is an ID seen in a list page, used as the next page's cursor.
	lastID string
}

func (c *client) address() string {
	if c.cfg.pool > 0 {
		return fmt.Sprintf("%s-%d@load.example.com", c.cfg.prefix, c.rng.IntN(c.cfg.pool))
	}
	c.n++
	return fmt.Sprintf("%s-%d-%d@load.example.com", c.cfg.prefix, c.rng.Uint32(), c.n)
}

// maxMine bounds what a client remembers for later removes.
const maxMine = 100_000

func (c *client) batchFor(o op) (path string, body []byte, emails []string) {
	switch {
	case o == opRemove && c.cfg.pool == 0:
		k := min(c.cfg.batch, len(c.mine))
		if k == 0 {
			// Nothing of ours to remove yet: remove addresses that
			// were never added, which exercises the same path.
			for range c.cfg.batch {
				emails = append(emails, c.address())
			}
			break
		}
		emails = slices.Clone(c.mine[len(c.mine)-k:])
		c.mine = c.mine[:len(c.mine)-k]
	default:
		seen := map[string]bool{}
		for len(emails) < c.cfg.batch {
			e := c.address()
			if !seen[e] {
				seen[e] = true
				emails = append(emails, e)
			}
		}
	}
	b, _ := json.Marshal(map[string][]string{"emails": emails})
	if o == opAdd {
		return "/suppressions/batch/add", b, emails
	}
	return "/suppressions/batch/remove", b, emails
}

// do sends one request of kind o and records it.
func (c *client) do(ctx context.Context, o op, s *sample) {
	var req *http.Request
	var err error
	items := 0
	var emails []string
	switch o {
	case opList:
		u := c.base.JoinPath("/suppressions")
		q := url.Values{"limit": {"100"}}
		if c.lastID != "" && c.rng.IntN(2) == 0 {
			q.Set("after", c.lastID)
		}
		u.RawQuery = q.Encode()
		req, err = http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	default:
		var path string
		var body []byte
		path, body, emails = c.batchFor(o)
		items = c.cfg.batch
		req, err = http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath(path).String(), bytes.NewReader(body))
		if req != nil {
			req.Header.Set("Content-Type", "application/json")
		}
	}
	if err != nil {
		s.byStatus["request: "+err.Error()]++
		return
	}
	req.Header.Set("Authorization", "Bearer "+c.cfg.key)
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return // the run ended with this request in flight
		}
		s.byStatus["network"]++
		return
	}
	var body []byte
	if o == opList {
		body, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	resp.Body.Close()
	elapsed := time.Since(start)
	if err != nil {
		if ctx.Err() != nil {
			return
		}
		s.byStatus["network"]++
		return
	}
	if resp.StatusCode/100 != 2 {
		s.byStatus[strconv.Itoa(resp.StatusCode)]++
		return
	}
	if o == opAdd && c.cfg.pool == 0 && len(c.mine) < maxMine {
		// Only addresses the service took are there to remove later.
		c.mine = append(c.mine, emails...)
	}
	s.latency[o] = append(s.latency[o], elapsed)
	s.ok[o]++
	s.items[o] += items
	if o == opList {
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore bool `json:"has_more"`
		}
		if json.Unmarshal(body, &page) == nil && len(page.Data) > 0 && page.HasMore {
			c.lastID = page.Data[len(page.Data)-1].ID
		} else {
			c.lastID = ""
		}
	}
}

func (c *client) pick() op {
	total := 0
	for _, w := range c.cfg.mix {
		total += w
	}
	r := c.rng.IntN(total)
	for o, w := range c.cfg.mix {
		if r < w {
			return op(o)
		}
		r -= w
	}
	return opList
}

// result is a run's figures.
type result struct {
	URLs      []string       `json:"urls"`
	Clients   int            `json:"clients"`
	Seconds   float64        `json:"seconds"`
	Mix       string         `json:"mix"`
	Batch     int            `json:"batch"`
	Filled    int            `json:"filled,omitempty"`
	FillSecs  float64        `json:"fill_seconds,omitempty"`
	Ops       []opResult     `json:"ops"`
	Requests  int            `json:"requests"`
	PerSecond float64        `json:"requests_per_second"`
	Errors    map[string]int `json:"errors_by_status"`
}

type opResult struct {
	Op        string  `json:"op"`
	Requests  int     `json:"requests"`
	PerSecond float64 `json:"requests_per_second"`
	ItemsPS   float64 `json:"addresses_per_second,omitempty"`
	P50ms     float64 `json:"p50_ms"`
	P95ms     float64 `json:"p95_ms"`
	P99ms     float64 `json:"p99_ms"`
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer, getenv func(string) string) error {
	cfg, err := parseFlags(args, stderr, getenv)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	transport := &http.Transport{
		Proxy:               nil, // loopback only: never through a proxy
		MaxIdleConnsPerHost: cfg.clients,
		IdleConnTimeout:     30 * time.Second,
	}
	defer transport.CloseIdleConnections()
	hc := &http.Client{Transport: transport, Timeout: cfg.timeout}
	if err := checkService(ctx, hc, &cfg); err != nil {
		return err
	}
	clients := make([]*client, cfg.clients)
	for i := range clients {
		clients[i] = &client{
			cfg:  &cfg,
			http: hc,
			base: cfg.urls[i%len(cfg.urls)],
			rng:  rand.New(rand.NewPCG(cfg.seed, uint64(i))),
		}
	}
	res := result{Clients: cfg.clients, Mix: mixString(cfg.mix), Batch: cfg.batch, Errors: map[string]int{}}
	for _, u := range cfg.urls {
		res.URLs = append(res.URLs, u.String())
	}
	if cfg.fill > 0 {
		start := time.Now()
		n, err := fill(ctx, &cfg, clients, stderr)
		res.Filled, res.FillSecs = n, time.Since(start).Seconds()
		if err != nil {
			return err
		}
	}

	runCtx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	var budget sync.Mutex
	left := cfg.maxRequests
	take := func() bool {
		budget.Lock()
		defer budget.Unlock()
		if left == 0 {
			return false
		}
		left--
		return true
	}
	samples := make([]*sample, len(clients))
	start := time.Now()
	var wg sync.WaitGroup
	for i, c := range clients {
		samples[i] = newSample()
		wg.Go(func() {
			for runCtx.Err() == nil && take() {
				c.do(runCtx, c.pick(), samples[i])
			}
		})
	}
	wg.Wait()
	res.Seconds = time.Since(start).Seconds()
	summarize(&res, samples)
	if cfg.jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else {
		printTable(stdout, res)
	}
	if ctx.Err() != nil {
		return errors.New("interrupted; the figures above cover the time until then")
	}
	failed := 0
	for status, n := range res.Errors {
		if status != "429" {
			failed += n
		}
	}
	if failed > 0 {
		return failedError{fmt.Errorf("%d requests failed for a reason other than the rate limit", failed)}
	}
	return nil
}

// checkService makes sure every URL answers and accepts the key before
// the clock starts, so that a typo does not become a page of errors.
func checkService(ctx context.Context, hc *http.Client, cfg *config) error {
	for _, u := range cfg.urls {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.JoinPath("/suppressions").String()+"?limit=1", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+cfg.key)
		resp, err := hc.Do(req)
		if err != nil {
			return fmt.Errorf("the service at %s does not answer: %w", u, err)
		}
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			var e struct {
				Message string `json:"message"`
			}
			_ = json.Unmarshal(body, &e)
			return fmt.Errorf("the service at %s answered %d to a list request: %s", u, resp.StatusCode, e.Message)
		}
	}
	return nil
}

// fill adds cfg.fill distinct addresses with all clients, retrying 429s,
// and reports progress on stderr.
func fill(ctx context.Context, cfg *config, clients []*client, stderr io.Writer) (int, error) {
	var mu sync.Mutex
	next, done := 0, 0
	var firstErr error
	claim := func() (lo, hi int, ok bool) {
		mu.Lock()
		defer mu.Unlock()
		if next >= cfg.fill || firstErr != nil {
			return 0, 0, false
		}
		lo, hi = next, min(next+100, cfg.fill)
		next = hi
		return lo, hi, true
	}
	lastReport := time.Now()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Go(func() {
			for {
				lo, hi, ok := claim()
				if !ok || ctx.Err() != nil {
					return
				}
				emails := make([]string, 0, hi-lo)
				for i := lo; i < hi; i++ {
					emails = append(emails, fmt.Sprintf("%s-fill-%d@load.example.com", cfg.prefix, i))
				}
				b, _ := json.Marshal(map[string][]string{"emails": emails})
				for attempt := 0; ; attempt++ {
					req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.base.JoinPath("/suppressions/batch/add").String(), bytes.NewReader(b))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+cfg.key)
					resp, err := c.http.Do(req)
					status := 0
					if err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
						status = resp.StatusCode
					}
					if status == http.StatusCreated {
						break
					}
					if ctx.Err() != nil {
						return
					}
					if (status == http.StatusTooManyRequests || status >= 500 || err != nil) && attempt < 20 {
						time.Sleep(time.Duration(50+c.rng.IntN(200)) * time.Millisecond)
						continue
					}
					mu.Lock()
					if firstErr == nil {
						if err != nil {
							firstErr = fmt.Errorf("fill: %w", err)
						} else {
							firstErr = fmt.Errorf("fill: the service answered %d", status)
						}
					}
					mu.Unlock()
					return
				}
				mu.Lock()
				done += hi - lo
				if time.Since(lastReport) > 5*time.Second {
					lastReport = time.Now()
					fmt.Fprintf(stderr, "fill: %d of %d addresses\n", done, cfg.fill)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr == nil && ctx.Err() != nil {
		firstErr = errors.New("fill interrupted")
	}
	return done, firstErr
}

func mixString(mix [numOps]int) string {
	parts := make([]string, 0, numOps)
	for o, w := range mix {
		parts = append(parts, fmt.Sprintf("%s=%d", opNames[o], w))
	}
	return strings.Join(parts, ",")
}

func summarize(res *result, samples []*sample) {
	secs := res.Seconds
	var all []time.Duration
	for o := range numOps {
		var lat []time.Duration
		items := 0
		for _, s := range samples {
			lat = append(lat, s.latency[o]...)
			items += s.items[o]
		}
		all = append(all, lat...)
		r := opResult{Op: opNames[o], Requests: len(lat), PerSecond: float64(len(lat)) / secs}
		if items > 0 {
			r.ItemsPS = float64(items) / secs
		}
		r.P50ms, r.P95ms, r.P99ms = percentiles(lat)
		res.Ops = append(res.Ops, r)
		res.Requests += len(lat)
	}
	for _, s := range samples {
		for status, n := range s.byStatus {
			res.Errors[status] += n
		}
	}
	total := opResult{Op: "all", Requests: len(all), PerSecond: float64(len(all)) / secs}
	total.P50ms, total.P95ms, total.P99ms = percentiles(all)
	res.Ops = append(res.Ops, total)
	res.PerSecond = total.PerSecond
}

func percentiles(lat []time.Duration) (p50, p95, p99 float64) {
	if len(lat) == 0 {
		return 0, 0, 0
	}
	slices.Sort(lat)
	at := func(p float64) float64 {
		i := int(p*float64(len(lat))+0.5) - 1
		i = max(0, min(i, len(lat)-1))
		return float64(lat[i].Microseconds()) / 1000
	}
	return at(0.50), at(0.95), at(0.99)
}

func printTable(w io.Writer, r result) {
	fmt.Fprintf(w, "target %s, %d clients, %.1fs, mix %s, batch %d\n", strings.Join(r.URLs, " "), r.Clients, r.Seconds, r.Mix, r.Batch)
	if r.Filled > 0 {
		fmt.Fprintf(w, "filled %d addresses first in %.1fs\n", r.Filled, r.FillSecs)
	}
	fmt.Fprintf(w, "%-7s %9s %9s %11s %9s %9s %9s\n", "op", "requests", "req/s", "addresses/s", "p50 ms", "p95 ms", "p99 ms")
	for _, o := range r.Ops {
		items := "-"
		if o.ItemsPS > 0 {
			items = fmt.Sprintf("%.0f", o.ItemsPS)
		}
		fmt.Fprintf(w, "%-7s %9d %9.1f %11s %9.2f %9.2f %9.2f\n", o.Op, o.Requests, o.PerSecond, items, o.P50ms, o.P95ms, o.P99ms)
	}
	if len(r.Errors) == 0 {
		fmt.Fprintln(w, "errors: none")
		return
	}
	statuses := make([]string, 0, len(r.Errors))
	for s := range r.Errors {
		statuses = append(statuses, s)
	}
	slices.Sort(statuses)
	parts := make([]string, len(statuses))
	for i, s := range statuses {
		parts[i] = fmt.Sprintf("%s: %d", s, r.Errors[s])
	}
	fmt.Fprintf(w, "errors by status: %s\n", strings.Join(parts, ", "))
}
