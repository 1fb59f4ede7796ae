-- a change that queues many webhook events (an add to a team with many
-- webhooks) writes one row per entry here, with the IDs and webhooks of
-- its events; the store writes those events into webhook_events in small
-- steps of their own, teams in turns, so that one team's fan-out never
-- holds the single writer for long. And the due events of each webhook,
-- oldest first, so that a claim reads a few of each webhook's, not every
-- event due.
CREATE TABLE webhook_fanout (
	seq        INTEGER PRIMARY KEY,
	team       TEXT    NOT NULL,
	type       TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	payload    BLOB    NOT NULL,
	events     TEXT    NOT NULL
);
CREATE INDEX webhook_fanout_team ON webhook_fanout (team, seq);
CREATE INDEX webhook_events_webhook_due ON webhook_events (webhook_id, next_attempt_at, id) WHERE next_attempt_at IS NOT NULL;
