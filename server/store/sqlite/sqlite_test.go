package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
	"github.com/shushlist/shush/server/store/storetest"
)

func TestConformance(t *testing.T) {
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "shared.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	storetest.Run(t, func(t *testing.T) store.Store { return st })
}

func TestConformanceFreshFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("one database per subtest is the long form")
	}
	storetest.Run(t, func(t *testing.T) store.Store {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "shush.db"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { st.Close() })
		return st
	})
}

func TestReopenKeepsEntriesAndSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "odd ?#% name.db")
	st, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	added, err := st.Add(ctx, "acme", store.Change{}, store.Manual([]string{"a@example.com"}...))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the database is not at the path given: %v", err)
	}
	st, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer st.Close()
	got, err := st.GetByEmail(ctx, "acme", "a@example.com")
	if err != nil || got.ID != added[0].ID {
		t.Fatalf("after reopening: %+v, %v; want %s", got, err, added[0].ID)
	}
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode %q (%v), want wal", mode, err)
	}
	var versions, newest int
	if err := db.QueryRow("SELECT count(*), max(version) FROM schema_migrations").Scan(&versions, &newest); err != nil || versions != newest || newest < 3 {
		t.Errorf("schema_migrations holds %d rows up to version %d (%v), want one per migration after two opens", versions, newest, err)
	}
}

func TestClosedStoreIsUnavailable(t *testing.T) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "shush.db"))
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	if _, err := st.Add(ctx, "acme", store.Change{}, store.Manual([]string{"a@example.com"}...)); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Add on a closed store: %v, want ErrUnavailable", err)
	}
	if err := st.Ping(ctx); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Ping on a closed store: %v, want ErrUnavailable", err)
	}
	if _, err := st.Get(ctx, "acme", "0190a0f0-0000-7000-8000-000000000000"); !errors.Is(err, store.ErrUnavailable) {
		t.Errorf("Get on a closed store: %v, want ErrUnavailable", err)
	}
}

func TestOpenErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := sqlite.Open(ctx, dir); err == nil {
		t.Error("opening a directory as the database succeeded")
	}
	if _, err := sqlite.Open(ctx, filepath.Join(dir, "missing", "shush.db")); err == nil {
		t.Error("opening a file in a missing directory succeeded")
	}
	garbage := filepath.Join(dir, "garbage.db")
	os.WriteFile(garbage, []byte("this is not a database, just some text that is long enough to have a header........"), 0o600)
	if _, err := sqlite.Open(ctx, garbage); err == nil {
		t.Error("opening a file that is not a database succeeded")
	}
}

// TestNewFilesPrivate checks that a new database and its log are readable
// by their owner only: they hold the list's addresses.
func TestNewFilesPrivate(t *testing.T) {
	path := filepath.Join(t.TempDir(), "private.db")
	st, err := sqlite.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.Add(context.Background(), "team", store.Change{}, store.Manual([]string{"a@example.com"}...)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, path + "-wal"} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if mode := fi.Mode().Perm(); mode != 0o600 {
			t.Errorf("%s has mode %o; want 600", filepath.Base(p), mode)
		}
	}
}

// An add made while another process's clock has put the team's trail
// head an hour ahead mints above it; see storetest.AddAboveTheHead.
func TestAddAboveTheHead(t *testing.T) {
	st, other := openWithOther(t)
	storetest.AddAboveTheHead(t, st, func(team, id string) {
		if _, err := other.Exec(`UPDATE trail_heads SET last_id = ? WHERE team = ?`, id, team); err != nil {
			t.Fatal(err)
		}
	}, func(team string) (last string) {
		if err := other.QueryRow(`SELECT last_id FROM trail_heads WHERE team = ?`, team).Scan(&last); err != nil {
			t.Fatal(err)
		}
		return last
	})
}

// An add whose addresses are all listed changes nothing, so it leaves no
// change in the trail's table; one that lists a new address among them
// leaves one, which its new entry names.
func TestReaddLeavesNoChange(t *testing.T) {
	st, other := openWithOther(t)
	changes := func() (n int) {
		if err := other.QueryRow(`SELECT count(*) FROM changes`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	ctx := t.Context()
	if _, err := st.Add(ctx, "t", store.Change{KeyID: "k"}, store.Manual("a@example.com", "b@example.com")); err != nil {
		t.Fatal(err)
	}
	if n := changes(); n != 1 {
		t.Fatalf("after the first add, %d changes; want 1", n)
	}
	if _, err := st.Add(ctx, "t", store.Change{KeyID: "k"}, store.Manual("b@example.com", "a@example.com")); err != nil {
		t.Fatal(err)
	}
	if n := changes(); n != 1 {
		t.Errorf("a re-add of listed addresses left %d changes; want 1", n)
	}
	got, err := st.Add(ctx, "t", store.Change{KeyID: "k"}, store.Manual("a@example.com", "c@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Created || !got[1].Created {
		t.Errorf("a re-add with one new address: created %v, %v; want false, true", got[0].Created, got[1].Created)
	}
	var named int
	if err := other.QueryRow(`SELECT count(*) FROM suppressions s JOIN changes c ON c.id = s.change_id WHERE s.email = 'c@example.com'`).Scan(&named); err != nil {
		t.Fatal(err)
	}
	if n := changes(); n != 2 || named != 1 {
		t.Errorf("after an add with one new address: %d changes, the new entry named by %d; want 2 and 1", n, named)
	}
}

// openWithOther opens a store on a new file and another connection to
// the file, as another process would have; both close with the test.
func openWithOther(t *testing.T) (*sqlite.Store, *sql.DB) {
	path := filepath.Join(t.TempDir(), "shush.db")
	st, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	other, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	return st, other
}
