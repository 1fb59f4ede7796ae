package server

import (
	"errors"
	"html/template"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// One-click unsubscribe (RFC 8058): POST /u/{token} with
// List-Unsubscribe=One-Click lists the token's address on its team's
// list; GET /u/{token} shows a page that asks first and changes nothing.
// Neither takes a key: the token is the team's MAC over the team, the
// address and the issue date (api.MintOneClick). A token that is not one
// of the team's answers 404 and writes nothing. Each client address has
// its own token bucket (Options.OneClickRate).

// The routes of one-click unsubscribe.
const (
	oneClickPostRoute = "POST /u/{token}"
	oneClickGetRoute  = "GET /u/{token}"
)

// Defaults of Options.OneClickRate and OneClickBurst: a mail provider
// posts for many recipients from few addresses, so the bucket is wide;
// it bounds a flood of forged tokens from one client.
const (
	DefaultOneClickRate  = 20
	DefaultOneClickBurst = 100
)

// OneClickReference is the reference of the trail's entries a one-click
// makes; they have no key.
const OneClickReference = "one-click"

// maxOneClickBody bounds a one-click POST's body: it carries one field.
const maxOneClickBody = 64 << 10

func (s *Server) oneClickRoutes() {
	s.mux.HandleFunc(oneClickPostRoute, s.oneClickPost)
	s.mux.HandleFunc(oneClickGetRoute, s.oneClickGet)
	s.handle("GET /team/unsubscribe-key", true, s.unsubscribeKey)
}

// isOneClick says whether the request goes to a one-click route, which
// takes no key.
func isOneClick(route string) bool {
	return route == oneClickPostRoute || route == oneClickGetRoute
}

// newOneClickCounter counts the one-click requests by outcome.
func newOneClickCounter(m *Metrics) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shush_oneclick_requests_total",
		Help: "One-click unsubscribe requests (POST and GET /u/{token}), by method and outcome: listed, replay (listed already), protected (the team's rules keep the address), page (the GET's confirm page), not_found (a forged, altered or unknown token), bad_request, rate_limited, failed.",
	}, []string{"method", "outcome"})
	if err := m.reg.Register(c); err != nil {
		if are, ok := errors.AsType[prometheus.AlreadyRegisteredError](err); ok {
			if existing, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return existing
			}
		}
	}
	return c
}

// oneClickAllowed spends a token of the client's bucket, or answers 429.
func (s *Server) oneClickAllowed(w http.ResponseWriter, r *http.Request) bool {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	v := s.oneClickLimiter.take(host, time.Now())
	v.setHeaders(w.Header())
	if v.allowed {
		return true
	}
	s.oneClick.WithLabelValues(r.Method, "rate_limited").Inc()
	s.metrics.rateLimited.Inc()
	wait := max(1, seconds(v.retryAfter))
	unit := "seconds"
	if wait == 1 {
		unit = "second"
	}
	writeProblem(w, r, s.log, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
		"Too many unsubscribe requests from this address; retry after %d %s.", wait, unit))
	return false
}

// oneClickToken reads and checks the path's token against its team's
// key; ok false means the request was answered (404 for any token that
// is not the team's, 503 when the store cannot say).
func (s *Server) oneClickToken(w http.ResponseWriter, r *http.Request) (t api.OneClickToken, email string, ok bool) {
	noToken := func() {
		s.oneClick.WithLabelValues(r.Method, "not_found").Inc()
		writeProblem(w, r, s.log, newProblem(http.StatusNotFound, api.ErrNotFound, "Unsubscribe link not found"))
	}
	t, err := api.ParseOneClick(r.PathValue("token"))
	if err != nil || ValidateTeam(t.Team) != nil {
		noToken()
		return t, "", false
	}
	key, err := s.store.OneClickKey(r.Context(), t.Team, false)
	switch {
	case errors.Is(err, store.ErrNotFound):
		noToken()
		return t, "", false
	case err != nil:
		s.oneClick.WithLabelValues(r.Method, "failed").Inc()
		writeProblem(w, r, s.log, fromStore(err))
		return t, "", false
	}
	// A token from a clock a day ahead is taken; one dated later was not
	// minted by the sender's clock.
	if !t.Verify(key) || t.Issued.After(s.opts.Now().Add(48*time.Hour)) {
		noToken()
		return t, "", false
	}
	email, err = api.NormalizeEmail(t.Email)
	if err != nil {
		noToken()
		return t, "", false
	}
	return t, email, true
}

// oneClickPost lists the token's address: RFC 8058's POST.
func (s *Server) oneClickPost(w http.ResponseWriter, r *http.Request) {
	if !s.oneClickAllowed(w, r) {
		return
	}
	t, email, ok := s.oneClickToken(w, r)
	if !ok {
		return
	}
	if err := oneClickBody(w, r); err != nil {
		s.oneClick.WithLabelValues(r.Method, "bad_request").Inc()
		writeProblem(w, r, s.log, err)
		return
	}
	author := store.Change{Reference: OneClickReference, RequestID: w.Header().Get(requestIDHeader)}
	add := store.NewEntry{Email: email, Origin: api.OriginManual,
		Evidence: &api.Evidence{Provider: "shush", Kind: api.EvidenceOneClick, Source: api.EvidenceOneClick}}
	queued, counted := s.eventsQueued()
	entries, err := timed(s.metrics, "add", func() ([]store.Entry, error) {
		return s.store.Add(r.Context(), t.Team, author, []store.NewEntry{add})
	})
	if now, _ := s.eventsQueued(); !counted || now != queued {
		s.wakeDeliveries()
	}
	if _, ok := errors.AsType[*store.ProtectedError](err); ok {
		// The team's own mailbox: never listed. The provider is told the
		// request was taken; the team's rules say why nothing changed.
		s.oneClick.WithLabelValues(r.Method, "protected").Inc()
		writePage(w, http.StatusOK, donePage, pageData{Email: email, Protected: true})
		return
	}
	if err != nil {
		s.oneClick.WithLabelValues(r.Method, "failed").Inc()
		if errors.Is(err, store.ErrUnavailable) {
			s.readiness.forget()
		}
		writeProblem(w, r, s.log, fromStore(err))
		return
	}
	outcome := "listed"
	if !entries[0].Created {
		outcome = "replay"
	}
	s.oneClick.WithLabelValues(r.Method, outcome).Inc()
	writePage(w, http.StatusOK, donePage, pageData{Email: email})
}

// oneClickBody checks RFC 8058's body: List-Unsubscribe=One-Click, sent
// as application/x-www-form-urlencoded or multipart/form-data.
func oneClickBody(w http.ResponseWriter, r *http.Request) *problem {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "application/x-www-form-urlencoded" && mt != "multipart/form-data" {
		return newProblem(http.StatusUnsupportedMediaType, api.ErrValidation,
			"Send List-Unsubscribe=One-Click as application/x-www-form-urlencoded or multipart/form-data (RFC 8058).")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxOneClickBody)
	if mt == "multipart/form-data" {
		err = r.ParseMultipartForm(maxOneClickBody)
	} else {
		err = r.ParseForm()
	}
	if err != nil {
		return badRequest("The body is not a form of at most %d bytes: send List-Unsubscribe=One-Click (RFC 8058).", maxOneClickBody)
	}
	if r.PostForm.Get("List-Unsubscribe") != "One-Click" {
		return badRequest("The body lacks List-Unsubscribe=One-Click (RFC 8058).")
	}
	return nil
}

// oneClickGet shows the page that asks before listing: a link followed by
// a scanner or a person's click changes nothing.
func (s *Server) oneClickGet(w http.ResponseWriter, r *http.Request) {
	if !s.oneClickAllowed(w, r) {
		return
	}
	_, email, ok := s.oneClickToken(w, r)
	if !ok {
		return
	}
	s.oneClick.WithLabelValues(r.Method, "page").Inc()
	writePage(w, http.StatusOK, confirmPage, pageData{Email: api.UnicodeEmail(email)})
}

// pageData is what a one-click page shows: the address (outside text, escaped by the template).
type pageData struct {
	Email     string
	Protected bool
}

var (
	confirmPage = template.Must(template.New("confirm").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>Unsubscribe</title></head>
<body style="font-family:sans-serif;max-width:32em;margin:3em auto">
<h1>Unsubscribe</h1>
<p>Stop mail to <strong>{{.Email}}</strong>?</p>
<form method="post"><input type="hidden" name="List-Unsubscribe" value="One-Click">
<button type="submit">Unsubscribe</button></form>
</body></html>
`))
	donePage = template.Must(template.New("done").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<meta name="robots" content="noindex"><title>Unsubscribed</title></head>
<body style="font-family:sans-serif;max-width:32em;margin:3em auto">
{{if .Protected}}<h1>Request received</h1>
<p>The sender keeps this address on purpose; contact the sender to stop its mail.</p>
{{else}}<h1>Unsubscribed</h1>
<p><strong>{{.Email}}</strong> will get no more of this sender's mail.</p>
{{end}}</body></html>
`))
)

// writePage answers with an HTML page that no other site may frame, that
// runs no script, sets no cookie and sends no referrer (the URL holds the
// token).
func writePage(w http.ResponseWriter, status int, t *template.Template, d pageData) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	_ = t.Execute(w, d)
}

// unsubscribeKey answers GET /team/unsubscribe-key: the team's
// unsubscribe key (made on first use), for a read-write key only. It is a
// secret: it is never logged.
func (s *Server) unsubscribeKey(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	key, err := s.store.OneClickKey(r.Context(), team, true)
	if err != nil {
		return 0, nil, err
	}
	w.Header().Set("Cache-Control", "no-store")
	return http.StatusOK, api.UnsubscribeKey{Object: api.ObjectUnsubscribeKey, Team: team, Key: api.FormatUnsubscribeKey(team, key)}, nil
}
