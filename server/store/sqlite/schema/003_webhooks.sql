-- webhooks and the outbox of their events, written by the changes' own
-- transactions; the delivery worker takes due events by next_attempt_at,
-- and settled events keep it NULL.
CREATE TABLE webhooks (
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
CREATE INDEX webhook_attempts_event ON webhook_attempts (event_id, id);
