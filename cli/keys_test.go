package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var keyText = regexp.MustCompile(`^shush_[0-9a-f]{16}_[a-z2-7]{32}$`)

func TestKeysCreatePrintsTheKeyOnceAndAlone(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil).human()
	db := filepath.Join(t.TempDir(), "keys.db")
	o := &keysCreateOptions{app: ta.app, DB: db, Team: "support", TeamGiven: true, Name: "jane"}
	if err := runKeysCreate(ctx, o); err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(ta.out.String())
	if !keyText.MatchString(key) {
		t.Fatalf("stdout %q, want the key alone", ta.out.String())
	}
	if e := ta.err.String(); !strings.Contains(e, "Created read-write API key") || !strings.Contains(e, "team support") ||
		!strings.Contains(e, "will not be shown again") || strings.Contains(e, key) {
		t.Errorf("notice on stderr: %q", e)
	}

	// The list shows the key's ID, team, name and access, never the key.
	ta.reset()
	if err := runKeysList(ctx, &keysListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID") {
		t.Fatalf("keys list:\n%s", ta.out.String())
	}
	row := fields(lines[1])
	if row[0] != key[6:22] || row[1] != "support" || row[2] != "jane" || row[3] != "read-write" || row[5] != "-" {
		t.Errorf("row %q", lines[1])
	}
	if strings.Contains(ta.out.String(), key[23:]) {
		t.Error("keys list shows the key's secret part")
	}
}

func TestKeysCreateJSONAndPermissions(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	ta.globals.json = true
	db := filepath.Join(t.TempDir(), "keys.db")
	o := &keysCreateOptions{app: ta.app, DB: db, Team: "audit", TeamGiven: true, ReadOnly: true}
	if err := runKeysCreate(ctx, o); err != nil {
		t.Fatal(err)
	}
	var created keyJSON
	ta.decode(t, &created)
	if created.Team != "audit" || !created.ReadOnly || created.Override || !strings.HasPrefix(created.Key, "shush_"+created.ID+"_") {
		t.Errorf("created %+v", created)
	}
	if ta.err.Len() != 0 {
		t.Errorf("stderr under --json: %q", ta.err.String())
	}

	ta.reset()
	if err := runKeysCreate(ctx, &keysCreateOptions{app: ta.app, DB: db, Team: "support", TeamGiven: true, Override: true, Import: true}); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	ta.globals.json = false
	ta.human()
	if err := runKeysList(ctx, &keysListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if !strings.Contains(out, "read-only") || !strings.Contains(out, "read-write+override+import") {
		t.Errorf("access column:\n%s", out)
	}
}

func TestKeysCreateRefusesBadFlagsBeforeWriting(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "keys.db")
	for _, c := range []struct {
		o    keysCreateOptions
		code int
		want string
	}{
		{keysCreateOptions{}, 2, "needs --team NAME"},
		{keysCreateOptions{Team: "two words", TeamGiven: true}, 2, "--team"},
		{keysCreateOptions{Team: "", TeamGiven: true}, 2, "--team"},
		{keysCreateOptions{Team: "t", TeamGiven: true, Name: strings.Repeat("n", 65)}, 2, "--name"},
		{keysCreateOptions{Team: "t", TeamGiven: true, ReadOnly: true, Override: true}, 2, "--read-only and --override"},
		{keysCreateOptions{Team: "t", TeamGiven: true, ReadOnly: true, Import: true}, 2, "--read-only and --import"},
	} {
		o := c.o
		o.app, o.DB = ta.app, db
		wantErr(t, runKeysCreate(ctx, &o), c.code, c.want)
		if ta.out.Len() != 0 {
			t.Errorf("%+v printed %q", c.o, ta.out.String())
		}
	}
	ta.globals.json = true
	if err := runKeysList(ctx, &keysListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	var keys []keyJSON
	ta.decode(t, &keys)
	if len(keys) != 0 {
		t.Errorf("a refused create made a key: %+v", keys)
	}
}

func TestKeysRevoke(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	ta.globals.json = true
	db := filepath.Join(t.TempDir(), "keys.db")
	if err := runKeysCreate(ctx, &keysCreateOptions{app: ta.app, DB: db, Team: "support", TeamGiven: true}); err != nil {
		t.Fatal(err)
	}
	var created keyJSON
	ta.decode(t, &created)

	wantErr(t, runKeysRevoke(ctx, &keysRevokeOptions{app: ta.app, DB: db, ID: created.Key}), 2, "not the key itself")
	wantErr(t, runKeysRevoke(ctx, &keysRevokeOptions{app: ta.app, DB: db, ID: "0000000000000000"}), 1, `no API key has the ID "0000000000000000"`)

	ta.reset()
	ta.globals.json = false
	ta.human()
	if err := runKeysRevoke(ctx, &keysRevokeOptions{app: ta.app, DB: db, ID: created.ID}); err != nil {
		t.Fatal(err)
	}
	if got := ta.out.String(); got != "Revoked API key "+created.ID+".\n" {
		t.Errorf("revoke said %q", got)
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runKeysList(ctx, &keysListOptions{app: ta.app, DB: db}); err != nil {
		t.Fatal(err)
	}
	var keys []keyJSON
	ta.decode(t, &keys)
	if len(keys) != 1 || keys[0].RevokedAt == nil || keys[0].Key != "" {
		t.Errorf("after revoke: %+v", keys)
	}
}

func TestKeysListEmptySaysHowToStart(t *testing.T) {
	ta := newTestApp(t, nil).human()
	if err := runKeysList(context.Background(), &keysListOptions{app: ta.app, DB: filepath.Join(t.TempDir(), "k.db")}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.Contains(ta.err.String(), "shush keys create --team NAME") {
		t.Errorf("stdout %q, stderr %q", ta.out.String(), ta.err.String())
	}
}

func TestKeysOnAnUnopenableDatabase(t *testing.T) {
	ta := newTestApp(t, nil)
	err := runKeysList(context.Background(), &keysListOptions{app: ta.app, DB: "postgres://u:pw@127.0.0.1:1/db?connect_timeout=1"})
	wantErr(t, err, 1, "open the database")
	if strings.Contains(err.Error(), "pw") {
		t.Errorf("the error shows the password: %v", err)
	}
}
