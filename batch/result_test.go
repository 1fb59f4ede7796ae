package batch_test

import (
	"testing"

	"github.com/shushlist/shush/batch"
)

// Outcomes names each outcome once, so that a summary built from it shows
// every count of a report.
func TestOutcomesListsEachOnce(t *testing.T) {
	all := []batch.Outcome{batch.Added, batch.AlreadyListed, batch.Removed, batch.Erased, batch.NotListed, batch.Unverified, batch.Failed, batch.Unsent}
	got := batch.Outcomes()
	seen := map[batch.Outcome]int{}
	for _, o := range got {
		seen[o]++
	}
	for _, o := range all {
		if seen[o] != 1 {
			t.Errorf("Outcomes() lists %q %d times, want once: %v", o, seen[o], got)
		}
	}
	if len(got) != len(all) {
		t.Errorf("Outcomes() = %v, want the %d outcomes", got, len(all))
	}
	// The caller owns the slice.
	got[0] = batch.Unsent
	if batch.Outcomes()[0] != batch.Added {
		t.Errorf("changing the returned slice changed the next answer")
	}
}
