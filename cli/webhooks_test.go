package cli

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// addWebhook registers an endpoint through the command and returns the
// webhook it printed.
func addWebhook(t *testing.T, ta *testApp, endpoint string, events ...string) api.Webhook {
	t.Helper()
	if events == nil {
		events = api.SuppressionEvents()
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runWebhooksAdd(context.Background(), &webhooksAddOptions{app: ta.app, Endpoint: endpoint, Events: events}); err != nil {
		t.Fatal(err)
	}
	var w api.Webhook
	ta.decode(t, &w)
	ta.reset()
	return w
}

func TestWebhooksAddPrintsTheSecretOnce(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runWebhooksAdd(ctx, &webhooksAddOptions{app: ta.app, Endpoint: " https://hooks.example.com/s ", Events: []string{"added"}}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range ta.lines() {
		k, v, _ := strings.Cut(l, "  ")
		got[k] = strings.TrimSpace(v)
	}
	if got["endpoint"] != "https://hooks.example.com/s" || got["events"] != api.EventSuppressionAdded || !strings.HasPrefix(got["signing secret"], "whsec_") || got["id"] == "" {
		t.Errorf("webhooks add printed:\n%s", ta.out.String())
	}
	if e := ta.err.String(); !strings.Contains(e, "Give the signing secret to the receiver only") || strings.Contains(e, got["signing secret"]) {
		t.Errorf("notice %q", e)
	}

	// list shows it, never the secret.
	ta.reset()
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[1], got["id"]) || !strings.Contains(lines[1], "enabled") || !strings.Contains(lines[1], "added") {
		t.Errorf("webhooks list:\n%s", ta.out.String())
	}
	if strings.Contains(ta.out.String(), "whsec_") {
		t.Error("the list shows a secret")
	}
}

func TestWebhooksAddRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	wantErr(t, runWebhooksAdd(ctx, &webhooksAddOptions{app: ta.app, Endpoint: "hooks.example.com", Events: api.SuppressionEvents()}), ExitUsage,
		`the endpoint "hooks.example.com" is not an absolute http or https URL`)
	wantErr(t, runWebhooksAdd(ctx, &webhooksAddOptions{app: ta.app, Endpoint: "https://h.example.com", Events: []string{"bounced"}}), ExitUsage, "bounced")
	ta.reset()
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	var list api.WebhookList
	ta.decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("a refused add registered %+v", list.Data)
	}

	// An empty list for a person says how to start, on stderr.
	ta.reset()
	ta.human()
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.Contains(ta.err.String(), "shush webhooks add URL") {
		t.Errorf("stdout %q, stderr %q", ta.out.String(), ta.err.String())
	}
}

func TestWebhooksShow(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, "https://hooks.example.com/a")

	// show: no secret without --secret; with it, the one add printed.
	if err := runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: w.ID}); err != nil {
		t.Fatal(err)
	}
	var shown api.Webhook
	ta.decode(t, &shown)
	if shown.ID != w.ID || shown.Endpoint != "https://hooks.example.com/a" || shown.SigningSecret != "" || shown.Status != api.WebhookEnabled {
		t.Errorf("show %+v", shown)
	}
	ta.reset()
	if err := runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: w.ID, Secret: true}); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &shown)
	if shown.SigningSecret != w.SigningSecret {
		t.Errorf("show --secret gave another secret")
	}
	ta.reset()
	ta.human()
	if err := runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: w.ID, Secret: true}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 6 || strings.Join(fields(l[5])[:2], " ") != "signing secret" || fields(l[5])[2] != w.SigningSecret || fields(l[2])[1] != "enabled" {
		t.Errorf("show --secret for a person:\n%s", ta.out.String())
	}
	ta.io.StdoutTTY = false

	// A read-only key sees the webhook, not its secret.
	ro := newTestApp(t, svc)
	ro.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	if err := runWebhooksShow(ctx, &webhooksShowOptions{app: ro.app, Arg: w.ID}); err != nil {
		t.Fatalf("show with a read-only key: %v", err)
	}
	var roShown api.Webhook
	ro.decode(t, &roShown)
	if roShown.ID != w.ID || roShown.SigningSecret != "" {
		t.Errorf("read-only show %+v", roShown)
	}
	ro.reset()
	wantErr(t, runWebhooksShow(ctx, &webhooksShowOptions{app: ro.app, Arg: w.ID, Secret: true}), ExitRefused)

}

func TestWebhooksUpdateAndStatus(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, "https://hooks.example.com/a")
	var shown api.Webhook

	ta.human()
	wantErr(t, runWebhooksUpdate(ctx, &webhooksUpdateOptions{app: ta.app, Arg: w.ID}), ExitUsage, "webhooks update needs --endpoint or --events")
	if err := runWebhooksUpdate(ctx, &webhooksUpdateOptions{app: ta.app, Arg: w.ID, Endpoint: "https://hooks.example.com/v2", EndpointGiven: true,
		Events: []string{"removed"}, EventsGiven: true}); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Updated webhook "+w.ID+".\n" {
		t.Errorf("update said %q", ta.out.String())
	}

	// disable, then enable.
	ta.reset()
	if err := runWebhooksStatus(ctx, &webhooksStatusOptions{app: ta.app, Arg: w.ID, Status: api.WebhookDisabled}); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Disabled webhook "+w.ID+".\n" {
		t.Errorf("disable said %q", ta.out.String())
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: w.ID}); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &shown)
	if shown.Status != api.WebhookDisabled || shown.Endpoint != "https://hooks.example.com/v2" || strings.Join(shown.Events, ",") != api.EventSuppressionRemoved {
		t.Errorf("after update and disable: %+v", shown)
	}
	ta.reset()
	ta.human()
	if err := runWebhooksStatus(ctx, &webhooksStatusOptions{app: ta.app, Arg: w.ID, Status: api.WebhookEnabled}); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Enabled webhook "+w.ID+".\n" {
		t.Errorf("enable said %q", ta.out.String())
	}

}

func TestWebhooksRotateAndRemove(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, "https://hooks.example.com/a")

	ta.human()
	if err := runWebhooksRotate(ctx, &webhooksRotateOptions{app: ta.app, Arg: w.ID}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), "signing secret") || strings.Contains(ta.out.String(), w.SigningSecret) ||
		!strings.Contains(ta.err.String(), "The old secret keeps signing deliveries beside the new one for 24 hours.") {
		t.Errorf("rotate:\n%s\n%s", ta.out.String(), ta.err.String())
	}

	// remove needs --yes off a terminal.
	ta.reset()
	wantErr(t, runWebhooksRemove(ctx, &webhooksRemoveOptions{app: ta.app, Arg: w.ID}), ExitUsage, "pass --yes")
	if err := runWebhooksRemove(ctx, &webhooksRemoveOptions{app: ta.app, Arg: w.ID, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Removed webhook "+w.ID+".\n" {
		t.Errorf("remove said %q", ta.out.String())
	}
	wantErr(t, runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: w.ID}), ExitFailed, w.ID)
}

// An ID the service does not know is named in one sentence, with where to
// find the right one.
func TestWebhookIDsNotKnown(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for name, err := range map[string]error{
		"show":       runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: "nope"}),
		"update":     runWebhooksUpdate(ctx, &webhooksUpdateOptions{app: ta.app, Arg: "nope", Events: []string{"added"}, EventsGiven: true}),
		"status":     runWebhooksStatus(ctx, &webhooksStatusOptions{app: ta.app, Arg: "nope", Status: api.WebhookEnabled}),
		"rotate":     runWebhooksRotate(ctx, &webhooksRotateOptions{app: ta.app, Arg: "nope"}),
		"remove":     runWebhooksRemove(ctx, &webhooksRemoveOptions{app: ta.app, Arg: "nope", Yes: true}),
		"deliveries": runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: "nope", Paging: paging{limit: 5}}),
		"replay":     runReplay(ctx, &replayOptions{app: ta.app, Webhook: "nope", Event: "nope"}),
	} {
		if err == nil || exitCode(err) != ExitFailed || !strings.Contains(err.Error(), `no webhook has the ID "nope" on `+svc.URL+" (see shush webhooks list)") {
			t.Errorf("%s of a bad ID: %v", name, err)
		}
	}
}

// A signing secret or a URL given where a webhook's ID goes is a usage
// error of every command that names a webhook, told before anything is
// sent: the secret never travels in a request's path.
func TestWebhookCommandsRefuseASecretForTheID(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var sent []string
	svc := newServiceBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			sent = append(sent, r.Method+" "+r.URL.Path)
			mu.Unlock()
			next.ServeHTTP(w, r)
		})
	})
	ta := newTestApp(t, svc).human()
	const event = "0195f3d0-0000-7000-8000-000000000000"
	for bad, want := range map[string]string{
		"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw": "give the webhook ID (see shush webhooks list), not the signing secret",
		"https://hooks.example.com/x":            `"https://hooks.example.com/x" is not a webhook ID`,
	} {
		for name, err := range map[string]error{
			"show":       runWebhooksShow(ctx, &webhooksShowOptions{app: ta.app, Arg: bad}),
			"update":     runWebhooksUpdate(ctx, &webhooksUpdateOptions{app: ta.app, Arg: bad, Events: []string{"added"}, EventsGiven: true}),
			"disable":    runWebhooksStatus(ctx, &webhooksStatusOptions{app: ta.app, Arg: bad, Status: api.WebhookDisabled}),
			"rotate":     runWebhooksRotate(ctx, &webhooksRotateOptions{app: ta.app, Arg: bad}),
			"remove":     runWebhooksRemove(ctx, &webhooksRemoveOptions{app: ta.app, Arg: bad, Yes: true}),
			"deliveries": runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: bad, Paging: paging{limit: 5}}),
			"replay":     runReplay(ctx, &replayOptions{app: ta.app, Webhook: bad, Event: event}),
		} {
			if exitCode(err) != ExitUsage || err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v; want a usage error saying %q", name, bad, err, want)
			}
		}
	}
	if len(sent) > 0 || ta.out.Len() > 0 {
		t.Errorf("a refused ID still sent %q and printed %q", sent, ta.out.String())
	}
}

func TestWebhookDeliveriesAndReplay(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, "https://hooks.example.com/d")
	svc.add(t, "a@example.com")

	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	var events api.WebhookEventList
	ta.decode(t, &events)
	if len(events.Data) != 1 || events.Data[0].Type != api.EventSuppressionAdded || events.Data[0].Status != "pending" {
		t.Fatalf("deliveries %s", ta.out.String())
	}
	ev := events.Data[0]

	ta.reset()
	ta.human()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 || !strings.Contains(l[1], ev.ID) || !strings.Contains(l[1], "pending") {
		t.Errorf("deliveries for a person:\n%s", ta.out.String())
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Event: ev.ID, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	var doc eventDoc
	ta.decode(t, &doc)
	if doc.Event.ID != ev.ID || doc.Attempts.Object != "list" || len(doc.Attempts.Data) != 0 {
		t.Errorf("--event %+v", doc)
	}

	ta.reset()
	ta.human()
	if err := runReplay(ctx, &replayOptions{app: ta.app, Webhook: w.ID, Event: ev.ID}); err != nil {
		t.Fatal(err)
	}
	if want := "Event " + ev.ID + " of webhook " + w.ID + " is queued for one more attempt.\n"; ta.out.String() != want {
		t.Errorf("replay said %q", ta.out.String())
	}
}
