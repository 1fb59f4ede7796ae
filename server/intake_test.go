package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/intake"
	"github.com/shushlist/shush/server/intake/intaketest"
	"github.com/shushlist/shush/server/store"
)

// intakeEnv is a service with a key, a webhook that records what the
// service queues, and the providers' doubles.
type intakeEnv struct {
	*service
	t    *testing.T
	key  string
	hook string
	sns  *intaketest.SNS
}

func newIntakeEnv(t *testing.T, st store.Store) *intakeEnv {
	t.Helper()
	sns := intaketest.NewSNS(t)
	s := startService(t, st, server.Options{Intake: intake.ReceiverOptions{SNSClient: sns.Client}})
	key := s.key("acme", false)
	hook := s.createWebhook(key, "https://example.com/hook", "suppression.added")
	return &intakeEnv{service: s, t: t, key: key, hook: hook.ID, sns: sns}
}

// create makes an intake endpoint and returns it.
func (e *intakeEnv) create(body string) api.Intake {
	e.t.Helper()
	r := e.post("/intake", e.key, body)
	if r.status != http.StatusCreated {
		e.t.Fatalf("POST /intake %s: %d %s", body, r.status, r.body)
	}
	var in api.Intake
	r.decode(e.t, &in)
	if in.Object != "intake" || in.URL != e.url+"/intake/"+in.ID {
		e.t.Fatalf("created %+v; want object intake and the URL %s/intake/ID", in, e.url)
	}
	return in
}

// send sends a provider's request to the service, as the provider would.
func (e *intakeEnv) send(req *http.Request) reply {
	e.t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// raw posts a body to an endpoint with the headers given.
func (e *intakeEnv) raw(id string, body []byte, header ...string) reply {
	e.t.Helper()
	return e.do("POST", "/intake/"+id, "", "application/json", body, header...)
}

// outcomes reads an accepted request's answer as "email decision" items.
func (e *intakeEnv) outcomes(r reply) []string {
	e.t.Helper()
	if r.status != http.StatusOK {
		e.t.Fatalf("the provider's request: %d %s", r.status, r.body)
	}
	var a api.IntakeAnswer
	r.decode(e.t, &a)
	out := make([]string, len(a.Data))
	for i, o := range a.Data {
		out[i] = o.Email + " " + o.Decision
	}
	return out
}

// state is what a person would look at: the trail's length, the webhook
// events queued, and the entries of the addresses.
func (e *intakeEnv) state(emails ...string) string {
	e.t.Helper()
	var trail api.AuditList
	e.get("/audit?limit=100", e.key).decode(e.t, &trail)
	var events api.WebhookEventList
	e.get("/webhooks/"+e.hook+"/events?limit=100", e.key).decode(e.t, &events)
	parts := []string{fmt.Sprintf("trail %d, events %d", len(trail.Data), len(events.Data))}
	for _, em := range emails {
		r := e.get("/suppressions/"+escapeSegment(em), e.key)
		if r.status == http.StatusNotFound {
			parts = append(parts, em+" not listed")
			continue
		}
		var en api.Entry
		r.decode(e.t, &en)
		parts = append(parts, em+" "+string(en.Origin))
	}
	return strings.Join(parts, "; ")
}

// entry reads a listed entry.
func (e *intakeEnv) entry(email string) api.Entry {
	e.t.Helper()
	var en api.Entry
	r := e.get("/suppressions/"+escapeSegment(email), e.key)
	if r.status != http.StatusOK {
		e.t.Fatalf("GET %s: %d %s", email, r.status, r.body)
	}
	r.decode(e.t, &en)
	return en
}

func wantOutcomes(t *testing.T, got []string, want ...string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("outcomes %q; want %q", got, want)
	}
}

func wantState(t *testing.T, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("state %q; want %q", got, want)
	}
}

// TestIntakeEndpoints: endpoints are made per provider with that
// provider's credential (checked, never shown again), listed, deleted;
// a wrong credential field is refused without repeating it.
func TestIntakeEndpoints(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		resend := intaketest.NewResend()
		a := e.create(`{"provider":"resend","name":"prod","secret":"` + resend.Secret + `"}`)
		e.create(`{"provider":"ses","topic_arn":"arn:aws:sns:us-east-1:123456789012:ses-bounces"}`)
		e.create(`{"provider":"postmark","basic_auth":"hook:s3cret-pass"}`)
		e.create(`{"provider":"sendgrid","public_key":"` + intaketest.NewSendGrid().PublicKey + `"}`)
		e.create(`{"provider":"mailgun","secret":"key-0123456789abcdef"}`)
		r := e.get("/intake", e.key)
		if r.status != http.StatusOK || strings.Contains(string(r.body), resend.Secret) || strings.Contains(string(r.body), "s3cret-pass") ||
			strings.Contains(string(r.body), "key-0123456789abcdef") {
			t.Fatalf("GET /intake: %d %s; want the endpoints without their credentials", r.status, r.body)
		}
		var list api.IntakeList
		r.decode(t, &list)
		// Endpoints made within one millisecond share a stamp, so the
		// list is checked by provider and for its order by stamp.
		byProvider := map[string]api.Intake{}
		for i, in := range list.Data {
			byProvider[in.Provider] = in
			if in.CreatedAt == nil {
				t.Errorf("GET /intake: %s has no created_at", in.ID)
			} else if i > 0 && list.Data[i-1].CreatedAt != nil && in.CreatedAt.Before(list.Data[i-1].CreatedAt.Time) {
				t.Errorf("GET /intake: %s (%v) listed after %s (%v); want oldest first", in.ID, in.CreatedAt, list.Data[i-1].ID, list.Data[i-1].CreatedAt)
			}
		}
		if len(list.Data) != 5 || len(byProvider) != 5 || byProvider["resend"].ID != a.ID || byProvider["resend"].Name != "prod" ||
			byProvider["ses"].TopicArn != "arn:aws:sns:us-east-1:123456789012:ses-bounces" {
			t.Errorf("GET /intake = %+v", list.Data)
		}
		for _, c := range []struct{ body, status, name, says string }{
			{`{"provider":"resend","secret":"not-a-secret-xyz"}`, "422", "validation_error", "signing secret"},
			{`{"provider":"resend","public_key":"zzz-hidden-zzz"}`, "422", "validation_error", "give `secret`"},
			{`{"provider":"postmark","basic_auth":"nopassword"}`, "422", "validation_error", "user:password"},
			{`{"provider":"sendgrid","public_key":"bm90IGEga2V5"}`, "422", "validation_error", "ECDSA P-256"},
			{`{"provider":"ses","secret":"zzz-hidden-zzz"}`, "422", "validation_error", "not taken for ses"},
			{`{"provider":"ses","topic_arn":"arn:nope"}`, "422", "validation_error", "topic_arn"},
			{`{"provider":"gmail"}`, "422", "validation_error", "must be one of"},
			{`{"name":"x"}`, "422", "missing_required_field", "provider"},
		} {
			r := e.post("/intake", e.key, c.body)
			if fmt.Sprint(r.status) != c.status || !strings.Contains(string(r.body), c.name) || !strings.Contains(string(r.body), c.says) ||
				strings.Contains(string(r.body), "zzz-hidden-zzz") || strings.Contains(string(r.body), "not-a-secret-xyz") {
				t.Errorf("POST /intake %s: %d %s; want %s %s saying %q, the credential not repeated", c.body, r.status, r.body, c.status, c.name, c.says)
			}
		}
		if r := e.post("/intake", e.key_ro(), `{"provider":"mailgun","secret":"k"}`); r.status != http.StatusForbidden {
			t.Errorf("a read-only key creates an endpoint: %d", r.status)
		}
		if r := e.do("DELETE", "/intake/"+a.ID, e.key, "", nil); r.status != http.StatusOK {
			t.Fatalf("DELETE: %d %s", r.status, r.body)
		}
		if r := e.do("DELETE", "/intake/"+a.ID, e.key, "", nil); r.status != http.StatusNotFound {
			t.Errorf("DELETE twice: %d, want 404", r.status)
		}
		body := intaketest.ResendBounce("gone@example.com", "Permanent", "General", "550 5.1.1 user unknown")
		if r := e.send(resend.Request(a.URL, "msg_1", body, time.Now())); r.status != http.StatusNotFound {
			t.Errorf("a deleted endpoint took an event: %d %s", r.status, r.body)
		}
	})
}

// key_ro is a read-only key of the team.
func (e *intakeEnv) key_ro() string { return e.key2(true) }

func (e *intakeEnv) key2(readOnly bool) string {
	e.t.Helper()
	return e.service.key("acme", readOnly)
}

// TestIntakeResend: Resend's signed events list, count, go to review; a
// replay does nothing; a wrong secret, an old timestamp, an altered body,
// a missing signature and an unknown endpoint write nothing.
func TestIntakeResend(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		p := intaketest.NewResend()
		in := e.create(`{"provider":"resend","secret":"` + p.Secret + `"}`)
		now := time.Now()
		hard := intaketest.ResendBounce("Gone@Example.com", "Permanent", "General", "550 5.1.1 <gone@example.com>: Recipient address rejected: User unknown")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_hard", hard, now))), "gone@example.com listed")
		en := e.entry("gone@example.com")
		if ev := en.Evidence; en.Origin != api.OriginBounce || ev == nil || ev.Provider != "resend" || ev.EventID != "msg_hard/gone@example.com" ||
			ev.Status != "5.1.1" || !strings.Contains(ev.Diagnostic, "User unknown") || ev.MessageID != "4ef9a417-02e9-4d39-ad75-9611e0fcc33c" || ev.Kind != "bounce" {
			t.Errorf("listed entry %+v evidence %+v", en, en.Evidence)
		}
		wantState(t, e.state(), "trail 1, events 1")

		// The same delivery again (Resend's retry): 2xx, nothing written.
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_hard", hard, now))), "gone@example.com duplicate")
		wantState(t, e.state(), "trail 1, events 1")

		refused := []struct {
			what string
			req  *http.Request
		}{
			{"wrong secret", intaketest.NewResend().Request(in.URL, "msg_x", intaketest.ResendEvent("email.complained", "forged@example.com"), now)},
			{"old timestamp", p.Request(in.URL, "msg_y", intaketest.ResendEvent("email.complained", "forged@example.com"), now.Add(-6*time.Minute))},
			{"future timestamp", p.Request(in.URL, "msg_y", intaketest.ResendEvent("email.complained", "forged@example.com"), now.Add(6*time.Minute))},
		}
		altered := p.Request(in.URL, "msg_z", intaketest.ResendEvent("email.complained", "someone@example.com"), now)
		altered.Body = io.NopCloser(strings.NewReader(string(intaketest.ResendEvent("email.complained", "forged@example.com"))))
		altered.ContentLength = -1
		refused = append(refused, struct {
			what string
			req  *http.Request
		}{"altered body", altered})
		unsigned := p.Request(in.URL, "msg_w", intaketest.ResendEvent("email.complained", "forged@example.com"), now)
		unsigned.Header.Del("svix-signature")
		refused = append(refused, struct {
			what string
			req  *http.Request
		}{"no signature", unsigned})
		for _, c := range refused {
			r := e.send(c.req)
			r.wantError(t, http.StatusUnauthorized, "invalid_signature")
			if strings.Contains(string(r.body), p.Secret) {
				t.Errorf("%s: the refusal repeats the secret", c.what)
			}
		}
		unknown := p.Request(e.url+"/intake/0195f3c2-0000-7000-8000-000000000000", "msg_q", intaketest.ResendEvent("email.complained", "forged@example.com"), now)
		e.send(unknown).wantError(t, http.StatusNotFound, "not_found")
		wantState(t, e.state("forged@example.com", "someone@example.com"), "trail 1, events 1; forged@example.com not listed; someone@example.com not listed")

		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_c", intaketest.ResendEvent("email.complained", "angry@example.com"), now))), "angry@example.com listed")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_t", intaketest.ResendBounce("full@example.com", "Transient", "MailboxFull", "452 4.2.2 mailbox full"), now))), "full@example.com counted")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_u", intaketest.ResendBounce("odd@example.com", "Undetermined", "Undetermined", ""), now))), "odd@example.com review")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_b", intaketest.ResendBounce("blocked@example.com", "Permanent", "General", "550 5.7.1 Service unavailable; client host blocked"), now))), "blocked@example.com review")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "msg_d", intaketest.ResendEvent("email.delivered", "fine@example.com"), now))), "fine@example.com ignored")
		wantState(t, e.state("angry@example.com", "full@example.com", "odd@example.com", "blocked@example.com", "fine@example.com"),
			"trail 2, events 2; angry@example.com complaint; full@example.com not listed; odd@example.com not listed; blocked@example.com not listed; fine@example.com not listed")
	})
}

// TestIntakeSendGrid: a signed batch of SendGrid events, each decided by
// its kind; a wrong key, an old timestamp and an altered body write
// nothing; a replayed batch does nothing.
func TestIntakeSendGrid(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		p := intaketest.NewSendGrid()
		in := e.create(`{"provider":"sendgrid","public_key":"` + p.PublicKey + `"}`)
		batch := intaketest.SendGridBatch(
			intaketest.SendGridEvent("bounce", "hard@example.com", "ev1", map[string]any{"type": "bounce", "status": "5.1.1", "reason": "550 5.1.1 The email account that you tried to reach does not exist."}),
			intaketest.SendGridEvent("bounce", "blocked@example.com", "ev2", map[string]any{"type": "blocked", "status": "5.7.1", "reason": "550 5.7.1 blocked by policy", "bounce_classification": "Reputation"}),
			intaketest.SendGridEvent("deferred", "full@example.com", "ev3", map[string]any{"response": "452 4.2.2 mailbox full", "attempt": "1"}),
			intaketest.SendGridEvent("spamreport", "angry@example.com", "ev4", nil),
			intaketest.SendGridEvent("unsubscribe", "bye@example.com", "ev5", nil),
			intaketest.SendGridEvent("group_unsubscribe", "news@example.com", "ev6", map[string]any{"asm_group_id": 42}),
			intaketest.SendGridEvent("delivered", "fine@example.com", "ev7", nil),
			intaketest.SendGridEvent("dropped", "known@example.com", "ev8", map[string]any{"reason": "Bounced Address"}),
		)
		now := time.Now()
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, batch, now))), "hard@example.com listed", "blocked@example.com review",
			"full@example.com counted", "angry@example.com listed", "bye@example.com listed", "news@example.com review", "fine@example.com ignored",
			"known@example.com listed")
		if en := e.entry("bye@example.com"); en.Origin != api.OriginManual || en.Evidence == nil || en.Evidence.Kind != "unsubscribe" {
			t.Errorf("an unsubscribe is listed as %+v, evidence %+v; want manual, kind unsubscribe", en, en.Evidence)
		}
		if en := e.entry("angry@example.com"); en.Origin != api.OriginComplaint || en.Evidence.Kind != "complaint" || en.Evidence.EventID != "ev4" {
			t.Errorf("a spam report is listed as %+v, evidence %+v", en, en.Evidence)
		}
		wantState(t, e.state(), "trail 4, events 4")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, batch, now))), "hard@example.com duplicate", "blocked@example.com duplicate",
			"full@example.com duplicate", "angry@example.com duplicate", "bye@example.com duplicate", "news@example.com duplicate",
			"fine@example.com duplicate", "known@example.com duplicate")

		forged := intaketest.SendGridBatch(intaketest.SendGridEvent("spamreport", "forged@example.com", "ev9", nil))
		altered := p.Request(in.URL, intaketest.SendGridBatch(intaketest.SendGridEvent("spamreport", "other@example.com", "ev10", nil)), now)
		altered.Body, altered.ContentLength = io.NopCloser(strings.NewReader(string(forged))), int64(len(forged))
		for _, req := range []*http.Request{intaketest.NewSendGrid().Request(in.URL, forged, now), p.Request(in.URL, forged, now.Add(-10*time.Minute)), altered} {
			e.send(req).wantError(t, http.StatusUnauthorized, "invalid_signature")
		}
		e.raw(in.ID, forged).wantError(t, http.StatusUnauthorized, "invalid_signature")
		wantState(t, e.state("forged@example.com", "other@example.com"), "trail 4, events 4; forged@example.com not listed; other@example.com not listed")
		var review api.ReviewList
		e.get("/intake/review", e.key).decode(t, &review)
		if len(review.Data) != 2 || review.Data[0].Email != "news@example.com" || !strings.Contains(review.Data[0].Reason, "one group") ||
			review.Data[1].Evidence.Status != "5.7.1" || !strings.Contains(review.Data[1].Reason, "policy") {
			t.Errorf("the review queue = %+v", review.Data)
		}
	})
}

// TestIntakeMailgun: Mailgun's signature block; its token is taken once,
// so a captured request sent again with another event is refused as a
// replay; an old timestamp and a wrong key write nothing.
func TestIntakeMailgun(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		p := intaketest.NewMailgun()
		in := e.create(`{"provider":"mailgun","secret":"` + p.Key + `"}`)
		now := time.Now()
		body := p.Body(intaketest.MailgunFailed("mg1", "hard@example.com", "permanent", "bounce", "5.1.1", "550 5.1.1 no such user"), now)
		wantOutcomes(t, e.outcomes(e.raw(in.ID, body)), "hard@example.com listed")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, body)), "hard@example.com duplicate")
		// The same signature block with another event: a replay.
		var doc map[string]json.RawMessage
		_ = json.Unmarshal(body, &doc)
		doc["event-data"], _ = json.Marshal(intaketest.MailgunEvent("mg-forged", "complained", "victim@example.com"))
		swapped, _ := json.Marshal(doc)
		wantOutcomes(t, e.outcomes(e.raw(in.ID, swapped)), "victim@example.com duplicate")
		e.raw(in.ID, intaketest.Mailgun{Key: "key-wrong"}.Body(intaketest.MailgunEvent("mg2", "complained", "forged@example.com"), now)).wantError(t, http.StatusUnauthorized, "invalid_signature")
		e.raw(in.ID, p.Body(intaketest.MailgunEvent("mg3", "complained", "forged@example.com"), now.Add(-10*time.Hour))).wantError(t, http.StatusUnauthorized, "invalid_signature")
		e.raw(in.ID, []byte(`{"event-data":{"event":"complained","recipient":"forged@example.com"}}`)).wantError(t, http.StatusUnauthorized, "invalid_signature")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, p.Body(intaketest.MailgunFailed("mg4", "full@example.com", "temporary", "generic", "4.2.2", "452 mailbox full"), now))), "full@example.com counted")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, p.Body(intaketest.MailgunEvent("mg5", "complained", "angry@example.com"), now))), "angry@example.com listed")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, p.Body(intaketest.MailgunEvent("mg6", "unsubscribed", "bye@example.com"), now))), "bye@example.com listed")
		wantState(t, e.state("victim@example.com", "forged@example.com", "full@example.com", "angry@example.com"),
			"trail 3, events 3; victim@example.com not listed; forged@example.com not listed; full@example.com not listed; angry@example.com complaint")
	})
}

// TestIntakePostmark: Postmark's basic auth; its records by type; a
// wrong password or none writes nothing; a bounce's ID makes its replay a
// no-op.
func TestIntakePostmark(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		p := intaketest.NewPostmark()
		in := e.create(`{"provider":"postmark","basic_auth":"` + p.BasicAuth() + `"}`)
		hard := intaketest.PostmarkBounce(4323372036, "hard@example.com", "HardBounce", 1, "smtp;550 5.1.1 The email account that you tried to reach does not exist.")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, hard))), "hard@example.com listed")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, hard))), "hard@example.com duplicate")
		if ev := e.entry("hard@example.com").Evidence; ev == nil || ev.EventID != "bounce:4323372036" || ev.Status != "5.1.1" || ev.ReportedAt == nil {
			t.Errorf("evidence %+v", ev)
		}
		forged := intaketest.PostmarkComplaint(99, "forged@example.com")
		e.send(intaketest.Postmark{User: p.User, Pass: "wrong"}.Request(in.URL, forged)).wantError(t, http.StatusUnauthorized, "invalid_signature")
		e.raw(in.ID, forged).wantError(t, http.StatusUnauthorized, "invalid_signature")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkBounce(2, "away@example.com", "AutoResponder", 64, "Out of office until Monday")))), "away@example.com ignored")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkBounce(3, "soft@example.com", "SoftBounce", 4096, "452 4.2.2 over quota")))), "soft@example.com counted")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkBounce(4, "dmarc@example.com", "DMARCPolicy", 100009, "550 5.7.26 DMARC")))), "dmarc@example.com review")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkComplaint(5, "angry@example.com")))), "angry@example.com listed")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkSubscription("bye@example.com", "ManualSuppression", true)))), "bye@example.com listed")
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, intaketest.PostmarkSubscription("back@example.com", "ManualSuppression", false)))), "back@example.com ignored")
		wantState(t, e.state("forged@example.com", "away@example.com", "angry@example.com", "bye@example.com"),
			"trail 3, events 3; forged@example.com not listed; away@example.com not listed; angry@example.com complaint; bye@example.com manual")
	})
}

// TestIntakeSES: SNS's subscription is confirmed and its topic pinned;
// notifications signed with versions 1 and 2 are taken in, the signing
// certificate fetched once; a forged signature, an altered message, a
// stale timestamp, another topic and a certificate URL off SNS's hosts
// are refused and write nothing (and fetch nothing).
func TestIntakeSES(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		in := e.create(`{"provider":"ses","name":"us-east-1"}`)
		topic := "arn:aws:sns:us-east-1:123456789012:ses-bounces"
		now := time.Now()
		if r := e.raw(in.ID, e.sns.Confirmation(topic, now), "x-amz-sns-message-type", "SubscriptionConfirmation"); r.status != http.StatusOK || e.sns.Confirmed.Load() != 1 {
			t.Fatalf("subscription confirmation: %d %s, %d confirmed", r.status, r.body, e.sns.Confirmed.Load())
		}
		var list api.IntakeList
		e.get("/intake", e.key).decode(t, &list)
		if list.Data[0].TopicArn != topic {
			t.Errorf("the confirmed topic is not pinned: %+v", list.Data[0])
		}
		bounce := intaketest.SESBounce("fb-1", "Permanent", "General",
			[3]string{"one@example.com", "5.1.1", "smtp; 550 5.1.1 user unknown"}, [3]string{"two@example.com", "5.1.1", "smtp; 550 5.1.1 user unknown"})
		wantOutcomes(t, e.outcomes(e.raw(in.ID, e.sns.Notification(topic, "sns-1", bounce, 1, now))), "one@example.com listed", "two@example.com listed")
		if ev := e.entry("one@example.com").Evidence; ev == nil || ev.ReportingMTA != "a8-70.smtp-out.amazonses.com" || ev.EventID != "fb-1/one@example.com" || ev.MessageID != "0100019-ses-1" {
			t.Errorf("evidence %+v", ev)
		}
		wantOutcomes(t, e.outcomes(e.raw(in.ID, e.sns.Notification(topic, "sns-1", bounce, 1, now))), "one@example.com duplicate", "two@example.com duplicate")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, e.sns.Notification(topic, "sns-2", intaketest.SESBounce("fb-2", "Transient", "MailboxFull", [3]string{"full@example.com", "4.2.2", "smtp; 452 4.2.2 full"}), 2, now))), "full@example.com counted")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, e.sns.Notification(topic, "sns-3", intaketest.SESBounce("fb-3", "Undetermined", "Undetermined", [3]string{"odd@example.com", "", ""}), 2, now))), "odd@example.com review")
		wantOutcomes(t, e.outcomes(e.raw(in.ID, e.sns.Notification(topic, "sns-4", intaketest.SESComplaint("fb-4", "abuse", "angry@example.com"), 2, now))), "angry@example.com listed")
		if n := e.sns.CertFetches.Load(); n != 1 {
			t.Errorf("the signing certificate was fetched %d times; want once (cached)", n)
		}

		other := intaketest.NewSNS(t) // signs with a key the certificate is not of
		forged := intaketest.SESComplaint("fb-9", "abuse", "forged@example.com")
		altered := strings.Replace(string(e.sns.Notification(topic, "sns-9", intaketest.SESComplaint("fb-9", "abuse", "someone@example.com"), 2, now)), "someone@example.com", "forged@example.com", 1)
		offHost := strings.Replace(string(e.sns.Notification(topic, "sns-9", forged, 2, now)), intaketest.Host, "sns.us-east-1.amazonaws.com.evil.test", 1)
		for what, body := range map[string][]byte{
			"forged signature": other.Notification(topic, "sns-9", forged, 2, now),
			"altered message":  []byte(altered),
			"stale timestamp":  e.sns.Notification(topic, "sns-9", forged, 2, now.Add(-2*time.Hour)),
			"another topic":    e.sns.Notification("arn:aws:sns:us-east-1:999999999999:attacker", "sns-9", forged, 2, now),
			"off SNS's hosts":  []byte(offHost),
			"raw delivery":     []byte(forged),
		} {
			r := e.raw(in.ID, body)
			if r.status != http.StatusUnauthorized {
				t.Errorf("%s: %d %s; want 401", what, r.status, r.body)
			}
		}
		if n := e.sns.CertFetches.Load(); n != 1 {
			t.Errorf("refused messages fetched the certificate: %d fetches", n)
		}
		wantState(t, e.state("forged@example.com", "full@example.com"), "trail 3, events 3; forged@example.com not listed; full@example.com not listed")
	})
}

// TestIntakeSoftBounceThreshold: temporary failures list the address at
// the team's threshold (PATCH /team sets it), with the policy's expiry,
// counting one message's failures once.
func TestIntakeSoftBounceThreshold(t *testing.T) {
	e := newIntakeEnv(t, openSQLite(t))
	var team api.Team
	e.get("/team", e.key).decode(t, &team)
	if team.Intake == nil || *team.Intake != (api.IntakePolicy{Threshold: 3, Window: "7d", Expiry: "7d"}) {
		t.Errorf("the default policy = %+v; want 3 within 7d, for 7d", team.Intake)
	}
	r := e.do("PATCH", "/team", e.key, "application/json", []byte(`{"intake":{"soft_bounce_threshold":2,"soft_bounce_expiry":"36h"}}`))
	r.decode(t, &team)
	if r.status != http.StatusOK || *team.Intake != (api.IntakePolicy{Threshold: 2, Window: "7d", Expiry: "36h"}) {
		t.Fatalf("PATCH /team: %d %s", r.status, r.body)
	}
	for _, bad := range []string{`{"intake":{"soft_bounce_threshold":0}}`, `{"intake":{"soft_bounce_window":"soon"}}`, `{"intake":{"soft_bounce_expiry":"30s"}}`} {
		if r := e.do("PATCH", "/team", e.key, "application/json", []byte(bad)); r.status != http.StatusUnprocessableEntity {
			t.Errorf("PATCH /team %s: %d %s; want 422", bad, r.status, r.body)
		}
	}
	p := intaketest.NewMailgun()
	in := e.create(`{"provider":"mailgun","secret":"` + p.Key + `"}`)
	failed := func(id, msg string) reply {
		ev := intaketest.MailgunFailed(id, "full@example.com", "temporary", "generic", "4.2.2", "452 4.2.2 mailbox full")
		ev["message"] = map[string]any{"headers": map[string]any{"message-id": msg}}
		return e.raw(in.ID, p.Body(ev, time.Now()))
	}
	wantOutcomes(t, e.outcomes(failed("f1", "m1@acme.test")), "full@example.com counted")
	wantOutcomes(t, e.outcomes(failed("f2", "m1@acme.test")), "full@example.com counted") // the same message
	before := time.Now()
	wantOutcomes(t, e.outcomes(failed("f3", "m2@acme.test")), "full@example.com listed")
	en := e.entry("full@example.com")
	if en.ExpiresAt == nil || en.ExpiresAt.Before(before.Add(35*time.Hour)) || en.ExpiresAt.After(time.Now().Add(37*time.Hour)) || en.Note == nil || !strings.Contains(*en.Note, "temporary failures") {
		t.Errorf("listed at the threshold: %+v; want an expiry 36 h on and a note saying why", en)
	}
}

// TestIntakeReviewQueue: the queue through the API: items with their
// evidence, a suppress that lists the address by the key (in the trail),
// an ignore, a decision that cannot be made twice the other way, a
// protected address that cannot be suppressed, read-only keys that may
// read but not decide.
func TestIntakeReviewQueue(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		e.do("PATCH", "/team", e.key, "application/json", []byte(`{"protected":["@acme.test"]}`))
		p := intaketest.NewResend()
		in := e.create(`{"provider":"resend","secret":"` + p.Secret + `"}`)
		now := time.Now()
		e.outcomes(e.send(p.Request(in.URL, "m1", intaketest.ResendBounce("policy@example.com", "Permanent", "General", "550 5.7.1 \x1b]0;pwned\x07 rejected"), now)))
		e.outcomes(e.send(p.Request(in.URL, "m2", intaketest.ResendBounce("odd@example.com", "Undetermined", "", ""), now)))
		wantOutcomes(t, e.outcomes(e.send(p.Request(in.URL, "m3", intaketest.ResendBounce("support@acme.test", "Permanent", "General", "550 5.1.1 unknown"), now))), "support@acme.test review")
		var q api.ReviewList
		e.get("/intake/review?limit=10", e.key_ro()).decode(t, &q)
		if len(q.Data) != 3 || q.Data[0].Email != "support@acme.test" || !strings.Contains(q.Data[0].Reason, "protected") || q.Data[2].Evidence.Status != "5.7.1" {
			t.Fatalf("GET /intake/review = %+v", q.Data)
		}
		policy, odd, own := q.Data[2].ID, q.Data[1].ID, q.Data[0].ID
		if r := e.post("/intake/review/"+policy, e.key_ro(), `{"decision":"suppress"}`); r.status != http.StatusForbidden {
			t.Errorf("a read-only key decides: %d", r.status)
		}
		_, jane, err := server.CreateNamedKey(t.Context(), e.st, "acme", "jane", false)
		if err != nil {
			t.Fatal(err)
		}
		r := e.do("POST", "/intake/review/"+policy, jane, "application/json", []byte(`{"decision":"suppress","note":"a real block, checked with the customer"}`), "Shush-Reference", "#4821")
		var item api.ReviewItem
		r.decode(t, &item)
		if r.status != http.StatusOK || item.Decision != "suppress" || item.DecidedBy != "jane" || item.EntryID == "" {
			t.Fatalf("suppress: %d %s", r.status, r.body)
		}
		var trail api.AuditList
		e.get("/suppressions/policy@example.com/audit", e.key).decode(t, &trail)
		if len(trail.Data) != 1 || trail.Data[0].Key == nil || trail.Data[0].Key.Name != "jane" || *trail.Data[0].Reference != "#4821" ||
			trail.Data[0].Suppression.Evidence == nil || trail.Data[0].Suppression.Evidence.Status != "5.7.1" {
			t.Errorf("the decision's trail = %+v", trail.Data)
		}
		if r := e.post("/intake/review/"+policy, e.key, `{"decision":"suppress"}`); r.status != http.StatusOK {
			t.Errorf("the same decision again: %d %s; want 200", r.status, r.body)
		}
		e.post("/intake/review/"+policy, e.key, `{"decision":"ignore"}`).wantError(t, http.StatusUnprocessableEntity, "validation_error")
		if r := e.post("/intake/review/"+odd, e.key, `{"decision":"ignore"}`); r.status != http.StatusOK {
			t.Errorf("ignore: %d %s", r.status, r.body)
		}
		e.post("/intake/review/"+own, e.key, `{"decision":"suppress"}`).wantError(t, http.StatusUnprocessableEntity, "validation_error")
		e.post("/intake/review/"+own, e.key, `{"decision":"maybe"}`).wantError(t, http.StatusUnprocessableEntity, "validation_error")
		e.post("/intake/review/0195f3c2-0000-7000-8000-000000000000", e.key, `{"decision":"ignore"}`).wantError(t, http.StatusNotFound, "not_found")
		wantState(t, e.state("policy@example.com", "odd@example.com", "support@acme.test"),
			"trail 1, events 1; policy@example.com bounce; odd@example.com not listed; support@acme.test not listed")
		e.get("/intake/review", e.key).decode(t, &q)
		var decided api.ReviewList
		e.get("/intake/review?status=decided", e.key).decode(t, &decided)
		if len(q.Data) != 1 || q.Data[0].ID != own || len(decided.Data) != 2 || decided.Data[1].DecidedBy != "jane" {
			t.Errorf("after the decisions: waiting %+v, decided %+v", q.Data, decided.Data)
		}
	})
}

// TestIntakeReports: the reports read from bounce mail are classified by
// the same rules, by the caller's key; a replay is a duplicate; a bad
// report is refused naming its index.
func TestIntakeReports(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		e := newIntakeEnv(t, open(t))
		body := `{"reports":[
			{"email":"gone@example.com","kind":"bounce","status":"5.1.1","action":"failed","diagnostic":"smtp; 550 5.1.1 user unknown","reporting_mta":"mx.acme.test","message_id":"dsn-1@mx.acme.test","original_message_id":"orig-1@acme.test","reported_at":"2026-11-02T09:30:00Z","shape":"dsn","event_id":"dsn-1@mx.acme.test/gone@example.com"},
			{"email":"later@example.com","kind":"bounce","action":"delayed","status":"4.4.7","shape":"dsn","event_id":"dsn-2/later@example.com"},
			{"email":"nostatus@example.com","kind":"bounce","action":"failed","shape":"dsn","event_id":"dsn-3/nostatus@example.com"},
			{"email":"angry@example.com","kind":"complaint","feedback_type":"abuse","shape":"arf","event_id":"arf-1/angry@example.com"},
			{"email":"away@example.com","kind":"auto_reply","shape":"vacation","event_id":"vac-1/away@example.com"},
			{"email":"","kind":"unknown","shape":"","event_id":"sha256:ab/"}
		]}`
		r := e.do("POST", "/intake/reports", e.key, "application/json", []byte(body), "Shush-Reference", "mbox 2026-11")
		wantOutcomes(t, e.outcomes(r), "gone@example.com listed", "later@example.com counted", "nostatus@example.com review",
			"angry@example.com listed", "away@example.com ignored", " ignored")
		if ev := e.entry("gone@example.com").Evidence; ev == nil || ev.Provider != "mail" || ev.MessageID != "orig-1@acme.test" || ev.ReportingMTA != "mx.acme.test" {
			t.Errorf("evidence %+v", ev)
		}
		wantOutcomes(t, e.outcomes(e.post("/intake/reports", e.key, `{"reports":[{"email":"gone@example.com","kind":"bounce","status":"5.1.1","event_id":"dsn-1@mx.acme.test/gone@example.com"}]}`)), "gone@example.com duplicate")
		var trail api.AuditList
		e.get("/audit?reference=mbox%202026-11", e.key).decode(t, &trail)
		if len(trail.Data) != 2 {
			t.Errorf("the reports' trail by reference = %d entries; want 2", len(trail.Data))
		}
		for _, c := range []struct{ body, status, says string }{
			{`{"reports":[]}`, "422", "1 to 100"},
			{`{"reports":[{"email":"a@example.com","kind":"bounce"}]}`, "422", "reports[0].event_id"},
			{`{"reports":[{"email":"a@example.com","kind":"bounce","event_id":"x"},{"email":"b@example.com","kind":"weird","event_id":"y"}]}`, "422", "reports[1].kind"},
			{`{"reports":"x"}`, "400", "array"},
		} {
			r := e.post("/intake/reports", e.key, c.body)
			if fmt.Sprint(r.status) != c.status || !strings.Contains(string(r.body), c.says) {
				t.Errorf("POST /intake/reports %s: %d %s; want %s saying %q", c.body, r.status, r.body, c.status, c.says)
			}
		}
		if r := e.post("/intake/reports", e.key_ro(), body); r.status != http.StatusForbidden {
			t.Errorf("a read-only key sends reports: %d", r.status)
		}
	})
}

// intakeCalls are TestOpenAPIDocument's requests of intake: it takes an
// event in through a signed request (checked against the document like
// the rest) and returns one accepted request per operation.
func intakeCalls(t *testing.T, s *service, key string) []struct {
	method, path, body string
	status             int
} {
	t.Helper()
	p := intaketest.NewResend()
	r := s.post("/intake", key, `{"provider":"resend","name":"prod","secret":"`+p.Secret+`"}`)
	var in api.Intake
	r.decode(t, &in)
	body := intaketest.ResendBounce("odd@example.com", "Undetermined", "", "")
	sig, _ := api.SignWebhook(p.Secret, "msg_1", time.Now(), body)
	r = s.do("POST", "/intake/"+in.ID, "", "application/json", body, "svix-id", "msg_1", "svix-timestamp", fmt.Sprint(time.Now().Unix()), "svix-signature", sig)
	var a api.IntakeAnswer
	r.decode(t, &a)
	if r.status != http.StatusOK || len(a.Data) != 1 || a.Data[0].Decision != "review" {
		t.Fatalf("the signed event: %d %s", r.status, r.body)
	}
	item := a.Data[0].ID
	return []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/intake", `{"provider":"postmark","basic_auth":"hook:pass"}`, 201},
		{"GET", "/intake", "", 200},
		{"POST", "/intake/" + in.ID, string(body), 401},
		{"POST", "/intake/reports", `{"reports":[{"email":"gone@example.com","kind":"bounce","status":"5.1.1","event_id":"r1","reported_at":"2026-11-02T09:30:00Z"}]}`, 200},
		{"GET", "/intake/review?limit=5", "", 200},
		{"GET", "/intake/review/" + item, "", 200},
		{"POST", "/intake/review/" + item, `{"decision":"ignore","note":"a test send"}`, 200},
		{"GET", "/intake/review?status=decided", "", 200},
		{"PATCH", "/team", `{"intake":{"soft_bounce_threshold":4,"soft_bounce_window":"3d","soft_bounce_expiry":"36h"}}`, 200},
		{"DELETE", "/intake/" + in.ID, "", 200},
	}
}
