package api

import "encoding/json"

// The "object" values of the webhooks API.
const (
	ObjectWebhook      = "webhook"
	ObjectWebhookEvent = "webhook_event"
)

// The statuses of a webhook.
const (
	WebhookEnabled  = "enabled"
	WebhookDisabled = "disabled"
)

// The statuses of a webhook event (one delivery to one webhook).
const (
	EventPending    = "pending"    // not tried yet
	EventAttempting = "attempting" // tried and failed; a retry is scheduled
	EventSuccess    = "success"    // an attempt got a 2xx
	EventFailed     = "failed"     // given up
)

// WebhookSecretPrefix starts every signing secret.
const WebhookSecretPrefix = "whsec_"

// CreateWebhookRequest is the body of POST /webhooks.
type CreateWebhookRequest struct {
	Endpoint string   `json:"endpoint"`
	Events   []string `json:"events"`
}

// UpdateWebhookRequest is the body of PATCH /webhooks/{id}: a nil field is
// left as it is; Events replaces the whole list.
type UpdateWebhookRequest struct {
	Endpoint *string   `json:"endpoint,omitempty"`
	Events   *[]string `json:"events,omitempty"`
	Status   *string   `json:"status,omitempty"`
}

// Webhook is a webhook as GET /webhooks lists it, and as GET /webhooks/{id}
// answers it (with Object and SigningSecret set). Create, update, rotate and
// delete answer only some of its fields.
type Webhook struct {
	Object        string    `json:"object,omitempty"`
	ID            string    `json:"id"`
	Endpoint      string    `json:"endpoint,omitempty"`
	CreatedAt     Timestamp `json:"created_at,omitzero"`
	Status        string    `json:"status,omitempty"`
	Events        []string  `json:"events,omitempty"`
	SigningSecret string    `json:"signing_secret,omitempty"`
	Deleted       bool      `json:"deleted,omitempty"`
}

// WebhookList is the answer of GET /webhooks.
type WebhookList struct {
	Object  string    `json:"object"`
	HasMore bool      `json:"has_more"`
	Data    []Webhook `json:"data"`
}

// WebhookEvent is one event queued for one webhook: an item of GET
// /webhooks/{id}/events, or (with Object, NextAttemptAt and Payload) the
// answer of GET /webhooks/{id}/events/{event_id}.
type WebhookEvent struct {
	Object    string    `json:"object,omitempty"`
	ID        string    `json:"id"`
	Type      string    `json:"type,omitempty"`
	CreatedAt Timestamp `json:"created_at,omitzero"`
	Status    string    `json:"status,omitempty"`
	// NextAttemptAt is when the next attempt is due; null once the event
	// succeeded or failed. Only the single event's answer carries it.
	NextAttemptAt *Timestamp `json:"next_attempt_at,omitempty"`
	// Payload is the JSON object that is sent.
	Payload json.RawMessage `json:"payload,omitempty"`
}

// WebhookEventList is the answer of GET /webhooks/{id}/events.
type WebhookEventList struct {
	Object  string         `json:"object"`
	HasMore bool           `json:"has_more"`
	Data    []WebhookEvent `json:"data"`
}

// WebhookAttempt is one try at delivering an event: the status code the
// endpoint answered (0 when it could not be reached or timed out) and the
// start of its answer (or what went wrong).
type WebhookAttempt struct {
	ID             string    `json:"id"`
	HTTPStatusCode int       `json:"http_status_code"`
	Response       string    `json:"response"`
	SentAt         Timestamp `json:"sent_at"`
}

// WebhookAttemptList is the answer of GET
// /webhooks/{id}/events/{event_id}/attempts.
type WebhookAttemptList struct {
	Object  string           `json:"object"`
	HasMore bool             `json:"has_more"`
	Data    []WebhookAttempt `json:"data"`
}

// WebhookPayload is the body of a delivery: the audit entry's type and
// time and the suppression it is about.
type WebhookPayload struct {
	Type      string    `json:"type"`
	CreatedAt Timestamp `json:"created_at"`
	Data      Entry     `json:"data"`
}
