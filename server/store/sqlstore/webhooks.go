package sqlstore

import (
	"cmp"
	"context"
	"math"
	"slices"
	"time"

	"github.com/shushlist/shush/server/store"
)

// pruneChunk is how many rows one change of a prune deletes, so that
// pruning a long history never holds the database for long.
const pruneChunk = 10000

// queueEvents writes the outbox rows of one change, inside it: an event
// per changed suppression for every webhook of the team that wants typ
// (store.Webhook.Wants: enabled, and typ among its events). A team
// without webhooks costs one indexed read. A change that queues events is
// counted (store.EventCounter).
func (c *Core) queueEvents(ctx context.Context, tx Tx, team, typ string, at time.Time, changed []store.Entry) error {
	if len(changed) == 0 {
		return nil
	}
	hooks, err := wanting(ctx, tx, team, typ)
	if err != nil {
		return err
	}
	return c.queue(ctx, tx, team, typ, at, hooks, changed)
}

// wanting reads the team's webhooks that want events of type typ.
func wanting(ctx context.Context, tx Tx, team, typ string) ([]store.Webhook, error) {
	hooks, err := tx.TeamWebhooks(ctx, team)
	return slices.DeleteFunc(hooks, func(w store.Webhook) bool { return !w.Wants(typ) }), err
}

// queue is queueEvents with the webhooks already read.
func (c *Core) queue(ctx context.Context, tx Tx, team, typ string, at time.Time, hooks []store.Webhook, changed []store.Entry) error {
	if len(hooks) == 0 || len(changed) == 0 {
		return nil
	}
	p := &InsertEventsParams{Team: team, Type: typ, At: at, Rows: make([]EventRow, 0, len(changed)*len(hooks))}
	for _, e := range changed {
		body, err := store.Payload(typ, at, e)
		if err != nil {
			return err
		}
		for _, h := range hooks {
			id, err := newID()
			if err != nil {
				return err
			}
			p.Rows = append(p.Rows, EventRow{ID: id, WebhookID: h.ID, Payload: body})
		}
	}
	if err := tx.InsertEvents(ctx, p); err != nil {
		return err
	}
	c.queued.Add(1)
	return nil
}

// CreateWebhook stores a new webhook within the team's limit; see
// store.Webhooks.
func (c *Core) CreateWebhook(ctx context.Context, w store.Webhook, limit int) error {
	w.CreatedAt = w.CreatedAt.UTC().Truncate(time.Millisecond)
	if limit <= 0 {
		limit = math.MaxInt32
	}
	return c.fail("create the webhook", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		n, err := tx.InsertWebhook(ctx, w, limit)
		if err == nil && n == 0 {
			err = store.ErrTooMany
		}
		return err
	}))
}

// ListWebhooks returns a page of the team's webhooks; see store.Webhooks.
func (c *Core) ListWebhooks(ctx context.Context, team string, p store.Page) ([]store.Webhook, bool, error) {
	return readPage(ctx, c, "read the webhooks", p, func(ctx context.Context, w Window) ([]store.Webhook, error) {
		return c.d.Webhooks(ctx, team, w)
	})
}

// GetWebhook returns one of the team's webhooks; see store.Webhooks.
func (c *Core) GetWebhook(ctx context.Context, team, id string) (store.Webhook, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.Webhook{}, store.ErrNotFound
	}
	w, err := c.d.Webhook(ctx, team, id)
	return w, c.readErr("read the webhook", err)
}

// UpdateWebhook changes a webhook; see store.Webhooks.
func (c *Core) UpdateWebhook(ctx context.Context, team, id string, p store.WebhookPatch) error {
	id, ok := canonicalID(id)
	if !ok {
		return store.ErrNotFound
	}
	return c.changeOne(ctx, "update the webhook", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.UpdateWebhook(ctx, &UpdateWebhookParams{Team: team, ID: id, WebhookPatch: p})
	})
}

// DeleteWebhook removes a webhook with its events and attempts; see
// store.Webhooks.
func (c *Core) DeleteWebhook(ctx context.Context, team, id string) error {
	id, ok := canonicalID(id)
	if !ok {
		return store.ErrNotFound
	}
	return c.changeOne(ctx, "delete the webhook", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.DeleteWebhook(ctx, team, id)
	})
}

// RotateWebhookSecret replaces the secret, keeping the old one signing
// for a while; see store.Webhooks.
func (c *Core) RotateWebhookSecret(ctx context.Context, team, id, secret string, keepOldUntil time.Time) error {
	id, ok := canonicalID(id)
	if !ok {
		return store.ErrNotFound
	}
	p := &RotateSecretParams{Team: team, ID: id, Secret: secret, KeepOldUntil: keepOldUntil.UTC().Truncate(time.Millisecond)}
	return c.changeOne(ctx, "rotate the secret", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.RotateSecret(ctx, p)
	})
}

// eventKey is the canonical form of an event's names, and false when one
// of them names nothing.
func eventKey(team, webhookID, eventID string) (EventKey, bool) {
	hook, ok1 := canonicalID(webhookID)
	id, ok2 := canonicalID(eventID)
	return EventKey{Team: team, WebhookID: hook, EventID: id}, ok1 && ok2
}

// WebhookEvents returns a page of a webhook's events; see store.Webhooks.
func (c *Core) WebhookEvents(ctx context.Context, team, webhookID string, p store.Page) ([]store.WebhookEvent, bool, error) {
	hook, ok := canonicalID(webhookID)
	if !ok {
		return []store.WebhookEvent{}, false, nil
	}
	return readPage(ctx, c, "read the events", p, func(ctx context.Context, w Window) ([]store.WebhookEvent, error) {
		return c.d.Events(ctx, team, hook, w)
	})
}

// WebhookEvent returns one event of a webhook; see store.Webhooks.
func (c *Core) WebhookEvent(ctx context.Context, team, webhookID, eventID string) (store.WebhookEvent, error) {
	k, ok := eventKey(team, webhookID, eventID)
	if !ok {
		return store.WebhookEvent{}, store.ErrNotFound
	}
	e, err := c.d.Event(ctx, k)
	return e, c.readErr("read the event", err)
}

// WebhookAttempts returns a page of an event's attempts; see
// store.Webhooks.
func (c *Core) WebhookAttempts(ctx context.Context, team, webhookID, eventID string, p store.Page) ([]store.Attempt, bool, error) {
	e, err := c.WebhookEvent(ctx, team, webhookID, eventID)
	if err != nil {
		return nil, false, err
	}
	return readPage(ctx, c, "read the attempts", p, func(ctx context.Context, w Window) ([]store.Attempt, error) {
		return c.d.Attempts(ctx, e.ID, w)
	})
}

// ReplayWebhookEvent makes an event due for one last attempt; see
// store.Webhooks.
func (c *Core) ReplayWebhookEvent(ctx context.Context, team, webhookID, eventID string, now time.Time) error {
	k, ok := eventKey(team, webhookID, eventID)
	if !ok {
		return store.ErrNotFound
	}
	p := &ReplayEventParams{EventKey: k, Now: now.UTC().Truncate(time.Millisecond)}
	return c.changeOne(ctx, "replay the event", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.ReplayEvent(ctx, p)
	})
}

// ClaimDeliveries leases due events, teams in turns within the caps; see
// store.Webhooks. Most polls find nothing due: a read says so without a
// change.
func (c *Core) ClaimDeliveries(ctx context.Context, r store.ClaimRequest) ([]store.Delivery, error) {
	now := r.Now
	due, err := c.d.AnyDue(ctx, now)
	if err != nil || !due || r.Limit <= 0 {
		return nil, c.fail("claim webhook deliveries", err)
	}
	uncapped := func(n int) int {
		if n <= 0 {
			return math.MaxInt32
		}
		return n
	}
	busy := r.Busy
	if busy == nil {
		busy = &store.Busy{}
	}
	perWebhook, perTeam := uncapped(r.PerWebhook), uncapped(r.PerTeam)
	// More candidates than slots: some belong to webhooks or teams whose
	// share is already under way here.
	dp := &DueEventsParams{Now: now, PerWebhook: perWebhook, PerTeam: perTeam, Limit: r.Limit*4 + len(busy.Events)}
	var out []store.Delivery
	err = c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		cands, err := tx.DueEvents(ctx, dp)
		if err != nil {
			return err
		}
		hooks, teams := map[string]int{}, map[string]int{}
		lp := &LeaseEventsParams{Now: now, Until: now.Add(r.Lease)}
		for _, e := range cands {
			if len(lp.IDs) == r.Limit {
				break
			}
			// An event under way here (a replay of it came due) is not
			// sent again beside itself: the attempt under way answers.
			if busy.Events[e.ID] || busy.Webhooks[e.WebhookID]+hooks[e.WebhookID] >= perWebhook || busy.Teams[e.Team]+teams[e.Team] >= perTeam {
				continue
			}
			hooks[e.WebhookID]++
			teams[e.Team]++
			lp.IDs = append(lp.IDs, e.ID)
		}
		if len(lp.IDs) == 0 {
			out = nil
			return nil
		}
		claimed, err := tx.LeaseEvents(ctx, lp)
		if err != nil {
			return err
		}
		out = make([]store.Delivery, len(claimed))
		for i, cl := range claimed {
			out[i] = store.Delivery{Event: cl.Event, Endpoint: cl.Webhook.Endpoint, Secrets: cl.Webhook.SigningSecrets(now)}
		}
		return nil
	})
	if err != nil {
		return nil, c.fail("claim webhook deliveries", err)
	}
	slices.SortFunc(out, func(a, b store.Delivery) int {
		return cmp.Or(a.Event.CreatedAt.Compare(b.Event.CreatedAt), cmp.Compare(a.Event.ID, b.Event.ID))
	})
	return out, nil
}

// RecordAttempt stores an attempt and the event's outcome in one change;
// see store.Webhooks. An event deleted meanwhile (with its webhook) is
// ErrNotFound.
func (c *Core) RecordAttempt(ctx context.Context, a store.Attempt, o store.Outcome) error {
	if !o.NextAttemptAt.IsZero() {
		o.NextAttemptAt = o.NextAttemptAt.UTC().Truncate(time.Millisecond)
	}
	a.SentAt = a.SentAt.UTC().Truncate(time.Millisecond)
	return c.fail("record the attempt", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		if err := one(tx.SettleEvent(ctx, a.EventID, o)); err != nil {
			return err
		}
		return tx.InsertAttempt(ctx, a)
	}))
}

// Outbox describes the events waiting for delivery; see store.Webhooks.
func (c *Core) Outbox(ctx context.Context) (store.OutboxStats, error) {
	st, err := c.d.OutboxStats(ctx)
	if err != nil {
		return store.OutboxStats{}, c.fail("read the outbox", err)
	}
	if !st.Oldest.IsZero() {
		st.Oldest = st.Oldest.UTC()
	}
	return st, nil
}

// PruneWebhookEvents deletes settled events created before before, a
// change per pruneChunk events; see store.Webhooks.
func (c *Core) PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := c.d.Change(ctx, func(ctx context.Context, tx Tx) (err error) {
			n, err = tx.PruneEvents(ctx, before, pruneChunk)
			return err
		})
		if err != nil {
			return total, c.fail("prune webhook events", err)
		}
		total += n
		if n < pruneChunk {
			return total, nil
		}
	}
}
