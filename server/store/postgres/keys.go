package postgres

import (
	"context"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

func (t tx) InsertKey(ctx context.Context, k store.Key) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO api_keys (`+keyColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		k.ID, k.Team, k.Name, k.ReadOnly, k.Hash, k.CreatedAt, k.RevokedAt, k.Override, k.Import)
	return err
}

// keyColumns are what sqlstore.ScanKey reads; a key ID is text (not a
// UUID), as keys are named by their owners' tools.
const keyColumns = sqlstore.KeyColumns

func (s *db) Key(ctx context.Context, id string) (store.Key, error) {
	return sqlstore.ScanKey(row{s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id)})
}

func (s *db) Keys(ctx context.Context) ([]store.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanKey)
}

func (t tx) RevokeKey(ctx context.Context, id string, at time.Time) (int64, error) {
	return t.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, at)
}
