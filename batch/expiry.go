package batch

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// Expiry is when the entries a run adds leave the list again (our
// service's extension): never, an age from now (30d), or a date or time.
// The zero Expiry is never.
type Expiry struct {
	after time.Duration
	at    time.Time
}

// ParseExpiry reads an expiry as people write it: "" or "never"; an age
// in days or a Go duration ("30d", "12h"); a date ("2026-12-31", the
// start of that day in UTC) or an RFC 3339 time.
func ParseExpiry(s string) (Expiry, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || strings.EqualFold(s, "never"):
		return Expiry{}, nil
	case strings.HasSuffix(s, "d"):
		days, err := strconv.Atoi(strings.TrimSuffix(s, "d"))
		if err != nil || days < 1 || days > 36500 {
			return Expiry{}, fmt.Errorf("%s is not a whole number of days (30d)", api.Quote(s))
		}
		return Expiry{after: time.Duration(days) * 24 * time.Hour}, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		if d <= 0 {
			return Expiry{}, fmt.Errorf("%s is not in the future", api.Quote(s))
		}
		return Expiry{after: d}, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return Expiry{at: t}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return Expiry{at: t.UTC()}, nil
	}
	return Expiry{}, fmt.Errorf("%s is not an expiry: write an age (30d, 12h), a date (2026-12-31) or never", api.Quote(s))
}

// Never reports whether the expiry is never.
func (e Expiry) Never() bool { return e.after == 0 && e.at.IsZero() }

// String is the expiry as ParseExpiry reads it.
func (e Expiry) String() string {
	switch {
	case e.after > 0 && e.after%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", e.after/(24*time.Hour))
	case e.after > 0:
		return e.after.String()
	case !e.at.IsZero() && e.at.Equal(e.at.Truncate(24*time.Hour)):
		return e.at.Format("2006-01-02")
	case !e.at.IsZero():
		return e.at.Format(time.RFC3339)
	}
	return "never"
}

// At is the time the expiry names when the service's clock says now:
// zero for never.
func (e Expiry) At(now time.Time) time.Time {
	if e.after > 0 {
		return now.Add(e.after).UTC().Truncate(time.Millisecond)
	}
	return e.at
}

// errPast is an expiry that has already passed.
var errPast = errors.New("it has already passed")

// ExpiresAt is the time the expiry names by the service's clock: the
// local clock corrected by how far the service's is ahead (its Date
// headers; one request learns it when none has been answered yet), never
// the local clock alone unless the service sends no Date (the embedded
// local list, whose clock is this machine's). A time that has passed by
// that clock is an error; never is zero.
func ExpiresAt(ctx context.Context, c *client.Client, e Expiry) (time.Time, error) {
	if e.Never() {
		return time.Time{}, nil
	}
	if _, known := c.ClockSkew(); !known {
		// Any answer carries the service's Date, a refusal too.
		var refused *api.Error
		if err := c.Health(ctx); err != nil && !errors.As(err, &refused) {
			return time.Time{}, fmt.Errorf("the service's clock, which the expiry is counted by: %w", err)
		}
	}
	skew, _ := c.ClockSkew()
	now := time.Now().Add(skew)
	at := e.At(now)
	if !at.After(now) {
		return time.Time{}, fmt.Errorf("the expiry %s: %w (the service's clock says %s)", e, errPast, now.UTC().Format(time.RFC3339))
	}
	return at, nil
}
