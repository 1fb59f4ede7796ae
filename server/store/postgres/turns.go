package postgres

import (
	"context"
	"sync"
)

// turns makes this process's changes of one team take turns from the
// moment they mint IDs for the team's trail until their insert holds the
// team's trail head (see sqlstore.Tx.TakeTurn): they then reach the head,
// which orders every process's changes, in the order they minted, and
// seldom find it above their IDs. The head still decides; turns only keep
// the process's own changes from overtaking each other on the way to it.
type turns struct {
	mu    sync.Mutex
	teams map[string]*turn
}

// turn is one team's: a token held by the change whose turn it is.
type turn struct {
	token chan struct{}
	// users are the changes holding or waiting for the turn; the team's
	// entry goes when the last one leaves.
	users int
}

// take waits for the team's turn and returns its release.
func (t *turns) take(ctx context.Context, team string) (release func(), err error) {
	t.mu.Lock()
	if t.teams == nil {
		t.teams = make(map[string]*turn)
	}
	tn := t.teams[team]
	if tn == nil {
		tn = &turn{token: make(chan struct{}, 1)}
		t.teams[team] = tn
	}
	tn.users++
	t.mu.Unlock()
	select {
	case tn.token <- struct{}{}:
		return func() { <-tn.token; t.leave(team, tn) }, nil
	case <-ctx.Done():
		t.leave(team, tn)
		return nil, ctx.Err()
	}
}

func (t *turns) leave(team string, tn *turn) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if tn.users--; tn.users == 0 {
		delete(t.teams, team)
	}
}
