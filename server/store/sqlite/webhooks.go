package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// The writer's transaction (and SQLite's write lock between processes)
// makes the count and the insert one step.
func (t tx) InsertWebhook(ctx context.Context, w store.Webhook, limit int) (int64, error) {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return 0, err
	}
	return t.exec("INSERT INTO webhooks (id, team, endpoint, events, status, secret, created_at) SELECT ?,?,?,?,?,?,? "+
		"WHERE (SELECT count(*) FROM webhooks WHERE team = ?) < ?",
		w.ID, w.Team, w.Endpoint, string(events), w.Status, w.Secret, w.CreatedAt.UnixMilli(), w.Team, limit)
}

// webhookCols are what sqlstore.ScanWebhook reads: the events are JSON
// text, no previous secret is ”.
const webhookCols = "id, team, endpoint, events, status, secret, coalesce(prev_secret, ''), prev_until, created_at"

func (s *db) Webhooks(ctx context.Context, team string, w sqlstore.Window) ([]store.Webhook, error) {
	return readWindow(ctx, s, "SELECT "+webhookCols+" FROM webhooks", []string{"team = ?"}, []any{team}, w, sqlstore.ScanWebhook)
}

func (s *db) Webhook(ctx context.Context, team, id string) (store.Webhook, error) {
	return sqlstore.ScanWebhook(s.read.QueryRowContext(ctx, "SELECT "+webhookCols+" FROM webhooks WHERE team = ? AND id = ?", team, id))
}

func (t tx) UpdateWebhook(ctx context.Context, p *sqlstore.UpdateWebhookParams) (int64, error) {
	var events any
	if p.Events != nil {
		b, err := json.Marshal(*p.Events)
		if err != nil {
			return 0, err
		}
		events = string(b)
	}
	return t.exec("UPDATE webhooks SET endpoint = coalesce(?, endpoint), events = coalesce(?, events), status = coalesce(?, status) WHERE team = ? AND id = ?",
		p.Endpoint, events, p.Status, p.Team, p.ID)
}

func (t tx) DeleteWebhook(ctx context.Context, team, id string) (int64, error) {
	n, err := t.exec("DELETE FROM webhooks WHERE team = ? AND id = ?", team, id)
	if err != nil || n == 0 {
		return n, err
	}
	if _, err := t.exec("DELETE FROM webhook_attempts WHERE event_id IN (SELECT id FROM webhook_events WHERE webhook_id = ?)", id); err != nil {
		return 0, err
	}
	_, err = t.exec("DELETE FROM webhook_events WHERE webhook_id = ?", id)
	return n, err
}

func (t tx) RotateSecret(ctx context.Context, p *sqlstore.RotateSecretParams) (int64, error) {
	return t.exec("UPDATE webhooks SET prev_secret = secret, prev_until = ?, secret = ? WHERE team = ? AND id = ?",
		p.KeepOldUntil.UnixMilli(), p.Secret, p.Team, p.ID)
}

// eventCols are what sqlstore.ScanEvent reads.
const eventCols = "id, webhook_id, team, type, created_at, payload, status, next_attempt_at, attempts, retry"

func (s *db) Events(ctx context.Context, team, webhookID string, w sqlstore.Window) ([]store.WebhookEvent, error) {
	return readWindow(ctx, s, "SELECT "+eventCols+" FROM webhook_events", []string{"webhook_id = ?", "team = ?"}, []any{webhookID, team}, w, sqlstore.ScanEvent)
}

func (s *db) Event(ctx context.Context, k sqlstore.EventKey) (store.WebhookEvent, error) {
	return sqlstore.ScanEvent(s.read.QueryRowContext(ctx, "SELECT "+eventCols+" FROM webhook_events WHERE id = ? AND webhook_id = ? AND team = ?", k.EventID, k.WebhookID, k.Team))
}

func (s *db) Attempts(ctx context.Context, eventID string, w sqlstore.Window) ([]store.Attempt, error) {
	return readWindow(ctx, s, "SELECT id, event_id, status_code, response, sent_at FROM webhook_attempts", []string{"event_id = ?"}, []any{eventID}, w, sqlstore.ScanAttempt)
}

func (t tx) ReplayEvent(ctx context.Context, p *sqlstore.ReplayEventParams) (int64, error) {
	// An event whose attempt is under way (leased) keeps its lease: the
	// replay is that attempt, and a parallel one would send the same
	// svix-id twice at once.
	return t.exec(`UPDATE webhook_events SET status = 'attempting', retry = 0,
		next_attempt_at = CASE WHEN leased_until IS NOT NULL AND leased_until > ?1 THEN next_attempt_at ELSE ?1 END
		WHERE id = ?2 AND webhook_id = ?3 AND team = ?4`,
		p.Now.UnixMilli(), p.EventID, p.WebhookID, p.Team)
}

func (t tx) TeamWebhooks(ctx context.Context, team string) ([]store.Webhook, error) {
	st, err := t.s.stmt("SELECT " + webhookCols + " FROM webhooks WHERE team = ? AND status = 'enabled'")
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(context.Background(), team)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanWebhook)
}

func (s *db) AnyDue(ctx context.Context, now time.Time) (bool, error) {
	var due int
	err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? LIMIT 1)", now.UnixMilli()).Scan(&due)
	return due > 0, err
}

// dueEventsSQL takes the oldest perWebhook due events of each enabled
// webhook from the webhook's due index (a few rows each, however many are
// due: an endpoint that hangs can have hundreds of thousands), ranks
// those by team, keeps perTeam of each, and orders them in turns: every
// team's first, then second...
const dueEventsSQL = `SELECT id, webhook_id, team FROM (
	SELECT e.id, e.webhook_id, e.team, e.next_attempt_at, row_number() OVER (PARTITION BY e.team ORDER BY e.next_attempt_at, e.id) AS turn
	FROM webhooks w JOIN webhook_events e ON e.id IN (
		SELECT d.id FROM webhook_events d INDEXED BY webhook_events_webhook_due
		WHERE d.webhook_id = w.id AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?1
		ORDER BY d.next_attempt_at, d.id LIMIT ?2)
	WHERE w.status = 'enabled'
) WHERE turn <= ?3 ORDER BY turn, next_attempt_at, id LIMIT ?4`

func (t tx) DueEvents(ctx context.Context, p *sqlstore.DueEventsParams) ([]sqlstore.DueEvent, error) {
	rows, err := t.c.QueryContext(context.Background(), dueEventsSQL, p.Now.UnixMilli(), p.PerWebhook, p.PerTeam, p.Limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r sqlstore.Row) (sqlstore.DueEvent, error) {
		var e sqlstore.DueEvent
		return e, r.Scan(&e.ID, &e.WebhookID, &e.Team)
	})
}

// The writer's transaction (and, between processes, SQLite's write lock)
// makes the read of the candidates and their lease one step, so no event
// is taken twice.
func (t tx) LeaseEvents(ctx context.Context, p *sqlstore.LeaseEventsParams) ([]sqlstore.Claim, error) {
	bg := context.Background()
	args := []any{p.Until.UnixMilli(), p.Until.UnixMilli(), p.Now.UnixMilli()}
	for _, id := range p.IDs {
		args = append(args, id)
	}
	rows, err := t.c.QueryContext(bg, `UPDATE webhook_events SET next_attempt_at = ?, leased_until = ?
		WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? AND id IN (?`+strings.Repeat(",?", len(p.IDs)-1)+`)
		RETURNING `+eventCols, args...)
	if err != nil {
		return nil, err
	}
	events, err := collect(rows, sqlstore.ScanEvent)
	if err != nil {
		return nil, err
	}
	out := make([]sqlstore.Claim, len(events))
	hooks := map[string]store.Webhook{}
	for i, e := range events {
		w, ok := hooks[e.WebhookID]
		if !ok {
			w, err = sqlstore.ScanWebhook(t.c.QueryRowContext(bg, "SELECT "+webhookCols+" FROM webhooks WHERE id = ?", e.WebhookID))
			if err != nil {
				return nil, err
			}
			hooks[e.WebhookID] = w
		}
		out[i] = sqlstore.Claim{Event: e, Webhook: w}
	}
	return out, nil
}

func (t tx) SettleEvent(ctx context.Context, eventID string, o store.Outcome) (int64, error) {
	var next any
	if !o.NextAttemptAt.IsZero() {
		next = o.NextAttemptAt.UnixMilli()
	}
	return t.exec("UPDATE webhook_events SET status = ?, next_attempt_at = ?, leased_until = NULL, attempts = attempts + 1 WHERE id = ?", o.Status, next, eventID)
}

func (t tx) InsertAttempt(ctx context.Context, a store.Attempt) error {
	_, err := t.exec("INSERT INTO webhook_attempts (id, event_id, status_code, response, sent_at) VALUES (?,?,?,?,?)",
		a.ID, a.EventID, a.StatusCode, a.Response, a.SentAt.UnixMilli())
	return err
}

func (s *db) OutboxStats(ctx context.Context) (store.OutboxStats, error) {
	var (
		st     store.OutboxStats
		oldest sql.NullInt64
	)
	// Events not yet expanded from a fan-out row wait too.
	err := s.read.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM webhook_events WHERE next_attempt_at IS NOT NULL) + (SELECT coalesce(sum(json_array_length(events)), 0) FROM webhook_fanout),
		(SELECT min(t) FROM (SELECT min(created_at) AS t FROM webhook_events WHERE next_attempt_at IS NOT NULL UNION ALL SELECT min(created_at) FROM webhook_fanout))`).Scan(&st.Depth, &oldest)
	if oldest.Valid {
		st.Oldest = time.UnixMilli(oldest.Int64).UTC()
	}
	return st, err
}

func (t tx) PruneEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	const settled = "SELECT id FROM webhook_events WHERE created_at < ? AND next_attempt_at IS NULL ORDER BY created_at LIMIT ?"
	if _, err := t.exec("DELETE FROM webhook_attempts WHERE event_id IN ("+settled+")", before.UnixMilli(), limit); err != nil {
		return 0, err
	}
	return t.exec("DELETE FROM webhook_events WHERE id IN ("+settled+")", before.UnixMilli(), limit)
}
