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
// scheduling noise into a ratio. A measure that takes longer than
// Deadline stops where it is (Result.Cut): a regression that slows each
// request to seconds need not be measured to the end.
type Plan struct {
	Rounds   int
	Samples  int
	Pace     time.Duration
	Warmup   time.Duration
	Floor    time.Duration
	Deadline time.Duration
}

// Attack starts an attack and returns what stops it (and waits for it to
// have stopped).
type Attack func() (stop func())

// Victim makes one everyday request of the victim; i counts its
// requests. A non-nil error is a request that failed (not a 2xx, or no
// answer).
type Victim func(i int) error

// Phase is the latencies of one side, sorted once a measure ends.
type Phase []time.Duration

// Round is one pair's ratios.
type Round struct {
	P50, P99 float64
}

// Result is a measure: the victim's latencies pooled over the rounds, per
// phase, and each round's.
type Result struct {
	Base, Attack Phase
	// Ref is the baseline the harm that outlasts an attack is judged
	// against: the one given to Measure, taken before any attack, or else
	// the first round's. After is every baseline taken after an attack.
	Ref, After Phase
	Rounds     []Round
	// Failed are the victim's failed requests, in words: a measure with
	// one is no measure of latency.
	Failed []string
	// Cut says the measure passed its deadline and stopped there.
	Cut   bool
	floor time.Duration
}

// Baseline measures the victim alone: a reference for Measure, taken
// before any attack.
func Baseline(p Plan, victim Victim) Phase {
	var failed []string
	n := 0
	ph := run(victim, &n, p.Samples*p.Rounds, p.Pace, time.Time{}, &failed)
	slices.Sort(ph)
	return ph
}

// Measure runs the plan; ref, when not nil, is a baseline taken before
// any attack (Baseline).
func Measure(p Plan, ref Phase, victim Victim, attack Attack) Result {
	r := Result{Ref: ref, floor: p.Floor}
	var deadline time.Time
	if p.Deadline > 0 {
		deadline = time.Now().Add(p.Deadline)
	}
	n := 0
	for i := range p.Rounds {
		base := run(victim, &n, p.Samples, p.Pace, deadline, &r.Failed)
		if i == 0 && r.Ref == nil {
			r.Ref = slices.Clone(base)
		} else {
			r.After = append(r.After, base...)
		}
		stop := attack()
		time.Sleep(p.Warmup)
		under := run(victim, &n, p.Samples, p.Pace, deadline, &r.Failed)
		stop()
		r.Base, r.Attack = append(r.Base, base...), append(r.Attack, under...)
		slices.Sort(base)
		slices.Sort(under)
		r.Rounds = append(r.Rounds, Round{
			P50: ratio(under.Pct(50), base.Pct(50), p.Floor),
			P99: ratio(under.Pct(99), base.Pct(99), p.Floor),
		})
		if !deadline.IsZero() && time.Now().After(deadline) {
			r.Cut = true
			break
		}
	}
	for _, ph := range []Phase{r.Base, r.Attack, r.Ref, r.After} {
		slices.Sort(ph)
	}
	return r
}

// run makes n requests of the victim, one every pace at most, until the
// deadline (when not zero).
func run(victim Victim, i *int, n int, pace time.Duration, deadline time.Time, failed *[]string) Phase {
	out := make(Phase, 0, n)
	next := time.Now()
	for range n {
		if !deadline.IsZero() && time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Until(next))
		start := time.Now()
		next = start.Add(pace)
		err := victim(*i)
		out = append(out, time.Since(start))
		*i++
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

// Lasting is how much slower the baselines after an attack were than the
// reference, at the 99th percentile: an attack whose harm outlasts it (a
// backlog it left) makes the later baselines, and so the pooled ratios,
// look better than they are. 1 when no baseline followed an attack.
func (r Result) Lasting() float64 {
	if len(r.After) == 0 {
		return 1
	}
	return ratio(r.After.Pct(99), r.Ref.Pct(99), r.floor)
}

// String says the measure in one line: the pooled percentiles and ratios
// and each round's.
func (r Result) String() string {
	var rounds []string
	for _, rd := range r.Rounds {
		rounds = append(rounds, fmt.Sprintf("×%.2f", rd.P99))
	}
	cut := ""
	if r.Cut {
		cut = ", cut at its deadline"
	}
	return fmt.Sprintf("p50 %v → %v (×%.2f), p99 %v → %v (×%.2f; rounds %s), baselines after an attack ×%.2f, %d+%d requests, %d failed%s",
		r.Base.Pct(50).Round(10*time.Microsecond), r.Attack.Pct(50).Round(10*time.Microsecond), r.P50(),
		r.Base.Pct(99).Round(10*time.Microsecond), r.Attack.Pct(99).Round(10*time.Microsecond), r.P99(),
		strings.Join(rounds, " "), r.Lasting(), len(r.Base), len(r.Attack), len(r.Failed), cut)
}

// Goal is what the victim's pooled ratios must stay within.
type Goal struct {
	P50, P99 float64
}

// Holds reports whether a measure meets the goal: whole, with every
// request of the victim answered, and no harm that outlasted the attack
// beyond the goal either.
func (g Goal) Holds(r Result) bool {
	return !r.Cut && len(r.Failed) == 0 && r.P50() <= g.P50 && r.P99() <= g.P99 && r.Lasting() <= g.P99
}

// Try measures up to tries times and returns the first measure that
// meets the goal, else the last, and whether one did; each measure is
// logged. A measure that misses the goal on a busy machine is measured
// again, never excused: a regression misses it every time. One cut at its
// deadline is not measured again.
func Try(tries int, g Goal, logf func(format string, args ...any), measure func() Result) (Result, bool) {
	var r Result
	for try := 1; try <= tries; try++ {
		r = measure()
		logf("measure %d of at most %d: %s", try, tries, r)
		if g.Holds(r) {
			return r, true
		}
		if r.Cut {
			break
		}
	}
	return r, false
}
