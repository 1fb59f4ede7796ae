-- evidence on each entry (JSON text: the provider, the event's ID, the
-- status code and the remote server's words; NULL for an entry made by
-- hand), kept by the trail with what it records and by the origin index
-- with what a page shows; each team's policy for temporary failures
-- (NULL: the default); the teams' intake endpoints; the events taken in,
-- by provider and event ID (a replay finds its row), the temporary
-- failures counted by address and time; and the review queue, the events
-- the rules could not place, waiting for an agent's decision.
ALTER TABLE suppressions ADD COLUMN evidence TEXT;
ALTER TABLE audit ADD COLUMN evidence TEXT;
DROP INDEX suppressions_team_origin_id;
CREATE INDEX suppressions_team_origin_id ON suppressions (team, origin, id, email, source_id, created_at, note, expires_at, evidence);
ALTER TABLE teams ADD COLUMN soft_threshold INTEGER;
ALTER TABLE teams ADD COLUMN soft_window INTEGER;
ALTER TABLE teams ADD COLUMN soft_expiry INTEGER;
CREATE TABLE intakes (
	id         TEXT    NOT NULL PRIMARY KEY,
	team       TEXT    NOT NULL,
	provider   TEXT    NOT NULL CHECK (provider IN ('resend', 'sendgrid', 'postmark', 'mailgun', 'ses')),
	name       TEXT    NOT NULL,
	credential TEXT    NOT NULL,
	topic_arn  TEXT,
	created_at INTEGER NOT NULL
);
CREATE INDEX intakes_team ON intakes (team, created_at);
CREATE TABLE intake_events (
	team        TEXT    NOT NULL,
	provider    TEXT    NOT NULL,
	event_id    TEXT    NOT NULL,
	email       TEXT    NOT NULL,
	temporary   INTEGER NOT NULL,
	message_key TEXT    NOT NULL,
	received_at INTEGER NOT NULL,
	PRIMARY KEY (team, provider, event_id)
) WITHOUT ROWID;
CREATE INDEX intake_events_failures ON intake_events (team, email, received_at, message_key) WHERE temporary = 1;
CREATE TABLE intake_review (
	team        TEXT    NOT NULL,
	id          TEXT    NOT NULL,
	intake_id   TEXT    NOT NULL,
	provider    TEXT    NOT NULL,
	email       TEXT    NOT NULL,
	evidence    TEXT    NOT NULL,
	reason      TEXT    NOT NULL,
	received_at INTEGER NOT NULL,
	decision    TEXT CHECK (decision IN ('suppress', 'ignore')),
	decided_at  INTEGER,
	decided_by  TEXT,
	note        TEXT,
	entry_id    TEXT,
	PRIMARY KEY (team, id)
) WITHOUT ROWID;
CREATE INDEX intake_review_waiting ON intake_review (team, id) WHERE decision IS NULL;
CREATE INDEX intake_review_decided ON intake_review (team, id) WHERE decision IS NOT NULL;
