-- the trail, written in each change's transaction; keys get a name.
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
ALTER TABLE api_keys ADD COLUMN name text NOT NULL DEFAULT '';
