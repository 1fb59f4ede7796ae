package postgres

import (
	"fmt"
	"os"
	"testing"

	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestMain says once, on stderr, that this package's tests skip without a
// PostgreSQL server: go test -v and go test run in this directory show it
// before the first test (go test ./... shows a passing package's output
// only with -v; .ci/run's summary counts the skips per package).
func TestMain(m *testing.M) {
	if os.Getenv(pgtest.EnvVar) == "" {
		fmt.Fprintf(os.Stderr, "server/store/postgres: every test here skips: %s is not set (e.g. postgres://postgres@127.0.0.1:5432/test?sslmode=disable)\n", pgtest.EnvVar)
	}
	os.Exit(m.Run())
}
