package client

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/go-resty/resty/v2"
	"github.com/shushlist/shush/api"
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
	dated  bool
}

// Option changes how New builds a client.
type Option func(*options)

type options struct {
	transport http.RoundTripper
	version   string
	retry     retryPolicy
	hook      func(WaitInfo)
	timeout   time.Duration
	trace     io.Writer
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

// Default retry policy: up to 6 retries, 250 ms doubling up to 10 s.
const (
	DefaultRetries      = 6
	DefaultRetryBase    = 250 * time.Millisecond
	DefaultRetryCap     = 10 * time.Second
	defaultTimeout      = 30 * time.Second
	maxResponseBodySize = 8 << 20
)

// New returns a client of the service at baseURL (for example
// "https://api.example.com" or "http://127.0.0.1:8080") that authenticates
// with apiKey. The key is sent only in the Authorization header and never
// appears in an error.
func New(baseURL, apiKey string, opts ...Option) *Client {
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
	if o.trace != nil {
		hc.Transport = newTracer(hc.Transport, o.trace, apiKey)
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
	return &Client{base: base, http: r, agent: agent, retry: o.retry, hook: o.hook, pacer: &pacer{maxHold: o.retry.maxRetryAfter}}
}

// BaseURL is the service the client talks to, without a trailing slash.
func (c *Client) BaseURL() string { return c.base }

// UserAgent is the User-Agent header the client sends.
func (c *Client) UserAgent() string { return c.agent }

// ClockSkew estimates how far the service's clock is ahead of ours, from
// the Date header of the latest answer that had one; known is false until
// one came. Date has whole seconds, so the estimate is zero unless the
// clocks differ by at least two seconds.
func (c *Client) ClockSkew() (skew time.Duration, known bool) {
	c.skewMu.Lock()
	defer c.skewMu.Unlock()
	return c.skew, c.dated
}

// CanChange reports whether the key may change the list, without changing
// it: it asks to remove nothing, which a service refuses as invalid (422)
// for a key that may change the list, and as restricted (403, or the
// hosted service's restricted_api_key) for a read-only one. Any other
// answer is the error.
func (c *Client) CanChange(ctx context.Context) (bool, error) {
	_, err := c.BatchRemoveEmails(ctx, []string{})
	var ae *api.Error
	switch {
	case err == nil:
		return true, nil // a service that takes an empty removal
	case errors.As(err, &ae) && ae.StatusCode == http.StatusUnprocessableEntity:
		return true, nil
	case errors.As(err, &ae) && (ae.StatusCode == http.StatusForbidden || ae.Name == api.ErrRestrictedAPIKey):
		return false, nil
	}
	return false, err
}

// BatchAdd puts up to MaxBatch addresses on the list. The answer has one
// item per distinct address, in the order of first occurrence; an address
// already listed comes back with its existing ID.
func (c *Client) BatchAdd(ctx context.Context, emails []string) ([]api.Suppression, error) {
	var out api.BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/add", nil, api.BatchAddRequest{Emails: nonNil(emails)}, &batchAnswer{&out, len(emails)}, idempotent)
	return out.Data, err
}

// BatchAddEntries puts up to MaxBatch entries on the list with their origin
// (an extension of our service: restoring removed entries as they were). A
// service without it refuses the request or lists them as manual.
func (c *Client) BatchAddEntries(ctx context.Context, entries []api.NewEntry) ([]api.Suppression, error) {
	var out api.BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/add", nil, api.BatchAddRequest{Entries: entries}, &out, idempotent)
	return out.Data, err
}

// BatchRemoveEmails takes up to MaxBatch addresses off the list. The answer
// holds only the entries actually removed, in request order.
func (c *Client) BatchRemoveEmails(ctx context.Context, emails []string) ([]api.Suppression, error) {
	var out api.BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/remove", nil, api.BatchRemoveRequest{Emails: nonNil(emails)}, &batchAnswer{&out, len(emails)}, idempotent)
	return out.Data, err
}

// BatchRemoveIDs takes up to MaxBatch entries off the list by ID. The
// answer holds only the entries actually removed, in request order.
func (c *Client) BatchRemoveIDs(ctx context.Context, ids []string) ([]api.Suppression, error) {
	var out api.BatchResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/remove", nil, api.BatchRemoveRequest{IDs: nonNil(ids)}, &out, idempotent)
	return out.Data, err
}

// Add puts one address on the list and returns its ID (the existing one if
// it was listed already).
func (c *Client) Add(ctx context.Context, email string) (api.Suppression, error) {
	return c.AddEntry(ctx, api.AddRequest{Email: email})
}

// AddEntry is Add with a note and an expiry (our service's extension;
// another service ignores them, or refuses the request).
func (c *Client) AddEntry(ctx context.Context, req api.AddRequest) (api.Suppression, error) {
	var out api.Suppression
	err := c.do(ctx, http.MethodPost, "/suppressions", nil, req, &out, idempotent)
	return out, err
}

// Check says of up to api.MaxCheck addresses which are listed, with their
// entries (POST /suppressions/batch/check): one item per distinct address.
// A service without the endpoint answers 404 (IsUnsupported); look each
// address up with Get then.
func (c *Client) Check(ctx context.Context, emails []string) ([]api.CheckItem, error) {
	var out api.CheckResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/check", nil, api.CheckRequest{Emails: nonNil(emails)}, &out, idempotent)
	return out.Data, err
}

// Get returns the entry of an ID or an address. An entry that is not on the
// list is an *Error with status 404 (see IsNotFound).
func (c *Client) Get(ctx context.Context, idOrEmail string) (api.Entry, error) {
	var out api.Entry
	err := c.do(ctx, http.MethodGet, "/suppressions/"+url.PathEscape(idOrEmail), nil, nil, &out, idempotent)
	return out, err
}

// Remove takes one entry, named by ID or address, off the list.
func (c *Client) Remove(ctx context.Context, idOrEmail string) (api.Suppression, error) {
	var out api.Suppression
	err := c.do(ctx, http.MethodDelete, "/suppressions/"+url.PathEscape(idOrEmail), nil, nil, &out, noNetworkRetry)
	return out, err
}

// ListParams are the query parameters of GET /suppressions. Zero values are
// left out of the query.
type ListParams struct {
	Limit  int
	After  string
	Before string
	Origin api.Origin
	// Search narrows the list to a domain, a prefix or an address (our
	// service's `q`; see api.ParseSearch), and CreatedAfter and
	// CreatedBefore to a range of creation times.
	Search                      api.Search
	CreatedAfter, CreatedBefore time.Time
}

// selection is the query of what a list or an export narrows the list by.
func selection(q url.Values, origin api.Origin, search api.Search, after, before time.Time) url.Values {
	if origin != "" {
		q.Set("origin", string(origin))
	}
	if search.Kind != api.SearchNone {
		q.Set("q", search.String())
	}
	if !after.IsZero() {
		q.Set("created_after", after.UTC().Format(api.TimestampLayout))
	}
	if !before.IsZero() {
		q.Set("created_before", before.UTC().Format(api.TimestampLayout))
	}
	return q
}

// ErrNoSearch says the service does not search its list: it answered a
// search with entries that do not match it (it ignored `q` or the created
// range, as the hosted service does), so its pages are not the search's.
var ErrNoSearch = errors.New("the service does not search its list (it ignored the search)")

// List returns one page of the list, newest first. With a Search, every
// entry of the answer is checked against it: a service that ignored the
// search (an entry does not match) is ErrNoSearch, never a page that
// claims to be the search's.
func (c *Client) List(ctx context.Context, p ListParams) (api.ListResponse, error) {
	q := selection(WebhookParams{Limit: p.Limit, After: p.After, Before: p.Before}.query(), p.Origin, p.Search, p.CreatedAfter, p.CreatedBefore)
	var out api.ListResponse
	if err := c.do(ctx, http.MethodGet, "/suppressions", q, nil, &out, idempotent); err != nil {
		return out, err
	}
	for _, e := range out.Data {
		switch {
		case !p.Search.Matches(e.Email):
			return api.ListResponse{}, fmt.Errorf("%w: asked for %s, it answered %s", ErrNoSearch, api.Quote(p.Search.String()), api.Quote(e.Email))
		case !p.CreatedAfter.IsZero() && !e.CreatedAt.After(p.CreatedAfter), !p.CreatedBefore.IsZero() && !e.CreatedAt.Before(p.CreatedBefore):
			return api.ListResponse{}, fmt.Errorf("%w: it answered %s, created %s, outside the range asked", ErrNoSearch, api.Quote(e.Email), e.CreatedAt.UTC().Format(api.TimestampLayout))
		}
	}
	return out, nil
}

// maxPageReads bounds the requests ListFull makes for one page.
const maxPageReads = 50

// ListFull is List that reads on where the service stopped a page at its
// bound before it was full (a prefix search over many entries: the
// answer's NextCursor), until the page holds p.Limit entries (20 when
// none), nothing more lies beyond, or it made maxPageReads requests. The
// answer's NextCursor is then where the next page goes on from (its
// Next), when that is not its last entry.
func (c *Client) ListFull(ctx context.Context, p ListParams) (api.ListResponse, error) {
	limit := p.Limit
	if limit <= 0 {
		limit = 20
	}
	before := p.Before != ""
	var out api.ListResponse
	for reads := 1; ; reads++ {
		page, err := c.List(ctx, p)
		if err != nil {
			return api.ListResponse{}, err
		}
		if before {
			out.Data = append(page.Data, out.Data...)
		} else {
			out.Data = append(out.Data, page.Data...)
		}
		out.Object, out.HasMore, out.NextCursor = page.Object, page.HasMore, page.NextCursor
		if page.NextCursor == "" || len(out.Data) >= limit || reads == maxPageReads {
			return out, nil
		}
		p.Limit = limit - len(out.Data)
		if before {
			p.Before = page.NextCursor
		} else {
			p.After = page.NextCursor
		}
	}
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

// ReadOnly asks whether the service refuses changes from this key, without
// changing anything: it sends a batch add of no address, which the service
// refuses as forbidden (403 restricted_api_key) for a read-only key and as
// invalid (422) for one that may change the list. Any other refusal of the
// request itself is taken at its word: false. A refused key (401, 403
// invalid_api_key), no answer or a 5xx is the error.
func (c *Client) ReadOnly(ctx context.Context) (bool, error) {
	empty := struct {
		Emails []string `json:"emails"`
	}{[]string{}}
	err := c.do(ctx, http.MethodPost, "/suppressions/batch/add", nil, empty, nil, idempotent)
	var ae *api.Error
	switch {
	case err == nil:
		return false, nil
	case !errors.As(err, &ae) || ae.StatusCode >= 500 || ae.StatusCode == http.StatusUnauthorized:
		return false, err
	case ae.StatusCode == http.StatusForbidden && ae.Name == api.ErrRestrictedAPIKey:
		return true, nil
	case ae.StatusCode == http.StatusForbidden:
		return false, err
	}
	return false, nil
}

// Allowance is what the ratelimit-* headers of the latest answer that had
// them said (Known is false before one came). A batch runner chooses how
// many batches to have in flight from it.
func (c *Client) Allowance() api.RateLimit {
	c.pacer.mu.Lock()
	defer c.pacer.mu.Unlock()
	return c.pacer.last
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
		var rl api.RateLimit
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
		if once(ctx) {
			return err
		}
		delay, reason, stop := c.shouldRetry(err, class, attempt)
		if stop != nil {
			return stop
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
		req.SetHeader(api.ReferenceHeader, ref)
	}
	if id := requestIDOf(ctx); id != "" && method != http.MethodGet {
		req.SetHeader("X-Request-Id", id)
	}
	// The answer's body is read here, not by resty (see readBody).
	req.SetDoNotParseResponse(true)
	resp, err := req.Execute(method, path)
	if err == nil {
		err = readBody(resp)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &NetworkError{BaseURL: c.base, Method: method, Path: path, Err: cause(err)}
	}
	return resp, nil
}

// readBody reads an answer's body into resp as resty would (a gzip body
// it did not ask for unpacked, at most maxResponseBodySize bytes, else
// resty.ErrResponseBodyTooLarge) and closes it. resty reads a body 512
// bytes at a time into a slice that doubles, so a batch answer cost a
// dozen reads and three times its size in garbage; this reads it into one
// buffer of its announced length.
func readBody(resp *resty.Response) error {
	raw := resp.RawResponse
	if raw == nil || raw.Body == nil {
		return nil
	}
	defer raw.Body.Close()
	var body io.Reader = raw.Body
	if strings.EqualFold(raw.Header.Get("Content-Encoding"), "gzip") && raw.ContentLength != 0 {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return err
		}
		defer zr.Close()
		body = zr
	}
	var b bytes.Buffer
	if n := raw.ContentLength; n > 0 && n <= maxResponseBodySize {
		b.Grow(int(n) + bytes.MinRead) // and the read that finds the end
	}
	if _, err := b.ReadFrom(io.LimitReader(body, maxResponseBodySize+1)); err != nil {
		return err
	}
	if b.Len() > maxResponseBodySize {
		return resty.ErrResponseBodyTooLarge
	}
	resp.SetBody(b.Bytes())
	return nil
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
	c.skew, c.dated = skew, true
	c.skewMu.Unlock()
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
