package server

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// unauthenticated are the paths every caller may read without a key: the
// probes of an orchestrator and the API's own description.
var unauthenticated = map[string]bool{
	"/healthz":      true,
	"/livez":        true,
	"/readyz":       true,
	"/openapi.json": true,
}

// live answers GET /livez: the process runs and serves HTTP.
func (s *Server) live(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, api.Health{Status: "ok"})
}

// ready answers GET /readyz and GET /healthz: 200 only while the store
// accepts writes, else 503 with the reason. It asks the store each time,
// so it turns 200 again as soon as the store recovers.
func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	if s.readiness.draining.Load() {
		// The process stops soon: a load balancer should send its
		// requests elsewhere, though this one is still answered.
		writeProblem(w, r, s.log, newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable,
			"The service is shutting down; requests are still answered until its listeners close."))
		return
	}
	err := s.checkReady(r.Context())
	if err == nil {
		writeJSON(w, http.StatusOK, api.Health{Status: "ok"})
		return
	}
	msg := "The suppression list's database does not answer or does not accept writes."
	switch {
	case errors.Is(err, store.ErrReadOnly):
		msg = "The suppression list's database is read-only; changes are refused until it is writable again."
	case errors.Is(err, store.ErrNoSpace):
		msg = "The disk that holds the suppression list's database is full; changes are refused until there is room again."
	case errors.Is(err, context.DeadlineExceeded):
		msg = "The suppression list's database did not answer within 2 seconds."
	}
	p := newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "%s", msg)
	p.cause = err
	writeProblem(w, r, s.log, p)
}

// readyTTL is how long a successful write check answers for later
// probes. The probes need no key, so without it a flood of them would
// queue empty transactions at the SQLite writer; with it the writer is
// asked at most once a second while healthy. Every probe still pings the
// store (a read), a failure is not kept, and a change that fails because
// the store is unavailable drops the kept success, so trouble and
// recovery both show at once.
const readyTTL = time.Second

// readiness is the last successful readiness check, and whether the
// service is draining before it stops.
type readiness struct {
	mu       sync.Mutex
	at       time.Time
	draining atomic.Bool
}

// drain makes every later readiness check answer 503.
func (r *readiness) drain() { r.draining.Store(true) }

// forget drops the kept success, after a change failed because the store
// is unavailable, so the next probe asks again.
func (r *readiness) forget() {
	r.mu.Lock()
	r.at = time.Time{}
	r.mu.Unlock()
}

// checkReady asks the store whether it accepts writes, or reuses a
// success younger than readyTTL. Concurrent probes wait for one check.
func (s *Server) checkReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	// A ping is a read on the readers' pool: cheap, and it shows at once
	// a store that stopped answering.
	if err := s.store.Ping(ctx); err != nil {
		s.readiness.forget()
		return err
	}
	s.readiness.mu.Lock()
	defer s.readiness.mu.Unlock()
	if !s.readiness.at.IsZero() && time.Since(s.readiness.at) < readyTTL {
		return nil
	}
	s.metrics.readyChecks.Inc()
	var err error
	if wc, ok := s.store.(store.WriteChecker); ok {
		err = wc.CheckWritable(ctx)
	} else {
		err = s.store.Ping(ctx)
	}
	if err == nil {
		s.readiness.at = time.Now()
	} else {
		s.readiness.at = time.Time{}
	}
	return err
}
