package server

import (
	"net/http"
	"sync"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Defaults of the capacity settings of Options.
const (
	// DefaultMaxInFlightPerTeam lets a team run this many requests at
	// once; more are answered 429 until some finish.
	DefaultMaxInFlightPerTeam = 64
	// DefaultMaxExports is how many exports stream at once across teams,
	// at most: each holds a read connection of the store for its whole
	// stream, so they are kept to fewer than half of the store's pool
	// (see exportSlots) and key look-ups always find one.
	DefaultMaxExports = 4
	// DefaultMaxExportsPerTeam is how many exports one team may stream at
	// once.
	DefaultMaxExportsPerTeam = 2
	// DefaultExportStallTimeout cuts an export whose client has not taken
	// a chunk of it for this long.
	DefaultExportStallTimeout = 30 * time.Second
	// DefaultMaxWebhooksPerTeam is how many webhooks a team may have:
	// the hosted service's tools need a handful, and each is an outbox
	// row per changed address in every change.
	DefaultMaxWebhooksPerTeam = 20
	// DefaultExportTimeout bounds one export, however fast its client
	// reads; a list of millions streams well within.
	DefaultExportTimeout = time.Hour
)

// teamCounts counts something teams hold (bytes of bodies, requests,
// exports), each under a cap per team and, for some, a cap in total.
type teamCounts struct {
	mu    sync.Mutex
	held  map[string]int64
	total int64
}

// take adds n to the team's count when the team stays within perTeam and
// all teams within total (0: no total cap); it reports which cap refused
// ("team" or "total") or "" when n was taken.
func (c *teamCounts) take(team string, n, perTeam, total int64) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = make(map[string]int64)
	}
	switch {
	case c.held[team]+n > perTeam:
		return "team"
	case total > 0 && c.total+n > total:
		return "total"
	}
	c.held[team] += n
	c.total += n
	return ""
}

// give returns n of the team's count.
func (c *teamCounts) give(team string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held[team] -= n; c.held[team] <= 0 {
		delete(c.held, team) // the map holds only teams holding something
	}
	c.total -= n
}

// now is the sum of every team's count.
func (c *teamCounts) now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.total
}

// capacityDefaults fills the capacity settings left at zero.
func capacityDefaults(opts *Options, st store.Store) {
	if opts.MaxBodyBytesPerTeam < MaxBody {
		opts.MaxBodyBytesPerTeam = max(MaxBody, opts.MaxBodyBytesHeld/4)
	}
	opts.MaxBodyBytesPerTeam = min(opts.MaxBodyBytesPerTeam, opts.MaxBodyBytesHeld)
	if opts.MaxWebhooksPerTeam <= 0 {
		opts.MaxWebhooksPerTeam = DefaultMaxWebhooksPerTeam
	}
	if opts.MaxInFlightPerTeam <= 0 {
		opts.MaxInFlightPerTeam = DefaultMaxInFlightPerTeam
	}
	if opts.MaxExports <= 0 {
		opts.MaxExports = exportSlots(st)
	}
	if opts.MaxExportsPerTeam <= 0 {
		opts.MaxExportsPerTeam = DefaultMaxExportsPerTeam
	}
	opts.MaxExportsPerTeam = min(opts.MaxExportsPerTeam, opts.MaxExports)
	if opts.ExportStallTimeout <= 0 {
		opts.ExportStallTimeout = DefaultExportStallTimeout
	}
	if opts.ExportTimeout <= 0 {
		opts.ExportTimeout = DefaultExportTimeout
	}
	if opts.ReadBudget <= 0 {
		opts.ReadBudget = DefaultReadBudget
	}
	if opts.MaxCostlyReadsPerTeam <= 0 {
		opts.MaxCostlyReadsPerTeam = DefaultCostlyReadsPerTeam
	}
}

// exportSlots is the default number of exports at once: DefaultMaxExports,
// but never more than half of the store's pool, so that the connections
// exports hold leave at least as many for everything else.
func exportSlots(st store.Store) int {
	if ps, ok := st.(store.PoolStatser); ok && ps.PoolStats().Max > 0 {
		return max(1, min(DefaultMaxExports, ps.PoolStats().Max/2))
	}
	return DefaultMaxExports
}

// inFlight keeps each team to Options.MaxInFlightPerTeam requests at once,
// so that one team's slow or held requests leave the service to others.
func (s *Server) inFlight(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := callerOf(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		team := c.team()
		if s.requests.take(team, 1, int64(s.opts.MaxInFlightPerTeam), 0) != "" {
			s.metrics.teamRefused.WithLabelValues("in_flight").Inc()
			w.Header().Set("Retry-After", "1")
			writeProblem(w, r, s.log, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
				"This team has %d requests under way, as many as it may; retry after 1 second.", s.opts.MaxInFlightPerTeam))
			return
		}
		defer s.requests.give(team, 1)
		next.ServeHTTP(w, r)
	})
}

// exportSlot takes one of the export slots for the team, or says why not
// as the answer to give: 429 when the team streams as many exports as it
// may, 503 when the service does.
func (s *Server) exportSlot(team string) (release func(), p *problem) {
	switch s.exports.take(team, 1, int64(s.opts.MaxExportsPerTeam), int64(s.opts.MaxExports)) {
	case "team":
		s.metrics.exportsRefused.WithLabelValues("team").Inc()
		return nil, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
			"This team already streams %d exports, as many as it may at once; retry once one has finished.", s.opts.MaxExportsPerTeam).
			retryAfter(5)
	case "total":
		s.metrics.exportsRefused.WithLabelValues("service").Inc()
		return nil, newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable,
			"The service streams %d exports, as many as it does at once; retry after 5 seconds.", s.opts.MaxExports).
			retryAfter(5)
	}
	return func() { s.exports.give(team, 1) }, nil
}

// stallWriter gives each write to the client its own deadline: a client
// that stops reading is cut off after the stall timeout, and however
// steadily it reads, no write ends after the export's own deadline.
type stallWriter struct {
	w     http.ResponseWriter
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time
	cut   bool
	// meter, when set, is told the time writes waited for the client.
	meter *workMeter
}

func (sw *stallWriter) Write(b []byte) (int, error) {
	start := time.Now()
	_ = sw.rc.SetWriteDeadline(minTime(start.Add(sw.stall), sw.end))
	n, err := sw.w.Write(b)
	if err != nil {
		sw.cut = true
	}
	sw.waited(start)
	return n, err
}

// Flush sends what the server's own buffer holds, under the same deadline.
func (sw *stallWriter) Flush() error {
	start := time.Now()
	_ = sw.rc.SetWriteDeadline(minTime(start.Add(sw.stall), sw.end))
	err := sw.rc.Flush()
	if err != nil {
		sw.cut = true
	}
	sw.waited(start)
	return err
}

// waited counts a write's time as the client's, not the export's work
// (see workMeter).
func (sw *stallWriter) waited(start time.Time) {
	if sw.meter != nil {
		sw.meter.blocked.Add(int64(time.Since(start)))
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
