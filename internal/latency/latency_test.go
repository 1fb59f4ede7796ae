package latency

import (
	"errors"
	"testing"
	"time"
)

// TestMeasureRatios: a victim that is ten times slower under the attack
// measures ×10 at both percentiles; one whose harm lasts past the attack
// shows in Lasting; a failed request or a cut measure misses any goal.
func TestMeasureRatios(t *testing.T) {
	plan := Plan{Rounds: 2, Samples: 20, Floor: time.Millisecond}
	var slow bool
	victim := func(int) error {
		d := 2 * time.Millisecond
		if slow {
			d = 20 * time.Millisecond
		}
		time.Sleep(d)
		return nil
	}
	attack := func() func() { slow = true; return func() { slow = false } }
	r := Measure(plan, nil, victim, attack)
	if r.P50() < 5 || r.P99() < 3 || len(r.Rounds) != 2 || len(r.Base) != 40 || len(r.Attack) != 40 {
		t.Errorf("a victim ten times slower under attack: %s", r)
	}
	if r.Lasting() > 3 {
		t.Errorf("no harm lasted, yet Lasting is ×%.2f", r.Lasting())
	}
	if (Goal{P50: 2, P99: 2}).Holds(r) || !(Goal{P50: 50, P99: 50}).Holds(r) {
		t.Errorf("goals judged wrong for %s", r)
	}

	lasting := func() func() { slow = true; return func() {} } // never stops
	slow = false
	r = Measure(plan, nil, victim, lasting)
	if r.Lasting() < 5 {
		t.Errorf("a harm that outlasts its attack: Lasting ×%.2f, want about ×10", r.Lasting())
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
