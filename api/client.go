package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"
)

// Client calls the Suppression List Batch API of one service with one key.
// It is safe for use by several goroutines, which then share its pacing:
// when the service says the rate limit is spent, every request waits.
//
// Retries: a 429 is retried on every endpoint after its retry-after (the
// service did nothing). Batch add, batch remove, single add, get, list and
// health are idempotent and are also retried on 5xx and on network errors,
// with capped exponential backoff and jitter. A single DELETE is retried on
// 5xx but not on a network error, because a retry after a removal whose
// answer was lost would answer 404 and hide the removal. Creating a webhook
// and rotating its secret are retried only on a 429 (see webhooks_client.go).
// A 4xx other than 429 is never retried.
type Client struct {
	base   string
	http   *resty.Client
	agent  string
	retry  retryPolicy
	hook   func(WaitInfo)
	pacer  *pacer
	skewMu sync.Mutex
	skew   time.Duration
}

type retryPolicy struct {
	max       int
	base, cap time.Duration
	// maxRetryAfter is the longest Retry-After the client waits out; a
	// longer one ends the call with the 429 (see LongRetryAfter).
	maxRetryAfter time.Duration
}

// DefaultMaxRetryAfter is how long a Retry-After the client waits out by
// itself; a service that asks for longer is a pause, not a wait.
const DefaultMaxRetryAfter = 60 * time.Second

// WithMaxRetryAfter sets the longest Retry-After the client waits out
// (DefaultMaxRetryAfter when not set).
func WithMaxRetryAfter(d time.Duration) Option {
	return func(o *options) { o.retry.maxRetryAfter = d }
}

// LongRetryAfter reports whether err is a 429 whose Retry-After was longer
// than the client waits out, and how long it asked for.
func LongRetryAfter(err error) (time.Duration, bool) {
	var e *Error
	if errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests && e.longWait {
		return e.RetryAfter, true
	}
	return 0, false
}

// Option changes how NewClient builds a client.
type Option func(*options)

type options struct {
	transport http.RoundTripper
	version   string
	retry     retryPolicy
	hook      func(WaitInfo)
	timeout   time.Duration
}

// WithTransport sends requests through rt instead of the default network
// transport; an in-process service is reached this way.
func WithTransport(rt http.RoundTripper) Option {
	return func(o *options) { o.transport = rt }
}

// WithUserAgent sets the version in the User-Agent header "shush/<version>".
func WithUserAgent(version string) Option {
	return func(o *options) { o.version = version }
}

// WithRetry sets how often a retryable request is tried again (max retries
// after the first attempt; 0 turns retries off) and the backoff: base doubles
// on each retry up to cap, with jitter.
func WithRetry(max int, base, cap time.Duration) Option {
	return func(o *options) { o.retry.max, o.retry.base, o.retry.cap = max, base, cap }
}

// WithWaitHook calls hook whenever the client is about to wait: for the
// rate limit, for a 429's retry-after, or before a retry. A UI shows it as
// "waiting 0.8 s for the rate limit". The hook must return quickly.
func WithWaitHook(hook func(WaitInfo)) Option {
	return func(o *options) { o.hook = hook }
}

// WithTimeout bounds each attempt of a request (default 30 s).
func WithTimeout(d time.Duration) Option {
	return func(o *options) { o.timeout = d }
}

// WaitReason says why the client waits.
type WaitReason int

// The reasons a client waits before a request.
const (
	// WaitPacing: the last response said the rate limit is spent.
	WaitPacing WaitReason = iota
	// WaitRetryAfter: the service answered 429 with retry-after.
	WaitRetryAfter
	// WaitBackoff: a retry after a 5xx or a network error.
	WaitBackoff
)

// String describes the reason in a few words for a status line.
func (r WaitReason) String() string {
	switch r {
	case WaitPacing:
		return "rate limit"
	case WaitRetryAfter:
		return "rate limit exceeded (429)"
	case WaitBackoff:
		return "retry"
	}
	return "wait"
}

// WaitInfo describes one wait of the client.
type WaitInfo struct {
	Reason WaitReason
	Delay  time.Duration
	// Attempt is the number of the attempt that follows the wait (2 for the
	// first retry); 0 for pacing before a first attempt.
	Attempt int
	// Err is the error that caused a retry (nil for pacing).
	Err error
}

// Default retry policy: up to 6 retries, 250 ms doubling up to 10 s.
const (
	DefaultRetries      = 6
	DefaultRetryBase    = 250 * time.Millisecond
	DefaultRetryCap     = 10 * time.Second
	defaultTimeout      = 30 * time.Second
	maxResponseBodySize = 8 << 20
)

// NewClient returns a client of the service at baseURL (for example
// "https://api.example.com" or "http://127.0.0.1:8080") that authenticates
// with apiKey. The key is sent only in the Authorization header and never
// appears in an error.
func NewClient(baseURL, apiKey string, opts ...Option) *Client {
	o := options{
		version: "dev",
		retry:   retryPolicy{max: DefaultRetries, base: DefaultRetryBase, cap: DefaultRetryCap, maxRetryAfter: DefaultMaxRetryAfter},
		timeout: defaultTimeout,
	}
	for _, opt := range opts {
		opt(&o)
	}
	if o.version == "" {
		o.version = "dev"
	}
	base := strings.TrimRight(strings.TrimSpace(baseURL), "/")
	hc := &http.Client{Timeout: o.timeout, CheckRedirect: noRedirects(base)}
	if o.transport != nil {
		hc.Transport = o.transport
	}
	agent := "shush/" + o.version
	r := resty.NewWithClient(hc).
		SetBaseURL(base).
		SetLogger(discardLogger{}).
		SetDisableWarn(true).
		SetHeader("User-Agent", agent).
		SetHeader("Accept", "application/json").
		SetResponseBodyLimit(maxResponseBodySize)
	if apiKey != "" {
		r.SetAuthToken(apiKey)
	}
	return &Client{base: base, http: r, agent: agent, retry: o.retry, hook: o.hook, pacer: &pacer{}}
}

// BaseURL is the service the client talks to, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// UserAgent is the User-Agent header the client sends.
func (c *Client) UserAgent() string { return c.agent }

// ClockSkew estimates how far the service's clock is ahead of ours, from
// the Date headers seen so far. Date has whole seconds, so the estimate is
// zero unless the clocks differ by at least two seconds.
func (c *Client) ClockSkew() time.Duration {
	c.skewMu.Lock()
	defer c.skewMu.Unlock()
	return c.skew
}

// BatchAdd puts up to MaxBatch addresses on the list. The answer has one
// item per distinct address, in the order of first occurrence; an address
// already listed comes back with its existing ID.
func (c *Client) BatchAdd(ctx context.Context, emails []string) ([]Suppression, error) {
	var out BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/add", nil, BatchAddRequest{Emails: nonNil(emails)}, &out, idempotent)
	return out.Data, err
}

// BatchAddEntries puts up to MaxBatch entries on the list with their origin
// (an extension of our service: restoring removed entries as they were). A
// service without it refuses the request or lists them as manual.
func (c *Client) BatchAddEntries(ctx context.Context, entries []NewEntry) ([]Suppression, error) {
	var out BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/add", nil, BatchAddRequest{Entries: entries}, &out, idempotent)
	return out.Data, err
}

// BatchRemoveEmails takes up to MaxBatch addresses off the list. The answer
// holds only the entries actually removed, in request order.
func (c *Client) BatchRemoveEmails(ctx context.Context, emails []string) ([]Suppression, error) {
	var out BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/remove", nil, BatchRemoveRequest{Emails: nonNil(emails)}, &out, idempotent)
	return out.Data, err
}

// BatchRemoveIDs takes up to MaxBatch entries off the list by ID. The
// answer holds only the entries actually removed, in request order.
func (c *Client) BatchRemoveIDs(ctx context.Context, ids []string) ([]Suppression, error) {
	var out BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/remove", nil, BatchRemoveRequest{IDs: nonNil(ids)}, &out, idempotent)
	return out.Data, err
}

// Add puts one address on the list and returns its ID (the existing one if
// it was listed already).
func (c *Client) Add(ctx context.Context, email string) (Suppression, error) {
	var out Suppression
	err := c.do(ctx, http.MethodPost, "/suppressions", nil, AddRequest{Email: email}, &out, idempotent)
	return out, err
}

// Get returns the entry of an ID or an address. An entry that is not on the
// list is an *Error with status 404 (see IsNotFound).
func (c *Client) Get(ctx context.Context, idOrEmail string) (Entry, error) {
	var out Entry
	err := c.do(ctx, http.MethodGet, "/suppressions/"+url.PathEscape(idOrEmail), nil, nil, &out, idempotent)
	return out, err
}

// Remove takes one entry, named by ID or address, off the list.
func (c *Client) Remove(ctx context.Context, idOrEmail string) (Suppression, error) {
	var out Suppression
	err := c.do(ctx, http.MethodDelete, "/suppressions/"+url.PathEscape(idOrEmail), nil, nil, &out, noNetworkRetry)
	return out, err
}

// List returns one page of the list, newest first.
func (c *Client) List(ctx context.Context, p ListParams) (ListResponse, error) {
	q := WebhookParams{Limit: p.Limit, After: p.After, Before: p.Before}.query()
	if p.Origin != "" {
		q.Set("origin", string(p.Origin))
	}
	var out ListResponse
	err := c.do(ctx, http.MethodGet, "/suppressions", q, nil, &out, idempotent)
	return out, err
}

// Health checks that the service answers GET /healthz with 200.
func (c *Client) Health(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil, nil, idempotent)
}

// Supports reports whether the service offers the endpoints beyond the two
// batch ones (list, get, single add and remove). A service that has only
// the batch endpoints answers 404 or 405 on the list: Supports then says
// false with no error, and a UI hides the features that need them.
func (c *Client) Supports(ctx context.Context) (bool, error) {
	_, err := c.List(ctx, ListParams{Limit: 1})
	if err == nil {
		return true, nil
	}
	if IsUnsupported(err) {
		return false, nil
	}
	return false, err
}

// Allowance is what the ratelimit-* headers of the latest answer that had
// them said (Known is false before one came). A batch runner chooses how
// many batches to have in flight from it.
func (c *Client) Allowance() RateLimit {
	c.pacer.mu.Lock()
	defer c.pacer.mu.Unlock()
	return c.pacer.last
}

// IsNotFound reports whether err is the service's 404: the ID or address
// is not on the list (or, on a service without the endpoint, the endpoint
// is missing; Supports tells the two apart).
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// IsUnsupported reports whether err says the endpoint does not exist on this
// service: 405, or a 404 that is not about a suppression. Use it on List;
// on Get a 404 normally means "not on the list".
func IsUnsupported(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	return e.StatusCode == http.StatusMethodNotAllowed ||
		e.StatusCode == http.StatusNotFound && !strings.Contains(strings.ToLower(e.Message), "suppression")
}

// IsRateLimited reports whether err is a 429 that retries did not overcome.
func IsRateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.StatusCode == http.StatusTooManyRequests
}

type retryClass int

const (
	idempotent     retryClass = iota // 429, 5xx and network errors
	noNetworkRetry                   // 429 and 5xx only
	rateLimitOnly                    // 429 only: a repeat would do the change twice
)

// detachKey marks a context made by Detach; its value is the context whose
// cancellation still interrupts waits.
type detachKey struct{}

// Detach returns a context for a request that, once sent, should finish
// even if ctx is cancelled, so that its outcome is known: the request
// itself ignores ctx's cancellation, but the client's waits before it (rate
// limit, retries) stop as soon as ctx is done. A batch runner uses it to
// stop after the batch in flight.
func Detach(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), detachKey{}, ctx)
}

func waitContext(ctx context.Context) context.Context {
	if w, ok := ctx.Value(detachKey{}).(context.Context); ok {
		return w
	}
	return ctx
}

type hookKey struct{}

// WithWaits returns a context that makes the client also report the waits
// of requests made with it to hook, besides the client's own hook. A batch
// runner uses it to tie waits to the batch that waits.
func WithWaits(ctx context.Context, hook func(WaitInfo)) context.Context {
	return context.WithValue(ctx, hookKey{}, hook)
}

func (c *Client) report(ctx context.Context, w WaitInfo) {
	if c.hook != nil {
		c.hook(w)
	}
	if h, ok := ctx.Value(hookKey{}).(func(WaitInfo)); ok && h != nil {
		h(w)
	}
}

// do sends a request, paced and retried, and decodes a 2xx JSON answer
// into out (when out is not nil).
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any, class retryClass) error {
	wctx := waitContext(ctx)
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return fmt.Errorf("encode the request to %s: %w", path, err)
		}
	}
	for attempt := 1; ; attempt++ {
		if err := c.pacer.acquire(wctx, func(d time.Duration) {
			c.report(ctx, WaitInfo{Reason: WaitPacing, Delay: d, Attempt: attempt})
		}); err != nil {
			return err
		}
		resp, err := c.send(ctx, method, path, query, payload)
		var rl RateLimit
		if resp != nil {
			rl = parseRateLimit(resp.Header())
			c.noteDate(resp)
			observe(ctx, resp.Header())
		}
		c.pacer.release(resp != nil, rl, resp != nil && resp.StatusCode() == http.StatusTooManyRequests, retryAfter(respHeader(resp)))
		if err == nil {
			err = c.check(resp, rl, out)
			if err == nil {
				return nil
			}
		}
		delay, reason, retry := c.shouldRetry(err, class, attempt)
		if !retry {
			return err
		}
		c.report(ctx, WaitInfo{Reason: reason, Delay: delay, Attempt: attempt + 1, Err: err})
		if err := sleep(wctx, delay); err != nil {
			return err
		}
	}
}

func respHeader(r *resty.Response) http.Header {
	if r == nil {
		return nil
	}
	return r.Header()
}

// send makes one attempt. Its error, for a failure without an answer, names
// the base URL and what went wrong, never the key.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, payload []byte) (*resty.Response, error) {
	req := c.http.R().SetContext(ctx)
	if query != nil {
		req.SetQueryParamsFromValues(query)
	}
	if payload != nil {
		req.SetHeader("Content-Type", "application/json").SetBody(payload)
	}
	if ref := ReferenceOf(ctx); ref != "" && method != http.MethodGet {
		req.SetHeader(ReferenceHeader, ref)
	}
	resp, err := req.Execute(method, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &NetworkError{BaseURL: c.base, Method: method, Path: path, Err: cause(err)}
	}
	return resp, nil
}

// cause strips the url.Error wrapper, whose text repeats the full URL, so
// that a NetworkError says each thing once.
func cause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// NetworkError is a request that got no answer from the service: refused
// connection, DNS failure, timeout, reset.
type NetworkError struct {
	BaseURL, Method, Path string
	Err                   error
}

// Error names the service and the request, not the key.
func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach the service at %s (%s %s): %v", RedactURL(e.BaseURL), e.Method, e.Path, e.Err)
}

// Unwrap returns the underlying network error.
func (e *NetworkError) Unwrap() error { return e.Err }

// check turns a non-2xx answer into an *Error and decodes a 2xx one.
func (c *Client) check(resp *resty.Response, rl RateLimit, out any) error {
	code := resp.StatusCode()
	body := resp.Body()
	if code >= 200 && code < 300 {
		if out == nil || len(body) == 0 && code == http.StatusNoContent {
			return nil
		}
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("the service at %s answered %d with a body that is not the expected JSON (%v): %s",
				c.base, code, err, snippet(body))
		}
		return nil
	}
	e := &Error{}
	if err := json.Unmarshal(body, e); err != nil || e.Message == "" && e.Name == "" {
		e = &Error{Message: fmt.Sprintf("%s (not a JSON error body: %s)", http.StatusText(code), snippet(body))}
	}
	e.StatusCode = code
	e.RateLimit = rl
	e.RetryAfter = retryAfter(resp.Header())
	return e
}

// snippet shows the start of a body that is not what we expected.
func snippet(b []byte) string {
	const max = 120
	s := string(b)
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%d bytes of binary data", len(b))
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "empty"
	}
	return Quote(s[:min(len(s), max)])
}

func (c *Client) shouldRetry(err error, class retryClass, attempt int) (time.Duration, WaitReason, bool) {
	if attempt > c.retry.max {
		return 0, 0, false
	}
	var e *Error
	if errors.As(err, &e) {
		switch {
		case e.StatusCode == http.StatusTooManyRequests && c.retry.maxRetryAfter > 0 && e.RetryAfter > c.retry.maxRetryAfter:
			e.longWait = true
			return 0, 0, false
		case e.StatusCode == http.StatusTooManyRequests:
			d := e.RetryAfter
			if d <= 0 && e.RateLimit.Known {
				d = e.RateLimit.Reset
			}
			if d <= 0 {
				d = c.backoff(attempt)
			}
			// A little jitter keeps concurrent workers from all coming back
			// in the same millisecond.
			return d + jitter(d/10), WaitRetryAfter, true
		case e.StatusCode >= 500 && class != rateLimitOnly:
			return c.backoff(attempt), WaitBackoff, true
		}
		return 0, 0, false
	}
	var ne *NetworkError
	if errors.As(err, &ne) && class == idempotent && !IsRedirect(err) {
		return c.backoff(attempt), WaitBackoff, true
	}
	return 0, 0, false
}

// backoff is base·2^(attempt-1), capped, with "equal jitter": half fixed,
// half random, so a retry never comes back at once nor all together.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.retry.base
	for i := 1; i < attempt && d < c.retry.cap; i++ {
		d *= 2
	}
	d = min(d, c.retry.cap)
	return d/2 + jitter(d/2)
}

func jitter(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return rand.N(d)
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) noteDate(resp *resty.Response) {
	d, err := http.ParseTime(resp.Header().Get("Date"))
	if err != nil {
		return
	}
	skew := d.Sub(resp.ReceivedAt())
	if skew > -2*time.Second && skew < 2*time.Second {
		skew = 0
	}
	c.skewMu.Lock()
	c.skew = skew
	c.skewMu.Unlock()
}

// parseRateLimit reads the ratelimit-* headers. Reset may be fractional.
func parseRateLimit(h http.Header) RateLimit {
	var rl RateLimit
	lim, err1 := strconv.Atoi(strings.TrimSpace(h.Get("ratelimit-limit")))
	rem, err2 := strconv.Atoi(strings.TrimSpace(h.Get("ratelimit-remaining")))
	reset, err3 := strconv.ParseFloat(strings.TrimSpace(h.Get("ratelimit-reset")), 64)
	if err2 != nil || err3 != nil || reset < 0 || reset > 86400 {
		return rl
	}
	if err1 == nil {
		rl.Limit = lim
	}
	rl.Remaining = rem
	rl.Reset = time.Duration(reset * float64(time.Second))
	rl.Known = true
	return rl
}

// retryAfter reads retry-after as seconds or as an HTTP date.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 && s <= 86400 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

// pacer makes the requests of a client, across goroutines, stay within the
// service's rate limit. It keeps its own count of the requests left in the
// current window: each request takes one when it starts, and an answer can
// only lower the count (answers of concurrent requests arrive out of order,
// so a higher figure may be stale). When the count is spent, requests wait
// for the reset the service announced; after it, a full allowance (the
// limit) is expected again. Until the first answer, one request at a time
// goes, so that a burst of goroutines does not meet a limit it has not
// seen yet.
type pacer struct {
	mu        sync.Mutex
	known     bool // an answer carried rate-limit figures
	probing   bool // a request is out to learn them
	unlimited bool // an answer came without figures: nothing to pace on
	limit     int
	remaining int
	resetAt   time.Time
	last      RateLimit // the figures of the latest answer that had them
}

// minPeriod is the shortest window the pacer assumes after a reset.
const minPeriod = 100 * time.Millisecond

func (p *pacer) acquire(ctx context.Context, onWait func(time.Duration)) error {
	for {
		p.mu.Lock()
		now := time.Now()
		var wait time.Duration
		switch {
		case p.unlimited && !p.known:
		case !p.known && !p.probing:
			p.probing = true
		case !p.known:
			// Another request is learning the figures; look again soon.
			wait = 20 * time.Millisecond
		default:
			if !now.Before(p.resetAt) && p.remaining <= 0 {
				p.remaining = max(p.limit, 1)
				p.resetAt = now.Add(time.Second)
			}
			if p.remaining > 0 {
				p.remaining--
			} else {
				wait = max(p.resetAt.Sub(now), minPeriod/10)
			}
		}
		known := p.known
		p.mu.Unlock()
		if wait <= 0 {
			return nil
		}
		if known {
			onWait(wait)
		}
		if err := sleep(ctx, wait); err != nil {
			p.mu.Lock()
			p.probing = false
			p.mu.Unlock()
			return err
		}
	}
}

// release records the figures of an answer; answered is false when the
// request got none (a network error).
func (p *pacer) release(answered bool, rl RateLimit, limited bool, retryAfter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	first := !p.known
	p.probing = false
	if answered && !rl.Known && !limited {
		p.unlimited = true
	}
	if rl.Known {
		p.last = rl
		if rl.Limit > 0 {
			p.limit = rl.Limit
		} else {
			p.limit = max(p.limit, rl.Remaining+1)
		}
	}
	switch {
	case limited:
		d := retryAfter
		if d <= 0 && rl.Known {
			d = rl.Reset
		}
		if d <= 0 {
			d = time.Second
		}
		p.known, p.remaining = true, 0
		p.resetAt = later(p.resetAt, now.Add(d))
	case rl.Known:
		if first || rl.Remaining < p.remaining {
			p.remaining = rl.Remaining
		}
		p.known = true
		p.resetAt = later(p.resetAt, now.Add(max(rl.Reset, minPeriod)))
		if first {
			p.resetAt = now.Add(max(rl.Reset, minPeriod))
		}
	}
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// discardLogger keeps resty silent: its warnings could print request
// details, and a library must not write to the user's terminal.
type discardLogger struct{}

func (discardLogger) Errorf(string, ...any) {}
func (discardLogger) Warnf(string, ...any)  {}
func (discardLogger) Debugf(string, ...any) {}
