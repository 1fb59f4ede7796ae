-- the due events of each webhook, oldest first, so that a claim reads a
-- few of each webhook's, not every event due (an endpoint that hangs can
-- have hundreds of thousands).
CREATE INDEX webhook_events_webhook_due ON webhook_events (webhook_id, next_attempt_at, id) WHERE next_attempt_at IS NOT NULL;
