package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/storetest"
)

// An entry listed before migration 4 has its "added" audit row and no
// change: the trail shows that row once, before and after the removal, and
// the removal adds only its own.
func TestTrailOfEntriesListedBeforeChanges(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, old := context.Background(), store.Change{KeyID: "k", KeyName: "old", Reference: "#1", RequestID: "r1"}
	added, err := st.Add(ctx, "t", old, store.Manual("old@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	// Make it what migration 4 finds: an audit row, no change.
	err = st.db.change(context.Background(), func(_ context.Context, c *sql.Conn) error {
		bg := context.Background()
		if _, err := c.ExecContext(bg, "UPDATE suppressions SET change_id = NULL"); err != nil {
			return err
		}
		if _, err := c.ExecContext(bg, "DELETE FROM changes"); err != nil {
			return err
		}
		_, err := c.ExecContext(bg, `INSERT INTO audit (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
			VALUES ('t', '01900000-0000-7000-8000-000000000001', 'suppression.added', ?, ?, 'old@example.com', 'manual', NULL, ?, 'k', 'old', '#1', 'r1')`,
			added[0].CreatedAt.UnixMilli(), added[0].ID, added[0].CreatedAt.UnixMilli())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func() []string {
		page, _, err := st.Audit(context.Background(), "t", store.AuditQuery{Email: "old@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range page {
			out = append(out, a.Type+" "+a.ID)
		}
		return out
	}
	if got := kinds(); len(got) != 1 || got[0] != "suppression.added 01900000-0000-7000-8000-000000000001" {
		t.Fatalf("before removal: %q; want the one old audit row", got)
	}
	if _, err := st.RemoveEmails(ctx, "t", old, []string{"old@example.com"}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); len(got) != 2 || got[1] != "suppression.added 01900000-0000-7000-8000-000000000001" {
		t.Fatalf("after removal: %q; want the removal and the one old added row", got)
	}
}

// A database made by an older shush, at each version it could be left at,
// opens and is brought up to date: SQLite's numbering is the shared one
// (see sqlstore.Schema), so its history reads the same, what it held is
// still there, and the store passes the whole conformance suite on it.
func TestOpenUpgradesOlderVersions(t *testing.T) {
	for version := 1; version < len(schema.Steps); version++ {
		t.Run(fmt.Sprintf("version %d", version), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "old.db")
			raw, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
				t.Fatal(err)
			}
			for v, step := range schema.Steps[:version] {
				if _, err := raw.Exec(step); err != nil {
					t.Fatalf("step %d: %v", v+1, err)
				}
				if _, err := raw.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, v+1); err != nil {
					t.Fatal(err)
				}
			}
			const old = "01900000-0000-7000-8000-000000000001"
			if _, err := raw.Exec(`INSERT INTO suppressions (team, id, email, origin, created_at) VALUES ('old', ?, 'old@example.com', 'manual', 0)`, old); err != nil {
				t.Fatal(err)
			}

			st, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("open a database at version %d: %v", version, err)
			}
			defer st.Close()
			var versions []int
			rows, err := raw.Query(`SELECT version FROM schema_migrations ORDER BY version`)
			if err != nil {
				t.Fatal(err)
			}
			for rows.Next() {
				var v int
				if err := rows.Scan(&v); err != nil {
					t.Fatal(err)
				}
				versions = append(versions, v)
			}
			if want := steps[int](len(schema.Steps)); !slices.Equal(versions, want) || rows.Err() != nil {
				t.Errorf("history after opening: %v (%v); want %v", versions, rows.Err(), want)
			}
			if e, err := st.GetByEmail(ctx, "old", "old@example.com"); err != nil || e.ID != old {
				t.Errorf("the entry made before: %+v, %v", e, err)
			}
			if raceDetector && version > 1 && version < len(schema.Steps)-1 && version%4 != 0 {
				// Under -race the whole suite on every version passes the
				// package's time limit on a loaded machine: every version is
				// upgraded and checked above, and the suite runs on the
				// oldest, the newest and every fourth (all of them without
				// -race).
				return
			}
			storetest.Run(t, func(t *testing.T) store.Store { return st })
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

// A database a prune emptied of changes before step 10 still has entries
// naming the pruned changes' numbers: after the upgrade a new change
// takes a number above them, so those entries do not read as listed by
// it.
func TestUpgradeNumbersChangesAbovePrunedOnes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "old.db")
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`CREATE TABLE schema_migrations (version INTEGER NOT NULL PRIMARY KEY, applied_at INTEGER NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	for v, step := range schema.Steps[:9] {
		if _, err := raw.Exec(step); err != nil {
			t.Fatalf("step %d: %v", v+1, err)
		}
		if _, err := raw.Exec(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, 0)`, v+1); err != nil {
			t.Fatal(err)
		}
	}
	// Listed by changes 1 to 3, which a prune deleted.
	for i := 1; i <= 3; i++ {
		if _, err := raw.Exec(`INSERT INTO suppressions (team, id, email, origin, created_at, change_id) VALUES ('t', ?, ?, 'manual', 0, ?)`,
			fmt.Sprintf("01900000-0000-7000-8000-00000000000%d", i), fmt.Sprintf("old%d@example.com", i), i); err != nil {
			t.Fatal(err)
		}
	}
	st, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	for i := range 4 {
		if _, err := st.Add(ctx, "t", store.Change{KeyID: "k", KeyName: "new", Reference: "#new", RequestID: "r"}, store.Manual(fmt.Sprintf("new%d@example.com", i))); err != nil {
			t.Fatal(err)
		}
	}
	page, _, err := st.Audit(ctx, "t", store.AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range page {
		if strings.HasPrefix(a.Suppression.Email, "old") {
			t.Errorf("%s reads as listed by a change after the upgrade (%s %s); its change was pruned", a.Suppression.Email, a.KeyName, a.Reference)
		}
	}
	if len(page) != 4 {
		t.Errorf("the trail holds %d entries; want the 4 new additions", len(page))
	}
}
