package server_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/intake"
	"github.com/shushlist/shush/server/intake/intaketest"
	"github.com/shushlist/shush/server/store"
)

// The kinds of events of the mixed load, and what each must become.
const (
	kindPermanent = iota // listed, origin bounce
	kindComplaint        // listed, origin complaint
	kindTemporary        // counted (one failure per address: never listed)
	kindAutoReply        // ignored (Postmark's AutoResponder; the others have none, and send a delivery instead)
	kindReview           // review
	kindOther            // ignored (a delivery)
	kinds
)

// mixedRequest is one request of the load: built once, sent as it is
// (again for a replay).
type mixedRequest struct {
	provider string
	method   string
	url      string
	header   http.Header
	body     []byte
	forged   bool
	// events are the event keys (provider and ID) and addresses the
	// request carries, with their kinds.
	events []mixedEvent
}

type mixedEvent struct {
	key, email string
	kind       int
}

func (m mixedRequest) send(c *http.Client) (*http.Response, error) {
	req, _ := http.NewRequest(m.method, m.url, bytes.NewReader(m.body))
	req.Header = m.header.Clone()
	return c.Do(req)
}

// mixedProviders are the five providers' doubles and endpoints of one
// service.
type mixedProviders struct {
	url                             string
	resend, resendForged            intaketest.Resend
	sendgrid, sendgridForged        intaketest.SendGrid
	mailgun, mailgunForged          intaketest.Mailgun
	postmark, postmarkForged        intaketest.Postmark
	sns, snsForged                  *intaketest.SNS
	topic                           string
	rsID, sgID, mgID, pmID, sesID   string
	next                            int
	mu                              sync.Mutex
	signedAt                        time.Time
	resendN, sendgridBatch, sesSigV int
}

// newMixedProviders makes an endpoint per provider on the service.
func newMixedProviders(t testing.TB, s *service, key string, sns *intaketest.SNS) *mixedProviders {
	t.Helper()
	p := &mixedProviders{url: s.url, resend: intaketest.NewResend(), resendForged: intaketest.NewResend(),
		sendgrid: intaketest.NewSendGrid(), sendgridForged: intaketest.NewSendGrid(), mailgun: intaketest.NewMailgun(),
		mailgunForged: intaketest.NewMailgun(), postmark: intaketest.NewPostmark(), postmarkForged: intaketest.Postmark{User: "postmark", Pass: "guessed"},
		sns: sns, snsForged: intaketest.NewSNS(t), topic: "arn:aws:sns:us-east-1:123456789012:ses-bounces", signedAt: time.Now()}
	create := func(body string) string {
		r := s.post("/intake", key, body)
		var in api.Intake
		if r.status != http.StatusCreated || decodeReply(r, &in) != nil {
			t.Fatalf("POST /intake %s: %d %s", body, r.status, r.body)
		}
		return in.ID
	}
	p.rsID = create(`{"provider":"resend","secret":"` + p.resend.Secret + `"}`)
	p.sgID = create(`{"provider":"sendgrid","public_key":"` + p.sendgrid.PublicKey + `"}`)
	p.mgID = create(`{"provider":"mailgun","secret":"` + p.mailgun.Key + `"}`)
	p.pmID = create(`{"provider":"postmark","basic_auth":"` + p.postmark.BasicAuth() + `"}`)
	p.sesID = create(`{"provider":"ses","topic_arn":"` + p.topic + `"}`)
	return p
}

// request builds provider's request of the events (one, or a batch for
// SendGrid), signed (or forged).
func (p *mixedProviders) request(provider string, forged bool, events []mixedEvent, tag string) mixedRequest {
	m := mixedRequest{provider: provider, method: http.MethodPost, forged: forged, events: events}
	e := events[0]
	var req *http.Request
	switch provider {
	case api.ProviderResend:
		signer := p.resend
		if forged {
			signer = p.resendForged
		}
		id := "msg_" + tag
		req = signer.Request(p.url+"/intake/"+p.rsID, id, resendBody(e), p.signedAt)
		m.events[0].key = "resend:" + id + "/" + e.email
	case api.ProviderSendGrid:
		signer := p.sendgrid
		if forged {
			signer = p.sendgridForged
		}
		var evs []map[string]any
		for i, x := range events {
			id := fmt.Sprintf("sg_%s_%d", tag, i)
			evs = append(evs, sendGridEvent(x, id))
			m.events[i].key = "sendgrid:" + id
		}
		req = signer.Request(p.url+"/intake/"+p.sgID, intaketest.SendGridBatch(evs...), p.signedAt)
	case api.ProviderMailgun:
		signer := p.mailgun
		if forged {
			signer = p.mailgunForged
		}
		id := "mg_" + tag
		body := signer.Body(mailgunEvent(e, id), p.signedAt)
		req, _ = http.NewRequest(http.MethodPost, p.url+"/intake/"+p.mgID, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		m.events[0].key = "mailgun:" + id
	case api.ProviderPostmark:
		signer := p.postmark
		if forged {
			signer = p.postmarkForged
		}
		n := p.counter()
		req = signer.Request(p.url+"/intake/"+p.pmID, postmarkBody(e, n))
		m.events[0].key = fmt.Sprintf("postmark:%d", n)
	case api.ProviderSES:
		signer := p.sns
		if forged {
			signer = p.snsForged
		}
		fb := "fb_" + tag
		version := 1 + p.counter()%2
		body := signer.Notification(p.topic, "sns_"+tag, sesMessage(e, fb), version, p.signedAt)
		req, _ = http.NewRequest(http.MethodPost, p.url+"/intake/"+p.sesID, bytes.NewReader(body))
		req.Header.Set("Content-Type", "text/plain; charset=UTF-8")
		m.events[0].key = "ses:" + fb + "/" + e.email
	}
	m.url, m.header = req.URL.String(), req.Header
	m.body, _ = io.ReadAll(req.Body)
	return m
}

func (p *mixedProviders) counter() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	return p.next
}

func resendBody(e mixedEvent) []byte {
	switch e.kind {
	case kindPermanent:
		return intaketest.ResendBounce(e.email, "Permanent", "General", "550 5.1.1 user unknown")
	case kindComplaint:
		return intaketest.ResendEvent("email.complained", e.email)
	case kindTemporary:
		return intaketest.ResendBounce(e.email, "Transient", "MailboxFull", "452 4.2.2 mailbox full")
	case kindReview:
		return intaketest.ResendBounce(e.email, "Undetermined", "Undetermined", "")
	}
	return intaketest.ResendEvent("email.delivered", e.email)
}

func sendGridEvent(e mixedEvent, id string) map[string]any {
	switch e.kind {
	case kindPermanent:
		return intaketest.SendGridEvent("bounce", e.email, id, map[string]any{"type": "bounce", "status": "5.1.1", "reason": "550 5.1.1 unknown"})
	case kindComplaint:
		return intaketest.SendGridEvent("spamreport", e.email, id, nil)
	case kindTemporary:
		return intaketest.SendGridEvent("deferred", e.email, id, map[string]any{"response": "452 4.2.2 full"})
	case kindReview:
		return intaketest.SendGridEvent("bounce", e.email, id, map[string]any{"type": "blocked", "status": "5.7.1", "reason": "550 5.7.1 policy"})
	}
	return intaketest.SendGridEvent("delivered", e.email, id, nil)
}

func mailgunEvent(e mixedEvent, id string) map[string]any {
	switch e.kind {
	case kindPermanent:
		return intaketest.MailgunFailed(id, e.email, "permanent", "bounce", "5.1.1", "550 5.1.1 unknown")
	case kindComplaint:
		return intaketest.MailgunEvent(id, "complained", e.email)
	case kindTemporary:
		return intaketest.MailgunFailed(id, e.email, "temporary", "generic", "4.2.2", "452 4.2.2 full")
	case kindReview:
		return intaketest.MailgunFailed(id, e.email, "permanent", "bounce", "5.7.1", "550 5.7.1 policy")
	}
	return intaketest.MailgunEvent(id, "delivered", e.email)
}

func postmarkBody(e mixedEvent, n int) []byte {
	switch e.kind {
	case kindPermanent:
		return intaketest.PostmarkBounce(n, e.email, "HardBounce", 1, "smtp;550 5.1.1 unknown")
	case kindComplaint:
		return intaketest.PostmarkComplaint(n, e.email)
	case kindTemporary:
		return intaketest.PostmarkBounce(n, e.email, "SoftBounce", 4096, "452 4.2.2 full")
	case kindAutoReply:
		return intaketest.PostmarkBounce(n, e.email, "AutoResponder", 64, "I am out of the office")
	case kindReview:
		return intaketest.PostmarkBounce(n, e.email, "DMARCPolicy", 100009, "550 5.7.26 DMARC")
	}
	return intaketest.PostmarkBounce(n, e.email, "Subscribe", 32, "")
}

func sesMessage(e mixedEvent, fb string) string {
	switch e.kind {
	case kindPermanent:
		return intaketest.SESBounce(fb, "Permanent", "General", [3]string{e.email, "5.1.1", "smtp; 550 5.1.1 unknown"})
	case kindComplaint:
		return intaketest.SESComplaint(fb, "abuse", e.email)
	case kindTemporary:
		return intaketest.SESBounce(fb, "Transient", "MailboxFull", [3]string{e.email, "4.2.2", "smtp; 452 4.2.2 full"})
	case kindReview:
		return intaketest.SESBounce(fb, "Undetermined", "Undetermined", [3]string{e.email, "", ""})
	}
	return intaketest.SESComplaint(fb, "not-spam", e.email)
}

// mixedLoad is n events across the five providers (SendGrid's in
// batches of 10), every tenth request sent twice (a replay) and one
// request in twenty forged, shuffled: replays may race their originals.
func mixedLoad(p *mixedProviders, n int, seed uint64) []mixedRequest {
	rng := rand.New(rand.NewPCG(seed, 36))
	providers := api.Providers()
	var out []mixedRequest
	var pendingSG []mixedEvent
	flushSG := func(tag string) {
		if len(pendingSG) > 0 {
			out = append(out, p.request(api.ProviderSendGrid, false, pendingSG, tag))
			pendingSG = nil
		}
	}
	for i := range n {
		provider := providers[i%len(providers)]
		kind := []int{kindPermanent, kindPermanent, kindPermanent, kindPermanent, kindComplaint, kindComplaint, kindTemporary, kindAutoReply, kindReview, kindOther}[rng.IntN(10)]
		if kind == kindAutoReply && provider != api.ProviderPostmark {
			kind = kindOther
		}
		e := mixedEvent{email: fmt.Sprintf("e%05d-%s@example.com", i, kindName(kind)), kind: kind}
		if provider == api.ProviderSendGrid {
			if pendingSG = append(pendingSG, e); len(pendingSG) == 10 {
				flushSG(fmt.Sprint(i))
			}
			continue
		}
		out = append(out, p.request(provider, false, []mixedEvent{e}, fmt.Sprint(i)))
	}
	flushSG("last")
	originals := len(out)
	for i := 0; i < originals; i += 10 {
		out = append(out, out[i]) // the replay: the same bytes
	}
	for i := 0; i < originals/20; i++ {
		provider := providers[i%len(providers)]
		e := mixedEvent{email: fmt.Sprintf("forged%05d@example.com", i), kind: kindComplaint}
		out = append(out, p.request(provider, true, []mixedEvent{e}, fmt.Sprint("f", i)))
	}
	rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func kindName(k int) string {
	return [...]string{"permanent", "complaint", "temporary", "autoreply", "review", "other"}[k]
}

// mixedResult is what sending the load met.
type mixedResult struct {
	mu        sync.Mutex
	decisions map[string][]string // event key → the decisions its deliveries got
	forged    int                 // forged requests refused (401)
	failures  []string
}

// sendMixed sends the load from clients at once.
func sendMixed(load []mixedRequest, clients int) *mixedResult {
	res := &mixedResult{decisions: map[string][]string{}}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients}}
	defer c.CloseIdleConnections()
	work := make(chan mixedRequest)
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			for m := range work {
				res.take(m, c)
			}
		})
	}
	for _, m := range load {
		work <- m
	}
	close(work)
	wg.Wait()
	return res
}

func (res *mixedResult) take(m mixedRequest, c *http.Client) {
	resp, err := m.send(c)
	if err != nil {
		res.fail("%s: %v", m.provider, err)
		return
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	res.mu.Lock()
	defer res.mu.Unlock()
	if m.forged {
		if resp.StatusCode != http.StatusUnauthorized {
			res.failures = append(res.failures, fmt.Sprintf("a forged %s request got %d %s", m.provider, resp.StatusCode, body))
		} else {
			res.forged++
		}
		return
	}
	var a api.IntakeAnswer
	if resp.StatusCode != http.StatusOK || decodeReply(reply{body: body}, &a) != nil || len(a.Data) != len(m.events) {
		res.failures = append(res.failures, fmt.Sprintf("a %s request got %d %s", m.provider, resp.StatusCode, body))
		return
	}
	for i, o := range a.Data {
		if o.Email != m.events[i].email {
			res.failures = append(res.failures, fmt.Sprintf("%s answered %s for %s", m.provider, o.Email, m.events[i].email))
		}
		res.decisions[m.events[i].key] = append(res.decisions[m.events[i].key], o.Decision)
	}
}

func (res *mixedResult) fail(format string, args ...any) {
	res.mu.Lock()
	res.failures = append(res.failures, fmt.Sprintf(format, args...))
	res.mu.Unlock()
}

// TestIntakeMixedEvents: 10,000 events across the five providers, 10 %
// of the requests replayed (racing their originals), 5 % forged, from 8
// clients at once: no forged one is accepted, each event is taken in
// once (no duplicate entry, trail entry or webhook event), every
// permanent bounce and complaint is listed, no auto-reply nor anything
// else is, and what waits for an agent is exactly the review events.
func TestIntakeMixedEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		sns := intaketest.NewSNS(t)
		metrics := server.NewMetrics()
		s := startService(t, st, server.Options{Metrics: metrics, Intake: intake.ReceiverOptions{SNSClient: sns.Client}})
		key := s.key("mixed", false)
		hook := s.createWebhook(key, "https://example.com/hook", "suppression.added")
		p := newMixedProviders(t, s, key, sns)
		start := time.Now()
		load := mixedLoad(p, mixedEvents, 1)
		built := time.Since(start)
		res := sendMixed(load, 8)
		t.Logf("%d events in %d requests: built in %v, sent in %v", mixedEvents, len(load), built.Round(time.Millisecond), (time.Since(start) - built).Round(time.Millisecond))
		for _, f := range res.failures[:min(len(res.failures), 10)] {
			t.Error(f)
		}

		want := map[string]int{}     // listed address → its kind
		reviews := map[string]bool{} // the review events' keys
		forged := 0
		for _, m := range load {
			if m.forged {
				forged++
				continue
			}
			for _, e := range m.events {
				switch e.kind {
				case kindPermanent, kindComplaint:
					want[e.email] = e.kind
				case kindReview:
					reviews[e.key] = true
				}
			}
		}
		taken := 0
		for key, ds := range res.decisions {
			n := 0
			for _, d := range ds {
				if d != api.DecisionDuplicate {
					n++
				}
			}
			if n != 1 {
				t.Errorf("event %s was taken in %d times (%q)", key, n, ds)
			}
			taken++
		}
		if res.forged != forged || taken != mixedEvents {
			t.Errorf("%d of %d forged requests refused, %d of %d events taken in", res.forged, forged, taken, mixedEvents)
		}

		listed := map[string]store.Entry{}
		if err := st.Export(context.Background(), "mixed", store.ListQuery{}, func(e store.Entry) error {
			listed[e.Email] = e
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		for email, kind := range want {
			e, ok := listed[email]
			switch {
			case !ok:
				t.Errorf("%s is not listed", email)
			case kind == kindComplaint && e.Origin != api.OriginComplaint, kind == kindPermanent && e.Origin != api.OriginBounce:
				t.Errorf("%s is listed with origin %s", email, e.Origin)
			case e.Evidence == nil:
				t.Errorf("%s is listed without evidence", email)
			}
		}
		for email := range listed {
			if _, ok := want[email]; !ok {
				t.Errorf("%s is listed and should not be (forged, an auto-reply, a temporary failure, a review or a delivery)", email)
			}
		}
		trail := 0
		for after := ""; ; {
			page, more, err := st.Audit(context.Background(), "mixed", store.AuditQuery{Limit: 100, After: after})
			if err != nil {
				t.Fatal(err)
			}
			trail += len(page)
			if !more {
				break
			}
			after = page[len(page)-1].ID
		}
		waiting, _ := st.CountReview(context.Background(), "mixed")
		var events int
		for after := ""; ; {
			page, more, err := st.WebhookEvents(context.Background(), "mixed", hook.ID, store.Page{Limit: 100, After: after})
			if err != nil {
				t.Fatal(err)
			}
			events += len(page)
			if !more {
				break
			}
			after = page[len(page)-1].ID
		}
		t.Logf("listed %d (want %d), trail %d, webhook events %d, review %d (want %d), forged refused %d", len(listed), len(want), trail, events, waiting, len(reviews), res.forged)
		if len(listed) != len(want) || trail != len(want) || events != len(want) || waiting != len(reviews) {
			t.Errorf("listed %d, trail %d, webhook events %d, review %d; want %d, %d, %d, %d",
				len(listed), trail, events, waiting, len(want), len(want), len(want), len(reviews))
		}
		rec := httptest.NewRecorder()
		metrics.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
		for _, line := range []string{
			fmt.Sprintf(`shush_intake_requests_total{outcome="refused",provider="ses"} %d`, forged/5),
			`shush_intake_events_total{class="auto_reply",decision="ignored",provider="postmark"}`,
			`shush_intake_events_total{class="permanent",decision="listed",provider="sendgrid"}`,
			`shush_intake_events_total{class="undetermined",decision="review",provider="ses"}`,
		} {
			if !strings.Contains(rec.Body.String(), line) {
				t.Errorf("the metrics lack %s", line)
			}
		}
	})
}
