package server

import (
	"context"
	"errors"
	"net/http"
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
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	var err error
	if wc, ok := s.store.(store.WriteChecker); ok {
		err = wc.CheckWritable(ctx)
	} else {
		err = s.store.Ping(ctx)
	}
	if err == nil {
		writeJSON(w, http.StatusOK, api.Health{Status: "ok"})
		return
	}
	msg := "The suppression list's database does not answer or does not accept writes."
	switch {
	case errors.Is(err, store.ErrReadOnly):
		msg = "The suppression list's database is read-only; changes are refused until it is writable again."
	case errors.Is(err, context.DeadlineExceeded):
		msg = "The suppression list's database did not answer within 2 seconds."
	}
	p := newProblem(http.StatusServiceUnavailable, api.ErrServiceUnavailable, "%s", msg)
	p.cause = err
	writeProblem(w, r, s.log, p)
}
