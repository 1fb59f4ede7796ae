package server_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// forEachStore runs a service test against every store implementation that
// can run here: SQLite (a real file in t.TempDir()) always, PostgreSQL (a
// schema of its own) when SHUSH_TEST_POSTGRES names a server.
func forEachStore(t *testing.T, test func(t *testing.T, open func(t *testing.T) store.Store)) {
	t.Run("sqlite", func(t *testing.T) { test(t, openSQLite) })
	t.Run("postgres", func(t *testing.T) { test(t, openPostgres) })
}

// openPostgres opens a PostgreSQL store on a schema of its own on the
// server SHUSH_TEST_POSTGRES names (skipping without it), closed and
// dropped when the test ends.
func openPostgres(t *testing.T) store.Store {
	t.Helper()
	st, err := postgres.Open(context.Background(), pgtest.DSN(t))
	if err != nil {
		t.Fatalf("open postgres: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	return st
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
