package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/intake"
	"github.com/shushlist/shush/server/store"
)

// Intake (contract: intake): the endpoints a team's providers post their
// bounces and complaints to, the receiver that checks each provider's
// signature before it trusts a byte, the reports read from raw bounce
// mail, and the review queue of the events the rules could not place.

// DefaultMaxIntakesPerTeam caps a team's intake endpoints.
const DefaultMaxIntakesPerTeam = 20

// receiverRoute is the route providers post to, with no API key: the
// provider's own signature is the request's credential.
const receiverRoute = "POST /intake/{id}"

func (s *Server) intakeRoutes() {
	s.handle("POST /intake", true, s.createIntake)
	s.handle("GET /intake", false, s.listIntakes)
	s.handle("DELETE /intake/{id}", true, s.deleteIntake)
	s.handle("POST /intake/reports", true, s.intakeReports)
	s.handle("GET /intake/review", false, s.reviewQueue)
	s.handle("GET /intake/review/{id}", false, s.reviewItem)
	s.handle("POST /intake/review/{id}", true, s.decideReview)
	s.mux.HandleFunc(receiverRoute, s.receive)
}

// keyless says whether the request goes to a route that takes no key:
// the probes, the OpenAPI document, and the providers' receiver.
func (s *Server) keyless(r *http.Request) bool {
	if unauthenticated[r.URL.Path] {
		return true
	}
	x := exchangeOf(r)
	return x != nil && (x.route == receiverRoute || isOneClick(x.route))
}

func intakeNotFound() *problem {
	return newProblem(http.StatusNotFound, api.ErrNotFound, "Intake endpoint not found")
}

func reviewNotFound() *problem {
	return newProblem(http.StatusNotFound, api.ErrNotFound, "Review item not found")
}

// intakeURL is where the provider posts: the service's public URL
// (serve --public-url) or, without one, the address the request came to.
func (s *Server) intakeURL(r *http.Request, id string) string {
	base := strings.TrimRight(s.opts.PublicURL, "/")
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		base = scheme + "://" + r.Host
	}
	return base + "/intake/" + id
}

func (s *Server) intakeObject(r *http.Request, in store.Intake) api.Intake {
	return api.Intake{Object: api.ObjectIntake, ID: in.ID, Provider: in.Provider, Name: in.Name, URL: s.intakeURL(r, in.ID),
		TopicArn: in.TopicArn, CreatedAt: &api.Timestamp{Time: in.CreatedAt}}
}

// refuseAgent keeps an agent out of what an admin sets up.
func refuseAgent(r *http.Request, what string) error {
	if c, _ := callerOf(r); c.agent != nil {
		return newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey, "An agent cannot %s; an admin can, with an API key.", what)
	}
	return nil
}

// credentialField reads a credential without ever repeating it.
func credentialField(f map[string]json.RawMessage, name string) (string, error) {
	raw, ok := f[name]
	if !ok || isNull(raw) {
		return "", nil
	}
	if kind := jsonKind(raw); kind != "a string" {
		return "", badRequest("`%s` must be a string, not %s.", name, kind)
	}
	var v string
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", badRequest("`%s` is not a valid JSON string.", name)
	}
	return strings.TrimSpace(v), nil
}

func (s *Server) createIntake(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	if err := refuseAgent(r, "add intake endpoints"); err != nil {
		return 0, nil, err
	}
	f, err := readObject(w, r, "provider", "name", "secret", "public_key", "basic_auth", "topic_arn")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["provider"]
	if !ok {
		return 0, nil, missing("The `provider` field is missing; send one of %s.", strings.Join(api.Providers(), ", "))
	}
	var req api.CreateIntakeRequest
	if req.Provider, err = stringField(raw, "provider", "a provider", func(v string) (string, error) { return strings.ToLower(strings.TrimSpace(v)), nil }); err != nil {
		return 0, nil, err
	}
	if raw, ok := f["name"]; ok && !isNull(raw) {
		if req.Name, err = stringField(raw, "name", "a name", func(v string) (string, error) { return v, api.ValidIntakeName(v) }); err != nil {
			return 0, nil, err
		}
	}
	for _, c := range []struct {
		name string
		dst  *string
	}{{"secret", &req.Secret}, {"public_key", &req.PublicKey}, {"basic_auth", &req.BasicAuth}, {"topic_arn", &req.TopicArn}} {
		if *c.dst, err = credentialField(f, c.name); err != nil {
			return 0, nil, err
		}
	}
	cred, err := intake.Credential(req.Provider, req)
	if err != nil {
		return 0, nil, invalid("%s.", capitalizeFirst(err.Error()))
	}
	in := store.Intake{ID: uuid.NewString(), Team: team, Provider: req.Provider, Name: req.Name, Credential: cred,
		TopicArn: req.TopicArn, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := s.store.CreateIntake(r.Context(), in, DefaultMaxIntakesPerTeam); err != nil {
		if errors.Is(err, store.ErrTooMany) {
			return 0, nil, invalid("This team has %d intake endpoints, as many as it may; delete one it no longer uses.", DefaultMaxIntakesPerTeam)
		}
		return 0, nil, err
	}
	return http.StatusCreated, s.intakeObject(r, in), nil
}

// capitalizeFirst makes a message start as a sentence.
func capitalizeFirst(s string) string {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func (s *Server) listIntakes(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	list, err := s.store.ListIntakes(r.Context(), team)
	if err != nil {
		return 0, nil, err
	}
	out := api.IntakeList{Object: api.ObjectList, Data: make([]api.Intake, len(list))}
	for i, in := range list {
		out.Data[i] = s.intakeObject(r, in)
		out.Data[i].Object = ""
	}
	return http.StatusOK, out, nil
}

func (s *Server) deleteIntake(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	if err := refuseAgent(r, "delete intake endpoints"); err != nil {
		return 0, nil, err
	}
	id, err := api.NormalizeID(r.PathValue("id"))
	if err != nil {
		return 0, nil, intakeNotFound()
	}
	err = s.store.DeleteIntake(r.Context(), team, id)
	s.intakes.drop(id)
	if err != nil {
		return 0, nil, or404(err, intakeNotFound)
	}
	return http.StatusOK, api.Intake{Object: api.ObjectIntake, ID: id, Deleted: true}, nil
}

// receive answers a provider's request to an intake endpoint: an unknown
// endpoint is 404, a signature, timestamp or credential that does not
// hold is 401, and nothing is written for either; an accepted request's
// events are classified and taken in, a replay of one does nothing.
func (s *Server) receive(w http.ResponseWriter, r *http.Request) {
	ep, err := s.endpointOf(r)
	if err != nil {
		s.intakeMetrics.request("unknown", "unknown_endpoint")
		writeProblem(w, r, s.log, fromStore(err))
		return
	}
	body, perr := readRaw(w, r)
	if perr != nil {
		s.intakeMetrics.request(ep.Provider, "malformed")
		writeProblem(w, r, s.log, perr)
		return
	}
	d, err := s.receiver.Receive(r.Context(), intake.Endpoint{Provider: ep.Provider, Credential: ep.Credential, TopicArn: ep.TopicArn}, r, body)
	if err != nil {
		writeProblem(w, r, s.log, s.refusal(ep, err))
		return
	}
	if d.Topic != "" && ep.TopicArn == "" {
		topic, err := s.store.PinTopic(r.Context(), ep.ID, d.Topic)
		s.intakes.drop(ep.ID)
		if err == nil && topic != d.Topic {
			err = newProblem(http.StatusUnauthorized, api.ErrInvalidSignature, "The message's SNS topic is not the one this endpoint accepts.")
		}
		if err != nil {
			s.intakeMetrics.request(ep.Provider, "refused")
			writeProblem(w, r, s.log, fromStore(err))
			return
		}
	}
	s.intakeMetrics.request(ep.Provider, "verified")
	author := store.Change{Reference: "intake:" + ep.ID, RequestID: w.Header().Get(requestIDHeader)}
	out, err := s.takeIn(r, ep.Team, ep.ID, author, d.Events)
	if err != nil {
		writeProblem(w, r, s.log, fromStore(err))
		return
	}
	writeJSON(w, http.StatusOK, out)
}

// endpointOf reads the endpoint the path names, of any team: from the
// cache of endpoints found when it is there, else from the store.
func (s *Server) endpointOf(r *http.Request) (store.Intake, error) {
	id, err := api.NormalizeID(r.PathValue("id"))
	if err != nil {
		return store.Intake{}, intakeNotFound()
	}
	if ep, ok := s.intakes.get(id); ok {
		return ep, nil
	}
	start := time.Now()
	ep, err := s.store.IntakeByID(r.Context(), id)
	if err != nil {
		return ep, or404(err, intakeNotFound)
	}
	s.intakes.put(ep, start)
	return ep, nil
}

// IntakeCacheTTL bounds how long an endpoint found is used without reading
// it again: one deleted (or whose topic was pinned) through another
// process is seen within it; through this process, at once.
const IntakeCacheTTL = 2 * time.Second

// maxCachedIntakes bounds the cache; past it the cache starts over. Only
// endpoints that exist get in.
const maxCachedIntakes = 10_000

// intakeCache remembers the endpoints found, so that a provider's request
// costs no read of its endpoint. Its credential is checked on every
// request as if just read.
type intakeCache struct {
	mu      sync.Mutex
	entries map[string]cachedIntake
}

type cachedIntake struct {
	in      store.Intake
	expires time.Time
}

func (c *intakeCache) get(id string) (store.Intake, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || !time.Now().Before(e.expires) {
		return store.Intake{}, false
	}
	return e.in, true
}

// put keeps an endpoint read from a read that began at start.
func (c *intakeCache) put(in store.Intake, start time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= maxCachedIntakes {
		c.entries = make(map[string]cachedIntake)
	}
	c.entries[in.ID] = cachedIntake{in: in, expires: start.Add(IntakeCacheTTL)}
}

func (c *intakeCache) drop(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.entries, id)
}

// refusal is the answer to a request the provider's check refused.
func (s *Server) refusal(ep store.Intake, err error) *problem {
	switch {
	case errors.Is(err, intake.ErrSignature):
		s.intakeMetrics.request(ep.Provider, "refused")
		return newProblem(http.StatusUnauthorized, api.ErrInvalidSignature, "%s; nothing was taken in.", capitalizeFirst(err.Error()))
	case errors.Is(err, intake.ErrPayload):
		s.intakeMetrics.request(ep.Provider, "malformed")
		return badRequest("%s; nothing was taken in.", capitalizeFirst(err.Error()))
	case intake.IsUnreachable(err):
		s.intakeMetrics.request(ep.Provider, "unreachable")
		return newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "%s; nothing was taken in. Retry later.", capitalizeFirst(err.Error())).retryAfter(5)
	}
	s.intakeMetrics.request(ep.Provider, "failed")
	return fromStore(err)
}

// readRaw reads a request's body as it came (a provider signs its bytes),
// at most MaxBody.
func readRaw(w http.ResponseWriter, r *http.Request) ([]byte, *problem) {
	if r.ContentLength > MaxBody {
		w.Header().Set("Connection", "close")
		return nil, newProblem(http.StatusRequestEntityTooLarge, api.ErrValidation, "The request body is larger than %d bytes (1 MiB).", MaxBody)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			w.Header().Set("Connection", "close")
			return nil, newProblem(http.StatusRequestEntityTooLarge, api.ErrValidation, "The request body is larger than %d bytes (1 MiB).", MaxBody)
		}
		return nil, badRequest("The request body could not be read.")
	}
	return body, nil
}

// takeIn classifies the events, takes them in for the team by author, and
// counts what became of them.
func (s *Server) takeIn(r *http.Request, team, intakeID string, author store.Change, events []intake.Event) (api.IntakeAnswer, error) {
	out := api.IntakeAnswer{Object: api.ObjectList, Data: make([]api.IntakeOutcome, 0, len(events))}
	if len(events) == 0 {
		return out, nil
	}
	classified := make([]store.IntakeEvent, len(events))
	for i, e := range events {
		classified[i] = intake.Classify(e)
		classified[i].IntakeID = intakeID
	}
	queued, counted := s.eventsQueued()
	results, err := s.store.TakeIn(r.Context(), team, author, classified)
	if err != nil {
		return out, err
	}
	if now, _ := s.eventsQueued(); !counted || now != queued {
		s.wakeDeliveries()
	}
	for i, res := range results {
		s.intakeMetrics.event(events[i].Provider, string(events[i].Class), res.Decision)
		id := res.EntryID
		if res.Decision == api.DecisionReview {
			id = res.ReviewID
		}
		out.Data = append(out.Data, api.IntakeOutcome{Email: res.Email, EventID: res.EventID, Decision: res.Decision, ID: id, Reason: res.Reason})
	}
	return out, nil
}

// intakeReports answers POST /intake/reports: the reports the CLI read
// from raw bounce and complaint mail, classified by the same rules as the
// providers' events (provider "mail"), by the caller.
func (s *Server) intakeReports(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "reports")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["reports"]
	if !ok || isNull(raw) {
		return 0, nil, missing("Missing `reports` field; send {\"reports\": [...]} with 1 to %d reports.", api.MaxReports)
	}
	if kind := jsonKind(raw); kind != "an array" {
		return 0, nil, badRequest("`reports` must be an array, not %s.", kind)
	}
	var reports []json.RawMessage
	if err := json.Unmarshal(raw, &reports); err != nil {
		return 0, nil, badRequest("`reports` is not valid JSON: %s.", jsonReason(err))
	}
	if len(reports) == 0 || len(reports) > api.MaxReports {
		return 0, nil, invalid("`reports` has %d items; send 1 to %d.", len(reports), api.MaxReports)
	}
	events := make([]intake.Event, len(reports))
	for i, raw := range reports {
		rep, err := reportItem(raw, i)
		if err != nil {
			return 0, nil, err
		}
		events[i] = intake.FromReport(rep)
	}
	out, err := s.takeIn(r, team, "", authorOf(r), events)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, out, nil
}

// reportKinds are the kinds of a mail report.
var reportKinds = map[string]bool{api.ReportBounce: true, api.ReportComplaint: true, api.ReportAutoReply: true, api.ReportUnknown: true}

// reportItem reads reports[i]: an object with an event_id and a kind; its
// texts are kept as the message gave them (the render boundary sanitizes
// them).
func reportItem(raw json.RawMessage, i int) (api.Report, error) {
	var rep api.Report
	if kind := jsonKind(raw); kind != "an object" {
		return rep, badRequest("`reports[%d]` must be an object, not %s.", i, kind)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		return rep, badRequest("`reports[%d]` does not read: %s.", i, jsonReason(err))
	}
	switch {
	case strings.TrimSpace(rep.EventID) == "":
		return rep, missing("`reports[%d].event_id` is missing; a report needs the ID that tells a replay.", i)
	case len(rep.EventID) > 500:
		return rep, invalid("`reports[%d].event_id` is longer than 500 bytes.", i)
	case !reportKinds[rep.Kind]:
		return rep, invalid("`reports[%d].kind` (%s) must be one of bounce, complaint, auto_reply, unknown.", i, api.Quote(rep.Kind))
	}
	return rep, nil
}

// reviewQueue answers GET /intake/review: the team's events waiting for
// an agent (status=waiting, the default) or decided (status=decided),
// newest first, paged like the list.
func (s *Server) reviewQueue(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	p, err := webhookPage(r, true)
	if err != nil {
		return 0, nil, err
	}
	q := store.ReviewQuery{Page: p}
	switch v := r.URL.Query().Get("status"); v {
	case "", "waiting":
	case "decided":
		q.Decided = true
	default:
		return 0, nil, invalid("`status` (%s) must be waiting or decided.", api.Quote(v))
	}
	page, more, err := s.store.ReviewItems(r.Context(), team, q)
	if err != nil {
		return 0, nil, err
	}
	out := api.ReviewList{Object: api.ObjectList, HasMore: more, Data: make([]api.ReviewItem, len(page))}
	for i, it := range page {
		out.Data[i] = reviewWire(it, "")
	}
	return http.StatusOK, out, nil
}

// reviewWire is a review item on the wire.
func reviewWire(it store.ReviewItem, object string) api.ReviewItem {
	out := api.ReviewItem{Object: object, ID: it.ID, Email: it.Email, Provider: it.Provider, Evidence: it.Evidence,
		Reason: it.Reason, ReceivedAt: api.Timestamp{Time: it.ReceivedAt}, Decision: it.Decision, DecidedBy: it.DecidedBy, EntryID: it.EntryID}
	if !it.DecidedAt.IsZero() {
		out.DecidedAt = &api.Timestamp{Time: it.DecidedAt}
	}
	return out
}

func (s *Server) reviewItem(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	it, err := s.store.ReviewItem(r.Context(), team, r.PathValue("id"))
	if err != nil {
		return 0, nil, or404(err, reviewNotFound)
	}
	return http.StatusOK, reviewWire(it, api.ObjectIntakeReview), nil
}

// decideReview answers POST /intake/review/{id}: suppress lists the
// address by the caller (the trail names the key or the agent), ignore
// lists nothing; the same decision again answers the item as it is.
func (s *Server) decideReview(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	f, err := readObject(w, r, "decision", "note")
	if err != nil {
		return 0, nil, err
	}
	raw, ok := f["decision"]
	if !ok {
		return 0, nil, missing("The `decision` field is missing; send suppress or ignore.")
	}
	decision, err := stringField(raw, "decision", "suppress or ignore", func(v string) (string, error) {
		if v != api.ReviewSuppress && v != api.ReviewIgnore {
			return "", errors.New("it must be suppress or ignore")
		}
		return v, nil
	})
	if err != nil {
		return 0, nil, err
	}
	note := ""
	if raw, ok := f["note"]; ok {
		if note, err = noteField(raw, "note"); err != nil {
			return 0, nil, err
		}
	}
	author := authorOf(r)
	if author.Reference == "" {
		author.Reference = "intake-review:" + r.PathValue("id")
	}
	it, err := s.store.Decide(r.Context(), team, r.PathValue("id"), author, decision, note)
	var pe *store.ProtectedError
	switch {
	case errors.Is(err, store.ErrNotFound):
		return 0, nil, reviewNotFound()
	case errors.Is(err, store.ErrDecided):
		return 0, nil, invalid("This event was decided already, the other way; nothing was changed.")
	case errors.As(err, &pe):
		return 0, nil, invalid("%s is protected by the team (%s); it cannot be suppressed. Ignore the event, or take the address off the protected list first.", api.Quote(pe.Email), pe.Rule)
	case err != nil:
		return 0, nil, err
	}
	return http.StatusOK, reviewWire(it, api.ObjectIntakeReview), nil
}

// intakeMetrics counts intake per provider: requests by outcome
// (verified, refused, malformed, unreachable, unknown_endpoint, failed)
// and events by class and decision (listed, counted, ignored, review,
// duplicate).
type intakeMetrics struct {
	requests, events *prometheus.CounterVec
}

// newIntakeMetrics registers intake's counters with m, or takes the ones
// registered already (several servers may share one registry).
func newIntakeMetrics(m *Metrics) *intakeMetrics {
	im := &intakeMetrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shush_intake_requests_total",
			Help: "Requests to intake endpoints, by provider and outcome: verified, refused (signature, timestamp or credentials; 401), malformed (400), unreachable (the provider's certificate host; 503), unknown_endpoint (404), failed.",
		}, []string{"provider", "outcome"}),
		events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "shush_intake_events_total",
			Help: "Events taken in from providers and bounce mail, by provider, class (permanent, temporary, undetermined, complaint, unsubscribe, scoped, auto_reply, other, unknown) and decision (listed, counted, ignored, review, duplicate).",
		}, []string{"provider", "class", "decision"}),
	}
	for _, c := range []**prometheus.CounterVec{&im.requests, &im.events} {
		if err := m.reg.Register(*c); err != nil {
			if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
				if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
					*c = existing
				}
			}
		}
	}
	return im
}

func (m *intakeMetrics) request(provider, outcome string) {
	m.requests.WithLabelValues(provider, outcome).Inc()
}

func (m *intakeMetrics) event(provider, class, decision string) {
	m.events.WithLabelValues(provider, class, decision).Inc()
}
