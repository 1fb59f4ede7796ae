package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store/sqlstore"
)

// schema is the PostgreSQL side of the schema's history, in the numbering
// both dialects share (see sqlstore.Schema): steps[i] is step i+1.
// Databases made before it record 3 for {1, 2, 5} and 4 for {1, 2, 3, 5}.
var schema = sqlstore.Schema{Steps: steps, Before: map[int][]int{3: {1, 2, 5}, 4: {1, 2, 3, 5}}}

var steps = []string{
	// 1: the list, keyed by ID, one address per team; the keys.
	`
CREATE TABLE suppressions (
	id         uuid PRIMARY KEY,
	team       text NOT NULL,
	email      text NOT NULL,
	origin     text NOT NULL CHECK (origin IN ('bounce', 'complaint', 'manual')),
	source_id  text,
	created_at timestamptz NOT NULL,
	CONSTRAINT suppressions_team_email UNIQUE (team, email)
);
CREATE INDEX suppressions_team_id ON suppressions (team, id);
CREATE TABLE api_keys (
	id         text PRIMARY KEY,
	team       text NOT NULL,
	read_only  boolean NOT NULL,
	hash       bytea NOT NULL,
	created_at timestamptz NOT NULL,
	revoked_at timestamptz
);`,
	// 2: the trail, written in each change's transaction; keys get a name.
	`
CREATE TABLE audit (
	id             uuid PRIMARY KEY,
	team           text NOT NULL,
	type           text NOT NULL CHECK (type IN ('suppression.added', 'suppression.removed')),
	created_at     timestamptz NOT NULL,
	sup_id         uuid NOT NULL,
	email          text NOT NULL,
	origin         text NOT NULL,
	source_id      text,
	sup_created_at timestamptz NOT NULL,
	key_id         text NOT NULL,
	key_name       text NOT NULL,
	reference      text,
	request_id     text NOT NULL
);
CREATE INDEX audit_team_id ON audit (team, id);
CREATE INDEX audit_team_email ON audit (team, email, id);
CREATE INDEX audit_team_sup ON audit (team, sup_id, id);
CREATE INDEX audit_team_reference ON audit (team, reference, id);
CREATE INDEX audit_created ON audit (created_at);
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';`,
	// 3: webhooks and the outbox of their events, written by the changes'
	// own transactions; delivery workers take due events by
	// next_attempt_at (FOR UPDATE SKIP LOCKED), and settled events keep it
	// NULL. The payload is the body's exact bytes.
	`
CREATE TABLE webhooks (
	id          uuid PRIMARY KEY,
	team        text NOT NULL,
	endpoint    text NOT NULL,
	events      text[] NOT NULL,
	status      text NOT NULL CHECK (status IN ('enabled', 'disabled')),
	secret      text NOT NULL,
	prev_secret text,
	prev_until  timestamptz,
	created_at  timestamptz NOT NULL
);
CREATE INDEX webhooks_team_id ON webhooks (team, id);
CREATE TABLE webhook_events (
	id              uuid PRIMARY KEY,
	webhook_id      uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
	team            text NOT NULL,
	type            text NOT NULL,
	created_at      timestamptz NOT NULL,
	payload         bytea NOT NULL,
	status          text NOT NULL CHECK (status IN ('pending', 'attempting', 'success', 'failed')),
	next_attempt_at timestamptz,
	attempts        integer NOT NULL DEFAULT 0,
	retry           boolean NOT NULL DEFAULT true
);
CREATE INDEX webhook_events_webhook_id ON webhook_events (webhook_id, id);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at) WHERE next_attempt_at IS NOT NULL;
CREATE INDEX webhook_events_created ON webhook_events (created_at);
CREATE TABLE webhook_attempts (
	id          uuid PRIMARY KEY,
	event_id    uuid NOT NULL REFERENCES webhook_events (id) ON DELETE CASCADE,
	status_code integer NOT NULL,
	response    text NOT NULL,
	sent_at     timestamptz NOT NULL
);
CREATE INDEX webhook_attempts_event_id ON webhook_attempts (event_id, id);`,
	// 4: the trail of additions kept by the additions themselves: a change
	// that lists new addresses writes one row (who, why, and the span of
	// the IDs it made), and each new entry names it; the "added" audit
	// entry of a listed suppression is read from the two, and written to
	// the audit table only when the suppression is removed. Entries listed
	// before this step keep their audit rows and have no change.
	`
CREATE TABLE changes (
	id         uuid PRIMARY KEY,
	team       text NOT NULL,
	created_at timestamptz NOT NULL,
	key_id     text NOT NULL,
	key_name   text NOT NULL,
	reference  text,
	request_id text NOT NULL,
	first_id   uuid NOT NULL,
	last_id    uuid NOT NULL
);
CREATE INDEX changes_team_reference ON changes (team, reference) WHERE reference IS NOT NULL;
CREATE INDEX changes_created ON changes (created_at);
ALTER TABLE suppressions ADD COLUMN change_id uuid;`,
	// 5: a page of one origin reads its own range, however few entries of
	// that origin the team has among many.
	`CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id);`,
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
		return sqlstore.Migrate(ctx, migrator{tx}, schema)
	})
	if err != nil {
		return fmt.Errorf("bring the PostgreSQL schema up to date: %w", mapErr(err))
	}
	return nil
}

// migrator records steps in schema_migrations; see sqlstore.Migrator.
type migrator struct{ tx pgx.Tx }

func (m migrator) Version(ctx context.Context) (int, error) {
	var have int
	err := m.tx.QueryRow(ctx, `SELECT COALESCE(max(version), 0) FROM schema_migrations`).Scan(&have)
	return have, err
}

func (m migrator) Apply(ctx context.Context, n int, step string) error {
	if _, err := m.tx.Exec(ctx, step); err != nil {
		return err
	}
	_, err := m.tx.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, n)
	return err
}

// Renumber rewrites the history of a database made before the shared
// numbering: its steps are recorded anew, as of now.
func (m migrator) Renumber(ctx context.Context, steps []int) error {
	if _, err := m.tx.Exec(ctx, `DELETE FROM schema_migrations`); err != nil {
		return err
	}
	_, err := m.tx.Exec(ctx, `INSERT INTO schema_migrations (version) SELECT unnest($1::int[])`, steps)
	return err
}
