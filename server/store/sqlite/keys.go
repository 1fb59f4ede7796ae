package sqlite

import (
	"context"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

func (t tx) InsertKey(ctx context.Context, k store.Key) error {
	var revoked any
	if k.RevokedAt != nil {
		revoked = k.RevokedAt.UnixMilli()
	}
	_, err := t.exec("INSERT INTO api_keys ("+sqlstore.KeyColumns+") VALUES (?,?,?,?,?,?,?,?,?)",
		k.ID, k.Team, k.Name, k.ReadOnly, k.Hash, k.CreatedAt.UnixMilli(), revoked, k.Override, k.Import)
	return err
}

func (s *db) Key(ctx context.Context, id string) (store.Key, error) {
	return sqlstore.ScanKey(s.reads.keyByID.QueryRowContext(ctx, id))
}

func (s *db) Keys(ctx context.Context) ([]store.Key, error) {
	rows, err := s.read.QueryContext(ctx, "SELECT "+sqlstore.KeyColumns+" FROM api_keys ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanKey)
}

func (t tx) RevokeKey(ctx context.Context, id string, at time.Time) (int64, error) {
	return t.exec("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?", at.UnixMilli(), id)
}
