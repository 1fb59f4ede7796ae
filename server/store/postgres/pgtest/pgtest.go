// Package pgtest gives tests a PostgreSQL database of their own on the
// server named by SHUSH_TEST_POSTGRES: a fresh schema, dropped when the
// test ends. Tests that need PostgreSQL skip with a message when the
// variable is not set.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// EnvVar names the PostgreSQL server tests use, as a postgres:// URL, for
// example postgres://postgres@127.0.0.1:5432/test?sslmode=disable.
const EnvVar = "SHUSH_TEST_POSTGRES"

// DSN returns a connection URL whose search_path is a new, empty schema on
// the test server; the schema and everything in it is dropped when t ends.
// Without SHUSH_TEST_POSTGRES the test is skipped.
func DSN(t testing.TB) string {
	t.Helper()
	base := os.Getenv(EnvVar)
	if base == "" {
		t.Skip("PostgreSQL tests skipped: set " + EnvVar + " (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("connect to %s: %v", EnvVar, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	schema := "shush_test_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema %s: %v", schema, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	return WithSchema(t, base, schema)
}

// WithSchema returns dsn with its search_path set to schema.
func WithSchema(t testing.TB, dsn, schema string) string {
	t.Helper()
	if !strings.Contains(dsn, "://") {
		return dsn + " search_path=" + schema
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatalf("%s is not a URL: %v", EnvVar, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
