-- erasure: each team's erasure secrets, by version (made on the team's
-- first erasure; a rotation adds one), under which an erased address is
-- kept as its keyed hash only; and the trail's type of an erasure. The
-- audit table is made again for its CHECK, which SQLite cannot alter.
CREATE TABLE erasure_secrets (
	team       TEXT    NOT NULL,
	version    INTEGER NOT NULL,
	secret     BLOB    NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (team, version)
) WITHOUT ROWID;
CREATE TABLE audit_new (
	team           TEXT    NOT NULL,
	id             TEXT    NOT NULL,
	type           TEXT    NOT NULL CHECK (type IN ('suppression.added', 'suppression.removed', 'suppression.erased')),
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
	note           TEXT,
	expires_at     INTEGER,
	agent_id       TEXT,
	agent_name     TEXT,
	change_id      INTEGER,
	evidence       TEXT,
	PRIMARY KEY (team, id)
) WITHOUT ROWID;
INSERT INTO audit_new (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name,
		reference, request_id, note, expires_at, agent_id, agent_name, change_id, evidence)
	SELECT team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name,
		reference, request_id, note, expires_at, agent_id, agent_name, change_id, evidence FROM audit;
DROP TABLE audit;
ALTER TABLE audit_new RENAME TO audit;
CREATE INDEX audit_team_email ON audit (team, email, id);
CREATE INDEX audit_team_sup ON audit (team, sup_id, id);
CREATE INDEX audit_team_reference ON audit (team, reference, id) WHERE reference IS NOT NULL;
CREATE INDEX audit_created ON audit (created_at);
-- the events the intake took in, by age, for their pruning (audit prune).
CREATE INDEX intake_events_received ON intake_events (received_at);
