package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/outbox"
)

// receiver is a webhook endpoint on loopback that answers with the status
// and body it is set to and keeps what it was sent.
type receiver struct {
	*httptest.Server
	status atomic.Int32
	answer atomic.Value // string

	mu   sync.Mutex
	got  [][]byte
	head []http.Header
}

func newReceiver(t *testing.T, status int, answer string) *receiver {
	r := &receiver{}
	r.status.Store(int32(status))
	r.answer.Store(answer)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got, r.head = append(r.got, body), append(r.head, req.Header.Clone())
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
		io.WriteString(w, r.answer.Load().(string))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) deliveries() ([][]byte, []http.Header) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([][]byte(nil), r.got...), append([]http.Header(nil), r.head...)
}

// deliver runs the service's deliverer of webhook events (what shush serve
// runs) until the test ends: it may reach loopback, polls often, and
// retries a failure only after an hour, so that each attempt is the
// test's doing.
func deliver(t *testing.T, svc *testService) {
	t.Helper()
	ob, ok := svc.Store.(outbox.Outbox)
	if !ok {
		t.Fatalf("%T has no outbox", svc.Store)
	}
	d := outbox.NewDeliverer(ob, outbox.DelivererConfig{
		Addresses: outbox.AddressPolicy{AllowPrivate: true},
		Poll:      10 * time.Millisecond,
		RetryMin:  time.Hour,
		Timeout:   5 * time.Second,
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		d.Run(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
}

// eventOf reads deliveries --event as JSON until ok says it shows what the
// test waits for (at most 10 s).
func eventOf(t *testing.T, ta *testApp, hook, event string, ok func(eventDoc) bool) eventDoc {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		ta.reset()
		saved := ta.io.StdoutTTY
		ta.io.StdoutTTY = false
		err := runDeliveries(context.Background(), &deliveriesOptions{app: ta.app, Webhook: hook, Event: event, Paging: paging{limit: 20}})
		ta.io.StdoutTTY = saved
		if err != nil {
			t.Fatal(err)
		}
		var doc eventDoc
		ta.decode(t, &doc)
		if ok(doc) {
			ta.reset()
			return doc
		}
		if time.Now().After(deadline) {
			t.Fatalf("event %s never got there: %+v", event, doc)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// onlyEvent is the ID of the webhook's one event.
func onlyEvent(t *testing.T, ta *testApp, hook string) string {
	t.Helper()
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runDeliveries(context.Background(), &deliveriesOptions{app: ta.app, Webhook: hook, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	var l api.WebhookEventList
	ta.decode(t, &l)
	if len(l.Data) != 1 {
		t.Fatalf("events %+v", l.Data)
	}
	ta.reset()
	return l.Data[0].ID
}

func TestWebhookDeliveriesShowEachAttemptAndAReplay(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	recv := newReceiver(t, http.StatusServiceUnavailable, "down for\n  maintenance")
	deliver(t, svc)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, recv.URL+"/hook", "added")
	svc.add(t, "a@example.com")
	ev := onlyEvent(t, ta, w.ID)

	// The event and its attempts are two reads: the attempt may show
	// before the event's status moves on, so both are waited for.
	failed := eventOf(t, ta, w.ID, ev, func(d eventDoc) bool {
		return len(d.Attempts.Data) == 1 && d.Event.Status != api.EventPending
	})
	if failed.Event.Status != "attempting" || failed.Event.NextAttemptAt == nil || failed.Attempts.Data[0].HTTPStatusCode != 503 {
		t.Errorf("after a 503: %+v", failed)
	}

	// What the receiver got is signed with the secret add printed.
	bodies, heads := recv.deliveries()
	if len(bodies) != 1 {
		t.Fatalf("the receiver got %d deliveries", len(bodies))
	}
	if err := api.VerifyWebhook(w.SigningSecret, heads[0], bodies[0], time.Now()); err != nil {
		t.Errorf("the delivery does not verify with the secret add printed: %v", err)
	}
	if !strings.Contains(string(bodies[0]), `"a@example.com"`) || !strings.Contains(string(bodies[0]), api.EventSuppressionAdded) {
		t.Errorf("the delivery's body %s", bodies[0])
	}

	// For a person: the event, when it is tried next, its payload on one
	// line, and the attempt with the endpoint's answer folded.
	ta.human()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Event: ev, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	rows := map[string]string{}
	for _, l := range strings.Split(out, "\n") {
		if k, v, ok := strings.Cut(l, "  "); ok {
			rows[k] = strings.TrimSpace(v)
		}
	}
	if rows["event"] != ev || rows["type"] != api.EventSuppressionAdded || rows["status"] != "attempting" ||
		rows["next attempt (UTC)"] == "-" || !strings.HasPrefix(rows["payload"], "{") || strings.Contains(rows["payload"], "\n") ||
		!strings.Contains(rows["payload"], "a@example.com") {
		t.Errorf("deliveries --event for a person:\n%s", out)
	}
	if miss := lacks(out, "SENT (UTC)", "STATUS", "RESPONSE", "503", "down for maintenance"); len(miss) > 0 {
		t.Errorf("the attempts lack %q:\n%s", miss, out)
	}

	// The endpoint is back: a replay delivers the same event once more.
	recv.status.Store(http.StatusNoContent)
	recv.answer.Store("")
	ta.reset()
	if err := runReplay(ctx, &replayOptions{app: ta.app, Webhook: w.ID, Event: ev}); err != nil {
		t.Fatal(err)
	}
	ok := eventOf(t, ta, w.ID, ev, func(d eventDoc) bool { return d.Event.Status == "success" })
	if len(ok.Attempts.Data) != 2 || ok.Event.NextAttemptAt != nil || ok.Attempts.Data[0].HTTPStatusCode != http.StatusNoContent {
		t.Errorf("after the replay: %+v", ok)
	}
	bodies, heads = recv.deliveries()
	if len(bodies) != 2 || string(bodies[1]) != string(bodies[0]) || heads[1].Get(api.HeaderSvixID) != heads[0].Get(api.HeaderSvixID) {
		t.Errorf("the replay is not the same event: %d deliveries", len(bodies))
	}

	// The list shows where it stands.
	ta.human()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 || strings.Join(fields(l[0]), " ") != "EVENT ID TYPE STATUS CREATED (UTC)" ||
		fields(l[1])[0] != ev || fields(l[1])[2] != "success" {
		t.Errorf("deliveries for a person:\n%s", ta.out.String())
	}
}

func TestWebhookDeliveryToNoAnswer(t *testing.T) {
	svc := newTestService(t)
	gone := httptest.NewServer(http.NotFoundHandler())
	url := gone.URL
	gone.Close()
	deliver(t, svc)
	ta := newTestApp(t, svc).human()
	w := addWebhook(t, ta, url+"/hook", "added")
	svc.add(t, "a@example.com")
	ev := onlyEvent(t, ta, w.ID)
	doc := eventOf(t, ta, w.ID, ev, func(d eventDoc) bool { return len(d.Attempts.Data) == 1 })
	if doc.Attempts.Data[0].HTTPStatusCode != 0 || doc.Attempts.Data[0].Response == "" {
		t.Errorf("an attempt that reached nothing: %+v", doc.Attempts.Data[0])
	}
	ta.human()
	if err := runDeliveries(context.Background(), &deliveriesOptions{app: ta.app, Webhook: w.ID, Event: ev, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	l := ta.lines()
	if last := l[len(l)-1]; !strings.Contains(last, "no answer") {
		t.Errorf("the attempt's row %q; want its status as no answer\n%s", last, ta.out.String())
	}
}

func TestWebhookDeliveriesPageAndReadOn(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	w := addWebhook(t, ta, "https://hooks.example.com/d")
	svc.add(t, "a@example.com", "b@example.com", "c@example.com")

	ta.human()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 2}}); err != nil {
		t.Fatal(err)
	}
	l := ta.lines()
	if len(l) != 3 {
		t.Fatalf("2 a page:\n%s", ta.out.String())
	}
	last := fields(l[2])[0]
	if want := "More events: add --after " + last + ", or --all.\n"; ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 2, after: last}}); err != nil {
		t.Fatal(err)
	}
	var rest api.WebhookEventList
	ta.decode(t, &rest)
	if len(rest.Data) != 1 || rest.HasMore {
		t.Errorf("the page after %s: %+v", last, rest)
	}

	ta.reset()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: w.ID, Paging: paging{limit: 1, all: true}}); err != nil {
		t.Fatal(err)
	}
	var all api.WebhookEventList
	ta.decode(t, &all)
	seen := map[string]bool{}
	for _, e := range all.Data {
		seen[e.ID] = true
	}
	if len(all.Data) != 3 || len(seen) != 3 || all.HasMore {
		t.Errorf("--all: %+v", all)
	}

	// A webhook without deliveries says how they come.
	other := addWebhook(t, ta, "https://hooks.example.com/other", "removed")
	ta.human()
	if err := runDeliveries(ctx, &deliveriesOptions{app: ta.app, Webhook: other.ID, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.HasPrefix(ta.err.String(), "No deliveries yet: a change to the list makes one per enabled webhook") {
		t.Errorf("no deliveries: %q %q", ta.out.String(), ta.err.String())
	}
}

func TestWebhookDeliveriesCommandLine(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, "https://hooks.example.com/d")
	svc.add(t, "a@example.com")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"deliveries"}, ExitUsage, "a webhook ID"},
		{[]string{"deliveries", w.SigningSecret}, ExitUsage, "give the webhook ID (see shush webhooks list), not the signing secret"},
		{[]string{"deliveries", "https://hooks.example.com/d"}, ExitUsage, `"https://hooks.example.com/d" is not a webhook ID`},
		{[]string{"deliveries", w.ID, "--event", "a b"}, ExitUsage, `"a b" is not an event ID`},
		{[]string{"deliveries", w.ID, "--limit", "500"}, ExitUsage, "--limit must be between 1 and 100, not 500"},
		{[]string{"deliveries", w.ID, "--event", "0195f3d0-0000-7000-8000-000000000000"}, ExitFailed, "webhook " + w.ID + " has no such event on " + svc.URL},
		{[]string{"replay", w.ID}, ExitUsage, "webhooks replay needs a webhook ID and an event ID, got 1 arguments"},
		{[]string{"replay", w.ID, "0195f3d0-0000-7000-8000-000000000000"}, ExitFailed, "has no such event"},
		{[]string{"add"}, ExitUsage, "webhooks add needs the endpoint URL"},
		{[]string{"add", "https://a.example", "--endpoint", "https://b.example"}, ExitUsage, "give the endpoint once: as the argument or as --endpoint"},
		{[]string{"add", "https://a.example", "https://b.example"}, ExitUsage, "webhooks add takes one endpoint URL, got 2 arguments"},
		{[]string{"add", "hooks.example.com"}, ExitUsage, `the endpoint "hooks.example.com" is not an absolute http or https URL`},
		{[]string{"add", "https://a.example", "--events", "opened,,"}, ExitUsage, `--events: "opened" is not an event name like suppression.added`},
		{[]string{"list", "--after", "x", "--before", "y"}, ExitUsage, "give --after or --before, not both"},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, append([]string{"webhooks"}, c.args...)...), c.code, c.want)
	}

	// --endpoint, and the events' short names, through the command line.
	ta.reset()
	if err := ta.exec(t, "webhooks", "add", "--endpoint", "https://c.example/x", "--events", "Removed,removed"); err != nil {
		t.Fatal(err)
	}
	var made api.Webhook
	ta.decode(t, &made)
	got, err := svc.client().GetWebhook(context.Background(), made.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Endpoint != "https://c.example/x" || strings.Join(got.Events, ",") != api.EventSuppressionRemoved {
		t.Errorf("the webhook made: %+v", got)
	}
}

func TestWebhooksListPagesForAPerson(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || ta.err.String() != "No webhooks yet; add one with: shush webhooks add URL\n" {
		t.Errorf("no webhooks: %q %q", ta.out.String(), ta.err.String())
	}
	var ids []string
	for _, ep := range []string{"https://a.example/1", "https://a.example/2", "https://a.example/3"} {
		ids = append(ids, addWebhook(t, ta, ep, "added").ID)
	}
	ta.human()
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 2}}); err != nil {
		t.Fatal(err)
	}
	l := ta.lines()
	if len(l) != 3 || strings.Join(fields(l[0]), " ") != "ID STATUS EVENTS ENDPOINT CREATED (UTC)" {
		t.Fatalf("list:\n%s", ta.out.String())
	}
	for _, row := range l[1:] {
		f := fields(row)
		if f[1] != api.WebhookEnabled || !strings.HasPrefix(f[3], "https://a.example/") {
			t.Errorf("row %q", row)
		}
	}
	if !strings.HasPrefix(ta.err.String(), "More webhooks: add --after ") {
		t.Errorf("stderr %q", ta.err.String())
	}
	if strings.Contains(ta.out.String(), "whsec_") {
		t.Error("the list shows a signing secret")
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 1, all: true}}); err != nil {
		t.Fatal(err)
	}
	var all api.WebhookList
	ta.decode(t, &all)
	got := map[string]bool{}
	for _, w := range all.Data {
		got[w.ID] = true
	}
	for _, id := range ids {
		if !got[id] {
			t.Errorf("--all lacks %s", id)
		}
	}
}

// TestWebhookStatusAndEndpointDecideWhereEventsGo: a disabled webhook
// gets no events and cannot be replayed; enabled again, and moved to
// another endpoint with update, it delivers there.
func TestWebhookStatusAndEndpointDecideWhereEventsGo(t *testing.T) {
	svc := newTestService(t)
	first := newReceiver(t, http.StatusOK, "")
	second := newReceiver(t, http.StatusOK, "")
	deliver(t, svc)
	ta := newTestApp(t, svc).human()
	w := addWebhook(t, ta, first.URL+"/hook", "added")
	svc.add(t, "before@example.com")
	ev := onlyEvent(t, ta, w.ID)
	eventOf(t, ta, w.ID, ev, func(d eventDoc) bool { return d.Event.Status == "success" })

	ta.human()
	if err := ta.exec(t, "webhooks", "disable", w.ID); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Disabled webhook "+w.ID+".\n" {
		t.Errorf("disable said %q", ta.out.String())
	}
	ta.reset()
	wantErr(t, ta.exec(t, "webhooks", "replay", w.ID, ev), ExitFailed)
	svc.add(t, "while-disabled@example.com")

	ta.reset()
	if err := ta.exec(t, "webhooks", "update", w.ID, "--endpoint", second.URL+"/moved"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := ta.exec(t, "webhooks", "enable", w.ID); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Enabled webhook "+w.ID+".\n" {
		t.Errorf("enable said %q", ta.out.String())
	}
	svc.add(t, "after@example.com")

	deadline := time.Now().Add(10 * time.Second)
	for {
		bodies, _ := second.deliveries()
		if len(bodies) == 1 {
			if !strings.Contains(string(bodies[0]), "after@example.com") {
				t.Errorf("the moved endpoint got %s", bodies[0])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the moved endpoint got %d deliveries", len(bodies))
		}
		time.Sleep(20 * time.Millisecond)
	}
	atFirst, _ := first.deliveries()
	if len(atFirst) != 1 {
		t.Errorf("the first endpoint got %d deliveries; want only the one before it moved", len(atFirst))
	}
	atSecond, _ := second.deliveries()
	for _, b := range append(atFirst, atSecond...) {
		if strings.Contains(string(b), "while-disabled@example.com") {
			t.Error("an event of the time the webhook was disabled was delivered")
		}
	}
	ta.reset()
	wantErr(t, ta.exec(t, "webhooks", "update", w.ID), ExitUsage, "webhooks update needs --endpoint or --events (enable and disable change the status)")
}

// TestWebhookRotateSignsWithTheNewSecret: after rotate, deliveries verify
// with the secret rotate printed.
func TestWebhookRotateSignsWithTheNewSecret(t *testing.T) {
	svc := newTestService(t)
	recv := newReceiver(t, http.StatusOK, "")
	deliver(t, svc)
	ta := newTestApp(t, svc)
	w := addWebhook(t, ta, recv.URL+"/hook", "added")
	ta.human()
	if err := ta.exec(t, "webhooks", "rotate", w.ID); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range ta.lines() {
		if k, v, ok := strings.Cut(l, "  "); ok {
			rows[k] = strings.TrimSpace(v)
		}
	}
	secret := rows["signing secret"]
	if rows["id"] != w.ID || !strings.HasPrefix(secret, api.WebhookSecretPrefix) || secret == w.SigningSecret {
		t.Fatalf("rotate printed:\n%s", ta.out.String())
	}
	svc.add(t, "a@example.com")
	ev := onlyEvent(t, ta, w.ID)
	eventOf(t, ta, w.ID, ev, func(d eventDoc) bool { return d.Event.Status == "success" })
	bodies, heads := recv.deliveries()
	if len(bodies) != 1 {
		t.Fatalf("%d deliveries", len(bodies))
	}
	if err := api.VerifyWebhook(secret, heads[0], bodies[0], time.Now()); err != nil {
		t.Errorf("the delivery does not verify with the new secret: %v", err)
	}
}
