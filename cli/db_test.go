package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
)

func TestDBCopyMovesTheListWhole(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc)
	to := filepath.Join(t.TempDir(), "copy.db")

	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: to}); err != nil {
		t.Fatal(err)
	}
	var rep copyJSON
	ta.decode(t, &rep)
	if rep.Rows == 0 || len(rep.Tables) == 0 || rep.To != to {
		t.Errorf("copy report %+v", rep)
	}

	// The copy answers with the same entries, IDs and key.
	st, err := server.OpenStore(ctx, to)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	c := client.New("http://copy.invalid", svc.Key, client.WithTransport(server.New(st, server.Options{}).Transport()))
	e, err := c.Get(ctx, "b@example.com")
	if err != nil || e.ID != added[1].ID {
		t.Errorf("the copy's entry %+v, %v", e, err)
	}

	// A target that holds rows is refused without --force.
	ta.reset()
	wantErr(t, runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: to}), ExitUsage)
	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: to, Force: true}); err != nil {
		t.Fatalf("--force: %v", err)
	}
}

func TestDBCopyRefusesBadDatabases(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	dir := t.TempDir()
	wantErr(t, runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: filepath.Join(dir, "a.db")}), ExitUsage, "db copy needs --from DSN and --to DSN")
	missing := filepath.Join(dir, "missing.db")
	target := filepath.Join(dir, "t.db")
	wantErr(t, runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: missing, To: target}), ExitUsage, "--from: there is no database file "+missing)
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("a refused copy made %s", target)
	}
	err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: "mysql://u:pw@h/db", To: target})
	wantErr(t, err, ExitUsage, "--from")
	if strings.Contains(err.Error(), "pw") {
		t.Errorf("the error shows the password: %v", err)
	}
}
