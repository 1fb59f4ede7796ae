package sqlite

import (
	"context"
	"database/sql"
	"time"

	"github.com/shushlist/shush/server/store/sqlstore"
)

// schema is the SQLite side of the schema's history, in the numbering
// both dialects share (see sqlstore.Schema): steps[i] is step i+1.
var schema = sqlstore.Schema{Steps: steps}

var steps = []string{
	// 1: suppressions keyed by (team, id) so that a team's newest-first page
	// is a range scan; the UUIDv7 IDs sort by creation time.
	`CREATE TABLE suppressions (
		team       TEXT    NOT NULL,
		id         TEXT    NOT NULL,
		email      TEXT    NOT NULL,
		origin     TEXT    NOT NULL CHECK (origin IN ('bounce', 'complaint', 'manual')),
		source_id  TEXT,
		created_at INTEGER NOT NULL,
		PRIMARY KEY (team, id)
	) WITHOUT ROWID;
	CREATE UNIQUE INDEX suppressions_team_email ON suppressions (team, email);
	CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id);
	CREATE TABLE api_keys (
		id         TEXT    NOT NULL PRIMARY KEY,
		team       TEXT    NOT NULL,
		read_only  INTEGER NOT NULL,
		hash       BLOB    NOT NULL,
		created_at INTEGER NOT NULL,
		revoked_at INTEGER
	);`,
	// 2: the trail: one row per suppression a change put on or took off a
	// list, written in the change's transaction; keys get a name for it.
	`CREATE TABLE audit (
		team           TEXT    NOT NULL,
		id             TEXT    NOT NULL,
		type           TEXT    NOT NULL CHECK (type IN ('suppression.added', 'suppression.removed')),
		created_at     INTEGER NOT NULL,
		sup_id         TEXT    NOT NULL,
		email          TEXT    NOT NULL,
		origin         TEXT    NOT NULL,
		source_id      TEXT,
		sup_created_at INTEGER NOT NULL,
		key_id         TEXT    NOT NULL,
		key_name       TEXT    NOT NULL,
		reference      TEXT,
		request_id     TEXT    NOT NULL,
		PRIMARY KEY (team, id)
	) WITHOUT ROWID;
	CREATE INDEX audit_team_email ON audit (team, email, id);
	CREATE INDEX audit_team_sup ON audit (team, sup_id, id);
	CREATE INDEX audit_team_reference ON audit (team, reference, id);
	CREATE INDEX audit_created ON audit (created_at);
	ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';`,
	// 3: webhooks and the outbox of their events, written by the changes'
	// own transactions; the delivery worker takes due events by
	// next_attempt_at, and settled events keep it NULL.
	`CREATE TABLE webhooks (
		id          TEXT    NOT NULL PRIMARY KEY,
		team        TEXT    NOT NULL,
		endpoint    TEXT    NOT NULL,
		events      TEXT    NOT NULL,
		status      TEXT    NOT NULL CHECK (status IN ('enabled', 'disabled')),
		secret      TEXT    NOT NULL,
		prev_secret TEXT,
		prev_until  INTEGER,
		created_at  INTEGER NOT NULL
	);
	CREATE INDEX webhooks_team ON webhooks (team, id);
	CREATE TABLE webhook_events (
		id              TEXT    NOT NULL PRIMARY KEY,
		webhook_id      TEXT    NOT NULL,
		team            TEXT    NOT NULL,
		type            TEXT    NOT NULL,
		created_at      INTEGER NOT NULL,
		payload         BLOB    NOT NULL,
		status          TEXT    NOT NULL CHECK (status IN ('pending', 'attempting', 'success', 'failed')),
		next_attempt_at INTEGER,
		attempts        INTEGER NOT NULL DEFAULT 0,
		retry           INTEGER NOT NULL DEFAULT 1
	);
	CREATE INDEX webhook_events_webhook ON webhook_events (webhook_id, id);
	CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
	CREATE INDEX webhook_events_created ON webhook_events (created_at);
	CREATE TABLE webhook_attempts (
		id          TEXT    NOT NULL PRIMARY KEY,
		event_id    TEXT    NOT NULL,
		status_code INTEGER NOT NULL,
		response    TEXT    NOT NULL,
		sent_at     INTEGER NOT NULL
	);
	CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, id);`,
	// 4: the trail of additions kept by the additions themselves: a change
	// that lists new addresses writes one row (who, why, and the span of
	// the IDs it made), and each new entry names it; the "added" audit
	// entry of a listed suppression is read from the two, and written to
	// the audit table only when the suppression is removed. Entries listed
	// before this step keep their audit rows and have no change.
	`CREATE TABLE changes (
		id         INTEGER NOT NULL PRIMARY KEY,
		team       TEXT    NOT NULL,
		created_at INTEGER NOT NULL,
		key_id     TEXT    NOT NULL,
		key_name   TEXT    NOT NULL,
		reference  TEXT,
		request_id TEXT    NOT NULL,
		first_id   TEXT    NOT NULL,
		last_id    TEXT    NOT NULL
	);
	CREATE INDEX changes_team_reference ON changes (team, reference) WHERE reference IS NOT NULL;
	CREATE INDEX changes_created ON changes (created_at);
	ALTER TABLE suppressions ADD COLUMN change_id INTEGER;`,
	// 5: a page of one origin reads its entries from the origin index
	// alone: with the columns a page shows in it, a rare origin's page is
	// no longer a primary-key look-up per entry.
	`DROP INDEX suppressions_team_origin_id;
	CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id, email, source_id, created_at);`,
}

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

// migrator records steps in schema_migrations; see sqlstore.Migrator.
type migrator struct{ c *sql.Conn }

func (m migrator) Version(ctx context.Context) (int, error) {
	var have int
	err := m.c.QueryRowContext(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&have)
	return have, err
}

func (m migrator) Apply(ctx context.Context, n int, step string) error {
	if _, err := m.c.ExecContext(ctx, step); err != nil {
		return err
	}
	_, err := m.c.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", n, time.Now().UnixMilli())
	return err
}

// Renumber rewrites the history; SQLite's own numbering was already the
// shared one, so schema names no history to renumber.
func (m migrator) Renumber(ctx context.Context, steps []int) error {
	if _, err := m.c.ExecContext(ctx, "DELETE FROM schema_migrations"); err != nil {
		return err
	}
	for _, n := range steps {
		if _, err := m.c.ExecContext(ctx, "INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)", n, time.Now().UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}
