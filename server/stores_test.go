package server_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// forEachStore runs a service test against every store implementation that
// can run here. Today that is SQLite (a real file in t.TempDir()); another
// store joins by adding a t.Run below, skipped when its database is absent.
func forEachStore(t *testing.T, test func(t *testing.T, open func(t *testing.T) store.Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openSQLite) })
}

// openSQLite opens a fresh SQLite store, closed when the test ends.
func openSQLite(t *testing.T) store.Store {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "shush.db"))
	if err != nil {
		t.Fatalf("open sqlite: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}
