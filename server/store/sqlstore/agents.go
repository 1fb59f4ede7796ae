package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// CreateAgent stores a new agent; see store.Store. The check and the
// insert are one change, so two creations of one name cannot both pass
// (on PostgreSQL the loser's unique violation runs the change again, and
// the check then sees the winner).
func (c *Core) CreateAgent(ctx context.Context, a store.Agent) error {
	a.CreatedAt = a.CreatedAt.UTC().Truncate(time.Millisecond)
	a.RemovedAt = nil
	return c.fail("store the agent", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		taken, err := tx.AgentTaken(ctx, a.Name, a.Fingerprint)
		if err != nil {
			return err
		}
		if taken {
			return store.ErrExists
		}
		return tx.InsertAgent(ctx, a)
	}))
}

// AgentByID returns the agent with this ID, removed or not; see
// store.Store.
func (c *Core) AgentByID(ctx context.Context, id string) (store.Agent, error) {
	a, err := c.d.Agent(ctx, id)
	return a, c.readErr("read the agent", err)
}

// AgentByFingerprint returns the agent not removed with this key; see
// store.Store.
func (c *Core) AgentByFingerprint(ctx context.Context, fingerprint string) (store.Agent, error) {
	a, err := c.d.AgentByFingerprint(ctx, fingerprint)
	return a, c.readErr("read the agent", err)
}

// ListAgents returns the agents not removed, oldest first; see
// store.Store.
func (c *Core) ListAgents(ctx context.Context) ([]store.Agent, error) {
	agents, err := c.d.Agents(ctx)
	if err != nil {
		return nil, c.fail("read the agents", err)
	}
	if agents == nil {
		agents = []store.Agent{}
	}
	return agents, nil
}

// RemoveAgent marks an agent removed; see store.Store.
func (c *Core) RemoveAgent(ctx context.Context, id string) (store.Agent, error) {
	var a store.Agent
	at := now()
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) (err error) {
		a, err = tx.RemoveAgent(ctx, id, at)
		return err
	})
	return a, c.readErr("remove the agent", err)
}

// TeamSettings returns the team's rules, or the defaults; see
// store.Store.
func (c *Core) TeamSettings(ctx context.Context, team string) (store.TeamSettings, error) {
	t, err := c.d.Team(ctx, team)
	if err := c.readErr("read the team", err); errors.Is(err, store.ErrNotFound) {
		return store.TeamSettings{Team: team, Protected: []string{}, ComplaintRemoval: store.ComplaintConfirm}, nil
	} else if err != nil {
		return store.TeamSettings{}, err
	}
	if t.Protected == nil {
		t.Protected = []string{}
	}
	return t, nil
}

// SetTeamSettings replaces the team's rules; see store.Store.
func (c *Core) SetTeamSettings(ctx context.Context, t store.TeamSettings) error {
	if t.Protected == nil {
		t.Protected = []string{}
	}
	if t.ComplaintRemoval == "" {
		t.ComplaintRemoval = store.ComplaintConfirm
	}
	return c.fail("store the team's rules", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		return tx.PutTeam(ctx, t)
	}))
}

// protect refuses an add that names an address the team's rules protect
// (a *store.ProtectedError for the first one). It reads the rules inside
// the add's change: a cache of them outside it could let an add that
// starts after a change of the rules list an address they now protect.
func protect(ctx context.Context, tx Tx, team string, entries []store.NewEntry) error {
	t, err := tx.TeamRules(ctx, team)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil || len(t.Protected) == 0 {
		return err
	}
	p := api.NewProtected(t.Protected)
	for i, e := range entries {
		if rule, ok := p.Match(e.Email); ok {
			return &store.ProtectedError{Index: i, Email: e.Email, Rule: rule}
		}
	}
	return nil
}

// keepComplaints says whether a removal by author must keep complaints on
// the list: it was told so, or it obeys the team's rule
// (store.Change.ComplaintRule), read inside the removal's change, and the
// rule is override.
func keepComplaints(ctx context.Context, tx Tx, team string, author store.Change) (bool, error) {
	if author.KeepComplaints || !author.ComplaintRule {
		return author.KeepComplaints, nil
	}
	t, err := tx.TeamRules(ctx, team)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return t.ComplaintRemoval == store.ComplaintOverride, err
}
