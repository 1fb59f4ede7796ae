package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
)

// hookDelivery is one POST a receiver got.
type hookDelivery struct {
	header http.Header
	body   []byte
}

// hookReceiver is an endpoint on loopback that answers 200 and hands every
// delivery to the test.
func hookReceiver(t *testing.T) (string, <-chan hookDelivery) {
	t.Helper()
	got := make(chan hookDelivery, 16)
	rx := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- hookDelivery{header: r.Header.Clone(), body: b}
		io.WriteString(w, "thanks")
	}))
	t.Cleanup(rx.Close)
	return rx.URL + "/hooks", got
}

// deliverFrom runs a webhook deliverer on the service's store, as shush
// serve does beside its handler, until the test ends.
func deliverFrom(t *testing.T, svc *service) {
	t.Helper()
	d := outbox.NewDeliverer(svc.store, outbox.DelivererConfig{Poll: 20 * time.Millisecond, Addresses: outbox.AddressPolicy{AllowPrivate: true}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { d.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })
}

func nextDelivery(t *testing.T, got <-chan hookDelivery, what string) hookDelivery {
	t.Helper()
	select {
	case d := <-got:
		return d
	case <-time.After(30 * time.Second):
		t.Fatalf("%s: no delivery within 30 s", what)
	}
	return hookDelivery{}
}

// A support lead wires the list to a CRM: shush webhooks adds the endpoint,
// every change through the CLI arrives signed, deliveries show where each
// stands, and disable, rotate, update and remove do what they say.
func TestWebhooksFromTheCLI(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	deliverFrom(t, svc)
	sb := newSandbox(t).at(svc)
	endpoint, got := hookReceiver(t)

	r := sb.run(t, nil, "webhooks", "add", endpoint, "--json").want(t, 0)
	created := decode[api.Webhook](t, r)
	if created.Object != "webhook" || created.ID == "" || !strings.HasPrefix(created.SigningSecret, "whsec_") {
		t.Fatalf("add: %s", r)
	}
	if strings.Contains(r.stderr, created.SigningSecret) {
		t.Fatalf("the secret reached stderr: %s", r.stderr)
	}
	id, secret := created.ID, created.SigningSecret

	list := decode[api.WebhookList](t, sb.run(t, nil, "webhooks", "list").want(t, 0))
	if len(list.Data) != 1 || list.Data[0].ID != id || list.Data[0].Status != "enabled" || list.Data[0].Endpoint != endpoint ||
		strings.Join(list.Data[0].Events, ",") != "suppression.added,suppression.removed" || list.Data[0].SigningSecret != "" {
		t.Fatalf("list: %+v", list)
	}
	// show leaves the secret out unless asked.
	r = sb.run(t, nil, "webhooks", "show", id).want(t, 0)
	if strings.Contains(r.stdout, secret) || !strings.Contains(r.stdout, endpoint) {
		t.Fatalf("show without --secret: %s", r)
	}
	if w := decode[api.Webhook](t, sb.run(t, nil, "webhooks", "show", id, "--secret").want(t, 0)); w.SigningSecret != secret {
		t.Fatalf("show --secret gave another secret")
	}

	// A change through the CLI is delivered, signed with the secret.
	sb.run(t, nil, "suppressions", "add", "Bob@Example.com").want(t, 0)
	d := nextDelivery(t, got, "suppression.added")
	if err := api.VerifyWebhook(secret, d.header, d.body, time.Now()); err != nil {
		t.Fatalf("the delivery does not verify: %v\n%s", err, d.body)
	}
	var p api.WebhookPayload
	if err := json.Unmarshal(d.body, &p); err != nil || p.Type != "suppression.added" || p.Data.Email != "bob@example.com" || p.Data.Origin != "manual" {
		t.Fatalf("payload: %+v %v", p, err)
	}
	if d.header.Get("webhook-signature") != d.header.Get("svix-signature") || d.header.Get("Content-Type") != "application/json" {
		t.Errorf("headers: %v", d.header)
	}
	evID, firstBody := d.header.Get("svix-id"), string(d.body)

	// deliveries: the event settles as success; --event shows its attempt.
	var events api.WebhookEventList
	deadline := time.Now().Add(30 * time.Second)
	for {
		events = decode[api.WebhookEventList](t, sb.run(t, nil, "webhooks", "deliveries", id).want(t, 0))
		if len(events.Data) == 1 && events.Data[0].Status == api.EventSuccess || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(events.Data) != 1 || events.Data[0].ID != evID || events.Data[0].Status != api.EventSuccess || events.Data[0].Type != "suppression.added" {
		t.Fatalf("deliveries: %+v", events)
	}
	one := decode[struct {
		Event    api.WebhookEvent
		Attempts api.WebhookAttemptList
	}](t, sb.run(t, nil, "webhooks", "deliveries", id, "--event", evID).want(t, 0))
	if one.Event.ID != evID || one.Event.NextAttemptAt != nil || !strings.Contains(string(one.Event.Payload), "bob@example.com") ||
		len(one.Attempts.Data) != 1 || one.Attempts.Data[0].HTTPStatusCode != 200 || one.Attempts.Data[0].Response != "thanks" {
		t.Fatalf("deliveries --event: %+v", one)
	}

	// replay: the same event once more, with its ID.
	sb.run(t, nil, "webhooks", "replay", id, evID).want(t, 0)
	if d := nextDelivery(t, got, "the replay"); d.header.Get("svix-id") != evID || string(d.body) != firstBody {
		t.Fatalf("replay: id %s, body %s", d.header.Get("svix-id"), d.body)
	}

	// disable: a change makes no event; enable: the next one does.
	sb.run(t, nil, "webhooks", "disable", id).want(t, 0)
	sb.run(t, nil, "suppressions", "add", "quiet@example.com").want(t, 0)
	sb.run(t, nil, "webhooks", "enable", id).want(t, 0)

	// rotate: deliveries carry both signatures, and either secret verifies.
	rot := decode[api.Webhook](t, sb.run(t, nil, "webhooks", "rotate", id).want(t, 0))
	if rot.SigningSecret == "" || rot.SigningSecret == secret {
		t.Fatalf("rotate: %+v", rot.ID)
	}
	sb.run(t, nil, "suppressions", "remove", "bob@example.com", "--yes").want(t, 0)
	d = nextDelivery(t, got, "suppression.removed")
	if err := json.Unmarshal(d.body, &p); err != nil || p.Type != "suppression.removed" || p.Data.Email != "bob@example.com" {
		t.Fatalf("after enable, the next delivery is not bob's removal (quiet@ while disabled must make none): %s", d.body)
	}
	if n := len(strings.Fields(d.header.Get("svix-signature"))); n != 2 {
		t.Errorf("%d signatures after a rotation, want 2", n)
	}
	for _, s := range []string{rot.SigningSecret, secret} {
		if err := api.VerifyWebhook(s, d.header, d.body, time.Now()); err != nil {
			t.Errorf("after a rotation: %v", err)
		}
	}

	// update: the events; the endpoint must be a URL.
	sb.run(t, nil, "webhooks", "update", id, "--events", "removed").want(t, 0)
	if w := decode[api.Webhook](t, sb.run(t, nil, "webhooks", "show", id).want(t, 0)); strings.Join(w.Events, ",") != "suppression.removed" {
		t.Errorf("events after update: %v", w.Events)
	}
	sb.run(t, nil, "webhooks", "update", id, "--endpoint", "not a url").want(t, 2)
	sb.run(t, nil, "webhooks", "update", id).want(t, 2)

	// A read-only key may look, not change nor read the secret.
	_, ro, err := server.CreateNamedKey(context.Background(), svc.store, svc.team, "auditor", true)
	if err != nil {
		t.Fatal(err)
	}
	rsb := newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+ro)
	if w := decode[api.Webhook](t, rsb.run(t, nil, "webhooks", "show", id).want(t, 0)); w.ID != id || w.SigningSecret != "" {
		t.Errorf("show with a read-only key: %+v", w)
	}
	rsb.run(t, nil, "webhooks", "show", id, "--secret").want(t, 4)
	rsb.run(t, nil, "webhooks", "add", endpoint).want(t, 4)
	rsb.run(t, nil, "webhooks", "deliveries", id).want(t, 0)

	// remove asks first; then the webhook is gone.
	sb.run(t, nil, "webhooks", "remove", id).want(t, 2)
	r = sb.run(t, nil, "webhooks", "remove", id, "--yes", "--json").want(t, 0)
	if w := decode[api.Webhook](t, r); !w.Deleted || w.ID != id {
		t.Fatalf("remove: %s", r)
	}
	r = sb.run(t, nil, "webhooks", "show", id).want(t, 1)
	if !strings.Contains(r.stderr, "no webhook has the ID") || !strings.Contains(r.stderr, `"not_found"`) {
		t.Errorf("show after remove: %s", r)
	}
	if r = sb.run(t, nil, "webhooks", "list").want(t, 0); strings.TrimSpace(r.stdout) == "" || len(decode[api.WebhookList](t, r).Data) != 0 {
		t.Errorf("list after remove: %s", r)
	}
}
