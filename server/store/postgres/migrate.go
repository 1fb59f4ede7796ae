package postgres

import (
	"context"
	"embed"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store/sqlstore"
)

// schemaFiles are PostgreSQL's schema steps, in the numbering both
// dialects share. Databases made before it record 3 for the steps
// {1, 2, 5} and 4 for {1, 2, 3, 5}; see sqlstore.Schema.
//
//go:embed schema/*.sql
var schemaFiles embed.FS

var schema = sqlstore.Schema{
	Steps:  sqlstore.MustSteps(schemaFiles, "schema"),
	Before: map[int][]int{3: {1, 2, 5}, 4: {1, 2, 3, 5}},
}

// migrate brings the schema up to date. The whole run holds a
// transaction-scoped advisory lock keyed by the schema it works in, so two
// processes starting at once apply each step exactly once: the second
// waits, then finds nothing left to do.
func (s *db) migrate(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('shush.migrate'), hashtext(current_schema()))`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    integer PRIMARY KEY,
			applied_at timestamptz NOT NULL DEFAULT now()
		)`); err != nil {
			return err
		}
		m := migrator{tx}
		had, err := m.Version(ctx)
		if err != nil {
			return err
		}
		if err := sqlstore.Migrate(ctx, m, schema); err != nil {
			return err
		}
		if had == 0 || had >= len(schema.Steps) {
			return nil
		}
		// A step may have made an index or rewritten a column: the
		// statistics the planner had are of the table as it was (and
		// an expression index has none until ANALYZE). A new, empty
		// database has nothing to measure.
		_, err = tx.Exec(ctx, `ANALYZE suppressions, audit, changes`)
		return err
	})
	if err != nil {
		return fmt.Errorf("bring the PostgreSQL schema up to date: %w", mapErr(err))
	}
	return nil
}

// migrator is the history in schema_migrations, stamped by the server's
// clock; see sqlstore.Migrator.
type migrator struct{ tx pgx.Tx }

func (m migrator) Exec(ctx context.Context, q string) error {
	_, err := m.tx.Exec(ctx, q)
	return err
}

func (m migrator) Version(ctx context.Context) (have int, err error) {
	err = m.tx.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM schema_migrations`).Scan(&have)
	return have, err
}

func (m migrator) Record(ctx context.Context, steps []int) error {
	_, err := m.tx.Exec(ctx, `INSERT INTO schema_migrations (version) SELECT unnest($1::int[])`, steps)
	return err
}
