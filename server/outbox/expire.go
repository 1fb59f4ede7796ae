package outbox

import (
	"context"
	"log/slog"
	"time"
)

// DefaultSweepInterval is how often a Sweeper looks for expired entries
// when its config does not say: an entry outlives its expiry by at most
// this much and the time one sweep takes (contract: within a minute).
const DefaultSweepInterval = 15 * time.Second

// DefaultSweepBatch is how many entries one change of a sweep removes, so
// that a sweep of many never holds the database for long.
const DefaultSweepBatch = 500

// SweeperConfig tunes a Sweeper. The zero value sweeps every
// DefaultSweepInterval by the system clock.
type SweeperConfig struct {
	// Interval is how often the sweeper looks; <= 0 means
	// DefaultSweepInterval.
	Interval time.Duration
	// Batch is how many entries one change removes; <= 0 means
	// DefaultSweepBatch.
	Batch int
	// Now is the service's clock, which an expiry is judged by; nil is
	// time.Now. Tests set it.
	Now func() time.Time
	// Logger receives a record per sweep that removed something, and
	// failures; nil discards them.
	Logger *slog.Logger
}

// Expiry is what a Sweeper needs of a store.
type Expiry interface {
	// RemoveExpired takes up to limit entries whose expiry is at or
	// before now off their lists, as removals by the service itself, and
	// says how many; concurrent callers never remove one twice.
	RemoveExpired(ctx context.Context, now time.Time, limit int) (int, error)
}

// Sweeper takes expired entries off the lists of every team: at start and
// then every Interval, in changes of Batch entries until none is due.
// Each removal writes its audit entry ("key": null, "reference":
// "expired") and its webhook events in its own change. Several sweepers
// on one database (several serve processes) share the work: the store
// holds the entries a change removes, so that no other takes them.
type Sweeper struct {
	st  Expiry
	cfg SweeperConfig
	log *slog.Logger
}

// NewSweeper returns a sweeper of st. It sweeps once Run is called.
func NewSweeper(st Expiry, cfg SweeperConfig) *Sweeper {
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultSweepInterval
	}
	if cfg.Batch <= 0 {
		cfg.Batch = DefaultSweepBatch
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Sweeper{st: st, cfg: cfg, log: cfg.Logger}
}

// Run sweeps at once and then every Interval until ctx ends.
func (s *Sweeper) Run(ctx context.Context) {
	tick := time.NewTicker(s.cfg.Interval)
	defer tick.Stop()
	for {
		s.Sweep(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Sweep removes every entry due now, a change of Batch entries at a time,
// and says how many it removed; it logs what it removed or why it could
// not (the next sweep tries again).
func (s *Sweeper) Sweep(ctx context.Context) int {
	now := s.cfg.Now()
	total := 0
	for ctx.Err() == nil {
		n, err := s.st.RemoveExpired(ctx, now, s.cfg.Batch)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				s.log.LogAttrs(ctx, slog.LevelWarn, "removing expired entries failed; the next sweep tries again",
					slog.Int("removed", total), slog.String("error", err.Error()))
			}
			break
		}
		if n < s.cfg.Batch {
			break
		}
	}
	if total > 0 {
		s.log.LogAttrs(ctx, slog.LevelInfo, "removed expired entries", slog.Int("removed", total), slog.Time("expired_by", now))
	}
	return total
}
