package store

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/shushlist/shush/api"
)

// Webhook is an endpoint a team's changes are delivered to.
type Webhook struct {
	ID       string
	Team     string
	Endpoint string
	// Events are the event names it was created with; only the
	// suppression events are ever delivered.
	Events    []string
	Status    string // api.WebhookEnabled or api.WebhookDisabled
	Secret    string
	CreatedAt time.Time
	// PrevSecret still signs deliveries, after Secret, until PrevUntil:
	// a receiver has a day to take the rotated secret.
	PrevSecret string
	PrevUntil  time.Time
}

// Wants says whether the webhook is sent events of type typ.
func (w Webhook) Wants(typ string) bool {
	return w.Status == api.WebhookEnabled && slices.Contains(w.Events, typ)
}

// SigningSecrets are the secrets that sign an attempt at now, newest
// first: the old one too while a rotation's overlap lasts.
func (w Webhook) SigningSecrets(now time.Time) []string {
	if w.PrevSecret != "" && now.Before(w.PrevUntil) {
		return []string{w.Secret, w.PrevSecret}
	}
	return []string{w.Secret}
}

// WebhookPatch changes a webhook: nil fields stay as they are.
type WebhookPatch struct {
	Endpoint *string
	Events   *[]string
	Status   *string
}

// Page selects a page of webhooks, events or attempts, newest first, by ID
// like ListQuery (all their IDs are UUIDv7).
type Page struct {
	Limit  int
	After  string
	Before string
}

// WebhookEvent is one event queued for one webhook: the outbox row the
// change's transaction wrote, and where its delivery stands.
type WebhookEvent struct {
	ID        string
	WebhookID string
	Team      string
	Type      string
	CreatedAt time.Time
	Status    string // api.EventPending, EventAttempting, EventSuccess, EventFailed
	// NextAttemptAt is when the event is next due; zero once it succeeded
	// or failed. While an attempt is under way it is the end of that
	// attempt's lease, after which another process may take it over.
	NextAttemptAt time.Time
	// Payload is the body sent, fixed when the event was queued.
	Payload []byte
	// Attempts counts the attempts made so far.
	Attempts int
	// Retry is false after a replay: its attempt is the last.
	Retry bool
}

// Attempt is one try at delivering an event.
type Attempt struct {
	ID         string
	EventID    string
	StatusCode int // 0: no answer (connection error, timeout)
	Response   string
	SentAt     time.Time
}

// Delivery is an event claimed for an attempt, with what the attempt needs.
type Delivery struct {
	Event    WebhookEvent
	Endpoint string
	// Secrets sign the attempt, newest first.
	Secrets []string
}

// Outcome is what an attempt leaves an event as: its status and, while
// retries remain, when the next is due.
type Outcome struct {
	Status        string
	NextAttemptAt time.Time // zero for success and failed
}

// OutboxStats describes the events not yet delivered nor given up.
type OutboxStats struct {
	Depth  int64
	Oldest time.Time // zero when Depth is 0
}

// Payload is the body of the delivery of one change to one suppression:
// the audit entry's type and time and the suppression, encoded once. The
// domain an erased entry keeps stays with the entry: a payload (stored in
// the outbox, kept after the entry is removed) does not carry it.
func Payload(typ string, at time.Time, e Entry) ([]byte, error) {
	w := e.Wire("")
	w.ErasedDomain = ""
	return json.Marshal(api.WebhookPayload{Type: typ, CreatedAt: api.Timestamp{Time: at}, Data: w})
}

// Webhooks keeps a team's webhooks and shows the outbox of their events.
// Events are written by the changes themselves (Add, RemoveEmails,
// RemoveIDs), in the change's transaction: one per webhook of the team
// that wants the audit entry's type (Webhook.Wants).
type Webhooks interface {
	// CreateWebhook stores a new webhook of w.Team, or returns
	// ErrTooMany when the team already has limit webhooks (enabled or
	// not); limit <= 0 is no limit. The count and the insert are one
	// step: teams creating at once never pass the limit.
	CreateWebhook(ctx context.Context, w Webhook, limit int) error
	ListWebhooks(ctx context.Context, team string, p Page) ([]Webhook, bool, error)
	// GetWebhook returns the team's webhook, or ErrNotFound.
	GetWebhook(ctx context.Context, team, id string) (Webhook, error)
	UpdateWebhook(ctx context.Context, team, id string, p WebhookPatch) error
	// DeleteWebhook removes the webhook with its events and attempts.
	DeleteWebhook(ctx context.Context, team, id string) error
	// RotateWebhookSecret makes secret the webhook's secret; the old one
	// keeps signing until keepOldUntil.
	RotateWebhookSecret(ctx context.Context, team, id, secret string, keepOldUntil time.Time) error

	// WebhookEvents returns a page of the webhook's events, newest first.
	WebhookEvents(ctx context.Context, team, webhookID string, p Page) ([]WebhookEvent, bool, error)
	// WebhookEvent returns one event of the webhook, or ErrNotFound.
	WebhookEvent(ctx context.Context, team, webhookID, eventID string) (WebhookEvent, error)
	// WebhookAttempts returns a page of the event's attempts, newest first.
	WebhookAttempts(ctx context.Context, team, webhookID, eventID string, p Page) ([]Attempt, bool, error)
	// ReplayWebhookEvent makes the event due at once for one more attempt,
	// with no retries after it.
	ReplayWebhookEvent(ctx context.Context, team, webhookID, eventID string, now time.Time) error
}

// ClaimRequest asks for due events to attempt. The caps count the
// attempts the caller has under way already (Busy), so that one webhook
// or one team never holds more of the caller's attempts than its share.
type ClaimRequest struct {
	Now   time.Time
	Lease time.Duration
	Limit int
	// PerWebhook and PerTeam cap the attempts under way at once for one
	// webhook and for one team's webhooks; 0 is no cap.
	PerWebhook, PerTeam int
	// Busy are the caller's attempts under way; nil for none.
	Busy *Busy
}

// Busy counts attempts under way, by webhook, team and event.
type Busy struct {
	Webhooks, Teams map[string]int
	Events          map[string]bool
}

// Outbox is what the deliverer and the retention need of the events:
// claiming due ones, recording attempts, its depth, and pruning.
type Outbox interface {
	// ClaimDeliveries takes up to r.Limit events that are due at r.Now,
	// of enabled webhooks, and leases them until r.Now+r.Lease: no other
	// caller (in this process or another on the same database) gets them
	// until the lease ends or RecordAttempt settles them. Teams take
	// turns (each team's oldest due event first, then each one's second,
	// ...), within r's caps per webhook and per team.
	ClaimDeliveries(ctx context.Context, r ClaimRequest) ([]Delivery, error)
	// RecordAttempt stores an attempt and the event's new status in one
	// transaction.
	RecordAttempt(ctx context.Context, a Attempt, o Outcome) error
	// Outbox describes the events waiting for delivery, of every team.
	Outbox(ctx context.Context) (OutboxStats, error)
	// PruneWebhookEvents deletes settled events (success or failed), with
	// their attempts, created before before, and says how many.
	PruneWebhookEvents(ctx context.Context, before time.Time) (int64, error)
}
