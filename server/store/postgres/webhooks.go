package postgres

import (
	"context"
	"slices"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// A lock of the team's webhooks, held to the end of the transaction,
// makes the count and the insert one step: two creations at once under
// read committed would each count the other's row out.
func (t tx) InsertWebhook(ctx context.Context, w store.Webhook, limit int) (int64, error) {
	if _, err := t.tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('shush webhooks of ' || $1))", w.Team); err != nil {
		return 0, err
	}
	return t.exec(ctx, "INSERT INTO webhooks (id, team, endpoint, events, status, secret, created_at) SELECT $1, $2, $3, $4, $5, $6, $7 "+
		"WHERE (SELECT count(*) FROM webhooks WHERE team = $2) < $8",
		w.ID, w.Team, w.Endpoint, w.Events, w.Status, w.Secret, w.CreatedAt, limit)
}

// webhookColumns are what sqlstore.ScanWebhook reads: the uuid ID as
// text, no previous secret as ”.
const webhookColumns = "id::text, team, endpoint, events, status, secret, coalesce(prev_secret, ''), prev_until, created_at"

func (s *db) Webhooks(ctx context.Context, team string, w sqlstore.Window) ([]store.Webhook, error) {
	return readWindow(ctx, s, "SELECT "+webhookColumns+" FROM webhooks", "team = $1", []string{"webhooks.team", "webhooks.id"}, []any{team}, w, sqlstore.ScanWebhook)
}

func (s *db) Webhook(ctx context.Context, team, id string) (store.Webhook, error) {
	return sqlstore.ScanWebhook(row{s.pool.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE team = $1 AND id = $2", team, id)})
}

func (t tx) UpdateWebhook(ctx context.Context, p *sqlstore.UpdateWebhookParams) (int64, error) {
	var events []string
	if p.Events != nil {
		events = *p.Events
	}
	return t.exec(ctx, `UPDATE webhooks SET
		endpoint = coalesce($3, endpoint),
		events = CASE WHEN $4 THEN $5::text[] ELSE events END,
		status = coalesce($6, status)
		WHERE team = $1 AND id = $2`, p.Team, p.ID, p.Endpoint, p.Events != nil, events, p.Status)
}

// DeleteWebhook removes a webhook; its events and attempts go with it
// (ON DELETE CASCADE). See sqlstore.Tx.
func (t tx) DeleteWebhook(ctx context.Context, team, id string) (int64, error) {
	return t.exec(ctx, "DELETE FROM webhooks WHERE team = $1 AND id = $2", team, id)
}

func (t tx) RotateSecret(ctx context.Context, p *sqlstore.RotateSecretParams) (int64, error) {
	return t.exec(ctx, "UPDATE webhooks SET prev_secret = secret, prev_until = $3, secret = $4 WHERE team = $1 AND id = $2",
		p.Team, p.ID, p.KeepOldUntil, p.Secret)
}

// eventColumns are what sqlstore.ScanEvent reads, the IDs as text.
const eventColumns = "id::text, webhook_id::text, team, type, created_at, payload, status, next_attempt_at, attempts, retry"

func (s *db) Events(ctx context.Context, team, webhookID string, w sqlstore.Window) ([]store.WebhookEvent, error) {
	return readWindow(ctx, s, "SELECT "+eventColumns+" FROM webhook_events", "webhook_id = $1 AND team = $2", []string{"webhook_events.webhook_id", "webhook_events.id"}, []any{webhookID, team}, w, sqlstore.ScanEvent)
}

func (s *db) Event(ctx context.Context, k sqlstore.EventKey) (store.WebhookEvent, error) {
	return sqlstore.ScanEvent(row{s.pool.QueryRow(ctx, "SELECT "+eventColumns+" FROM webhook_events WHERE id = $1 AND webhook_id = $2 AND team = $3", k.EventID, k.WebhookID, k.Team)})
}

func (s *db) Attempts(ctx context.Context, eventID string, w sqlstore.Window) ([]store.Attempt, error) {
	return readWindow(ctx, s, "SELECT id::text, event_id::text, status_code, response, sent_at FROM webhook_attempts", "event_id = $1", []string{"webhook_attempts.event_id", "webhook_attempts.id"}, []any{eventID}, w, sqlstore.ScanAttempt)
}

func (t tx) ReplayEvent(ctx context.Context, p *sqlstore.ReplayEventParams) (int64, error) {
	// An event whose attempt is under way (leased) keeps its lease: the
	// replay is that attempt, and a parallel one would send the same
	// svix-id twice at once.
	return t.exec(ctx, `UPDATE webhook_events SET status = 'attempting', retry = false,
		next_attempt_at = CASE WHEN leased_until > $4 THEN next_attempt_at ELSE $4 END
		WHERE id = $1 AND webhook_id = $2 AND team = $3`,
		p.EventID, p.WebhookID, p.Team, p.Now)
}

// hooksSQL reads a team's enabled webhooks.
const hooksSQL = "SELECT " + webhookColumns + " FROM webhooks WHERE team = $1 AND status = 'enabled'"

func (t tx) TeamWebhooks(ctx context.Context, team string) ([]store.Webhook, error) {
	if r := t.group(team); r != nil && r.hooksRead {
		return cloneWebhooks(r.hooks), nil
	}
	rows, err := t.tx.Query(ctx, hooksSQL, team)
	if err != nil {
		return nil, err
	}
	hooks, err := collect(rows, sqlstore.ScanWebhook)
	if r := t.group(team); r != nil && err == nil {
		r.hooks, r.hooksRead = cloneWebhooks(hooks), true
	}
	return hooks, err
}

// cloneWebhooks copies the webhooks, their events too.
func cloneWebhooks(hooks []store.Webhook) []store.Webhook {
	out := slices.Clone(hooks)
	for i := range out {
		out[i].Events = slices.Clone(out[i].Events)
	}
	return out
}

func (t tx) InsertEvents(ctx context.Context, p *sqlstore.InsertEventsParams) error {
	ids, hooks, bodies := make([]string, len(p.Rows)), make([]string, len(p.Rows)), make([][]byte, len(p.Rows))
	for i, r := range p.Rows {
		ids[i], hooks[i], bodies[i] = r.ID, r.WebhookID, r.Payload
	}
	_, err := t.tx.Exec(ctx, `
		INSERT INTO webhook_events (id, webhook_id, team, type, created_at, payload, status, next_attempt_at)
		SELECT u.id, u.hook, $1, $2, $3, u.body, 'pending', $3
		FROM unnest($4::uuid[], $5::uuid[], $6::bytea[]) AS u(id, hook, body)`,
		p.Team, p.Type, p.At, ids, hooks, bodies)
	return err
}

func (s *db) AnyDue(ctx context.Context, now time.Time) (bool, error) {
	var due bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM webhook_events WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= $1)", now).Scan(&due)
	return due, err
}

// DueEvents takes the oldest PerWebhook due events of each enabled
// webhook from the webhook's due index (a few rows each, however many are
// due), ranks those by team, keeps PerTeam of each, and orders them in
// turns: every team's first, then second...
func (t tx) DueEvents(ctx context.Context, p *sqlstore.DueEventsParams) ([]sqlstore.DueEvent, error) {
	rows, err := t.tx.Query(ctx, `SELECT id::text, webhook_id::text, team FROM (
		SELECT d.id, d.webhook_id, d.team, d.next_attempt_at, row_number() OVER (PARTITION BY d.team ORDER BY d.next_attempt_at, d.id) AS turn
		FROM webhooks w CROSS JOIN LATERAL (
			SELECT e.id, e.webhook_id, e.team, e.next_attempt_at FROM webhook_events e
			WHERE e.webhook_id = w.id AND e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= $1
			ORDER BY e.next_attempt_at, e.id LIMIT $2
		) d
		WHERE w.status = 'enabled'
	) turns WHERE turn <= $3 ORDER BY turn, next_attempt_at, id LIMIT $4`, p.Now, p.PerWebhook, p.PerTeam, p.Limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r sqlstore.Row) (sqlstore.DueEvent, error) {
		var e sqlstore.DueEvent
		return e, r.Scan(&e.ID, &e.WebhookID, &e.Team)
	})
}

// LeaseEvents takes the candidates still due: another process that
// leased one first has moved its next attempt past now, which the update
// sees once that process commits (read committed re-reads a row it waited
// for), so no event is taken twice.
func (t tx) LeaseEvents(ctx context.Context, p *sqlstore.LeaseEventsParams) ([]sqlstore.Claim, error) {
	rows, err := t.tx.Query(ctx, `
		WITH claimed AS (
			UPDATE webhook_events e SET next_attempt_at = $2, leased_until = $2
			WHERE e.id = ANY($3::uuid[]) AND e.next_attempt_at <= $1
			RETURNING e.*
		)
		SELECT c.id::text, c.webhook_id::text, c.team, c.type, c.created_at, c.payload, c.status, c.next_attempt_at, c.attempts, c.retry,
			w.endpoint, w.secret, coalesce(w.prev_secret, ''), w.prev_until
		FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`, p.Now, p.Until, p.IDs)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r sqlstore.Row) (sqlstore.Claim, error) {
		var (
			c              sqlstore.Claim
			at, next, prev sqlstore.Time
		)
		e, w := &c.Event, &c.Webhook
		err := r.Scan(&e.ID, &e.WebhookID, &e.Team, &e.Type, &at, &e.Payload, &e.Status, &next, &e.Attempts, &e.Retry,
			&w.Endpoint, &w.Secret, &w.PrevSecret, &prev)
		e.CreatedAt, e.NextAttemptAt, w.PrevUntil = at.Time, next.Time, prev.Time
		return c, err
	})
}

func (t tx) SettleEvent(ctx context.Context, eventID string, o store.Outcome) (int64, error) {
	var next *time.Time
	if !o.NextAttemptAt.IsZero() {
		next = &o.NextAttemptAt
	}
	return t.exec(ctx, "UPDATE webhook_events SET status = $2, next_attempt_at = $3, leased_until = NULL, attempts = attempts + 1 WHERE id = $1", eventID, o.Status, next)
}

func (t tx) InsertAttempt(ctx context.Context, a store.Attempt) error {
	_, err := t.tx.Exec(ctx, "INSERT INTO webhook_attempts (id, event_id, status_code, response, sent_at) VALUES ($1, $2, $3, $4, $5)",
		a.ID, a.EventID, a.StatusCode, a.Response, a.SentAt)
	return err
}

func (s *db) OutboxStats(ctx context.Context) (store.OutboxStats, error) {
	var (
		st     store.OutboxStats
		oldest *time.Time
	)
	err := s.pool.QueryRow(ctx, "SELECT count(*), min(created_at) FROM webhook_events WHERE next_attempt_at IS NOT NULL").Scan(&st.Depth, &oldest)
	if oldest != nil {
		st.Oldest = *oldest
	}
	return st, err
}

func (t tx) PruneEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	return t.exec(ctx, `DELETE FROM webhook_events WHERE id IN (
		SELECT id FROM webhook_events WHERE created_at < $1 AND next_attempt_at IS NULL ORDER BY created_at LIMIT $2)`, before, limit)
}
