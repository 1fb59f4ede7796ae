package server_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func TestOpenStoreCreatesPrivateDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "b")
	st, err := server.OpenStore(context.Background(), filepath.Join(dir, "shush.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	fi, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("the database directory has mode %v, want 0700", fi.Mode().Perm())
	}
	if err := st.Ping(context.Background()); err != nil {
		t.Errorf("Ping: %v", err)
	}
	if _, err := server.OpenStore(context.Background(), ""); err == nil {
		t.Error("an empty DSN was accepted")
	}
}

// TestRequestTimeout gives requests no time at all: the service answers 503
// and changes nothing.
func TestRequestTimeout(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		key := startService(t, st, server.Options{}).key("slow", false)
		s := startService(t, st, server.Options{RequestTimeout: time.Nanosecond})
		r := s.post("/suppressions/batch/add", key, `{"emails":["late@example.com"]}`)
		r.wantError(t, http.StatusServiceUnavailable, api.ErrServiceUnavailable)
		if _, err := st.GetByEmail(context.Background(), "slow", "late@example.com"); err == nil {
			t.Error("a timed-out request changed the list")
		}
	})
}
