package client

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/shushlist/shush/api"
)

// WebhookParams selects a page of webhooks, events or attempts: Limit
// (1–100, 0 for the service's default of 20) and an ID to start after or
// before. Events and attempts page with After only.
type WebhookParams struct {
	Limit  int
	After  string
	Before string
}

// query is the paging part of a list's query string, the same for every
// list of the API.
func (p WebhookParams) query() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.After != "" {
		q.Set("after", p.After)
	}
	if p.Before != "" {
		q.Set("before", p.Before)
	}
	return q
}

func webhookPath(id string, rest ...string) string {
	p := "/webhooks/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// The retries of the webhook calls follow what a repeat would do. Create
// and rotate are not repeatable: a retry after an answer that was lost
// would make a second webhook, or a second new secret while the first one
// was never seen, so they are retried only on a 429 (the service did
// nothing). Delete and replay are retried on 429 and 5xx but not on a
// network error, like Remove: a repeated delete answers 404 and hides that
// the first one worked, a repeated replay sends the event once more. Reads
// and updates (which set fields to given values) are retried like the list.

// CreateWebhook registers an endpoint for events (SuppressionEvents when
// events is empty). The answer holds the new webhook's ID and its signing
// secret; treat the secret like a key.
func (c *Client) CreateWebhook(ctx context.Context, endpoint string, events []string) (api.Webhook, error) {
	if len(events) == 0 {
		events = api.SuppressionEvents()
	}
	var out api.Webhook
	err := c.do(ctx, http.MethodPost, "/webhooks", nil, api.CreateWebhookRequest{Endpoint: endpoint, Events: events}, &out, rateLimitOnly)
	return out, err
}

// ListWebhooks reads a page of the team's webhooks, newest first. A
// service without the webhooks API answers 404: IsWebhooksUnsupported
// tells.
func (c *Client) ListWebhooks(ctx context.Context, p WebhookParams) (api.WebhookList, error) {
	var out api.WebhookList
	err := c.do(ctx, http.MethodGet, "/webhooks", p.query(), nil, &out, idempotent)
	return out, err
}

// GetWebhook reads one webhook with its signing secret; a read-only key is
// refused (403 restricted_api_key), because the secret forges deliveries.
func (c *Client) GetWebhook(ctx context.Context, id string) (api.Webhook, error) {
	var out api.Webhook
	err := c.do(ctx, http.MethodGet, webhookPath(id), nil, nil, &out, idempotent)
	return out, err
}

// UpdateWebhook changes the fields of u that are set: the endpoint, the
// whole list of events, or the status (WebhookEnabled, WebhookDisabled).
func (c *Client) UpdateWebhook(ctx context.Context, id string, u api.UpdateWebhookRequest) (api.Webhook, error) {
	var out api.Webhook
	err := c.do(ctx, http.MethodPatch, webhookPath(id), nil, u, &out, idempotent)
	return out, err
}

// DeleteWebhook removes a webhook; its pending events are not sent.
func (c *Client) DeleteWebhook(ctx context.Context, id string) (api.Webhook, error) {
	var out api.Webhook
	err := c.do(ctx, http.MethodDelete, webhookPath(id), nil, nil, &out, noNetworkRetry)
	return out, err
}

// RotateWebhookSecret gives a webhook a new signing secret and returns it.
// For 24 hours deliveries carry signatures by the new and the old secret,
// so a receiver can switch without losing any.
func (c *Client) RotateWebhookSecret(ctx context.Context, id string) (api.Webhook, error) {
	var out api.Webhook
	err := c.do(ctx, http.MethodPost, webhookPath(id, "signing-secret", "rotate"), nil, nil, &out, rateLimitOnly)
	return out, err
}

// WebhookEvents reads a page of a webhook's events with their delivery
// status, newest first.
func (c *Client) WebhookEvents(ctx context.Context, id string, limit int, after string) (api.WebhookEventList, error) {
	var out api.WebhookEventList
	err := c.do(ctx, http.MethodGet, webhookPath(id, "events"), WebhookParams{Limit: limit, After: after}.query(), nil, &out, idempotent)
	return out, err
}

// WebhookEvent reads one event of a webhook with its payload and when its
// next attempt is due.
func (c *Client) WebhookEvent(ctx context.Context, id, eventID string) (api.WebhookEvent, error) {
	var out api.WebhookEvent
	err := c.do(ctx, http.MethodGet, webhookPath(id, "events", eventID), nil, nil, &out, idempotent)
	return out, err
}

// WebhookAttempts reads a page of the tries at delivering one event,
// newest first.
func (c *Client) WebhookAttempts(ctx context.Context, id, eventID string, limit int, after string) (api.WebhookAttemptList, error) {
	var out api.WebhookAttemptList
	err := c.do(ctx, http.MethodGet, webhookPath(id, "events", eventID, "attempts"), WebhookParams{Limit: limit, After: after}.query(), nil, &out, idempotent)
	return out, err
}

// ReplayWebhookEvent asks for one more attempt at an event, whatever its
// status; it is not retried automatically if it fails. The service refuses
// it on a disabled webhook (422).
func (c *Client) ReplayWebhookEvent(ctx context.Context, id, eventID string) (api.WebhookEvent, error) {
	var out api.WebhookEvent
	err := c.do(ctx, http.MethodPost, webhookPath(id, "events", eventID, "replay"), nil, nil, &out, noNetworkRetry)
	return out, err
}

// IsWebhooksUnsupported reports whether err says the service has no
// webhooks API: 405, or a 404 that is not about a webhook or an event (an
// unknown webhook answers "Webhook not found").
func IsWebhooksUnsupported(err error) bool {
	var e *api.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.StatusCode == http.StatusMethodNotAllowed ||
		e.StatusCode == http.StatusNotFound && !strings.Contains(strings.ToLower(e.Message), "webhook")
}
