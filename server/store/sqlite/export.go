package sqlite

import (
	"context"
	"database/sql"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// ExportEntries reads the list from one read transaction: a WAL snapshot,
// in which changes committed meanwhile are not seen.
func (s *db) ExportEntries(ctx context.Context, team string, origin api.Origin, fn func(store.Entry) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q, args := "SELECT id, email, origin, source_id, created_at FROM suppressions WHERE team = ? ORDER BY id DESC", []any{team}
	if origin != "" {
		q, args = "SELECT id, email, origin, source_id, created_at FROM suppressions INDEXED BY suppressions_team_origin_id WHERE team = ? AND origin = ? ORDER BY id DESC", []any{team, string(origin)}
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	return each(rows, sqlstore.ScanEntry, fn)
}
