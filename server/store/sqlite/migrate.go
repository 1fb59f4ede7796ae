package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"time"

	"github.com/shushlist/shush/server/store/sqlstore"
)

// schemaFiles are SQLite's schema steps, in the numbering both dialects
// share: SQLite's own numbering was already that one, so no history needs
// renumbering.
//
//go:embed schema/*.sql
var schemaFiles embed.FS

var schema = sqlstore.Schema{Steps: sqlstore.MustSteps(schemaFiles, "schema")}

// migrate applies the steps the database lacks, in one transaction, so
// that two processes opening a fresh file at once cannot both apply them.
func migrate(ctx context.Context, c *sql.Conn) (err error) {
	if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_, _ = c.ExecContext(context.Background(), "ROLLBACK")
		}
	}()
	if _, err := c.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER NOT NULL PRIMARY KEY,
		applied_at INTEGER NOT NULL
	)`); err != nil {
		return err
	}
	if err := sqlstore.Migrate(ctx, migrator{c}, schema); err != nil {
		return err
	}
	_, err = c.ExecContext(ctx, "COMMIT")
	return err
}

// migrator is the history in schema_migrations, whose times are Unix
// milliseconds; see sqlstore.Migrator.
type migrator struct{ c *sql.Conn }

func (m migrator) Exec(ctx context.Context, q string) error {
	_, err := m.c.ExecContext(ctx, q)
	return err
}

func (m migrator) Version(ctx context.Context) (have int, err error) {
	err = m.c.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&have)
	return have, err
}

func (m migrator) Record(ctx context.Context, steps []int) error {
	for _, n := range steps {
		if _, err := m.c.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", n, time.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}
