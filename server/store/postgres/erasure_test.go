package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

// TestEraseStaysBlocked and TestEraseRotation run the erasure's
// conformance tests (package storetest) on PostgreSQL.
func TestEraseStaysBlocked(t *testing.T) { storetest.EraseStaysBlocked(t, open(t, pgtest.DSN(t))) }
func TestEraseRotation(t *testing.T)     { storetest.EraseRotation(t, open(t, pgtest.DSN(t))) }

// TestEraseKeepsDomain runs the conformance test of the team's rule that
// erasures keep the domain on PostgreSQL.
func TestEraseKeepsDomain(t *testing.T) { storetest.EraseKeepsDomain(t, open(t, pgtest.DSN(t))) }

// TestPruneIntakeEvents: audit prune deletes the intake's old events.
func TestPruneIntakeEvents(t *testing.T) { storetest.PruneIntakeEvents(t, open(t, pgtest.DSN(t))) }

// TestEraseLeavesNoBytes: after an erasure no live row of any table of
// the schema holds the address in any text, jsonb or bytea column, in any
// case. (Dead tuples, the row versions an UPDATE leaves behind, stay in
// the table's pages until VACUUM reclaims them and later writes overwrite
// them: docs/erasure.md says so; the test reads the live tables.)
func TestEraseLeavesNoBytes(t *testing.T) {
	dsn := pgtest.DSN(t)
	st := open(t, dsn)
	emails := make([]string, 50)
	for i := range emails {
		emails[i] = fmt.Sprintf("other-%d@example.com", i)
	}
	if _, err := st.Add(context.Background(), "t-erase", store.Change{}, store.Manual(emails...)); err != nil {
		t.Fatal(err)
	}
	const addr = "forget.me.please@example.com"
	storetest.SeedErasure(t, st, "t-erase", addr)

	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	holding := func(s string) []string {
		t.Helper()
		rows, err := conn.Query(context.Background(), `SELECT table_name, column_name, data_type FROM information_schema.columns
			WHERE table_schema = current_schema() AND data_type IN ('text', 'jsonb', 'json', 'bytea', 'character varying', 'ARRAY')`)
		if err != nil {
			t.Fatal(err)
		}
		type col struct{ table, name, kind string }
		cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (col, error) {
			var c col
			return c, r.Scan(&c.table, &c.name, &c.kind)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(cols) < 20 {
			t.Fatalf("the schema has %d text columns; the search reads the wrong schema", len(cols))
		}
		var out []string
		for _, c := range cols {
			expr := pgx.Identifier{c.name}.Sanitize() + "::text"
			if c.kind == "bytea" {
				expr = "encode(" + pgx.Identifier{c.name}.Sanitize() + ", 'escape')"
			}
			var n int
			q := fmt.Sprintf("SELECT count(*) FROM %s WHERE strpos(lower(%s), lower($1)) > 0", pgx.Identifier{c.table}.Sanitize(), expr)
			if err := conn.QueryRow(context.Background(), q, s).Scan(&n); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			if n > 0 {
				out = append(out, fmt.Sprintf("%s.%s (%d rows)", c.table, c.name, n))
			}
		}
		return out
	}
	if got := holding(addr); len(got) > 0 {
		t.Errorf("after the erasure the address is in %v", got)
	}
	if got := holding("other-7@example.com"); len(got) == 0 {
		t.Fatal("the search finds no address that is listed; it reads nothing")
	}

	// With the team's rule that erasures keep the domain, the local part
	// is nowhere and the domain only in the erased entry's erased_domain.
	storetest.KeepDomain(t, st, "t-keep")
	const kept = "kept.local.part@kept-domain.example"
	storetest.SeedErasure(t, st, "t-keep", kept)
	if got := holding("kept.local.part"); len(got) > 0 {
		t.Errorf("after the erasure with the domain kept, the local part is in %v", got)
	}
	if got := holding("kept-domain.example"); len(got) != 1 || got[0] != "suppressions.erased_domain (1 rows)" {
		t.Errorf("after the erasure with the domain kept, the domain is in %v; want suppressions.erased_domain only", got)
	}
}
