package latency

import (
	"errors"
	"testing"
	"time"
)

// TestMeasureRatios: a victim that is sixty times slower under the
// attack (against a floor of 5 ms: twelve) measures so at both
// percentiles, give or take the machine's pauses; one whose harm lasts past the attack
// shows in Lasting; a failed request or a cut measure misses any goal.
func TestMeasureRatios(t *testing.T) {
	plan := Plan{Rounds: 2, Samples: 20, Floor: 5 * time.Millisecond}
	var slow bool
	victim := func(int) error {
		d := time.Millisecond
		if slow {
			d = 60 * time.Millisecond
		}
		time.Sleep(d)
		return nil
	}
	attack := func() func() { slow = true; return func() { slow = false } }
	r := Measure(plan, nil, victim, attack)
	// The 99th percentile of twenty sleeps of 1 ms is a pause of the
	// machine's when it is loaded (18 ms seen under -race beside other
	// tests): its ratio is held to half the median's bound.
	if r.P50() < 6 || r.P99() < 2 || len(r.Rounds) != 2 || len(r.Base) != 40 || len(r.Attack) != 40 {
		t.Errorf("a victim ten times slower under attack: %s", r)
	}
	if r.Lasting() > 4 {
		t.Errorf("no harm lasted, yet Lasting is ×%.2f", r.Lasting())
	}
	if (Goal{P50: 2, P99: 2}).Holds(r) || !(Goal{P50: 50, P99: 50}).Holds(r) {
		t.Errorf("goals judged wrong for %s", r)
	}

	lasting := func() func() { slow = true; return func() {} } // never stops
	slow = false
	r = Measure(plan, nil, victim, lasting)
	if r.Lasting() < 4 {
		t.Errorf("a harm that outlasts its attack: Lasting ×%.2f, want about ×12", r.Lasting())
	}
	slow = false
	failing := func(i int) error {
		if i == 3 {
			return errors.New("503")
		}
		return nil
	}
	if r := Measure(plan, nil, failing, func() func() { return func() {} }); (Goal{P50: 50, P99: 50}).Holds(r) || len(r.Failed) != 1 {
		t.Errorf("a failed request: %s; want the goal missed", r)
	}
	cut := Plan{Rounds: 3, Samples: 10, Deadline: 30 * time.Millisecond}
	if r := Measure(cut, nil, victim, func() func() { return func() {} }); !r.Cut || (Goal{P50: 50, P99: 50}).Holds(r) {
		t.Errorf("a measure past its deadline: %s; want it cut and the goal missed", r)
	}
	if got := (Phase{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}).Pct(50); got != 5 {
		t.Errorf("the median of 1..10 is %v; want 5", got)
	}
}
