package sqlite

import (
	"context"
	"database/sql"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// ExportEntries streams the team's list newest first from one read
// transaction (a WAL snapshot: changes committed meanwhile are not seen);
// see sqlstore.Driver.
func (s *db) ExportEntries(ctx context.Context, team string, origin api.Origin, fn func(store.Entry) error) error {
	tx, err := s.read.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	q := "SELECT id, email, origin, source_id, created_at FROM suppressions WHERE team = ? ORDER BY id DESC"
	args := []any{team}
	if origin != "" {
		q = "SELECT id, email, origin, source_id, created_at FROM suppressions INDEXED BY suppressions_team_origin_id WHERE team = ? AND origin = ? ORDER BY id DESC"
		args = append(args, string(origin))
	}
	rows, err := tx.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return err
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return rows.Err()
}
