package sqlite_test

import (
	"bytes"
	"context"
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
}

// TestEraseStaysBlocked and TestEraseRotation run the erasure's
// conformance tests (package storetest) on SQLite.
func TestEraseStaysBlocked(t *testing.T) { storetest.EraseStaysBlocked(t, openFresh(t)) }
func TestEraseRotation(t *testing.T)     { storetest.EraseRotation(t, openFresh(t)) }

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
