package api

import (
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strconv"
)

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

// The suppression events a webhook can get here. The service accepts any
// event name of the hosted service, but delivers only these.
const (
	EventSuppressionAdded   = AuditAdded
	EventSuppressionRemoved = AuditRemoved
)

// SuppressionEvents are both suppression events, the default of a new
// webhook.
func SuppressionEvents() []string {
	return []string{EventSuppressionAdded, EventSuppressionRemoved}
}

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

// Bounds of a webhook's fields.
const (
	MaxEndpoint  = 2048 // bytes of an endpoint URL
	MaxEvents    = 100  // event names a webhook lists
	MaxEventName = 100  // bytes of one event name
)

// ValidEndpoint reports why s cannot be a webhook's endpoint: it must be an
// absolute http or https URL with a host, at most MaxEndpoint bytes. The
// reason completes "the endpoint is not usable: …".
func ValidEndpoint(s string) error {
	if len(s) > MaxEndpoint {
		return errors.New("it is longer than " + strconv.Itoa(MaxEndpoint) + " bytes")
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errors.New("it must start with http:// or https:// and name a host")
	}
	return nil
}

// eventNameShape is resource.action: two words of lowercase letters,
// digits and underscores, each starting with a letter.
var eventNameShape = regexp.MustCompile(`^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$`)

// ValidEventName reports why s cannot be an event name of a webhook. Any
// name shaped resource.action (at most MaxEventName bytes) is one: the
// hosted service has many more events than the two suppression events,
// and its tools send all of them.
func ValidEventName(s string) error {
	if len(s) > MaxEventName || !eventNameShape.MatchString(s) {
		return errors.New("event names are shaped resource.action, in lower case")
	}
	return nil
}
