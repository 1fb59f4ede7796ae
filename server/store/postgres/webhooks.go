package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

const webhookColumns = "id::text, team, endpoint, events, status, secret, coalesce(prev_secret, ''), prev_until, created_at"

func scanWebhook(row pgx.Row) (store.Webhook, error) {
	var (
		w    store.Webhook
		prev *time.Time
	)
	if err := row.Scan(&w.ID, &w.Team, &w.Endpoint, &w.Events, &w.Status, &w.Secret, &w.PrevSecret, &prev, &w.CreatedAt); err != nil {
		return store.Webhook{}, err
	}
	if prev != nil {
		w.PrevUntil = prev.UTC()
	}
	w.CreatedAt = w.CreatedAt.UTC()
	return w, nil
}

// queueEvents writes the outbox rows of one change inside its
// transaction: an event per changed suppression and enabled webhook of the
// team that lists typ. A team without webhooks costs one indexed read.
func queueEvents(ctx context.Context, tx pgx.Tx, team, typ string, at time.Time, changed []store.Entry) error {
	if len(changed) == 0 {
		return nil
	}
	rows, err := tx.Query(ctx, "SELECT id::text FROM webhooks WHERE team = $1 AND status = 'enabled' AND $2 = ANY(events)", team, typ)
	if err != nil {
		return err
	}
	hooks, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(hooks) == 0 {
		return err
	}
	n := len(changed) * len(hooks)
	ids, hookIDs, bodies := make([]string, 0, n), make([]string, 0, n), make([][]byte, 0, n)
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
			ids, hookIDs, bodies = append(ids, id.String()), append(hookIDs, h), append(bodies, body)
		}
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO webhook_events (id, webhook_id, team, type, created_at, payload, status, next_attempt_at)
		SELECT u.id, u.hook, $1, $2, $3, u.body, 'pending', $3
		FROM unnest($4::uuid[], $5::uuid[], $6::bytea[]) AS u(id, hook, body)`,
		team, typ, at, ids, hookIDs, bodies)
	return err
}

// uuidOrMissing parses an ID from a path: one that is not a UUID names
// nothing.
func uuidOrMissing(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", store.ErrNotFound
	}
	return u.String(), nil
}

// CreateWebhook stores a new webhook; see store.Webhooks.
func (s *Store) CreateWebhook(ctx context.Context, w store.Webhook) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO webhooks (id, team, endpoint, events, status, secret, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)",
		w.ID, w.Team, w.Endpoint, w.Events, w.Status, w.Secret, w.CreatedAt)
	if err != nil {
		return fmt.Errorf("create the webhook: %w", mapErr(err))
	}
	return nil
}

// ListWebhooks returns a page of the team's webhooks; see store.Webhooks.
func (s *Store) ListWebhooks(ctx context.Context, team string, p store.Page) ([]store.Webhook, bool, error) {
	return readPage(ctx, s, "SELECT "+webhookColumns+" FROM webhooks", "team = $1", "team", []any{team}, p, scanWebhook)
}

// GetWebhook returns one of the team's webhooks; see store.Webhooks.
func (s *Store) GetWebhook(ctx context.Context, team, id string) (store.Webhook, error) {
	id, err := uuidOrMissing(id)
	if err != nil {
		return store.Webhook{}, err
	}
	w, err := scanWebhook(s.pool.QueryRow(ctx, "SELECT "+webhookColumns+" FROM webhooks WHERE team = $1 AND id = $2", team, id))
	return w, readErr("read the webhook", err)
}

func readErr(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, pgx.ErrNoRows):
		return store.ErrNotFound
	}
	return fmt.Errorf("%s: %w", what, mapErr(err))
}

// UpdateWebhook changes a webhook; see store.Webhooks.
func (s *Store) UpdateWebhook(ctx context.Context, team, id string, p store.WebhookPatch) error {
	id, err := uuidOrMissing(id)
	if err != nil {
		return err
	}
	var events []string
	if p.Events != nil {
		events = *p.Events
	}
	return s.changeOne(ctx, "update the webhook", `UPDATE webhooks SET
		endpoint = coalesce($3, endpoint),
		events = CASE WHEN $4 THEN $5::text[] ELSE events END,
		status = coalesce($6, status)
		WHERE team = $1 AND id = $2`, team, id, p.Endpoint, p.Events != nil, events, p.Status)
}

// changeOne runs one statement and reports ErrNotFound when it touched no
// row.
func (s *Store) changeOne(ctx context.Context, what, query string, args ...any) error {
	tag, err := s.pool.Exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, mapErr(err))
	}
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// DeleteWebhook removes a webhook; its events and attempts go with it
// (ON DELETE CASCADE). See store.Webhooks.
func (s *Store) DeleteWebhook(ctx context.Context, team, id string) error {
	id, err := uuidOrMissing(id)
	if err != nil {
		return err
	}
	return s.changeOne(ctx, "delete the webhook", "DELETE FROM webhooks WHERE team = $1 AND id = $2", team, id)
}

// RotateWebhookSecret replaces the secret, keeping the old one signing
// for a while; see store.Webhooks.
func (s *Store) RotateWebhookSecret(ctx context.Context, team, id, secret string, keepOldUntil time.Time) error {
	id, err := uuidOrMissing(id)
	if err != nil {
		return err
	}
	return s.changeOne(ctx, "rotate the secret", "UPDATE webhooks SET prev_secret = secret, prev_until = $3, secret = $4 WHERE team = $1 AND id = $2",
		team, id, keepOldUntil, secret)
}

const eventColumns = "id::text, webhook_id::text, team, type, created_at, payload, status, next_attempt_at, attempts, retry"

func scanEvent(row pgx.Row) (store.WebhookEvent, error) {
	var (
		e    store.WebhookEvent
		next *time.Time
	)
	if err := row.Scan(&e.ID, &e.WebhookID, &e.Team, &e.Type, &e.CreatedAt, &e.Payload, &e.Status, &next, &e.Attempts, &e.Retry); err != nil {
		return store.WebhookEvent{}, err
	}
	e.CreatedAt = e.CreatedAt.UTC()
	if next != nil {
		e.NextAttemptAt = next.UTC()
	}
	return e, nil
}

// WebhookEvents returns a page of a webhook's events; see store.Webhooks.
func (s *Store) WebhookEvents(ctx context.Context, team, webhookID string, p store.Page) ([]store.WebhookEvent, bool, error) {
	id, err := uuidOrMissing(webhookID)
	if err != nil {
		return nil, false, nil
	}
	return readPage(ctx, s, "SELECT "+eventColumns+" FROM webhook_events", "webhook_id = $1 AND team = $2", "webhook_id", []any{id, team}, p, scanEvent)
}

// WebhookEvent returns one event of a webhook; see store.Webhooks.
func (s *Store) WebhookEvent(ctx context.Context, team, webhookID, eventID string) (store.WebhookEvent, error) {
	hook, err := uuidOrMissing(webhookID)
	if err != nil {
		return store.WebhookEvent{}, err
	}
	id, err := uuidOrMissing(eventID)
	if err != nil {
		return store.WebhookEvent{}, err
	}
	e, err := scanEvent(s.pool.QueryRow(ctx, "SELECT "+eventColumns+" FROM webhook_events WHERE id = $1 AND webhook_id = $2 AND team = $3", id, hook, team))
	return e, readErr("read the event", err)
}

func scanAttempt(row pgx.Row) (store.Attempt, error) {
	var a store.Attempt
	if err := row.Scan(&a.ID, &a.EventID, &a.StatusCode, &a.Response, &a.SentAt); err != nil {
		return store.Attempt{}, err
	}
	a.SentAt = a.SentAt.UTC()
	return a, nil
}

// WebhookAttempts returns a page of an event's attempts; see
// store.Webhooks.
func (s *Store) WebhookAttempts(ctx context.Context, team, webhookID, eventID string, p store.Page) ([]store.Attempt, bool, error) {
	e, err := s.WebhookEvent(ctx, team, webhookID, eventID)
	if err != nil {
		return nil, false, err
	}
	return readPage(ctx, s, "SELECT id::text, event_id::text, status_code, response, sent_at FROM webhook_attempts", "event_id = $1", "event_id", []any{e.ID}, p, scanAttempt)
}

// ReplayWebhookEvent makes an event due for one last attempt; see
// store.Webhooks.
func (s *Store) ReplayWebhookEvent(ctx context.Context, team, webhookID, eventID string, now time.Time) error {
	e, err := s.WebhookEvent(ctx, team, webhookID, eventID)
	if err != nil {
		return err
	}
	return s.changeOne(ctx, "replay the event", "UPDATE webhook_events SET status = 'attempting', next_attempt_at = $2, retry = false WHERE id = $1", e.ID, now)
}

// ClaimDeliveries leases due events; see store.Webhooks. FOR UPDATE SKIP
// LOCKED lets several processes claim at once: each takes rows no other
// has locked, and the lease (a later next_attempt_at, committed with the
// claim) keeps them from every other claim until it ends.
func (s *Store) ClaimDeliveries(ctx context.Context, now time.Time, lease time.Duration, limit int) ([]store.Delivery, error) {
	var out []store.Delivery
	err := s.retry(ctx, func() error {
		out = out[:0]
		rows, err := s.pool.Query(ctx, `
			WITH due AS (
				SELECT e.id FROM webhook_events e JOIN webhooks w ON w.id = e.webhook_id
				WHERE e.next_attempt_at <= $1 AND w.status = 'enabled'
				ORDER BY e.next_attempt_at LIMIT $3
				FOR UPDATE OF e SKIP LOCKED
			), claimed AS (
				UPDATE webhook_events e SET next_attempt_at = $2 FROM due WHERE e.id = due.id
				RETURNING e.*
			)
			SELECT c.id::text, c.webhook_id::text, c.team, c.type, c.created_at, c.payload, c.status, c.next_attempt_at, c.attempts, c.retry,
				w.endpoint, w.secret, coalesce(w.prev_secret, ''), w.prev_until
			FROM claimed c JOIN webhooks w ON w.id = c.webhook_id`, now, now.Add(lease), limit)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Delivery, error) {
			var (
				d    store.Delivery
				w    store.Webhook
				next *time.Time
				prev *time.Time
			)
			e := &d.Event
			if err := r.Scan(&e.ID, &e.WebhookID, &e.Team, &e.Type, &e.CreatedAt, &e.Payload, &e.Status, &next, &e.Attempts, &e.Retry,
				&d.Endpoint, &w.Secret, &w.PrevSecret, &prev); err != nil {
				return d, err
			}
			e.CreatedAt = e.CreatedAt.UTC()
			if next != nil {
				e.NextAttemptAt = next.UTC()
			}
			if prev != nil {
				w.PrevUntil = *prev
			}
			d.Secrets = w.SigningSecrets(now)
			return d, nil
		})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("claim webhook deliveries: %w", err)
	}
	slices.SortFunc(out, func(a, b store.Delivery) int { return a.Event.CreatedAt.Compare(b.Event.CreatedAt) })
	return out, nil
}

// RecordAttempt stores an attempt and the event's outcome in one
// transaction; see store.Webhooks.
func (s *Store) RecordAttempt(ctx context.Context, a store.Attempt, o store.Outcome) error {
	var next *time.Time
	if !o.NextAttemptAt.IsZero() {
		next = &o.NextAttemptAt
	}
	err := s.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			tag, err := tx.Exec(ctx, "UPDATE webhook_events SET status = $2, next_attempt_at = $3, attempts = attempts + 1 WHERE id = $1", a.EventID, o.Status, next)
			if err != nil {
				return err
			}
			if tag.RowsAffected() == 0 {
				// The webhook was deleted while the attempt was under way.
				return store.ErrNotFound
			}
			_, err = tx.Exec(ctx, "INSERT INTO webhook_attempts (id, event_id, status_code, response, sent_at) VALUES ($1, $2, $3, $4, $5)",
				a.ID, a.EventID, a.StatusCode, a.Response, a.SentAt)
			return err
		})
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("record the attempt: %w", err)
	}
	return err
}

// Outbox describes the events waiting for delivery; see store.Webhooks.
func (s *Store) Outbox(ctx context.Context) (store.OutboxStats, error) {
	var (
		st     store.OutboxStats
		oldest *time.Time
	)
	err := s.pool.QueryRow(ctx, "SELECT count(*), min(created_at) FROM webhook_events WHERE next_attempt_at IS NOT NULL").Scan(&st.Depth, &oldest)
	if err != nil {
		return st, fmt.Errorf("read the outbox: %w", mapErr(err))
	}
	if oldest != nil {
		st.Oldest = oldest.UTC()
	}
	return st, nil
}

// PruneWebhookEvents deletes settled events created before before, with
// their attempts (ON DELETE CASCADE), a statement per pruneBatch events;
// see store.Webhooks.
func (s *Store) PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM webhook_events WHERE id IN (
			SELECT id FROM webhook_events WHERE created_at < $1 AND next_attempt_at IS NULL ORDER BY created_at LIMIT $2)`, before, pruneBatch)
		if err != nil {
			return total, fmt.Errorf("prune webhook events: %w", mapErr(err))
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < pruneBatch {
			return total, nil
		}
	}
}

// pruneBatch is how many settled events one prune statement deletes.
const pruneBatch = 10000

// readPage reads a page of rows newest first by ID, like List. base
// selects the columns scan reads; where (over args) narrows it, and lead
// is the column the index that serves it starts with, named in ORDER BY so
// that every plan reads that index's range.
func readPage[T any](ctx context.Context, s *Store, base, where, lead string, args []any, p store.Page, scan func(pgx.Row) (T, error)) ([]T, bool, error) {
	limit := p.Limit
	if limit < 1 || limit > api.MaxBatch {
		limit = 20
	}
	order := "DESC"
	switch {
	case p.After != "":
		c, err := cursor(p.After)
		if err != nil {
			return nil, false, err
		}
		args = append(args, c)
		where += fmt.Sprintf(" AND id < $%d::uuid", len(args))
	case p.Before != "":
		c, err := cursor(p.Before)
		if err != nil {
			return nil, false, err
		}
		args = append(args, c)
		where += fmt.Sprintf(" AND id > $%d::uuid", len(args))
		order = "ASC"
	}
	args = append(args, limit+1)
	rows, err := s.pool.Query(ctx, fmt.Sprintf("%s WHERE %s ORDER BY %s %s, id %s LIMIT $%d", base, where, lead, order, order, len(args)), args...)
	if err != nil {
		return nil, false, readErr("read the page", err)
	}
	page, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(r) })
	if err != nil {
		return nil, false, readErr("read the page", err)
	}
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	if p.After == "" && p.Before != "" {
		slices.Reverse(page)
	}
	return page, more, nil
}
