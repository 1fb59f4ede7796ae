-- evidence on each entry (JSON text: the provider, the event's ID, the
-- status code and the remote server's words; NULL for an entry made by
-- hand), kept by the trail with what it records; each team's policy for
-- temporary failures (NULL: the default); the teams' intake endpoints;
-- the events taken in, by provider and event ID (a replay finds its row;
-- an insert waits for a change of another process that holds the same
-- key and then skips it), the temporary failures counted by address and
-- time; and the review queue, the events the rules could not place,
-- waiting for an agent's decision.
ALTER TABLE suppressions ADD COLUMN evidence text;
ALTER TABLE audit ADD COLUMN evidence text;
ALTER TABLE teams ADD COLUMN soft_threshold integer;
ALTER TABLE teams ADD COLUMN soft_window bigint;
ALTER TABLE teams ADD COLUMN soft_expiry bigint;
CREATE TABLE intakes (
	id         uuid PRIMARY KEY,
	team       text NOT NULL,
	provider   text NOT NULL CHECK (provider IN ('resend', 'sendgrid', 'postmark', 'mailgun', 'ses')),
	name       text NOT NULL,
	credential text NOT NULL,
	topic_arn  text,
	created_at timestamptz NOT NULL
);
CREATE INDEX intakes_team ON intakes (team, created_at);
CREATE TABLE intake_events (
	team        text NOT NULL,
	provider    text NOT NULL,
	event_id    text NOT NULL,
	email       text NOT NULL,
	temporary   boolean NOT NULL,
	message_key text NOT NULL,
	received_at timestamptz NOT NULL,
	PRIMARY KEY (team, provider, event_id)
);
CREATE INDEX intake_events_failures ON intake_events (team, email, received_at) INCLUDE (message_key) WHERE temporary;
CREATE TABLE intake_review (
	team        text NOT NULL,
	id          uuid NOT NULL,
	intake_id   text NOT NULL,
	provider    text NOT NULL,
	email       text NOT NULL,
	evidence    text NOT NULL,
	reason      text NOT NULL,
	received_at timestamptz NOT NULL,
	decision    text CHECK (decision IN ('suppress', 'ignore')),
	decided_at  timestamptz,
	decided_by  text,
	note        text,
	entry_id    text,
	PRIMARY KEY (team, id)
);
CREATE INDEX intake_review_waiting ON intake_review (team, id) WHERE decision IS NULL;
CREATE INDEX intake_review_decided ON intake_review (team, id) WHERE decision IS NOT NULL;
