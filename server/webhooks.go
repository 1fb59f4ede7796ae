package server

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// The webhooks API (contract: webhooks), on the hosted service's wire.

// secretOverlap is how long a rotated-out secret keeps signing deliveries.
const secretOverlap = 24 * time.Hour

func (s *Server) webhookRoutes() {
	s.handle("POST /webhooks", true, s.createWebhook)
	s.handle("GET /webhooks", false, s.listWebhooks)
	s.handle("GET /webhooks/{id}", false, s.getWebhook)
	s.handle("PATCH /webhooks/{id}", true, s.updateWebhook)
	s.handle("DELETE /webhooks/{id}", true, s.deleteWebhook)
	s.handle("POST /webhooks/{id}/signing-secret/rotate", true, s.rotateSecret)
	s.handle("GET /webhooks/{id}/events", false, s.webhookEvents)
	s.handle("GET /webhooks/{id}/events/{event_id}", false, s.webhookEvent)
	s.handle("GET /webhooks/{id}/events/{event_id}/attempts", false, s.webhookAttempts)
	s.handle("POST /webhooks/{id}/events/{event_id}/replay", true, s.replayEvent)
}

func webhookNotFound() *problem {
	return newProblem(http.StatusNotFound, api.ErrNotFound, "Webhook not found")
}

func eventNotFound() *problem {
	return newProblem(http.StatusNotFound, api.ErrNotFound, "Webhook event not found")
}

// or404 turns a store's ErrNotFound into the answer p.
func or404(err error, p func() *problem) error {
	if errors.Is(err, store.ErrNotFound) {
		return p()
	}
	return err
}

// newSecret makes a signing secret: whsec_ and 24 random bytes in padded
// standard base64.
func newSecret() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return api.WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b), nil
}

func (s *Server) createWebhook(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "endpoint", "events")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["endpoint"]
	if !ok {
		return 0, nil, missing("The `endpoint` field is missing; send the URL deliveries go to.")
	}
	endpoint, err := endpointField(raw)
	if err != nil {
		return 0, nil, err
	}
	raw, ok = f["events"]
	if !ok {
		return 0, nil, missing("The `events` field is missing; send the event names to deliver, e.g. [\"suppression.added\"].")
	}
	events, err := eventsField(raw)
	if err != nil {
		return 0, nil, err
	}
	secret, err := newSecret()
	if err != nil {
		return 0, nil, err
	}
	hook := store.Webhook{ID: uuid.Must(uuid.NewV7()).String(), Team: team, Endpoint: endpoint, Events: events,
		Status: api.WebhookEnabled, Secret: secret, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := s.store.CreateWebhook(r.Context(), hook, s.opts.MaxWebhooksPerTeam); err != nil {
		if errors.Is(err, store.ErrTooMany) {
			s.metrics.teamRefused.WithLabelValues("webhooks").Inc()
			return 0, nil, invalid("This team has %d webhooks, as many as it may; remove or reuse one (each change is sent to every one of them).", s.opts.MaxWebhooksPerTeam)
		}
		return 0, nil, err
	}
	return http.StatusCreated, api.Webhook{Object: api.ObjectWebhook, ID: hook.ID, SigningSecret: secret}, nil
}

// endpointField reads an endpoint: an absolute http or https URL.
func endpointField(raw json.RawMessage) (string, error) {
	return stringField(raw, "endpoint", "an absolute http(s) URL", func(v string) (string, error) {
		return v, api.ValidEndpoint(v)
	})
}

// eventsField reads the list of event names: 1 to api.MaxEvents names shaped
// resource.action. Any such name is kept (the hosted service's tools send
// all of theirs); only the suppression events are ever delivered here.
func eventsField(raw json.RawMessage) ([]string, error) {
	events, err := stringList(raw, "events", "an event name such as suppression.added", func(v string) (string, error) {
		return v, api.ValidEventName(v)
	})
	if err != nil {
		return nil, err
	}
	if len(events) > api.MaxEvents {
		return nil, invalid("`events` has %d names; send at most %d.", len(events), api.MaxEvents)
	}
	return events, nil
}

// webhookPage reads limit, after and before (before only when allowed),
// each given once.
func webhookPage(r *http.Request, before bool) (store.Page, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return store.Page{}, badRequest("The query string is malformed; escape its values.")
	}
	p := store.Page{Limit: 20}
	for name, v := range q {
		if len(v) > 1 {
			return p, invalid("`%s` is given %d times; give it once.", name, len(v))
		}
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > api.MaxBatch {
			return p, invalid("`limit` must be one whole number from 1 to %d, not %s.", api.MaxBatch, api.Quote(v[0]))
		}
		p.Limit = n
	}
	if _, ok := q["before"]; ok && !before {
		return p, invalid("`before` is not supported here; page with `after`.")
	}
	for _, c := range []struct {
		name string
		dst  *string
	}{{"after", &p.After}, {"before", &p.Before}} {
		if v, ok := q[c.name]; ok {
			id, err := api.NormalizeID(v[0])
			if err != nil {
				return p, invalid("`%s` (%s) is not an ID: it must be one UUID.", c.name, api.Quote(v[0]))
			}
			*c.dst = id
		}
	}
	if p.After != "" && p.Before != "" {
		return p, invalid("Send either `after` or `before`, not both.")
	}
	return p, nil
}

func webhookItem(h store.Webhook) api.Webhook {
	return api.Webhook{ID: h.ID, Endpoint: h.Endpoint, CreatedAt: api.Timestamp{Time: h.CreatedAt}, Status: h.Status, Events: h.Events}
}

func (s *Server) listWebhooks(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	p, err := webhookPage(r, true)
	if err != nil {
		return 0, nil, err
	}
	page, more, err := s.store.ListWebhooks(r.Context(), team, p)
	if err != nil {
		return 0, nil, err
	}
	out := api.WebhookList{Object: api.ObjectList, HasMore: more, Data: make([]api.Webhook, len(page))}
	c, _ := callerOf(r)
	for i, h := range page {
		out.Data[i] = webhookItem(h)
		if c.readOnly() {
			out.Data[i].Endpoint = hiddenEndpoint(h.Endpoint)
		}
	}
	return http.StatusOK, out, nil
}

// hook reads the webhook the path names, of the team.
func (s *Server) hook(r *http.Request, team string) (store.Webhook, error) {
	id, err := api.NormalizeID(r.PathValue("id"))
	if err != nil {
		return store.Webhook{}, webhookNotFound()
	}
	h, err := s.store.GetWebhook(r.Context(), team, id)
	return h, or404(err, webhookNotFound)
}

func (s *Server) getWebhook(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	if c, _ := callerOf(r); c.readOnly() {
		return 0, nil, newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
			"This %s is read-only; it cannot read a webhook's signing secret, which lets its holder sign deliveries.", c.kind())
	}
	h, err := s.hook(r, team)
	if err != nil {
		return 0, nil, err
	}
	out := webhookItem(h)
	out.Object, out.SigningSecret = api.ObjectWebhook, h.Secret
	return http.StatusOK, out, nil
}

func (s *Server) updateWebhook(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	h, err := s.hook(r, team)
	if err != nil {
		return 0, nil, err
	}
	f, err := readObject(w, r, "endpoint", "events", "status")
	if err != nil {
		return 0, nil, err
	}
	var patch store.WebhookPatch
	if raw, ok := f["endpoint"]; ok {
		v, err := endpointField(raw)
		if err != nil {
			return 0, nil, err
		}
		patch.Endpoint = &v
	}
	if raw, ok := f["events"]; ok {
		v, err := eventsField(raw)
		if err != nil {
			return 0, nil, err
		}
		patch.Events = &v
	}
	if raw, ok := f["status"]; ok {
		v, err := stringField(raw, "status", "enabled or disabled", func(v string) (string, error) {
			if v != api.WebhookEnabled && v != api.WebhookDisabled {
				return "", errors.New("the status is enabled or disabled")
			}
			return v, nil
		})
		if err != nil {
			return 0, nil, err
		}
		patch.Status = &v
	}
	if err := s.store.UpdateWebhook(r.Context(), team, h.ID, patch); err != nil {
		return 0, nil, or404(err, webhookNotFound)
	}
	return http.StatusOK, api.Webhook{Object: api.ObjectWebhook, ID: h.ID}, nil
}

func (s *Server) deleteWebhook(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	h, err := s.hook(r, team)
	if err != nil {
		return 0, nil, err
	}
	if err := s.store.DeleteWebhook(r.Context(), team, h.ID); err != nil {
		return 0, nil, or404(err, webhookNotFound)
	}
	return http.StatusOK, api.Webhook{Object: api.ObjectWebhook, ID: h.ID, Deleted: true}, nil
}

func (s *Server) rotateSecret(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	h, err := s.hook(r, team)
	if err != nil {
		return 0, nil, err
	}
	secret, err := newSecret()
	if err != nil {
		return 0, nil, err
	}
	if err := s.store.RotateWebhookSecret(r.Context(), team, h.ID, secret, time.Now().Add(secretOverlap)); err != nil {
		return 0, nil, or404(err, webhookNotFound)
	}
	return http.StatusOK, api.Webhook{Object: api.ObjectWebhook, ID: h.ID, SigningSecret: secret}, nil
}

func (s *Server) webhookEvents(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	p, err := webhookPage(r, false)
	if err != nil {
		return 0, nil, err
	}
	h, err := s.hook(r, team)
	if err != nil {
		return 0, nil, err
	}
	page, more, err := s.store.WebhookEvents(r.Context(), team, h.ID, p)
	if err != nil {
		return 0, nil, err
	}
	out := api.WebhookEventList{Object: api.ObjectList, HasMore: more, Data: make([]api.WebhookEvent, len(page))}
	for i, e := range page {
		out.Data[i] = api.WebhookEvent{ID: e.ID, Type: e.Type, CreatedAt: api.Timestamp{Time: e.CreatedAt}, Status: e.Status}
	}
	return http.StatusOK, out, nil
}

// event reads the event the path names, of the webhook the path names.
func (s *Server) event(r *http.Request, team string) (store.Webhook, store.WebhookEvent, error) {
	h, err := s.hook(r, team)
	if err != nil {
		return h, store.WebhookEvent{}, err
	}
	id, err := api.NormalizeID(r.PathValue("event_id"))
	if err != nil {
		return h, store.WebhookEvent{}, eventNotFound()
	}
	e, err := s.store.WebhookEvent(r.Context(), team, h.ID, id)
	return h, e, or404(err, eventNotFound)
}

// eventDetail is the answer of GET /webhooks/{id}/events/{event_id}:
// next_attempt_at is always there, null once the event is settled.
type eventDetail struct {
	Object        string          `json:"object"`
	ID            string          `json:"id"`
	Type          string          `json:"type"`
	CreatedAt     api.Timestamp   `json:"created_at"`
	Status        string          `json:"status"`
	NextAttemptAt *api.Timestamp  `json:"next_attempt_at"`
	Payload       json.RawMessage `json:"payload"`
}

func (s *Server) webhookEvent(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	_, e, err := s.event(r, team)
	if err != nil {
		return 0, nil, err
	}
	out := eventDetail{Object: api.ObjectWebhookEvent, ID: e.ID, Type: e.Type, CreatedAt: api.Timestamp{Time: e.CreatedAt},
		Status: e.Status, Payload: e.Payload}
	if !e.NextAttemptAt.IsZero() {
		out.NextAttemptAt = &api.Timestamp{Time: e.NextAttemptAt}
	}
	return http.StatusOK, out, nil
}

func (s *Server) webhookAttempts(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	p, err := webhookPage(r, false)
	if err != nil {
		return 0, nil, err
	}
	h, e, err := s.event(r, team)
	if err != nil {
		return 0, nil, err
	}
	page, more, err := s.store.WebhookAttempts(r.Context(), team, h.ID, e.ID, p)
	if err != nil {
		return 0, nil, or404(err, eventNotFound)
	}
	out := api.WebhookAttemptList{Object: api.ObjectList, HasMore: more, Data: make([]api.WebhookAttempt, len(page))}
	for i, a := range page {
		out.Data[i] = api.WebhookAttempt{ID: a.ID, HTTPStatusCode: a.StatusCode, Response: a.Response, SentAt: api.Timestamp{Time: a.SentAt}}
	}
	return http.StatusOK, out, nil
}

func (s *Server) replayEvent(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	h, e, err := s.event(r, team)
	if err != nil {
		return 0, nil, err
	}
	if h.Status != api.WebhookEnabled {
		return 0, nil, invalid("The webhook is disabled; enable it before replaying its events.")
	}
	if err := s.store.ReplayWebhookEvent(r.Context(), team, h.ID, e.ID, time.Now()); err != nil {
		return 0, nil, or404(err, eventNotFound)
	}
	s.wakeDeliveries()
	return http.StatusOK, api.WebhookEvent{Object: api.ObjectWebhookEvent, ID: e.ID}, nil
}
