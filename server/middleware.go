package server

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/shushlist/shush/api"
)

// The layers a request goes through, each one concern, outermost first.
// Their order is the order of the contract's checks: a request an outer
// layer refuses never reaches an inner one (a request with ambiguous
// framing is refused before its key is looked at; a key is checked before
// the team's rate limit is spent; the body cap counts only requests
// that will be served).
func (s *Server) layers() []func(http.Handler) http.Handler {
	return []func(http.Handler) http.Handler{
		s.exchange,   // the request ID, the route and the recorder the layers share
		s.measure,    // requests by route and status, with their duration
		s.recoverLog, // a panic answers 500; one log record per request
		s.framing,    // both Content-Length and Transfer-Encoding: 400, connection closed
		s.timeout,    // the request's deadline
		s.auth,       // the key, except on the probes, the OpenAPI document and the providers' receiver
		s.rateLimit,  // the team's token bucket
		s.inFlight,   // the team's requests under way at once
		s.bodyCap,    // bytes of request bodies held at once, in all and per team
	}
}

// chain wraps the router in the layers.
func (s *Server) chain() http.Handler {
	var h http.Handler = http.HandlerFunc(s.route)
	layers := s.layers()
	for i := len(layers) - 1; i >= 0; i-- {
		h = layers[i](h)
	}
	return h
}

// exchange is what the layers of one request share: the recorder of the
// answer, the request ID, the route the mux matched ("" for none), when
// the request came, and the caller once authenticated.
type exchange struct {
	rec    *recorder
	id     string
	route  string
	start  time.Time
	caller caller
}

type exchangeKey struct{}

func exchangeOf(r *http.Request) *exchange {
	x, _ := r.Context().Value(exchangeKey{}).(*exchange)
	return x
}

// routeName is the route for logs and metrics: its pattern, or
// "unmatched", so that unknown paths do not grow a label per path.
func (x *exchange) routeName() string {
	if x.route == "" {
		return "unmatched"
	}
	return x.route
}

// callerOf is who makes the request, set by the auth layer.
func callerOf(r *http.Request) (caller, bool) {
	x := exchangeOf(r)
	if x == nil || !x.caller.known() {
		return caller{}, false
	}
	return x.caller, true
}

func (s *Server) exchange(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := &exchange{rec: &recorder{ResponseWriter: w}, id: requestID(r.Header.Get(requestIDHeader)), start: time.Now()}
		x.rec.Header().Set(requestIDHeader, x.id)
		_, x.route = s.mux.Handler(r)
		next.ServeHTTP(x.rec, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, x)))
	})
}

// measure counts the request once it is answered. It does not defer: a
// panic that aborts the response (http.ErrAbortHandler) is not an answer.
func (s *Server) measure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r)
		x := exchangeOf(r)
		s.metrics.observeRequest(x.routeName(), x.rec.status, time.Since(x.start))
	})
}

func (s *Server) recoverLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		x := exchangeOf(r)
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.LogAttrs(r.Context(), slog.LevelError, "handler panicked",
					slog.String("request_id", x.id), slog.Any("panic", v))
				if !x.rec.wrote {
					writeProblem(x.rec, r, s.log, newProblem(http.StatusInternalServerError, api.ErrApplication,
						"Something went wrong on our side. Try again later."))
				}
			}
			s.logRequest(r, x)
		}()
		next.ServeHTTP(w, r)
	})
}

// logRequest writes the request's record: never a body, an address or a
// key's secret, only the key's ID and team.
func (s *Server) logRequest(r *http.Request, x *exchange) {
	attrs := []slog.Attr{
		slog.String("request_id", x.id),
		slog.String("method", r.Method),
		slog.String("route", x.routeName()),
		slog.Int("status", x.rec.status),
		slog.Float64("duration_ms", float64(time.Since(x.start).Microseconds())/1000),
		slog.Int64("bytes", x.rec.bytes),
		slog.String("remote", r.RemoteAddr),
	}
	switch c := x.caller; {
	case c.agent != nil:
		attrs = append(attrs, slog.String("team", c.agent.Team), slog.String("agent_id", c.agent.ID))
	case c.key.ID != "":
		attrs = append(attrs, slog.String("team", c.key.Team), slog.String("key_id", c.key.ID))
	}
	s.log.LogAttrs(r.Context(), slog.LevelInfo, "request", attrs...)
}

// framing refuses a request whose length two headers give (see
// framing.go); the connection is closed, since where its next request
// starts is in doubt.
func (s *Server) framing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if ambiguousFraming(r) {
			w.Header().Set("Connection", "close")
			writeProblem(w, r, s.log, badRequest("The request has both Content-Length and Transfer-Encoding headers; send exactly one of them."))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// timeout bounds the request's work; an export streams the whole list and
// has longer.
func (s *Server) timeout(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d := s.opts.RequestTimeout
		if r.URL.Path == "/suppressions/export" {
			d = s.opts.ExportTimeout
		}
		ctx, cancel := context.WithTimeout(r.Context(), d)
		defer cancel()
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// auth finds the caller: the agent an in-process session's transport
// names (see AgentTransport), else the request's key.
func (s *Server) auth(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !s.keyless(r) {
			c, err := s.identify(r)
			if err != nil {
				writeProblem(w, r, s.log, fromStore(err))
				return
			}
			exchangeOf(r).caller = c
		}
		next.ServeHTTP(w, r)
	})
}

// rateLimit spends a token of the key's team; every answer to a key
// carries the team's ratelimit-* headers, a refusal also retry-after.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := callerOf(r)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		v := s.limiter.take(c.team(), time.Now())
		v.setHeaders(w.Header())
		if !v.allowed {
			wait := max(1, seconds(v.retryAfter))
			unit := "seconds"
			if wait == 1 {
				unit = "second"
			}
			s.metrics.rateLimited.Inc()
			writeProblem(w, r, s.log, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
				"Too many requests for this team; retry after %d %s.", wait, unit))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bodyCap reserves the request's body weight in the budget of bodies held
// at once, or refuses it with 503 and Retry-After when it does not fit.
func (s *Server) bodyCap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := bodyWeight(r)
		if n <= 0 {
			next.ServeHTTP(w, r)
			return
		}
		if !s.holdBody(n) {
			s.metrics.bodyRefused.Inc()
			w.Header().Set("Retry-After", "1")
			// Close rather than read the unread body to keep the
			// connection: reading it is what the cap refuses.
			w.Header().Set("Connection", "close")
			writeProblem(w, r, s.log, newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable,
				"The service is reading too many request bodies at once; retry after 1 second."))
			return
		}
		defer s.releaseBody(n)
		// Within the budget, each team has its share, so that one team's
		// held bodies leave the rest of the budget to the others.
		team := ""
		if c, ok := callerOf(r); ok {
			team = c.team()
		}
		if s.bodies.take(team, n, s.opts.MaxBodyBytesPerTeam, 0) != "" {
			s.metrics.teamRefused.WithLabelValues("body").Inc()
			w.Header().Set("Connection", "close")
			writeProblem(w, r, s.log, newProblem(http.StatusTooManyRequests, api.ErrRateLimitExceeded,
				"This team's requests hold %d bytes of bodies being read, as many as it may at once; retry after 1 second.", s.opts.MaxBodyBytesPerTeam).
				retryAfter(1))
			return
		}
		defer s.bodies.give(team, n)
		next.ServeHTTP(w, r)
	})
}

// route hands the request to its handler, or answers 404/405 in the
// contract's form when the mux has none.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	if exchangeOf(r).route == "" {
		s.unmatched(w, r)
		return
	}
	s.mux.ServeHTTP(w, r)
}
