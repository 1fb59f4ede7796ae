-- webhooks and the outbox of their events, written by the changes' own
-- transactions; delivery workers take due events by next_attempt_at (FOR
-- UPDATE SKIP LOCKED), and settled events keep it NULL. The payload is
-- the body's exact bytes.
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
CREATE INDEX webhook_attempts_event_id ON webhook_attempts (event_id, id);
