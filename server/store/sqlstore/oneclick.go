package sqlstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"errors"

	"github.com/shushlist/shush/server/store"
)

// oneClickKeyLen is the length of a team's one-click key, in bytes: the
// block of SHA-256's HMAC needs no more.
const oneClickKeyLen = 32

// OneClickKey returns the team's one-click key, made on first use when
// create is set; see store.OneClickKeys.
func (c *Core) OneClickKey(ctx context.Context, team string, create bool) ([]byte, error) {
	k, err := c.d.OneClickKey(ctx, team)
	if err == nil || !errors.Is(err, sql.ErrNoRows) || !create {
		return k, c.readErr("read the team's one-click key", err)
	}
	fresh := make([]byte, oneClickKeyLen)
	rand.Read(fresh)
	if err := c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		return tx.PutOneClickKey(ctx, team, fresh, now())
	}); err != nil {
		return nil, c.fail("store the team's one-click key", err)
	}
	// Another caller may have stored its key first: the stored one holds.
	k, err = c.d.OneClickKey(ctx, team)
	return k, c.readErr("read the team's one-click key", err)
}

var _ store.OneClickKeys = (*Core)(nil)
