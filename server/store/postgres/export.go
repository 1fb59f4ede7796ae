package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// ExportEntries streams the team's list newest first from one
// REPEATABLE READ snapshot; pgx reads the rows as they come, so memory
// stays flat. See sqlstore.Driver.
func (s *db) ExportEntries(ctx context.Context, team string, origin api.Origin, fn func(store.Entry) error) error {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	q := `SELECT ` + entryColumns + ` FROM suppressions WHERE team = $1 ORDER BY suppressions.team DESC, suppressions.id DESC`
	args := []any{team}
	if origin != "" {
		q = `SELECT ` + entryColumns + ` FROM suppressions WHERE team = $1 AND origin = $2 ORDER BY suppressions.team DESC, suppressions.origin DESC, suppressions.id DESC`
		args = append(args, string(origin))
	}
	rows, err := tx.Query(ctx, q, args...)
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
