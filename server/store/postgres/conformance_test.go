package postgres_test

import (
	"testing"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

// TestConformance runs the suite every store passes, on one schema of its
// own shared by the subtests (they use distinct teams).
func TestConformance(t *testing.T) {
	st := open(t, pgtest.DSN(t))
	storetest.Run(t, func(t *testing.T) store.Store { return st })
}
