-- suppressions keyed by (team, id) so that a team's newest-first page is
-- a range scan; the UUIDv7 IDs sort by creation time.
CREATE TABLE suppressions (
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
);
