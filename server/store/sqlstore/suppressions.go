package sqlstore

import (
	"context"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Get returns the team's entry with this ID; see store.Store.
func (c *Core) Get(ctx context.Context, team, id string) (store.Entry, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.Entry{}, store.ErrNotFound
	}
	e, err := c.d.EntryByID(ctx, team, id)
	return e, c.readErr("read the list", err)
}

// GetByEmail returns the team's entry for this address; see store.Store.
func (c *Core) GetByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	e, err := c.d.EntryByEmail(ctx, team, email)
	return e, c.readErr("read the list", err)
}

// List returns a page of the team's list, newest first; see store.Store.
func (c *Core) List(ctx context.Context, team string, q store.ListQuery) ([]store.Entry, bool, error) {
	p := store.Page{Limit: q.Limit, After: q.After, Before: q.Before}
	return readPage(ctx, c, "read the list", p, func(ctx context.Context, w Window) ([]store.Entry, error) {
		return c.d.Entries(ctx, team, q.Origin, w)
	})
}

// Export streams the team's list newest first from one snapshot; see
// store.Store. An error from fn is returned as it is.
func (c *Core) Export(ctx context.Context, team string, origin api.Origin, fn func(store.Entry) error) error {
	var fnErr error
	err := c.d.ExportEntries(ctx, team, origin, func(e store.Entry) error {
		fnErr = fn(e)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	return c.fail("export the list", err)
}
