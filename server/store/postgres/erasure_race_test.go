package postgres

import (
	"fmt"
	"sync"
	"testing"

	"github.com/shushlist/shush/server/store"
)

// An add and an erasure of the same address, from two processes on one
// database, meet on the team's trail head: whichever commits first, the
// address ends erased and never listed again in clear. The stage holds
// the head while both start, so that both are in flight at once.
func TestEraseRacesAnAddFromAnotherProcess(t *testing.T) {
	s := newQueueStage(t)
	ctx := t.Context()
	other, err := Open(ctx, s.dsn)
	if err != nil {
		t.Fatalf("open the second store: %v", err)
	}
	t.Cleanup(func() { other.Close() })

	for round := range 8 {
		addr := fmt.Sprintf("race%d@example.com", round)
		if _, err := s.st.Add(ctx, s.team, store.Change{}, store.Manual(addr)); err != nil {
			t.Fatal(err)
		}
		s.holdHead()
		var wg sync.WaitGroup
		var eraseErr, addErr error
		wg.Go(func() {
			_, eraseErr = s.st.Erase(ctx, s.team, store.Change{Reference: "GDPR"}, []string{addr})
		})
		s.waitWaiting(1)
		wg.Go(func() {
			_, addErr = other.Add(ctx, s.team, store.Change{}, store.Manual(addr))
		})
		s.waitWaiting(2)
		s.release()
		wg.Wait()
		if eraseErr != nil || addErr != nil {
			t.Fatalf("round %d: erase: %v; add: %v", round, eraseErr, addErr)
		}
		var clear int
		if err := s.conn.QueryRow(ctx, `SELECT count(*) FROM suppressions WHERE team = $1 AND email = $2`, s.team, addr).Scan(&clear); err != nil {
			t.Fatal(err)
		}
		if clear != 0 {
			t.Fatalf("round %d: %s is listed in clear after its erasure", round, addr)
		}
		found, err := s.st.Check(ctx, s.team, []string{addr})
		if err != nil || len(found) != 1 || found[0].Erased == "" {
			t.Fatalf("round %d: check of %s after the race = %+v, %v; want its erased entry", round, addr, found, err)
		}
	}
}

// waitWaiting waits until n of the database's sessions wait for a lock
// another holds.
func (s *queueStage) waitWaiting(n int) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%d changes waiting", n), func() bool {
		var got int
		err := s.conn.QueryRow(s.t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE cardinality(pg_blocking_pids(pid)) > 0`).Scan(&got)
		if err != nil {
			s.t.Fatal(err)
		}
		return got >= n
	})
}
