package server_test

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/internal/redact"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestDSNKinds: URL and key=value PostgreSQL strings select PostgreSQL;
// a path selects SQLite; anything else is refused with a sentence that
// never shows the password.
func TestDSNKinds(t *testing.T) {
	for _, c := range []struct {
		dsn  string
		kind server.DSNKind
		want string // part of the refusal; "" when accepted
	}{
		{"postgres://u:hunter2@db.example/shush", server.DSNPostgres, ""},
		{"PostgreSQL://u@db.example/shush?sslmode=require", server.DSNPostgres, ""},
		{"host=db.example user=shush password=hunter2 dbname=shush", server.DSNPostgres, ""},
		{"  dbname=shush sslmode=disable", server.DSNPostgres, ""},
		{"./shush.db", server.DSNSQLite, ""},
		{"/var/lib/shush/shush.db", server.DSNSQLite, ""},
		{"data dir/with=sign.db", server.DSNSQLite, ""},
		{"mysql://u:hunter2@db.example/shush", 0, `"mysql" URL`},
		{"sqlite://shush.db", 0, `"sqlite" URL`},
		{"file:shush.db?mode=rwc", 0, "SQLite URI"},
		{"colour=blue password=hunter2", 0, "not a PostgreSQL connection parameter"},
		{"host=db.example port=eighty password=hunter2", 0, "not valid"},
		{"postgres://u:hun%zzter2@db.example/shush", 0, "not valid"},
		{"postgres://u:hunter2@db.example:99999/shush", 0, "not valid"},
		{"shush.db\x1b]52;c;aGk=\x07", 0, "control character"},
		{"postgresql:/u:hunter2@db.internal/shush", 0, "postgres:// (two slashes)"},
		{"postgres:u:hunter2@db.internal/shush", 0, "postgres:// (two slashes)"},
		{"POSTGRES:/db.internal/shush", 0, "looks like a URL"},
		{"mysql:/u:hunter2@db", 0, "looks like a URL"},
		{"C:/data/shush.db", server.DSNSQLite, ""},
		{"data:2026/shush.db", server.DSNSQLite, ""},
		{"data/", 0, "directory"},
		{"", 0, "no database given"},
		{"   ", 0, "no database given"},
	} {
		kind, err := server.ClassifyDSN(c.dsn)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.dsn, err)
		case c.want == "" && kind != c.kind:
			t.Errorf("%q: kind %v, want %v", c.dsn, kind, c.kind)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want a refusal saying %q", c.dsn, err, c.want)
		}
		if err != nil && (strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "hun%zz")) {
			t.Errorf("%q: the refusal shows the password: %v", c.dsn, err)
		}
	}
}

// TestKeyValueDSNOpensPostgres: the key=value form docs/service.md shows reaches
// PostgreSQL, and creates no SQLite file named after the string (which
// would hold the password in its name).
func TestKeyValueDSNOpensPostgres(t *testing.T) {
	u, err := url.Parse(pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	kv := "host=" + u.Hostname() + " port=" + u.Port() + " user=" + u.User.Username() +
		" password=hunter2 dbname=" + strings.TrimPrefix(u.Path, "/") +
		" sslmode=disable search_path=" + u.Query().Get("search_path")
	dir := t.TempDir()
	t.Chdir(dir)
	st, err := server.OpenStore(context.Background(), kv)
	if err != nil {
		t.Fatalf("open %q: %v", redact.DSN(kv), err)
	}
	defer st.Close()
	if _, ok := st.(*postgres.Store); !ok {
		t.Fatalf("a key=value DSN opened %T", st)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("opening a key=value DSN left files: %v", entries)
	}
}

// TestDatabaseFilesArePrivate: a database file (and its -wal and -shm
// files) that other users may read is tightened to 0600 when it is ours,
// and refused with a sentence when it belongs to another user.
func TestDatabaseFilesArePrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "shush.db")
	st, err := server.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.WriteFile(p, nil, 0o644); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
		if err := os.Chmod(p, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st, err = server.OpenStore(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %04o after open, want 0600", filepath.Base(p), fi.Mode().Perm())
		}
	}

	if os.Getuid() != 0 {
		t.Skip("the other-owner case needs root to give a file away")
	}
	other := filepath.Join(t.TempDir(), "theirs.db")
	if err := os.WriteFile(other, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err = server.OpenStore(context.Background(), other)
	if err == nil || !strings.Contains(err.Error(), "another user") || !strings.Contains(err.Error(), "chmod 600") {
		t.Errorf("a loose database file of another user: %v, want a refusal naming the fix", err)
	}
	if fi, _ := os.Stat(other); fi.Mode().Perm() != 0o644 {
		t.Errorf("another user's file was changed to %04o", fi.Mode().Perm())
	}
}
