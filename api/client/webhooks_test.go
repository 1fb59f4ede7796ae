package client_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server/outbox"
)

// Every webhooks call of the client against the real service, with a real
// deliverer and a receiver that refuses the first attempt.
func TestWebhookCallsAgainstTheService(t *testing.T) {
	svc := startService(t, 1000, nil)
	d := outbox.NewDeliverer(svc.Store, outbox.DelivererConfig{Poll: 20 * time.Millisecond, RetryMin: 20 * time.Millisecond, RetryMax: 40 * time.Millisecond, Addresses: outbox.AddressPolicy{AllowPrivate: true}})
	dctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(dctx); close(done) }()
	t.Cleanup(func() { stop(); <-done })

	var calls atomic.Int32
	got := make(chan http.Header, 8)
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			http.Error(w, "not yet", http.StatusServiceUnavailable)
			return
		}
		got <- r.Header.Clone()
	}))
	t.Cleanup(rx.Close)

	c := client.New(svc.URL, svc.Key)
	ctx := context.Background()
	var ids []string
	for i := range 3 {
		w, err := c.CreateWebhook(ctx, rx.URL+"/"+string(rune('a'+i)), nil)
		if err != nil || w.ID == "" || w.Object != api.ObjectWebhook || len(w.SigningSecret) != len("whsec_")+32 {
			t.Fatalf("CreateWebhook: %+v, %v", w.ID, err)
		}
		ids = append(ids, w.ID)
	}
	// Newest first, paged both ways.
	page, err := c.ListWebhooks(ctx, client.WebhookParams{Limit: 2})
	if err != nil || len(page.Data) != 2 || !page.HasMore || page.Data[0].ID != ids[2] || !slices.Equal(page.Data[0].Events, api.SuppressionEvents()) {
		t.Fatalf("ListWebhooks: %+v, %v", page, err)
	}
	rest, err := c.ListWebhooks(ctx, client.WebhookParams{After: page.Data[1].ID})
	if err != nil || len(rest.Data) != 1 || rest.Data[0].ID != ids[0] || rest.HasMore {
		t.Fatalf("ListWebhooks after: %+v, %v", rest, err)
	}
	back, err := c.ListWebhooks(ctx, client.WebhookParams{Before: ids[0]})
	if err != nil || len(back.Data) != 2 {
		t.Fatalf("ListWebhooks before: %+v, %v", back, err)
	}
	// Only the first webhook stays enabled.
	off := api.WebhookDisabled
	for _, id := range ids[1:] {
		if _, err := c.UpdateWebhook(ctx, id, api.UpdateWebhookRequest{Status: &off}); err != nil {
			t.Fatal(err)
		}
	}
	added := []string{api.EventSuppressionAdded}
	if w, err := c.UpdateWebhook(ctx, ids[0], api.UpdateWebhookRequest{Events: &added}); err != nil || w.ID != ids[0] {
		t.Fatalf("UpdateWebhook: %+v, %v", w, err)
	}
	w, err := c.GetWebhook(ctx, ids[0])
	if err != nil || !slices.Equal(w.Events, added) || w.Status != api.WebhookEnabled || w.Endpoint != rx.URL+"/a" {
		t.Fatalf("GetWebhook: %+v, %v", w.Events, err)
	}
	secret := w.SigningSecret

	if _, err := c.Add(ctx, "bob@example.com"); err != nil {
		t.Fatal(err)
	}
	var h http.Header
	select {
	case h = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no delivery within 30 s")
	}
	evID := h.Get("svix-id")
	var ev api.WebhookEvent
	for deadline := time.Now().Add(30 * time.Second); ; {
		ev, err = c.WebhookEvent(ctx, ids[0], evID)
		if err != nil || ev.Status == api.EventSuccess || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err != nil || ev.Status != api.EventSuccess || ev.NextAttemptAt != nil || ev.Type != api.EventSuppressionAdded {
		t.Fatalf("WebhookEvent: %+v, %v", ev, err)
	}
	evs, err := c.WebhookEvents(ctx, ids[0], 10, "")
	if err != nil || len(evs.Data) != 1 || evs.Data[0].ID != evID {
		t.Fatalf("WebhookEvents: %+v, %v", evs, err)
	}
	// Two attempts, newest first: the 200 after the 503.
	at, err := c.WebhookAttempts(ctx, ids[0], evID, 1, "")
	if err != nil || len(at.Data) != 1 || !at.HasMore || at.Data[0].HTTPStatusCode != 200 {
		t.Fatalf("WebhookAttempts: %+v, %v", at, err)
	}
	at, err = c.WebhookAttempts(ctx, ids[0], evID, 1, at.Data[0].ID)
	if err != nil || len(at.Data) != 1 || at.HasMore || at.Data[0].HTTPStatusCode != http.StatusServiceUnavailable || at.Data[0].Response == "" {
		t.Fatalf("WebhookAttempts after: %+v, %v", at, err)
	}

	rot, err := c.RotateWebhookSecret(ctx, ids[0])
	if err != nil || rot.SigningSecret == "" || rot.SigningSecret == secret {
		t.Fatalf("RotateWebhookSecret: %v", err)
	}
	if r, err := c.ReplayWebhookEvent(ctx, ids[0], evID); err != nil || r.ID != evID {
		t.Fatalf("ReplayWebhookEvent: %+v, %v", r, err)
	}
	select {
	case h = <-got:
	case <-time.After(30 * time.Second):
		t.Fatal("no replayed delivery within 30 s")
	}
	if h.Get("svix-id") != evID {
		t.Errorf("the replay's id %s, want %s", h.Get("svix-id"), evID)
	}
	// A replay on a disabled webhook is refused.
	if _, err := c.UpdateWebhook(ctx, ids[0], api.UpdateWebhookRequest{Status: &off}); err != nil {
		t.Fatal(err)
	}
	_, err = c.ReplayWebhookEvent(ctx, ids[0], evID)
	var ae *api.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusUnprocessableEntity || ae.Name != api.ErrValidation {
		t.Errorf("ReplayWebhookEvent on a disabled webhook: %v; want 422 validation_error", err)
	}

	del, err := c.DeleteWebhook(ctx, ids[0])
	if err != nil || !del.Deleted || del.ID != ids[0] {
		t.Fatalf("DeleteWebhook: %+v, %v", del, err)
	}
	_, err = c.GetWebhook(ctx, ids[0])
	if !client.IsNotFound(err) || client.IsWebhooksUnsupported(err) {
		t.Fatalf("GetWebhook after delete: %v; want a webhook's 404", err)
	}
	_, err = c.WebhookEvent(ctx, ids[1], evID)
	if !client.IsNotFound(err) || client.IsWebhooksUnsupported(err) {
		t.Fatalf("WebhookEvent of another webhook: %v; want an event's 404", err)
	}
}

// Create and rotate are not repeated on a 5xx (a repeat would make a second
// webhook or a second secret); reads are.
func TestWebhookRetries(t *testing.T) {
	create := &faults{path: "/webhooks", status: http.StatusBadGateway}
	create.left.Store(1)
	svc := startService(t, 1000, create.wrap)
	c := client.New(svc.URL, svc.Key, fast())
	ctx := context.Background()

	if _, err := c.CreateWebhook(ctx, "https://example.com/hook", nil); err == nil || create.seen.Load() != 1 {
		t.Fatalf("CreateWebhook after a 502: %v, %d requests; want the 502 and no retry", err, create.seen.Load())
	}
	create.left.Store(1)
	if page, err := c.ListWebhooks(ctx, client.WebhookParams{}); err != nil || len(page.Data) != 0 || create.seen.Load() != 3 {
		t.Fatalf("ListWebhooks after a 502: %+v, %v, %d requests; want a retry and no webhook", page, err, create.seen.Load())
	}
	create.status = http.StatusTooManyRequests
	create.left.Store(1)
	if _, err := c.CreateWebhook(ctx, "https://example.com/hook", nil); err != nil || create.seen.Load() != 5 {
		t.Fatalf("CreateWebhook after a 429: %v, %d requests; want it retried", err, create.seen.Load())
	}

	// A service without the API.
	_, err := client.New(svc.URL+"/nothing-here", svc.Key).ListWebhooks(ctx, client.WebhookParams{})
	if !client.IsWebhooksUnsupported(err) {
		t.Fatalf("ListWebhooks where there is none: %v", err)
	}
}
