package client

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/shushlist/shush/api"
)

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
	last      api.RateLimit // the figures of the latest answer that had them
	// maxHold is the longest Retry-After the pacer holds requests for
	// (the client's maxRetryAfter): a longer one ends its call with the
	// 429 and is its caller's to judge (a run pauses, saying so), not a
	// silent wait of every later request.
	maxHold time.Duration
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
func (p *pacer) release(answered bool, rl api.RateLimit, limited bool, retryAfter time.Duration) {
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
		if d <= 0 || p.maxHold > 0 && d > p.maxHold {
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

// parseRateLimit reads the ratelimit-* headers. Reset may be fractional.
func parseRateLimit(h http.Header) api.RateLimit {
	var rl api.RateLimit
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
