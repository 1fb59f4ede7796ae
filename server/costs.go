package server

import (
	"context"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
)

// Defaults of the budget of costly reads (Options).
const (
	// DefaultReadBudget is the work a team's costly reads (searches,
	// narrowed pages, bulk checks, exports, searches of the trail) may
	// take on average, per second: a quarter of a core.
	DefaultReadBudget = 250 * time.Millisecond
	// DefaultCostlyReadsPerTeam is how many of them one team may have
	// under way at once.
	DefaultCostlyReadsPerTeam = 2
)

// readBurst is how much work a team may spend at once, in budgets: a
// bulk check of 10,000 addresses fits; a long export then waits it back.
const readBurst = 4

// costly says whether a request is a read whose work depends on the data
// (how many entries a search or a filter passes over, how many addresses
// a check names, the whole list for an export), and so draws on its
// team's read budget; a plain page and a look-up are bounded by their
// index and do not.
func costly(pattern string, r *http.Request) bool {
	switch pattern {
	case "POST /suppressions/batch/check", "GET /suppressions/export":
		return true
	case "GET /suppressions":
		return narrowed(r.URL.RawQuery, "q", "origin", "created_after", "created_before")
	case "GET /audit":
		return narrowed(r.URL.RawQuery, "email", "reference", "type")
	}
	return false
}

// narrowed reports whether the query gives one of the parameters.
func narrowed(raw string, params ...string) bool {
	q, err := url.ParseQuery(raw)
	if err != nil {
		return false
	}
	for _, p := range params {
		if _, ok := q[p]; ok {
			return true
		}
	}
	return false
}

// readBudget is every team's budget of work for costly reads: a bucket
// of time that fills at the budget's rate, up to readBurst budgets; a
// read may start while the bucket is not empty, and its measured work is
// taken from it when it ends (down to readBurst budgets in debt, so that
// one long export does not lock its team out for long). A team in debt
// gets 429 with the time until it is not.
type readBudget struct {
	rate    float64 // seconds of work per second
	burst   time.Duration
	perTeam int
	mu      sync.Mutex
	teams   map[string]*workBucket
}

type workBucket struct {
	level   time.Duration
	at      time.Time
	running int
}

func newReadBudget(rate time.Duration, perTeam int) *readBudget {
	return &readBudget{rate: rate.Seconds(), burst: readBurst * rate, perTeam: perTeam, teams: map[string]*workBucket{}}
}

// refill brings the bucket up to now.
func (b *readBudget) refill(w *workBucket, now time.Time) {
	w.level = min(b.burst, w.level+time.Duration(float64(now.Sub(w.at))*b.rate))
	w.at = now
}

// start lets a costly read of the team begin, or says how long until one
// may: the bucket is in debt, or the team has as many under way as it
// may (then a second; capped says the read counts against that cap:
// exports have caps of their own, see exportSlot).
func (b *readBudget) start(team string, now time.Time, capped bool) (wait time.Duration, ok bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.teams[team]
	if w == nil {
		b.forgetSome(now)
		w = &workBucket{level: b.burst, at: now}
		b.teams[team] = w
	}
	b.refill(w, now)
	switch {
	case w.level <= 0:
		return time.Duration(float64(-w.level)/b.rate) + time.Millisecond, false
	case capped && w.running >= b.perTeam:
		return time.Second, false
	}
	if capped {
		w.running++
	}
	return 0, true
}

// end takes a read's measured work from its team's bucket.
func (b *readBudget) end(team string, work time.Duration, now time.Time, capped bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	w := b.teams[team]
	if w == nil {
		return
	}
	b.refill(w, now)
	if capped {
		w.running--
	}
	w.level = max(-b.burst, w.level-work)
}

// forgetSome drops, past maxBuckets teams, the buckets that are full and
// idle: they hold nothing a new one would not.
func (b *readBudget) forgetSome(now time.Time) {
	if len(b.teams) < maxBuckets {
		return
	}
	for t, w := range b.teams {
		if b.refill(w, now); w.running == 0 && w.level >= b.burst {
			delete(b.teams, t)
		}
	}
}

// workMeter measures a costly read's work: its time, less the time its
// writes waited for the client (an export's stream, see stallWriter).
type workMeter struct {
	start   time.Time
	blocked atomic.Int64
}

type meterKey struct{}

// meterOf is the request's work meter, when it is a costly read.
func meterOf(ctx context.Context) *workMeter {
	m, _ := ctx.Value(meterKey{}).(*workMeter)
	return m
}

// budgeted runs a costly read within its team's budget: refused with 429
// and Retry-After when the team's budget is spent, else run and its work
// taken from the budget once it has ended (even by a panic).
func (s *Server) budgeted(w http.ResponseWriter, r *http.Request, team string, run func(r *http.Request)) {
	capped := r.URL.Path != "/suppressions/export"
	wait, ok := s.costs.start(team, time.Now(), capped)
	if !ok {
		s.metrics.teamRefused.WithLabelValues("read_budget").Inc()
		secs := max(1, seconds(wait))
		unit := "seconds"
		if secs == 1 {
			unit = "second"
		}
		writeProblem(w, r, s.log, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
			"This team's searches, checks and exports have used their share of the service (%v of work a second, %d at once); retry after %d %s.",
			s.opts.ReadBudget, s.opts.MaxCostlyReadsPerTeam, secs, unit).retryAfter(secs))
		return
	}
	m := &workMeter{start: time.Now()}
	defer func() {
		work := time.Since(m.start) - time.Duration(m.blocked.Load())
		s.costs.end(team, work, time.Now(), capped)
		s.metrics.readWork.Observe(work.Seconds())
	}()
	run(r.WithContext(context.WithValue(r.Context(), meterKey{}, m)))
}
