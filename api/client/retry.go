package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

type retryClass int

const (
	idempotent     retryClass = iota // 429, 5xx and network errors
	noNetworkRetry                   // 429 and 5xx only
	rateLimitOnly                    // 429 only: a repeat would do the change twice
)

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

// LongRetryAfter reports whether err is a 429 whose Retry-After was longer
// than the client waits out, and how long it asked for.
func LongRetryAfter(err error) (time.Duration, bool) {
	var lw *longWaitError
	if errors.As(err, &lw) {
		return lw.err.RetryAfter, true
	}
	return 0, false
}

// longWaitError marks a 429 whose Retry-After the client did not wait out.
// It reads as the service's error and unwraps to it, so that callers that
// look for an *api.Error still find it.
type longWaitError struct{ err *api.Error }

func (e *longWaitError) Error() string { return e.err.Error() }
func (e *longWaitError) Unwrap() error { return e.err }

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

type onceKey struct{}

// Once returns a context whose requests are tried once, without retries:
// a check of how the service stands (a UI's header) wants its answer now,
// not after a minute of backoff.
func Once(ctx context.Context) context.Context { return context.WithValue(ctx, onceKey{}, true) }

func once(ctx context.Context) bool { v, _ := ctx.Value(onceKey{}).(bool); return v }

type hookKey struct{}

// WithWaits returns a context that makes the client also report the waits
// of requests made with it to hook, besides the client's own hook and the
// hooks of the contexts ctx was made from. A batch runner uses it to tie
// waits to the batch that waits.
func WithWaits(ctx context.Context, hook func(WaitInfo)) context.Context {
	if prev, ok := ctx.Value(hookKey{}).(func(WaitInfo)); ok && prev != nil {
		// The hooks of outer contexts hear the waits too.
		inner := hook
		hook = func(w WaitInfo) { prev(w); inner(w) }
	}
	return context.WithValue(ctx, hookKey{}, hook)
}

type requestIDKey struct{}

// WithRequestID returns a context whose changes carry id as their
// X-Request-Id: the service keeps it in the trail of what the request
// changed, so that a client that retried the request, or resumes it
// after a crash, can find its own change (an address the retry found
// listed was listed by the first try). id must be 1 to 64 letters,
// digits, '-', '_' or '.', or the service uses its own.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

func requestIDOf(ctx context.Context) string { v, _ := ctx.Value(requestIDKey{}).(string); return v }

func (c *Client) report(ctx context.Context, w WaitInfo) {
	if c.hook != nil {
		c.hook(w)
	}
	if h, ok := ctx.Value(hookKey{}).(func(WaitInfo)); ok && h != nil {
		h(w)
	}
}

// shouldRetry says how long to wait before the next attempt after err, and
// why; or, when the call ends here, the error it ends with (err itself, or
// err marked as a long Retry-After).
func (c *Client) shouldRetry(err error, class retryClass, attempt int) (time.Duration, WaitReason, error) {
	if attempt > c.retry.max {
		return 0, 0, err
	}
	var e *api.Error
	if errors.As(err, &e) {
		switch {
		case e.StatusCode == http.StatusTooManyRequests && c.retry.maxRetryAfter > 0 && e.RetryAfter > c.retry.maxRetryAfter:
			return 0, 0, &longWaitError{err: e}
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
			return d + jitter(d/10), WaitRetryAfter, nil
		case e.StatusCode >= 500 && class != rateLimitOnly:
			return c.backoff(attempt), WaitBackoff, nil
		}
		return 0, 0, err
	}
	var ne *NetworkError
	if errors.As(err, &ne) && class == idempotent && !IsRedirect(err) {
		return c.backoff(attempt), WaitBackoff, nil
	}
	return 0, 0, err
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
