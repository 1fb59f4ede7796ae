package postgres

import (
	"context"
	"testing"
	"time"
)

// A team's changes take turns: the second waits until the first
// releases, one that gives up waiting leaves no trace, another team never
// waits, and a team's entry goes with its last change.
func TestTurns(t *testing.T) {
	var tr turns
	ctx := t.Context()
	release, err := tr.take(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	other, err := tr.take(ctx, "b")
	if err != nil {
		t.Fatalf("another team waited: %v", err)
	}
	other()

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := tr.take(short, "a"); err == nil {
		t.Fatal("a second change of the team took the turn while the first held it")
	}

	got := make(chan func())
	go func() {
		r, err := tr.take(ctx, "a")
		if err != nil {
			t.Error(err)
		}
		got <- r
	}()
	select {
	case <-got:
		t.Fatal("the next change took the turn before the first released it")
	case <-time.After(20 * time.Millisecond):
	}
	release()
	(<-got)()
	if n := len(tr.teams); n != 0 {
		t.Errorf("%d teams left after every change ended; want none", n)
	}
}
