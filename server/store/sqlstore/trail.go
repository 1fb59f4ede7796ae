package sqlstore

import (
	"context"
	"time"

	"github.com/shushlist/shush/server/store"
)

// writeAudit writes the trail of one change that took entries off the
// list, inside it: one audit entry per entry, by the change's author;
// changes, when not nil, name the change that listed each (see
// InsertAuditParams).
func writeAudit(ctx context.Context, tx Tx, m *minter, team, typ string, at time.Time, author store.Change, changed []store.Entry, changes []any) error {
	if len(changed) == 0 {
		return nil
	}
	p := &InsertAuditParams{Team: team, Type: typ, At: at, Author: author, IDs: make([]string, len(changed)), Entries: changed, Changes: changes}
	for i := range changed {
		id, err := m.next()
		if err != nil {
			return err
		}
		p.IDs[i] = id
	}
	return tx.InsertAudit(ctx, p)
}

// changeRow is the trail's row of a change that may list new entries: the
// author, and the span of the entries' IDs.
func changeRow(team string, at time.Time, author store.Change, entries []store.Entry) (*ChangeRow, error) {
	id, err := newID()
	if err != nil {
		return nil, err
	}
	first, last := entries[0].ID, entries[0].ID
	for _, e := range entries[1:] {
		first, last = min(first, e.ID), max(last, e.ID)
	}
	return &ChangeRow{ID: id, Team: team, At: at, Author: author, FirstID: first, LastID: last}, nil
}

// Audit returns a page of the team's trail, newest first; see
// store.Store. A SuppressionID that is not an ID names no entry.
func (c *Core) Audit(ctx context.Context, team string, q store.AuditQuery) ([]store.AuditEntry, bool, error) {
	p := &TrailParams{Team: team, Email: q.Email, Reference: q.Reference, Type: q.Type,
		Added: q.Type == "" || q.Type == store.AuditAdded}
	if q.SuppressionID != "" {
		id, ok := canonicalID(q.SuppressionID)
		if !ok {
			return []store.AuditEntry{}, false, nil
		}
		p.SuppressionID = id
	}
	page := store.Page{Limit: q.Limit, After: q.After, Before: q.Before}
	return readPage(ctx, c, "read the trail", page, func(ctx context.Context, w Window) ([]store.AuditEntry, error) {
		p.Window = w
		return c.d.Trail(ctx, p)
	})
}

// PruneAudit deletes trail entries older than before, a change per
// pruneChunk rows; see store.Store. A pruned change takes the added
// entries of the entries it listed with it (they stay on the list).
func (c *Core) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n Pruned
		err := c.d.Change(ctx, func(ctx context.Context, tx Tx) (err error) {
			n, err = tx.PruneTrail(ctx, before, pruneChunk)
			return err
		})
		if err != nil {
			return total, c.fail("prune the trail", err)
		}
		total += n.Audit + n.Hidden
		if n.Audit < pruneChunk && n.Changes < pruneChunk {
			return total, nil
		}
	}
}
