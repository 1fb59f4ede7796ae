package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/server/store"
)

const webhookCols = "id, team, endpoint, events, status, secret, coalesce(prev_secret, ''), coalesce(prev_until, 0), created_at"

func scanWebhook(r scanner) (store.Webhook, error) {
	var (
		w              store.Webhook
		events         string
		prevMs, prevAt int64
	)
	if err := r.Scan(&w.ID, &w.Team, &w.Endpoint, &events, &w.Status, &w.Secret, &w.PrevSecret, &prevMs, &prevAt); err != nil {
		return store.Webhook{}, err
	}
	if err := json.Unmarshal([]byte(events), &w.Events); err != nil {
		return store.Webhook{}, err
	}
	if prevMs != 0 {
		w.PrevUntil = time.UnixMilli(prevMs).UTC()
	}
	w.CreatedAt = time.UnixMilli(prevAt).UTC()
	return w, nil
}

// queueEvents writes the outbox rows of one change, inside its
// transaction: an event per changed suppression and enabled webhook of the
// team that lists typ. A team without webhooks costs one indexed read.
func (s *Store) queueEvents(team, typ string, at time.Time, changed []store.Entry) error {
	if len(changed) == 0 {
		return nil
	}
	st, err := s.stmt("SELECT " + webhookCols + " FROM webhooks WHERE team = ? AND status = 'enabled'")
	if err != nil {
		return err
	}
	rows, err := st.QueryContext(context.Background(), team)
	if err != nil {
		return err
	}
	var hooks []string
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			rows.Close()
			return err
		}
		if w.Wants(typ) {
			hooks = append(hooks, w.ID)
		}
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if len(hooks) == 0 {
		return nil
	}
	ins, err := s.stmt("INSERT INTO webhook_events (id, webhook_id, team, type, created_at, payload, status, next_attempt_at) VALUES (?,?,?,?,?,?,'pending',?)")
	if err != nil {
		return err
	}
	for _, e := range changed {
		body, err := store.Payload(typ, at, e)
		if err != nil {
			return err
		}
		for _, h := range hooks {
			id, err := uuid.NewV7()
			if err != nil {
				return err
			}
			if _, err := ins.ExecContext(context.Background(), id.String(), h, team, typ, at.UnixMilli(), body, at.UnixMilli()); err != nil {
				return err
			}
		}
	}
	return nil
}

// CreateWebhook stores a new webhook; see store.Webhooks.
func (s *Store) CreateWebhook(ctx context.Context, w store.Webhook) error {
	events, err := json.Marshal(w.Events)
	if err != nil {
		return err
	}
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
		_, err := c.ExecContext(context.Background(),
			"INSERT INTO webhooks (id, team, endpoint, events, status, secret, created_at) VALUES (?,?,?,?,?,?,?)",
			w.ID, w.Team, w.Endpoint, string(events), w.Status, w.Secret, w.CreatedAt.UnixMilli())
		return err
	})
}

// ListWebhooks returns a page of the team's webhooks; see store.Webhooks.
func (s *Store) ListWebhooks(ctx context.Context, team string, p store.Page) ([]store.Webhook, bool, error) {
	return readPage(ctx, s, "SELECT "+webhookCols+" FROM webhooks", []string{"team = ?"}, []any{team}, p, scanWebhook)
}

// GetWebhook returns one of the team's webhooks; see store.Webhooks.
func (s *Store) GetWebhook(ctx context.Context, team, id string) (store.Webhook, error) {
	w, err := scanWebhook(s.read.QueryRowContext(ctx, "SELECT "+webhookCols+" FROM webhooks WHERE team = ? AND id = ?", team, id))
	return w, s.readErr(err)
}

// readErr maps a single-row read's error to the store's.
func (s *Store) readErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return store.ErrNotFound
	case s.closing.Load():
		return errClosed
	}
	return wrap(err)
}

// UpdateWebhook changes a webhook; see store.Webhooks.
func (s *Store) UpdateWebhook(ctx context.Context, team, id string, p store.WebhookPatch) error {
	set := []string{"id = id"}
	var args []any
	if p.Endpoint != nil {
		set, args = append(set, "endpoint = ?"), append(args, *p.Endpoint)
	}
	if p.Events != nil {
		b, err := json.Marshal(*p.Events)
		if err != nil {
			return err
		}
		set, args = append(set, "events = ?"), append(args, string(b))
	}
	if p.Status != nil {
		set, args = append(set, "status = ?"), append(args, *p.Status)
	}
	args = append(args, team, id)
	return s.changeOne(ctx, "UPDATE webhooks SET "+strings.Join(set, ", ")+" WHERE team = ? AND id = ?", args...)
}

// changeOne runs one statement as a change and reports ErrNotFound when
// it touched no row.
func (s *Store) changeOne(ctx context.Context, query string, args ...any) error {
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
		res, err := c.ExecContext(context.Background(), query, args...)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		return nil
	})
}

// DeleteWebhook removes a webhook with its events and attempts; see
// store.Webhooks.
func (s *Store) DeleteWebhook(ctx context.Context, team, id string) error {
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
		bg := context.Background()
		res, err := c.ExecContext(bg, "DELETE FROM webhooks WHERE team = ? AND id = ?", team, id)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			return store.ErrNotFound
		}
		if _, err := c.ExecContext(bg, "DELETE FROM webhook_attempts WHERE event_id IN (SELECT id FROM webhook_events WHERE webhook_id = ?)", id); err != nil {
			return err
		}
		_, err = c.ExecContext(bg, "DELETE FROM webhook_events WHERE webhook_id = ?", id)
		return err
	})
}

// RotateWebhookSecret replaces the secret, keeping the old one signing
// for a while; see store.Webhooks.
func (s *Store) RotateWebhookSecret(ctx context.Context, team, id, secret string, keepOldUntil time.Time) error {
	return s.changeOne(ctx, "UPDATE webhooks SET prev_secret = secret, prev_until = ?, secret = ? WHERE team = ? AND id = ?",
		keepOldUntil.UnixMilli(), secret, team, id)
}

const eventCols = "id, webhook_id, team, type, created_at, payload, status, coalesce(next_attempt_at, 0), attempts, retry"

func scanEvent(r scanner) (store.WebhookEvent, error) {
	var (
		e           store.WebhookEvent
		created, at int64
	)
	if err := r.Scan(&e.ID, &e.WebhookID, &e.Team, &e.Type, &created, &e.Payload, &e.Status, &at, &e.Attempts, &e.Retry); err != nil {
		return store.WebhookEvent{}, err
	}
	e.CreatedAt = time.UnixMilli(created).UTC()
	if at != 0 {
		e.NextAttemptAt = time.UnixMilli(at).UTC()
	}
	return e, nil
}

// WebhookEvents returns a page of a webhook's events; see store.Webhooks.
func (s *Store) WebhookEvents(ctx context.Context, team, webhookID string, p store.Page) ([]store.WebhookEvent, bool, error) {
	return readPage(ctx, s, "SELECT "+eventCols+" FROM webhook_events", []string{"webhook_id = ?", "team = ?"}, []any{webhookID, team}, p, scanEvent)
}

// WebhookEvent returns one event of a webhook; see store.Webhooks.
func (s *Store) WebhookEvent(ctx context.Context, team, webhookID, eventID string) (store.WebhookEvent, error) {
	e, err := scanEvent(s.read.QueryRowContext(ctx, "SELECT "+eventCols+" FROM webhook_events WHERE id = ? AND webhook_id = ? AND team = ?", eventID, webhookID, team))
	return e, s.readErr(err)
}

func scanAttempt(r scanner) (store.Attempt, error) {
	var (
		a  store.Attempt
		ms int64
	)
	if err := r.Scan(&a.ID, &a.EventID, &a.StatusCode, &a.Response, &ms); err != nil {
		return store.Attempt{}, err
	}
	a.SentAt = time.UnixMilli(ms).UTC()
	return a, nil
}

// WebhookAttempts returns a page of an event's attempts; see
// store.Webhooks.
func (s *Store) WebhookAttempts(ctx context.Context, team, webhookID, eventID string, p store.Page) ([]store.Attempt, bool, error) {
	if _, err := s.WebhookEvent(ctx, team, webhookID, eventID); err != nil {
		return nil, false, err
	}
	return readPage(ctx, s, "SELECT id, event_id, status_code, response, sent_at FROM webhook_attempts", []string{"event_id = ?"}, []any{eventID}, p, scanAttempt)
}

// ReplayWebhookEvent makes an event due for one last attempt; see
// store.Webhooks.
func (s *Store) ReplayWebhookEvent(ctx context.Context, team, webhookID, eventID string, now time.Time) error {
	return s.changeOne(ctx, "UPDATE webhook_events SET status = 'attempting', next_attempt_at = ?, retry = 0 WHERE id = ? AND webhook_id = ? AND team = ?",
		now.UnixMilli(), eventID, webhookID, team)
}

// ClaimDeliveries leases due events; see store.Webhooks. The writer's
// transaction (and, between processes, SQLite's write lock) makes the
// read and the lease one step, so no event is taken twice.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.Delivery, error) {
	// Most polls find nothing due: a read says so without a commit.
	var due int
	err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM (SELECT 1 FROM webhook_events WHERE next_attempt_at IS NOT NULL AND next_attempt_at <= ? LIMIT 1)", now.UnixMilli()).Scan(&due)
	if err != nil || due == 0 {
		return nil, s.readErr(err)
	}
	var out []store.Delivery
	err = s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
		out = out[:0]
		bg := context.Background()
		rows, err := c.QueryContext(bg, `UPDATE webhook_events SET next_attempt_at = ?
			WHERE id IN (
				SELECT e.id FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
				WHERE e.next_attempt_at IS NOT NULL AND e.next_attempt_at <= ? AND w.status = 'enabled'
				ORDER BY e.next_attempt_at LIMIT ?)
			RETURNING `+eventCols, now.Add(lease).UnixMilli(), now.UnixMilli(), limit)
		if err != nil {
			return err
		}
		var events []store.WebhookEvent
		for rows.Next() {
			e, err := scanEvent(rows)
			if err != nil {
				rows.Close()
				return err
			}
			events = append(events, e)
		}
		if err := rows.Close(); err != nil {
			return err
		}
		hooks := map[string]store.Webhook{}
		for _, e := range events {
			w, ok := hooks[e.WebhookID]
			if !ok {
				w, err = scanWebhook(c.QueryRowContext(bg, "SELECT "+webhookCols+" FROM webhooks WHERE id = ?", e.WebhookID))
				if err != nil {
					return err
				}
				hooks[e.WebhookID] = w
			}
			out = append(out, store.Delivery{Event: e, Endpoint: w.Endpoint, Secrets: w.SigningSecrets(now)})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// RecordAttempt stores an attempt and the event's outcome; see
// store.Webhooks.
func (s *Store) RecordAttempt(ctx context.Context, a store.Attempt, o store.Outcome) error {
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
		bg := context.Background()
		var next any
		if !o.NextAttemptAt.IsZero() {
			next = o.NextAttemptAt.UnixMilli()
		}
		res, err := c.ExecContext(bg, "UPDATE webhook_events SET status = ?, next_attempt_at = ?, attempts = attempts + 1 WHERE id = ?",
			o.Status, next, a.EventID)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			// The webhook was deleted while the attempt was under way.
			return store.ErrNotFound
		}
		_, err = c.ExecContext(bg, "INSERT INTO webhook_attempts (id, event_id, status_code, response, sent_at) VALUES (?,?,?,?,?)",
			a.ID, a.EventID, a.StatusCode, a.Response, a.SentAt.UnixMilli())
		return err
	})
}

// Outbox describes the events waiting for delivery; see store.Webhooks.
func (s *Store) Outbox(ctx context.Context) (store.OutboxStats, error) {
	var (
		st     store.OutboxStats
		oldest sql.NullInt64
	)
	err := s.read.QueryRowContext(ctx, "SELECT count(*), min(created_at) FROM webhook_events WHERE next_attempt_at IS NOT NULL").Scan(&st.Depth, &oldest)
	if err != nil {
		return st, s.readErr(err)
	}
	if oldest.Valid {
		st.Oldest = time.UnixMilli(oldest.Int64).UTC()
	}
	return st, nil
}

// PruneWebhookEvents deletes settled events created before before, a
// transaction per pruneChunk events; see store.Webhooks.
func (s *Store) PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
			bg := context.Background()
			const settled = "SELECT id FROM webhook_events WHERE created_at < ? AND next_attempt_at IS NULL ORDER BY created_at LIMIT ?"
			if _, err := c.ExecContext(bg, "DELETE FROM webhook_attempts WHERE event_id IN ("+settled+")", before.UnixMilli(), pruneChunk); err != nil {
				return err
			}
			res, err := c.ExecContext(bg, "DELETE FROM webhook_events WHERE id IN ("+settled+")", before.UnixMilli(), pruneChunk)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < pruneChunk {
			return total, err
		}
	}
}
