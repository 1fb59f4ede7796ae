-- the trail: one row per suppression a change put on or took off a list,
-- written in the change's transaction; keys get a name for it.
CREATE TABLE audit (
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
ALTER TABLE api_keys ADD COLUMN name TEXT NOT NULL DEFAULT '';
