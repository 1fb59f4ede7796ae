package outbox

import (
	"context"
	"log/slog"
	"time"
)

// DefaultPruneInterval is how often a Pruner prunes when its config does
// not say: an entry outlives its retention by at most this much.
const DefaultPruneInterval = time.Hour

// PrunerConfig tunes a Pruner. The zero value prunes nothing: retention is
// chosen by the operator, since the trail may be evidence someone must
// keep.
type PrunerConfig struct {
	// AuditRetention is how long the trail keeps its entries, of every
	// team; 0 keeps them for ever.
	AuditRetention time.Duration
	// EventRetention is how long webhook events that were delivered or
	// given up are kept, with their attempts; 0 keeps them for ever.
	// Events still waiting for delivery are never pruned.
	EventRetention time.Duration
	// Interval is how often the pruner runs; <= 0 means
	// DefaultPruneInterval.
	Interval time.Duration
	// Logger receives a record per prune that deleted something, and
	// failures; nil discards them.
	Logger *slog.Logger
}

// Retention is what a Pruner needs of a store.
type Retention interface {
	// PruneAudit deletes the trail's entries older than before.
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
	// PruneWebhookEvents deletes settled events created before before.
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}

// intakePruner is implemented by stores that prune the events their
// intake took in (store.IntakePruner).
type intakePruner interface {
	PruneIntakeEvents(ctx context.Context, before time.Time) (int64, error)
}

// Pruner keeps the trail and the settled webhook events within their
// retention, pruning at start and then every Interval. Several pruners on
// one database (several serve processes) do the same deletes, which is
// harmless: what one deleted the other finds gone.
type Pruner struct {
	st  Retention
	cfg PrunerConfig
	log *slog.Logger
}

// NewPruner returns a pruner of st. It prunes once Run is called.
func NewPruner(st Retention, cfg PrunerConfig) *Pruner {
	cfg.AuditRetention = max(cfg.AuditRetention, 0)
	cfg.EventRetention = max(cfg.EventRetention, 0)
	if cfg.Interval <= 0 {
		cfg.Interval = DefaultPruneInterval
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Pruner{st: st, cfg: cfg, log: cfg.Logger}
}

// Enabled reports whether the pruner has a retention to keep.
func (p *Pruner) Enabled() bool {
	return p.cfg.AuditRetention > 0 || p.cfg.EventRetention > 0
}

// Run prunes at once and then every Interval until ctx ends; it returns at
// once when no retention is set.
func (p *Pruner) Run(ctx context.Context) {
	if !p.Enabled() {
		return
	}
	p.log.LogAttrs(ctx, slog.LevelInfo, "pruning by retention",
		slog.String("audit_retention", age(p.cfg.AuditRetention)), slog.String("webhook_event_retention", age(p.cfg.EventRetention)),
		slog.Duration("every", p.cfg.Interval))
	tick := time.NewTicker(p.cfg.Interval)
	defer tick.Stop()
	for {
		p.prune(ctx, time.Now())
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// prune deletes what is older than its retention at now, and logs what it
// deleted or why it could not.
func (p *Pruner) prune(ctx context.Context, now time.Time) {
	type job struct {
		keep  time.Duration
		what  string
		prune func(context.Context, time.Time) (int64, error)
	}
	jobs := []job{
		{p.cfg.AuditRetention, "audit entries", p.st.PruneAudit},
		{p.cfg.EventRetention, "settled webhook events", p.st.PruneWebhookEvents},
	}
	if in, ok := p.st.(intakePruner); ok {
		// The provider events the intake took in keep the trail's
		// retention: they name addresses as its entries do.
		jobs = append(jobs, job{p.cfg.AuditRetention, "intake events", in.PruneIntakeEvents})
	}
	for _, job := range jobs {
		if job.keep <= 0 || ctx.Err() != nil {
			continue
		}
		cut := now.Add(-job.keep)
		n, err := job.prune(ctx, cut)
		switch {
		case err != nil && ctx.Err() == nil:
			p.log.LogAttrs(ctx, slog.LevelWarn, "pruning "+job.what+" failed; the next run tries again",
				slog.Time("before", cut), slog.String("error", err.Error()))
		case n > 0:
			p.log.LogAttrs(ctx, slog.LevelInfo, "pruned "+job.what,
				slog.Int64("deleted", n), slog.Time("before", cut))
		}
	}
}

// age shows a retention for the log: "off" keeps for ever.
func age(d time.Duration) string {
	if d <= 0 {
		return "off"
	}
	return d.String()
}
