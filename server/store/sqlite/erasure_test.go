package sqlite_test

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"

	"github.com/shushlist/shush/server/store/sqlite"
	"github.com/shushlist/shush/server/store/storetest"
)

// TestEraseLeavesNoBytes: after an erasure the address's bytes, in any
// case, are in none of the database's files (the database, its
// write-ahead log and its shared memory), while the store is open and
// after it is closed; the erased entry still blocks it after a reopen.
func TestEraseLeavesNoBytes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shush.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	// Other entries around it, so that its rows share pages with rows
	// that stay.
	if _, err := st.Add(context.Background(), "t-erase", storetestChange, manual(200)); err != nil {
		t.Fatal(err)
	}
	const addr = "forget.me.please@example.com"
	er := storetest.SeedErasure(t, st, "t-erase", addr)
	if n := filesHolding(t, dir, addr); n != "" {
		t.Errorf("after the erasure (store open), %s holds the address", n)
	}
	// A marker of another address is no address: the search finds what
	// it looks for (the check cannot pass by reading nothing).
	if n := filesHolding(t, dir, "other-7@example.com"); n == "" {
		t.Fatal("the search finds no address that is listed; it reads nothing")
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if n := filesHolding(t, dir, addr); n != "" {
		t.Errorf("after the erasure (store closed), %s holds the address", n)
	}
	st, err = sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	found, err := st.Check(context.Background(), "t-erase", []string{addr})
	if err != nil || len(found) != 1 || found[0].ID != er.Entry.ID {
		t.Errorf("Check after a reopen: %+v, %v; want the erased entry", found, err)
	}

	// With the team's rule that erasures keep the domain, the local
	// part's bytes are in no file, and the domain is in the erased
	// entry's row only: the database's rows that hold it are that one.
	storetest.KeepDomain(t, st, "t-keep")
	const kept = "kept.local.part@kept-domain.example"
	storetest.SeedErasure(t, st, "t-keep", kept)
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if n := filesHolding(t, dir, "kept.local.part"); n != "" {
		t.Errorf("after the erasure with the domain kept, %s holds the local part", n)
	}
	if n := filesHolding(t, dir, "kept-domain.example"); n == "" {
		t.Error("after the erasure with the domain kept, no file holds the domain")
	}
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if where := rowsHolding(t, db, "kept-domain.example"); len(where) != 1 || where[0] != "suppressions.erased_domain" {
		t.Errorf("the domain is in %v; want suppressions.erased_domain only", where)
	}
}

// rowsHolding names the table.column of every text column of the
// database whose value holds s in any case.
func rowsHolding(t *testing.T, db *sql.DB, s string) []string {
	t.Helper()
	rows, err := db.Query(`SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p WHERE m.type = 'table'`)
	if err != nil {
		t.Fatal(err)
	}
	type col struct{ table, name string }
	var cols []col
	for rows.Next() {
		var c col
		if err := rows.Scan(&c.table, &c.name); err != nil {
			t.Fatal(err)
		}
		cols = append(cols, c)
	}
	rows.Close()
	if len(cols) < 20 {
		t.Fatalf("the database has %d columns; the search reads the wrong one", len(cols))
	}
	var out []string
	for _, c := range cols {
		var n int
		q := fmt.Sprintf(`SELECT count(*) FROM %q WHERE instr(lower(CAST(%q AS TEXT)), lower(?)) > 0`, c.table, c.name)
		if err := db.QueryRow(q, s).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if n > 0 {
			out = append(out, c.table+"."+c.name)
		}
	}
	return out
}

// TestEraseStaysBlocked and TestEraseRotation run the erasure's
// conformance tests (package storetest) on SQLite.
func TestEraseStaysBlocked(t *testing.T) { storetest.EraseStaysBlocked(t, openFresh(t)) }
func TestEraseRotation(t *testing.T)     { storetest.EraseRotation(t, openFresh(t)) }

// TestEraseKeepsDomain runs the conformance test of the team's rule that
// erasures keep the domain on SQLite.
func TestEraseKeepsDomain(t *testing.T) { storetest.EraseKeepsDomain(t, openFresh(t)) }

// TestPruneIntakeEvents: audit prune deletes the intake's old events.
func TestPruneIntakeEvents(t *testing.T) { storetest.PruneIntakeEvents(t, openFresh(t)) }

func openFresh(t *testing.T) store.Store {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "shush.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// filesHolding names the first file in dir that holds s in any ASCII
// case, or "".
func filesHolding(t *testing.T, dir, s string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	needle := bytes.ToLower([]byte(s))
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(b), needle) {
			return e.Name()
		}
	}
	return ""
}

var storetestChange = store.Change{Reference: "seed"}

func manual(n int) []store.NewEntry {
	emails := make([]string, n)
	for i := range emails {
		emails[i] = fmt.Sprintf("other-%d@example.com", i)
	}
	return store.Manual(emails...)
}
