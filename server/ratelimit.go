package server

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// maxBuckets bounds the limiter's memory. Teams come from stored keys, so
// the bound is only reached by many teams; then the buckets that are full
// again (idle teams) are dropped, which loses nothing.
const maxBuckets = 10000

// limiter is a token bucket per team.
type limiter struct {
	rate    rate.Limit
	burst   int
	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newLimiter(perSecond float64, burst int) *limiter {
	return &limiter{rate: rate.Limit(perSecond), burst: burst, buckets: make(map[string]*rate.Limiter)}
}

// verdict is what one request learned from its team's bucket.
type verdict struct {
	allowed    bool
	limit      int
	remaining  int
	reset      time.Duration // until the bucket is full again
	retryAfter time.Duration // until the next request would pass
}

func (l *limiter) take(team string, now time.Time) verdict {
	l.mu.Lock()
	b := l.buckets[team]
	if b == nil {
		if len(l.buckets) >= maxBuckets {
			for t, old := range l.buckets {
				if old.TokensAt(now) >= float64(l.burst) {
					delete(l.buckets, t)
				}
			}
		}
		b = rate.NewLimiter(l.rate, l.burst)
		l.buckets[team] = b
	}
	l.mu.Unlock()

	// The bucket has its own lock; AllowN and TokensAt are two steps, so a
	// concurrent request of the same team may make the figures one off,
	// never the decision.
	v := verdict{limit: l.burst}
	v.allowed = b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	v.remaining = max(0, int(math.Floor(tokens)))
	v.reset = l.after(float64(l.burst) - tokens)
	if !v.allowed {
		v.retryAfter = l.after(1 - tokens)
	}
	return v
}

// after is how long the bucket takes to gain n tokens.
func (l *limiter) after(n float64) time.Duration {
	if n <= 0 {
		return 0
	}
	return time.Duration(n / float64(l.rate) * float64(time.Second))
}

// seconds rounds up to whole seconds, as the headers carry them.
func seconds(d time.Duration) int {
	return int(math.Ceil(d.Seconds()))
}

func (v verdict) setHeaders(h http.Header) {
	h.Set("Ratelimit-Limit", strconv.Itoa(v.limit))
	h.Set("Ratelimit-Remaining", strconv.Itoa(v.remaining))
	h.Set("Ratelimit-Reset", strconv.Itoa(seconds(v.reset)))
	if !v.allowed {
		h.Set("Retry-After", strconv.Itoa(max(1, seconds(v.retryAfter))))
	}
}
