package outbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Defaults of DelivererConfig (contract: webhooks): the first retry within
// 5 s, delays doubling up to an hour, giving up after a day.
const (
	DefaultRetryMin       = 5 * time.Second
	DefaultRetryMax       = time.Hour
	DefaultRetryFor       = 24 * time.Hour
	DefaultWebhookTimeout = 10 * time.Second
)

// maxResponse is how much of an endpoint's answer an attempt keeps.
const maxResponse = 2 << 10

// DelivererConfig tunes a Deliverer. The zero value is the contract's
// default.
type DelivererConfig struct {
	// RetryMin is the delay before the first retry; each retry after it
	// waits twice as long as the one before, up to RetryMax, with jitter
	// (a delay d is drawn from [d/2, d]).
	RetryMin, RetryMax time.Duration
	// RetryFor is how long an event is retried: the first attempt that
	// fails once it is this old is the last.
	RetryFor time.Duration
	// Timeout bounds one attempt, from connecting to reading the answer.
	Timeout time.Duration
	// Poll is how often the outbox is read for due events when nothing
	// woke the deliverer; other processes' events and retries are found
	// this way.
	Poll time.Duration
	// Workers is how many attempts may be under way at once.
	Workers int
	// PerEndpoint is how many of them may be for one webhook (0: 2), and
	// PerTeam for one team's webhooks (0: half the workers, at least 1):
	// an endpoint that hangs holds its own slots, a team with a backlog
	// its share, and the other teams' events keep going out.
	PerEndpoint, PerTeam int
	// Addresses says which addresses attempts may connect to, checked on
	// the address dialled; the zero value reaches public addresses only.
	Addresses AddressPolicy
	// Proxy, when set, picks the proxy of each attempt (as
	// http.ProxyFromEnvironment does); the endpoint's host is then
	// resolved and each of its addresses checked before the request is
	// handed to the proxy. Nil sends every attempt directly, whatever the
	// environment says.
	Proxy func(*http.Request) (*url.URL, error)
	// Transport carries the attempts; nil is a fresh http.Transport.
	Transport http.RoundTripper
	// Logger receives one record per attempt that failed.
	Logger *slog.Logger
}

// Outbox is what a Deliverer needs of a store: the transactional outbox of
// webhook events that changes fill (store.Webhooks has these methods).
type Outbox interface {
	// ClaimDeliveries leases due events of enabled webhooks, teams in
	// turns, within the request's caps.
	ClaimDeliveries(ctx context.Context, r store.ClaimRequest) ([]store.Delivery, error)
	// RecordAttempt stores an attempt and the event's new status at once.
	RecordAttempt(ctx context.Context, a store.Attempt, o store.Outcome) error
	// Outbox describes the events waiting for delivery.
	Outbox(ctx context.Context) (store.OutboxStats, error)
}

// Deliverer sends the webhook events of the outbox: it claims due events
// under a lease, attempts each once, and records the outcome, retrying
// with capped exponential backoff until a 2xx or the retry time ends.
// Several deliverers (in one process or several on one database) share
// the outbox without sending an attempt twice.
type Deliverer struct {
	st     Outbox
	opts   DelivererConfig
	client *http.Client
	log    *slog.Logger
	wake   chan struct{}

	// busy are the attempts under way, by webhook, team and event.
	mu   sync.Mutex
	busy store.Busy

	attempts *prometheus.CounterVec
}

// NewDeliverer returns a deliverer of st's outbox. It delivers once Run is
// called.
func NewDeliverer(st Outbox, opts DelivererConfig) *Deliverer {
	if opts.RetryMin <= 0 {
		opts.RetryMin = DefaultRetryMin
	}
	if opts.RetryMax <= 0 {
		opts.RetryMax = DefaultRetryMax
	}
	opts.RetryMax = max(opts.RetryMax, opts.RetryMin)
	if opts.RetryFor <= 0 {
		opts.RetryFor = DefaultRetryFor
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultWebhookTimeout
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Workers <= 0 {
		opts.Workers = 8
	}
	if opts.PerEndpoint <= 0 {
		opts.PerEndpoint = 2
	}
	if opts.PerTeam <= 0 {
		opts.PerTeam = max(1, opts.Workers/2)
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	tr := opts.Transport
	if tr == nil {
		tr = opts.Addresses.transport(opts)
	}
	return &Deliverer{
		st:   st,
		opts: opts,
		client: &http.Client{
			Transport: tr,
			Timeout:   opts.Timeout,
			// A redirect is an answer like any other: not a 2xx, so the
			// attempt failed. Following it could send the signed body
			// somewhere the webhook's owner never named.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		log:  opts.Logger,
		wake: make(chan struct{}, 1),
		busy: store.Busy{Webhooks: map[string]int{}, Teams: map[string]int{}, Events: map[string]bool{}},
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shush_webhook_attempts_total",
			Help: "Webhook delivery attempts, by outcome (success, retry, failed).",
		}, []string{"outcome"}),
	}
}

// Wake makes the deliverer read the outbox now rather than at its next
// poll; a change that queued events calls it.
func (d *Deliverer) Wake() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// lease is how long a claimed event is kept from other deliverers: longer
// than an attempt can take, with room for recording its outcome.
func (d *Deliverer) lease() time.Duration { return 2*d.opts.Timeout + 30*time.Second }

// Run delivers until ctx ends, then waits for the attempts under way.
func (d *Deliverer) Run(ctx context.Context) {
	var wg sync.WaitGroup
	defer wg.Wait()
	slots := make(chan struct{}, d.opts.Workers)
	tick := time.NewTicker(d.opts.Poll)
	defer tick.Stop()
	for {
		free := d.opts.Workers - len(slots)
		claimed := 0
		if free > 0 {
			ds, err := d.st.ClaimDeliveries(ctx, store.ClaimRequest{Now: time.Now(), Lease: d.lease(), Limit: free,
				PerWebhook: d.opts.PerEndpoint, PerTeam: d.opts.PerTeam, Busy: d.underWay()})
			if err != nil && ctx.Err() == nil {
				d.log.LogAttrs(ctx, slog.LevelWarn, "webhook outbox unreadable", slog.String("error", err.Error()))
			}
			claimed = len(ds)
			for _, dl := range ds {
				slots <- struct{}{}
				d.start(dl.Event)
				wg.Go(func() {
					defer func() { <-slots }()
					defer d.done(dl.Event)
					d.attempt(context.WithoutCancel(ctx), dl)
					d.Wake() // a slot is free: look for more
				})
			}
		}
		if claimed > 0 && claimed == free {
			continue // more may be due
		}
		// Fewer than free were claimed: nothing else is due, or what is
		// due belongs to webhooks and teams at their share; an attempt's
		// end wakes the loop.
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		case <-tick.C:
		}
	}
}

// underWay is a copy of the attempts under way, for a claim.
func (d *Deliverer) underWay() *store.Busy {
	d.mu.Lock()
	defer d.mu.Unlock()
	return &store.Busy{Webhooks: maps.Clone(d.busy.Webhooks), Teams: maps.Clone(d.busy.Teams), Events: maps.Clone(d.busy.Events)}
}

// start and done count an attempt under way.
func (d *Deliverer) start(e store.WebhookEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.busy.Webhooks[e.WebhookID]++
	d.busy.Teams[e.Team]++
	d.busy.Events[e.ID] = true
}

func (d *Deliverer) done(e store.WebhookEvent) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.busy.Webhooks[e.WebhookID]--; d.busy.Webhooks[e.WebhookID] <= 0 {
		delete(d.busy.Webhooks, e.WebhookID)
	}
	if d.busy.Teams[e.Team]--; d.busy.Teams[e.Team] <= 0 {
		delete(d.busy.Teams, e.Team)
	}
	delete(d.busy.Events, e.ID)
}

// attempt sends one delivery and records its outcome.
func (d *Deliverer) attempt(ctx context.Context, dl store.Delivery) {
	sent := time.Now()
	code, response := d.send(ctx, dl, sent)
	out := d.outcome(dl.Event, code, time.Now())
	a := store.Attempt{ID: uuid.Must(uuid.NewV7()).String(), EventID: dl.Event.ID, StatusCode: code, Response: response,
		SentAt: sent.UTC().Truncate(time.Millisecond)}
	label := out.Status
	if label == api.EventAttempting {
		label = "retry"
	}
	d.attempts.WithLabelValues(label).Inc()
	if out.Status != api.EventSuccess {
		d.log.LogAttrs(ctx, slog.LevelWarn, "webhook delivery failed",
			slog.String("event_id", dl.Event.ID), slog.String("webhook_id", dl.Event.WebhookID),
			slog.Int("status", code), slog.String("outcome", out.Status), slog.Int("attempt", dl.Event.Attempts+1))
	}
	// The outcome is recorded even if the process is stopping: it is what
	// keeps the event from being sent again.
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := d.st.RecordAttempt(rctx, a, out); err != nil && !errors.Is(err, store.ErrNotFound) {
		d.log.LogAttrs(ctx, slog.LevelError, "webhook attempt not recorded; the event will be sent again when its lease ends",
			slog.String("event_id", dl.Event.ID), slog.String("error", err.Error()))
	}
}

// send makes the attempt's request and returns the endpoint's status (0
// when there was none) and the start of its answer or what went wrong.
func (d *Deliverer) send(ctx context.Context, dl store.Delivery, at time.Time) (int, string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, dl.Endpoint, bytes.NewReader(dl.Event.Payload))
	if err != nil {
		return 0, "the endpoint is not a valid URL"
	}
	sigs := make([]string, 0, len(dl.Secrets))
	for _, secret := range dl.Secrets {
		sig, err := api.SignWebhook(secret, dl.Event.ID, at, dl.Event.Payload)
		if err != nil {
			return 0, "the signing secret is not valid"
		}
		sigs = append(sigs, sig)
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", "shush-webhooks/1")
	for _, prefix := range []string{"svix-", "webhook-"} {
		h.Set(prefix+"id", dl.Event.ID)
		h.Set(prefix+"timestamp", ts)
		h.Set(prefix+"signature", strings.Join(sigs, " "))
	}
	res, err := d.client.Do(req)
	if err != nil {
		return 0, attemptError(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxResponse))
	if err != nil && len(body) == 0 {
		return res.StatusCode, attemptError(err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, 64<<10)) // let the connection be reused
	return res.StatusCode, responseText(body)
}

// attemptError says in a few words why an attempt got no answer.
func attemptError(err error) string {
	var ne net.Error
	var dns *net.DNSError
	var denied errDeniedAddress
	switch {
	case errors.As(err, &denied):
		return denied.Error()
	case errors.As(err, &ne) && ne.Timeout(), errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.As(err, &dns):
		return "the endpoint's host name did not resolve"
	case strings.Contains(err.Error(), "connection refused"):
		return "connection refused"
	case strings.Contains(err.Error(), "connection reset"):
		return "connection reset"
	case strings.Contains(err.Error(), "certificate"), strings.Contains(err.Error(), "tls:"):
		return "TLS failed: the endpoint's certificate was not accepted"
	}
	return "no answer: " + truncate(err.Error(), 200)
}

// responseText keeps an answer's start as text that every store and JSON
// encoder takes: valid UTF-8 without NUL bytes, at most maxResponse bytes.
func responseText(b []byte) string {
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	return truncate(s, maxResponse)
}

// truncate cuts s to at most n bytes on a character boundary.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// outcome is what an attempt that got code leaves the event as, at now.
func (d *Deliverer) outcome(e store.WebhookEvent, code int, now time.Time) store.Outcome {
	if code >= 200 && code < 300 {
		return store.Outcome{Status: api.EventSuccess}
	}
	if !e.Retry || now.Sub(e.CreatedAt) >= d.opts.RetryFor {
		return store.Outcome{Status: api.EventFailed}
	}
	return store.Outcome{Status: api.EventAttempting, NextAttemptAt: now.Add(d.backoff(e.Attempts + 1)).UTC().Truncate(time.Millisecond)}
}

// backoff is the delay after the n-th failed attempt: RetryMin doubled
// n-1 times, at most RetryMax, drawn from its upper half.
func (d *Deliverer) backoff(n int) time.Duration {
	delay := d.opts.RetryMin
	for i := 1; i < n && delay < d.opts.RetryMax; i++ {
		delay *= 2
	}
	delay = min(delay, d.opts.RetryMax)
	return delay/2 + rand.N(delay/2+1)
}

// Collectors are the deliverer's metrics: attempts by outcome, and the
// outbox's depth and oldest age read at each scrape.
func (d *Deliverer) Collectors() []prometheus.Collector {
	read := func(f func(store.OutboxStats) float64) func() float64 {
		return func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			st, err := d.st.Outbox(ctx)
			if err != nil {
				return -1
			}
			return f(st)
		}
	}
	return []prometheus.Collector{
		d.attempts,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shush_webhook_attempts_in_flight",
			Help: "Webhook delivery attempts under way in this process (at most 8; per webhook and per team within --webhook-concurrency-per-endpoint and -per-team)."},
			func() float64 {
				d.mu.Lock()
				defer d.mu.Unlock()
				return float64(len(d.busy.Events))
			}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shush_webhook_outbox_depth",
			Help: "Webhook events not yet delivered nor given up, of every team (-1: unreadable)."},
			read(func(s store.OutboxStats) float64 { return float64(s.Depth) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "shush_webhook_outbox_oldest_age_seconds",
			Help: "Age of the oldest webhook event waiting for delivery (0: none waiting)."},
			read(func(s store.OutboxStats) float64 {
				if s.Oldest.IsZero() {
					return 0
				}
				return time.Since(s.Oldest).Seconds()
			})),
	}
}

// String describes the options for the startup log.
func (o DelivererConfig) String() string {
	return fmt.Sprintf("retry %s..%s for %s, timeout %s", o.RetryMin, o.RetryMax, o.RetryFor, o.Timeout)
}
