package sqlstore

import (
	"context"
	"time"

	"github.com/shushlist/shush/server/store"
)

// CreateKey stores a new key; see store.Store.
func (c *Core) CreateKey(ctx context.Context, k store.Key) error {
	k.CreatedAt = k.CreatedAt.UTC().Truncate(time.Millisecond)
	if k.RevokedAt != nil {
		t := k.RevokedAt.UTC().Truncate(time.Millisecond)
		k.RevokedAt = &t
	}
	return c.fail("store the key", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		return tx.InsertKey(ctx, k)
	}))
}

// KeyByID returns the key with this ID, revoked or not; see store.Store.
func (c *Core) KeyByID(ctx context.Context, id string) (store.Key, error) {
	k, err := c.d.Key(ctx, id)
	return k, c.readErr("read the key", err)
}

// ListKeys returns every key, oldest first; see store.Store.
func (c *Core) ListKeys(ctx context.Context) ([]store.Key, error) {
	keys, err := c.d.Keys(ctx)
	if err != nil {
		return nil, c.fail("read the keys", err)
	}
	if keys == nil {
		keys = []store.Key{}
	}
	return keys, nil
}

// RevokeKey marks a key revoked; a key revoked before keeps its first
// revocation time. See store.Store.
func (c *Core) RevokeKey(ctx context.Context, id string) error {
	// Counted once the change is committed (or failed), never before:
	// the service's key cache re-reads keys when the count moves.
	defer c.revocations.Add(1)
	at := now()
	return c.changeOne(ctx, "revoke the key", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.RevokeKey(ctx, id, at)
	})
}
