package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
)

// TestTeamSoftBouncePolicyDecidesTheIntake: a threshold of one set on the
// command line lists an address at its first temporary failure, for the
// expiry set.
func TestTeamSoftBouncePolicyDecidesTheIntake(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--soft-bounce-threshold", "1", "--soft-bounce-expiry", "2d"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), "Soft bounces: 1 within 7d list the address for 2d") {
		t.Errorf("team set said:\n%s", ta.out.String())
	}
	ta.reset()
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: maildir(t, "exim-delayed.eml")}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "Read 1 message: 1 report: 1 listed.") {
		t.Errorf("ingest of one delay under a threshold of 1:\n%s", ta.out.String())
	}
	e, err := svc.client().Get(ctx, "orders@bakery.example")
	if err != nil {
		t.Fatal(err)
	}
	if e.ExpiresAt == nil || e.ExpiresAt.Sub(time.Now()) < 47*time.Hour || e.ExpiresAt.Sub(time.Now()) > 49*time.Hour {
		t.Errorf("the entry's expiry %v; want about 2 days from now", e.ExpiresAt)
	}

	// Flags not given keep what was set.
	ta.reset()
	if err := ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--soft-bounce-window", "36h"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), "Soft bounces: 1 within 36h") {
		t.Errorf("team set --soft-bounce-window alone:\n%s", ta.out.String())
	}
}

// TestTeamProtectedAddressesAreNeverListed: what team set --protect names
// is refused by add and left out of a batch, with the team's rule said.
func TestTeamProtectedAddressesAreNeverListed(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--protect", "billing@acme.test,@acme.test"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	err := runAdd(ctx, &addOptions{app: ta.app, Email: "ceo@acme.test"})
	wantErr(t, err, ExitFailed, "protected")
	// A batch that holds one is refused whole by the service, naming it.
	ta.reset()
	err = runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "l.txt", "ceo@acme.test\nother@example.com\n")))
	wantErr(t, err, ExitFailed, `"ceo@acme.test") is protected by the team (@acme.test); nothing was added`)
	if got := svc.everything(t); len(got) != 0 {
		t.Errorf("listed %v", got)
	}

	// Unprotected, it may be listed.
	ta.reset()
	if err := ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--unprotect", "@acme.test"); err != nil {
		t.Fatal(err)
	}
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "ceo@acme.test"}); err != nil {
		t.Errorf("add after --unprotect: %v", err)
	}
	wantErr(t, runAdd(ctx, &addOptions{app: ta.app, Email: "billing@acme.test"}), ExitFailed, "protected")
}

// TestTeamComplaintRemovalNeedsTheOverride: under --complaint-removal
// override, a key without the override permission cannot take a complaint
// off the list; one with it can.
func TestTeamComplaintRemovalNeedsTheOverride(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "export.csv", exportCSV))); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--complaint-removal", "override"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "angry@example.com", Yes: true})
	if exitCode(err) == ExitOK || !strings.Contains(err.Error(), "complaint") {
		t.Errorf("a key without the override removed a complaint: %v", err)
	}
	if _, ok := svc.everything(t)["angry@example.com"]; !ok {
		t.Fatal("the complaint was taken off")
	}
	over := newTestApp(t, svc)
	over.globals.apiKey = svc.key(t, "support", server.KeyPermissions{Override: true})
	if err := runRemove(ctx, &removeOptions{app: over.app, Ref: "angry@example.com", Yes: true}); err != nil {
		t.Fatalf("an override key: %v", err)
	}
	if e, ok := svc.everything(t)["angry@example.com"]; ok {
		t.Errorf("still listed: %+v", e)
	}
	wantErr(t, ta.exec(t, "team", "set", "--team", "support", "--db", svc.DB, "--complaint-removal", "maybe"), ExitUsage,
		`--complaint-removal must be confirm or override, not "maybe"`)
}

func TestTeamAndKeysCommandLines(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"team", "show", "--db", svc.DB}, "team show needs --team T"},
		{[]string{"team", "set", "--db", svc.DB, "--protect", "x@example.com"}, "team set needs --team T"},
		{[]string{"team", "set", "--team", "support", "--db", svc.DB, "--soft-bounce-threshold", "0"}, "--soft-bounce-threshold must be from 1 to"},
		{[]string{"team", "set", "--team", "support", "--db", svc.DB, "--soft-bounce-window", "soon"}, "--soft-bounce-window: "},
		{[]string{"team", "set", "--team", "support", "--db", svc.DB, "--protect", "not an address"}, `--protect "not an address" is not an address or @domain`},
		{[]string{"keys", "revoke", "--db", svc.DB}, "keys revoke needs one KEY_ID (see shush keys list), got 0 arguments"},
		{[]string{"keys", "create", "--db", svc.DB}, "keys create needs --team NAME"},
		{[]string{"agents", "add", "--db", svc.DB}, "agents add needs one NAME, got 0 arguments (quote a name with spaces)"},
		{[]string{"agents", "add", "jane", "--db", svc.DB}, "agents add needs --team T and --ssh-key FILE"},
		{[]string{"agents", "remove", "--db", svc.DB}, "agents remove needs one NAME (see shush agents list), got 0 arguments"},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, c.args...), ExitUsage, c.want)
	}

	// A key made on the command line works on the service at once; one
	// revoked before its first use is refused at once (a key in use is
	// refused within server.KeyCacheTTL).
	var made [2]keyJSON
	for i := range made {
		ta.reset()
		if err := ta.exec(t, "keys", "create", "--team", "support", "--name", "bot", "--db", svc.DB, "--json"); err != nil {
			t.Fatal(err)
		}
		ta.decode(t, &made[i])
	}
	ta.reset()
	if err := ta.exec(t, "keys", "revoke", made[1].ID, "--db", svc.DB); err != nil {
		t.Fatal(err)
	}
	if _, err := client.New(svc.URL, made[0].Key).List(context.Background(), client.ListParams{Limit: 1}); err != nil {
		t.Errorf("the new key: %v", err)
	}
	_, err := client.New(svc.URL, made[1].Key).List(context.Background(), client.ListParams{Limit: 1})
	wantErr(t, err, ExitRefused)
}
