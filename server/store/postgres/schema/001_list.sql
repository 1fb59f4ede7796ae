-- the list, keyed by ID, one address per team; the keys.
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
);
