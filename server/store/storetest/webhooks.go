package storetest

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// newWebhook stores an enabled webhook of the team for the events and
// deletes it (with its events) when the test ends, so that later tests'
// claims do not meet its events.
func newWebhook(t *testing.T, st store.Store, tm string, events ...string) store.Webhook {
	t.Helper()
	w := store.Webhook{ID: uuid.Must(uuid.NewV7()).String(), Team: tm, Endpoint: "https://example.com/hook",
		Events: events, Status: api.WebhookEnabled, Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0",
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := st.CreateWebhook(ctx(t), w, 0); err != nil {
		t.Fatalf("CreateWebhook: %v", err)
	}
	t.Cleanup(func() { _ = st.DeleteWebhook(ctx(t), tm, w.ID) })
	return w
}

func events(t *testing.T, st store.Store, tm, hook string) []store.WebhookEvent {
	t.Helper()
	page, _, err := st.WebhookEvents(ctx(t), tm, hook, store.Page{Limit: 100})
	if err != nil {
		t.Fatalf("WebhookEvents: %v", err)
	}
	return page
}

// testWebhooksCRUD: a webhook is stored, paged, patched, rotated and
// deleted, and another team never sees it.
func testWebhooksCRUD(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	var made []store.Webhook
	for range 3 {
		made = append(made, newWebhook(t, st, tm, api.AuditAdded, "email.sent"))
	}
	page, more, err := st.ListWebhooks(ctx(t), tm, store.Page{Limit: 2})
	if err != nil || !more || len(page) != 2 || page[0].ID != made[2].ID || page[1].ID != made[1].ID {
		t.Fatalf("first page of 2: %v more=%v err=%v; want the two newest and more", hookIDs(page), more, err)
	}
	page, more, err = st.ListWebhooks(ctx(t), tm, store.Page{Limit: 2, After: page[1].ID})
	if err != nil || more || len(page) != 1 || page[0].ID != made[0].ID {
		t.Fatalf("second page: %v more=%v err=%v; want the oldest alone", hookIDs(page), more, err)
	}
	if got, _, _ := st.ListWebhooks(ctx(t), other, store.Page{}); len(got) != 0 {
		t.Errorf("another team lists %d webhooks; want none", len(got))
	}
	if _, err := st.GetWebhook(ctx(t), other, made[0].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another team's GetWebhook: %v; want ErrNotFound", err)
	}
	if err := st.UpdateWebhook(ctx(t), other, made[0].ID, store.WebhookPatch{}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another team's UpdateWebhook: %v; want ErrNotFound", err)
	}

	endpoint, evs, status := "https://example.org/other", []string{api.AuditRemoved}, api.WebhookDisabled
	if err := st.UpdateWebhook(ctx(t), tm, made[0].ID, store.WebhookPatch{Endpoint: &endpoint, Events: &evs, Status: &status}); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetWebhook(ctx(t), tm, made[0].ID)
	if err != nil || got.Endpoint != endpoint || !slices.Equal(got.Events, evs) || got.Status != status || got.Secret != made[0].Secret {
		t.Errorf("after update: %+v, %v; want endpoint, events and status changed, secret kept", got, err)
	}
	if err := st.UpdateWebhook(ctx(t), tm, made[0].ID, store.WebhookPatch{}); err != nil {
		t.Errorf("an empty patch: %v; want nil", err)
	}

	until := time.Now().Add(24 * time.Hour).UTC().Truncate(time.Millisecond)
	if err := st.RotateWebhookSecret(ctx(t), tm, made[1].ID, "whsec_bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3", until); err != nil {
		t.Fatal(err)
	}
	got, _ = st.GetWebhook(ctx(t), tm, made[1].ID)
	if got.Secret != "whsec_bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3" || got.PrevSecret != made[1].Secret || !got.PrevUntil.Equal(until) {
		t.Errorf("after rotation: secret %q prev %q until %v; want the new secret, the old one until %v", got.Secret, got.PrevSecret, got.PrevUntil, until)
	}

	if err := st.DeleteWebhook(ctx(t), tm, made[2].ID); err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteWebhook(ctx(t), tm, made[2].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("second delete: %v; want ErrNotFound", err)
	}
	if _, err := st.GetWebhook(ctx(t), tm, "not-a-uuid"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetWebhook of a malformed ID: %v; want ErrNotFound", err)
	}
}

func hookIDs(ws []store.Webhook) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.ID
	}
	return out
}

// testOutbox: every change queues, in its own transaction, one event per
// changed suppression and enabled webhook that wants its type, with the
// body fixed then; re-adding and removing what is missing queue nothing.
func testOutbox(t *testing.T, st store.Store) {
	tm := team(t)
	both := newWebhook(t, st, tm, api.AuditAdded, api.AuditRemoved)
	addsOnly := newWebhook(t, st, tm, api.AuditAdded, "email.bounced")
	off := newWebhook(t, st, tm, api.AuditAdded, api.AuditRemoved)
	disabled := api.WebhookDisabled
	if err := st.UpdateWebhook(ctx(t), tm, off.ID, store.WebhookPatch{Status: &disabled}); err != nil {
		t.Fatal(err)
	}
	otherTeam := team(t)
	elsewhere := newWebhook(t, st, otherTeam, api.AuditAdded, api.AuditRemoved)

	added := mustAdd(t, st, tm, "a@example.com", "b@example.com")
	mustAdd(t, st, tm, "a@example.com") // already listed: no event
	if _, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{"b@example.com", "missing@example.com"}); err != nil {
		t.Fatal(err)
	}

	got := events(t, st, tm, both.ID)
	var kinds []string
	for _, e := range got {
		var p api.WebhookPayload
		if err := json.Unmarshal(e.Payload, &p); err != nil {
			t.Fatalf("event %s payload %q: %v", e.ID, e.Payload, err)
		}
		if p.Type != e.Type || e.Status != api.EventPending || e.NextAttemptAt.IsZero() || e.WebhookID != both.ID {
			t.Errorf("event %+v (payload type %s): want pending, due, of its webhook, payload of its type", e, p.Type)
		}
		kinds = append(kinds, p.Type+" "+p.Data.Email)
		if p.Data.Email == "b@example.com" && p.Data.ID != added[1].ID {
			t.Errorf("%s payload names suppression %s; want %s", p.Type, p.Data.ID, added[1].ID)
		}
	}
	slices.Sort(kinds)
	want := []string{"suppression.added a@example.com", "suppression.added b@example.com", "suppression.removed b@example.com"}
	if !slices.Equal(kinds, want) {
		t.Errorf("events of the webhook for both types: %q; want %q", kinds, want)
	}
	if got := events(t, st, tm, addsOnly.ID); len(got) != 2 {
		t.Errorf("the adds-only webhook has %d events; want 2", len(got))
	}
	if got := events(t, st, tm, off.ID); len(got) != 0 {
		t.Errorf("the disabled webhook has %d events; want none", len(got))
	}
	if got := events(t, st, otherTeam, elsewhere.ID); len(got) != 0 {
		t.Errorf("another team's webhook has %d events; want none", len(got))
	}
	stats, err := st.Outbox(ctx(t))
	if err != nil || stats.Depth < 5 || stats.Oldest.IsZero() {
		t.Errorf("Outbox: %+v, %v; want at least the 5 events queued here", stats, err)
	}
}

// testDeliveryLifecycle: a due event is claimed once until its lease ends,
// an attempt's outcome is stored with the attempt, a replay makes one more
// attempt due, and prune takes settled events only.
func testDeliveryLifecycle(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditAdded)
	mustAdd(t, st, tm, "first@example.com")
	ev := events(t, st, tm, hook.ID)
	if len(ev) != 1 {
		t.Fatalf("%d events; want 1", len(ev))
	}
	id := ev[0].ID

	now := time.Now().UTC().Add(time.Second)
	mine := func(ds []store.Delivery) []store.Delivery {
		return slices.DeleteFunc(ds, func(d store.Delivery) bool { return d.Event.Team != tm })
	}
	first, err := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: now, Lease: time.Minute, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	first = mine(first)
	if len(first) != 1 || first[0].Event.ID != id || first[0].Endpoint != hook.Endpoint || !slices.Equal(first[0].Secrets, []string{hook.Secret}) {
		t.Fatalf("first claim: %+v; want the one event with its endpoint and secret", first)
	}
	if again, err := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: now, Lease: time.Minute, Limit: 1000}); err != nil || len(mine(again)) != 0 {
		t.Fatalf("a second claim within the lease got %d of this team's events (%v); want none", len(mine(again)), err)
	}
	if late, _ := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: now.Add(2 * time.Minute), Lease: time.Minute, Limit: 1000}); len(mine(late)) != 1 {
		t.Fatalf("a claim after the lease ended got %d events; want the event back", len(mine(late)))
	}

	retryAt := now.Add(5 * time.Second).Truncate(time.Millisecond)
	a1 := store.Attempt{ID: uuid.Must(uuid.NewV7()).String(), EventID: id, StatusCode: 500, Response: "busy", SentAt: now.Truncate(time.Millisecond)}
	if err := st.RecordAttempt(ctx(t), a1, store.Outcome{Status: api.EventAttempting, NextAttemptAt: retryAt}); err != nil {
		t.Fatal(err)
	}
	e, err := st.WebhookEvent(ctx(t), tm, hook.ID, id)
	if err != nil || e.Status != api.EventAttempting || !e.NextAttemptAt.Equal(retryAt) || e.Attempts != 1 || !e.Retry {
		t.Errorf("after a failed attempt: %+v, %v; want attempting, due at %v, 1 attempt", e, err, retryAt)
	}
	a2 := store.Attempt{ID: uuid.Must(uuid.NewV7()).String(), EventID: id, StatusCode: 204, Response: "", SentAt: retryAt}
	if err := st.RecordAttempt(ctx(t), a2, store.Outcome{Status: api.EventSuccess}); err != nil {
		t.Fatal(err)
	}
	atts, more, err := st.WebhookAttempts(ctx(t), tm, hook.ID, id, store.Page{Limit: 10})
	if err != nil || more || len(atts) != 2 || atts[0].ID != a2.ID || atts[1].StatusCode != 500 || atts[1].Response != "busy" {
		t.Errorf("attempts: %+v more=%v err=%v; want the success then the 500, newest first", atts, more, err)
	}
	if d, _ := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: now.Add(time.Hour), Lease: time.Minute, Limit: 1000}); len(mine(d)) != 0 {
		t.Errorf("a settled event was claimed again")
	}

	if err := st.ReplayWebhookEvent(ctx(t), tm, hook.ID, id, now); err != nil {
		t.Fatal(err)
	}
	e, _ = st.WebhookEvent(ctx(t), tm, hook.ID, id)
	if e.Retry || e.NextAttemptAt.IsZero() {
		t.Errorf("after replay: %+v; want due, without retries", e)
	}
	if d, _ := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: now.Add(time.Second), Lease: time.Minute, Limit: 1000}); len(mine(d)) != 1 || mine(d)[0].Event.Retry {
		t.Errorf("the replayed event was not claimed once, without retries")
	}
	if err := st.ReplayWebhookEvent(ctx(t), team(t), hook.ID, id, now); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another team's replay: %v; want ErrNotFound", err)
	}

	// The replay is still leased: prune leaves it.
	if n, err := st.PruneWebhookEvents(ctx(t), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	} else if _, err := st.WebhookEvent(ctx(t), tm, hook.ID, id); err != nil {
		t.Errorf("prune (%d) took an event still due: %v", n, err)
	}
	a3 := store.Attempt{ID: uuid.Must(uuid.NewV7()).String(), EventID: id, StatusCode: 0, Response: "connection refused", SentAt: now}
	if err := st.RecordAttempt(ctx(t), a3, store.Outcome{Status: api.EventFailed}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.PruneWebhookEvents(ctx(t), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := st.WebhookEvent(ctx(t), tm, hook.ID, id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("after prune, the settled event: %v; want ErrNotFound", err)
	}
}

// testRotatedSecretsSign: for a while after a rotation, deliveries carry
// both secrets, new first.
func testRotatedSecretsSign(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditRemoved)
	until := time.Now().Add(time.Hour)
	if err := st.RotateWebhookSecret(ctx(t), tm, hook.ID, "whsec_bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3", until); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, st, tm, "gone@example.com")
	if _, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{"gone@example.com"}); err != nil {
		t.Fatal(err)
	}
	claim := func(at time.Time) []string {
		ds, err := st.ClaimDeliveries(ctx(t), store.ClaimRequest{Now: at, Lease: time.Minute, Limit: 1000})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range ds {
			if d.Event.Team == tm {
				return d.Secrets
			}
		}
		t.Fatalf("no delivery of this team at %v", at)
		return nil
	}
	now := time.Now().Add(time.Second)
	if got := claim(now); !slices.Equal(got, []string{"whsec_bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3", hook.Secret}) {
		t.Errorf("secrets during the overlap: %q; want new then old", got)
	}
	if got := claim(until.Add(2 * time.Minute)); !slices.Equal(got, []string{"whsec_bmV3bmV3bmV3bmV3bmV3bmV3bmV3bmV3"}) {
		t.Errorf("secrets after the overlap: %q; want the new one alone", got)
	}
}

// testLargeFanOut: a change that queues more events than a store writes
// at once (50 addresses to 5 webhooks: 250 events) queues every one of
// them, each webhook one event per address, all of the change's time and
// with its entry's body; a webhook deleted right after the change gets
// none. A store may write such events in steps after the change: they
// appear within a few seconds.
func testLargeFanOut(t *testing.T, st store.Store) {
	tm := team(t)
	var hooks []store.Webhook
	for range 5 {
		hooks = append(hooks, newWebhook(t, st, tm, store.AuditAdded))
	}
	emails := make([]string, 50)
	for i := range emails {
		emails[i] = fmt.Sprintf("fan-%02d@example.com", i)
	}
	added, err := st.Add(ctx(t), tm, store.Change{}, store.Manual(emails...))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.DeleteWebhook(ctx(t), tm, hooks[4].ID); err != nil {
		t.Fatal(err)
	}
	all := func(hook string) []store.WebhookEvent {
		var out []store.WebhookEvent
		p := store.Page{Limit: 100}
		for {
			page, more, err := st.WebhookEvents(ctx(t), tm, hook, p)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, page...)
			if !more {
				return out
			}
			p.After = page[len(page)-1].ID
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, h := range hooks[:4] {
		var evs []store.WebhookEvent
		for evs = all(h.ID); len(evs) < len(emails) && time.Now().Before(deadline); evs = all(h.ID) {
			time.Sleep(20 * time.Millisecond)
		}
		if len(evs) != len(emails) {
			t.Fatalf("webhook %s has %d events after 10 s; want %d", h.ID, len(evs), len(emails))
		}
		got := map[string]bool{}
		for _, e := range evs {
			var body struct {
				Type string `json:"type"`
				Data struct {
					ID, Email string
				} `json:"data"`
			}
			if err := json.Unmarshal(e.Payload, &body); err != nil || body.Type != store.AuditAdded || e.Status != api.EventPending {
				t.Fatalf("an event of the fan-out: %+v, %v", e, err)
			}
			got[body.Data.Email+" "+body.Data.ID] = true
		}
		for _, e := range added {
			if !got[e.Email+" "+e.ID] {
				t.Errorf("webhook %s has no event for %s (%s)", h.ID, e.Email, e.ID)
			}
		}
	}
	if evs, _, err := st.WebhookEvents(ctx(t), tm, hooks[4].ID, store.Page{Limit: 100}); err == nil && len(evs) > 0 {
		t.Errorf("the deleted webhook has %d events", len(evs))
	}
}
