package postgres

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

// legacyOrder is the order in which PostgreSQL applied the steps before
// the numbering was shared with SQLite, in the shared numbering: its 3
// was the origin index (now 5), its 4 webhooks (now 3), its 5 changes
// (now 4).
var legacyOrder = []int{1, 2, 5, 3, 4}

// A database made before the shared numbering, at each version the old
// code could leave it at, opens under the new one: the steps it lacks are
// applied, its history reads in the shared numbering, what it held is
// still there, and the store passes the whole conformance suite on it.
func TestOpenUpgradesLegacyNumbering(t *testing.T) {
	for version := 1; version <= len(legacyOrder); version++ {
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			ctx := context.Background()
			dsn := pgtest.DSN(t)
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (
				version    integer PRIMARY KEY,
				applied_at timestamptz NOT NULL DEFAULT now()
			)`); err != nil {
				t.Fatal(err)
			}
			for v, step := range legacyOrder[:version] {
				if _, err := conn.Exec(ctx, schema.Steps[step-1]); err != nil {
					t.Fatalf("legacy step %d: %v", v+1, err)
				}
				if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v+1); err != nil {
					t.Fatal(err)
				}
			}
			const old = "01900000-0000-7000-8000-000000000001"
			if _, err := conn.Exec(ctx, `INSERT INTO suppressions (id, team, email, origin, created_at) VALUES ($1, 'old', 'old@example.com', 'manual', now())`, old); err != nil {
				t.Fatal(err)
			}

			st, err := Open(ctx, dsn)
			if err != nil {
				t.Fatalf("open a database at legacy version %d: %v", version, err)
			}
			defer st.Close()
			rows, err := conn.Query(ctx, `SELECT version FROM schema_migrations ORDER BY version`)
			if err != nil {
				t.Fatal(err)
			}
			got, err := pgx.CollectRows(rows, pgx.RowTo[int32])
			if err != nil {
				t.Fatal(err)
			}
			if want := steps[int32](len(schema.Steps)); !slices.Equal(got, want) {
				t.Errorf("history after opening: %v; want %v", got, want)
			}
			if e, err := st.GetByEmail(ctx, "old", "old@example.com"); err != nil || e.ID != old {
				t.Errorf("the entry made before: %+v, %v", e, err)
			}
			storetest.Run(t, func(t *testing.T) store.Store { return st })

			// Opening again changes nothing.
			again, err := Open(ctx, dsn)
			if err != nil {
				t.Fatalf("open again: %v", err)
			}
			again.Close()
		})
	}
}

// steps is the history of a database brought up to date: every step of
// the schema, 1 to n.
func steps[T int | int32](n int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = T(i + 1)
	}
	return out
}

// A database that a new step upgrades is analyzed afterwards: the step may
// have made an index the planner has no statistics for.
func TestUpgradeAnalyzes(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE TABLE schema_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
		t.Fatal(err)
	}
	last := len(schema.Steps)
	for v := 1; v < last; v++ {
		if _, err := conn.Exec(ctx, schema.Steps[v-1]); err != nil {
			t.Fatalf("step %d: %v", v, err)
		}
		if _, err := conn.Exec(ctx, `INSERT INTO schema_migrations (version) VALUES ($1)`, v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, `ALTER TABLE suppressions SET (autovacuum_enabled = false);
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT gen_random_uuid(), 'old', 'u' || g || '@example.com', 'manual', now() FROM generate_series(1, 1000) g`); err != nil {
		t.Fatal(err)
	}
	// The planner's column statistics (pg_stats) come only from ANALYZE;
	// a step's CREATE INDEX counts the rows but measures no column.
	measured := func() int {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = 'suppressions' AND attname = 'team'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if measured() != 0 {
		t.Fatal("before the upgrade the table was analyzed")
	}
	st, err := Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if measured() != 1 {
		t.Errorf("after the upgrade to step %d the planner has no statistics of the team column", last)
	}
}
