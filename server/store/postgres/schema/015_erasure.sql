-- erasure: each team's erasure secrets, by version (made on the team's
-- first erasure; a rotation adds one), under which an erased address is
-- kept as its keyed hash only; and the trail's type of an erasure (the
-- rows already there hold the old types: NOT VALID spares their scan).
CREATE TABLE erasure_secrets (
	team       text        NOT NULL,
	version    integer     NOT NULL,
	secret     bytea       NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (team, version)
);
ALTER TABLE audit DROP CONSTRAINT audit_type_check;
ALTER TABLE audit ADD CONSTRAINT audit_type_check
	CHECK (type IN ('suppression.added', 'suppression.removed', 'suppression.erased')) NOT VALID;
-- the events the intake took in, by age, for their pruning (audit prune).
CREATE INDEX intake_events_received ON intake_events (received_at);
