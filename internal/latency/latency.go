// Package latency owns one measure the isolation tests and benchmarks
// share: how much slower one team's everyday requests get while another
// team (or anyone) attacks the service, as a ratio to the same requests'
// latency without the attack, measured in the same run, in paired rounds
// (a baseline, then the attack, again and again), so that the machine's
// own noise falls on both sides.
package latency

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Plan is how a measure runs: Rounds pairs of a baseline phase and an
// attack phase, each Samples requests of the victim, one every Pace at
// most (a person's or a script's pace, so that a phase lasts long enough
// for the attack to be under way through it); the attack runs Warmup
// before its phase is measured. Floor is the least baseline a ratio is
// taken against, so that a sub-millisecond baseline does not turn
// scheduling noise into a ratio.
type Plan struct {
	Rounds  int
	Samples int
	Pace    time.Duration
	Warmup  time.Duration
	Floor   time.Duration
}

// Attack starts an attack and returns what stops it (and waits for it to
// have stopped).
type Attack func() (stop func())

// Victim makes one everyday request of the victim; i counts its
// requests. A non-nil error is a request that failed (not a 2xx, or no
// answer).
type Victim func(i int) error

// Result is a measure: the victim's latencies pooled over the rounds, per
// phase, and each round's.
type Result struct {
	Base, Attack Phase
	Rounds       []Round
	// Failed are the victim's failed requests, in words: a measure with
	// one is no measure of latency.
	Failed []string
	floor  time.Duration
}

// Phase is the latencies of one side, sorted.
type Phase []time.Duration

// Round is one pair's ratios.
type Round struct {
	P50, P99 float64
}

// Measure runs the plan.
func Measure(p Plan, victim Victim, attack Attack) Result {
	var r Result
	n := 0
	for range p.Rounds {
		var failed []string
		base := run(victim, &n, p, &failed)
		stop := attack()
		time.Sleep(p.Warmup)
		under := run(victim, &n, p, &failed)
		stop()
		r.Failed = append(r.Failed, failed...)
		r.Base, r.Attack = append(r.Base, base...), append(r.Attack, under...)
		slices.Sort(base)
		slices.Sort(under)
		r.Rounds = append(r.Rounds, Round{
			P50: ratio(Phase(under).Pct(50), Phase(base).Pct(50), p.Floor),
			P99: ratio(Phase(under).Pct(99), Phase(base).Pct(99), p.Floor),
		})
	}
	slices.Sort(r.Base)
	slices.Sort(r.Attack)
	r.floor = p.Floor
	return r
}

func run(victim Victim, n *int, p Plan, failed *[]string) Phase {
	out := make(Phase, 0, p.Samples)
	next := time.Now()
	for range p.Samples {
		time.Sleep(time.Until(next))
		start := time.Now()
		next = start.Add(p.Pace)
		err := victim(*n)
		out = append(out, time.Since(start))
		*n++
		if err != nil {
			*failed = append(*failed, err.Error())
		}
	}
	return out
}

// Pct is the phase's p-th percentile (nearest rank); the phase is sorted.
func (ph Phase) Pct(p float64) time.Duration {
	if len(ph) == 0 {
		return 0
	}
	i := int(float64(len(ph))*p/100+0.5) - 1
	return ph[min(max(i, 0), len(ph)-1)]
}

func ratio(under, base, floor time.Duration) float64 {
	return float64(under) / float64(max(base, floor))
}

// P50 and P99 are the pooled ratios: the attack phases' percentile over
// the baseline phases'.
func (r Result) P50() float64 { return ratio(r.Attack.Pct(50), r.Base.Pct(50), r.floor) }
func (r Result) P99() float64 { return ratio(r.Attack.Pct(99), r.Base.Pct(99), r.floor) }

// String says the measure in one line: the pooled percentiles and ratios
// and each round's.
func (r Result) String() string {
	var rounds []string
	for _, rd := range r.Rounds {
		rounds = append(rounds, fmt.Sprintf("×%.2f", rd.P99))
	}
	return fmt.Sprintf("p50 %v → %v (×%.2f), p99 %v → %v (×%.2f; rounds %s), %d+%d requests, %d failed",
		r.Base.Pct(50).Round(10*time.Microsecond), r.Attack.Pct(50).Round(10*time.Microsecond), r.P50(),
		r.Base.Pct(99).Round(10*time.Microsecond), r.Attack.Pct(99).Round(10*time.Microsecond), r.P99(),
		strings.Join(rounds, " "), len(r.Base), len(r.Attack), len(r.Failed))
}

// Goal is what the victim's pooled ratios must stay within.
type Goal struct {
	P50, P99 float64
}

// Holds reports whether a measure meets the goal with every request of
// the victim answered.
func (g Goal) Holds(r Result) bool {
	return len(r.Failed) == 0 && r.P50() <= g.P50 && r.P99() <= g.P99
}

// Try measures up to tries times and returns the first measure that
// meets the goal, else the last, and whether one did; each measure is
// logged. A measure that misses the goal on a busy machine is measured
// again, never excused: a regression misses it every time.
func Try(tries int, g Goal, logf func(format string, args ...any), measure func() Result) (Result, bool) {
	var r Result
	for try := 1; try <= tries; try++ {
		r = measure()
		logf("measure %d of at most %d: %s", try, tries, r)
		if g.Holds(r) {
			return r, true
		}
	}
	return r, false
}
