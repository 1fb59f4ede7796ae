// Package servicetest starts the real service for other packages' tests: the
// server over a SQLite file in a temporary directory, behind real HTTP on
// loopback, with a read-write key for one team.
package servicetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// team is the team whose key Start creates.
const team = "support"

// Service is a running service. Start closes it when the test ends.
type Service struct {
	// URL is the base URL of the service, http://127.0.0.1:port.
	URL string
	// Key is a read-write API key of Team.
	Key string
	// Team is the team Key belongs to.
	Team string
	// Store is the service's store, for checking what a request left there.
	Store store.Store
	// DB is the path of the store's SQLite file, for tools that open the
	// database themselves (keys, audit prune).
	DB string
}

// Start runs server.New(opts) over a new SQLite file in tb.TempDir() behind
// httptest.NewServer. Each wrap, when given, sits in front of the handler
// (the first one outermost), to count requests or answer some itself.
func Start(tb testing.TB, opts server.Options, wrap ...func(http.Handler) http.Handler) *Service {
	tb.Helper()
	db := filepath.Join(tb.TempDir(), "shush.db")
	st, err := sqlite.Open(context.Background(), db)
	if err != nil {
		tb.Fatalf("open the store: %v", err)
	}
	tb.Cleanup(func() { st.Close() })
	_, key, err := server.CreateKey(context.Background(), st, team, false)
	if err != nil {
		tb.Fatalf("create a key: %v", err)
	}
	var h http.Handler = server.New(st, opts)
	for i := len(wrap) - 1; i >= 0; i-- {
		if wrap[i] != nil {
			h = wrap[i](h)
		}
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = server.GuardFraming(ts.Listener)
	ts.Config.ConnContext = server.ConnContext
	ts.Start()
	// Cleanups run last-in first-out: the server stops before the store closes.
	tb.Cleanup(ts.Close)
	return &Service{URL: ts.URL, Key: key, Team: team, Store: st, DB: db}
}

// StatusRecorder is an http.ResponseWriter that notes the status code the
// wrapped handler answered with, for wrappers that count answers.
type StatusRecorder struct {
	http.ResponseWriter
	// Status is the status written so far; 0 until the handler writes.
	Status int
}

// WriteHeader notes code and passes it on. An informational (1xx) status
// is noted only until the final one comes.
func (w *StatusRecorder) WriteHeader(code int) {
	if w.Status < http.StatusOK {
		w.Status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Write notes an implicit 200 when the handler writes no header first.
func (w *StatusRecorder) Write(b []byte) (int, error) {
	if w.Status == 0 {
		w.Status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap returns the wrapped writer, so http.ResponseController reaches it.
func (w *StatusRecorder) Unwrap() http.ResponseWriter { return w.ResponseWriter }
