package sqlstore

import (
	"context"
	"fmt"

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

// maxAddRounds bounds how often Add tries an address that concurrent
// changes keep listing and removing.
const maxAddRounds = 4

// Add puts each entry on the team's list; see store.Store. The entries it
// creates go into the trail (one row for the change, which they name) and
// the webhook outbox in the same change.
//
// An address that is neither inserted nor found listed (another process
// listed it, or removed it, in between) is tried again within the change;
// an address removed meanwhile can come back twice, inserted anew and as
// the old entry: the new entry is the one listed.
func (c *Core) Add(ctx context.Context, team string, author store.Change, entries []store.NewEntry) ([]store.Entry, error) {
	if len(entries) == 0 {
		return []store.Entry{}, nil
	}
	at := now()
	// rows are the entries to create, one per address, and index says
	// which row an address has.
	rows := make([]store.Entry, 0, len(entries))
	index := make(map[string]int, len(entries))
	for _, n := range entries {
		if _, dup := index[n.Email]; dup {
			continue
		}
		id, err := newID()
		if err != nil {
			return nil, fmt.Errorf("add to the list: %w", err)
		}
		o, source := origin(n)
		index[n.Email] = len(rows)
		rows = append(rows, store.Entry{ID: id, Email: n.Email, Origin: o, SourceID: source, CreatedAt: at})
	}
	p := &InsertEntriesParams{Team: team}
	if !c.noTrail {
		ch, err := changeRow(team, at, author, rows)
		if err != nil {
			return nil, fmt.Errorf("add to the list: %w", err)
		}
		p.Change = ch
	}
	// listed is each row's entry as the list has it.
	listed := make([]store.Entry, len(rows))
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		clear(listed)
		p.Entries = rows
		for round := 1; len(p.Entries) > 0; round++ {
			got, err := tx.InsertEntries(ctx, p)
			if err != nil {
				return err
			}
			for _, e := range got {
				i, ok := index[e.Email]
				if !ok {
					continue
				}
				// The entry is new if it has the ID minted for it: no
				// other entry can.
				e.Created = e.ID == rows[i].ID
				if listed[i].ID == "" || e.Created && !listed[i].Created {
					listed[i] = e
				}
			}
			p.Entries = nil
			for i, e := range listed {
				if e.ID == "" {
					p.Entries = append(p.Entries, rows[i])
				}
			}
			if len(p.Entries) > 0 && round == maxAddRounds {
				return fmt.Errorf("%d addresses were neither inserted nor found after %d tries", len(p.Entries), round)
			}
		}
		if c.noTrail {
			return nil
		}
		var created []store.Entry
		for _, e := range listed {
			if e.Created {
				created = append(created, e)
			}
		}
		return queueEvents(ctx, tx, team, store.AuditAdded, at, created)
	})
	if err != nil {
		return nil, c.fail("add to the list", err)
	}
	out := make([]store.Entry, len(entries))
	for i, n := range entries {
		out[i] = listed[index[n.Email]]
	}
	return out, nil
}

// RemoveEmails takes the entries with these addresses off the team's list
// and returns those removed, in the order given; see store.Store.
func (c *Core) RemoveEmails(ctx context.Context, team string, author store.Change, emails []string) ([]store.Entry, error) {
	return c.remove(ctx, team, author, true, emails)
}

// RemoveIDs takes the entries with these IDs off the team's list and
// returns those removed, in the order given; see store.Store. IDs that
// are not UUIDs name no entry.
func (c *Core) RemoveIDs(ctx context.Context, team string, author store.Change, ids []string) ([]store.Entry, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if id, ok := canonicalID(id); ok {
			valid = append(valid, id)
		}
	}
	return c.remove(ctx, team, author, false, valid)
}

// remove takes entries off the list; each removal writes an audit entry
// (after keeping the entry's added one) and its outbox events, in the same
// change.
func (c *Core) remove(ctx context.Context, team string, author store.Change, byEmail bool, keys []string) ([]store.Entry, error) {
	if len(keys) == 0 {
		return []store.Entry{}, nil
	}
	p := &DeleteEntriesParams{Team: team, ByEmail: byEmail, Keys: keys, KeepAdded: !c.noTrail}
	var out []store.Entry
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		removed, err := tx.DeleteEntries(ctx, p)
		if err != nil {
			return err
		}
		out = inOrder(removed, keys, byEmail)
		if c.noTrail {
			return nil
		}
		at := now()
		if err := writeAudit(ctx, tx, team, store.AuditRemoved, at, author, out); err != nil {
			return err
		}
		return queueEvents(ctx, tx, team, store.AuditRemoved, at, out)
	})
	if err != nil {
		return nil, c.fail("remove from the list", err)
	}
	return out, nil
}

// inOrder returns the entries in the order of keys (addresses, or IDs);
// each entry once.
func inOrder(entries []store.Entry, keys []string, byEmail bool) []store.Entry {
	by := make(map[string]store.Entry, len(entries))
	for _, e := range entries {
		if byEmail {
			by[e.Email] = e
		} else {
			by[e.ID] = e
		}
	}
	out := make([]store.Entry, 0, len(entries))
	for _, k := range keys {
		if e, ok := by[k]; ok {
			out = append(out, e)
			delete(by, k)
		}
	}
	return out
}
