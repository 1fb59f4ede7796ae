package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/shushlist/shush/api"
)

// given is the flags a test says were given.
func given(flags ...string) func(string) bool {
	return func(f string) bool { return slices.Contains(flags, f) }
}

func TestTeamShowAndSet(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil).human()
	db := filepath.Join(t.TempDir(), "team.db")

	if err := runTeamShow(ctx, &teamShowOptions{app: ta.app, Team: "support", DB: db}); err != nil {
		t.Fatal(err)
	}
	want := "Team support\nProtected: none\nComplaint removal: confirm\nSoft bounces: 3 within 7d list the address for 7d\nErasure keeps the domain: no (nothing of the address is kept)\n"
	if ta.out.String() != want {
		t.Errorf("team show:\n%s\nwant:\n%s", ta.out.String(), want)
	}

	ta.reset()
	o := &teamSetOptions{app: ta.app, Team: "support", DB: db, Protect: []string{"Support@Acme.test", "@acme.test"}, Rule: api.ComplaintOverride,
		Soft: softFlags{threshold: 5, window: "3d", expiry: "14d"}, KeepsDomain: true,
		Given: given("soft-bounce-threshold", "soft-bounce-window", "soft-bounce-expiry", "erasure-keeps-domain")}
	if err := runTeamSet(ctx, o); err != nil {
		t.Fatal(err)
	}
	want = "Team support\nProtected: support@acme.test, @acme.test\nComplaint removal: override\nSoft bounces: 5 within 3d list the address for 14d\nErasure keeps the domain: yes (the domain is kept beside the hash)\n"
	if ta.out.String() != want {
		t.Errorf("team set:\n%s\nwant:\n%s", ta.out.String(), want)
	}

	// Unprotect one; the rest stays as it was.
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runTeamSet(ctx, &teamSetOptions{app: ta.app, Team: "support", DB: db, Unprotect: []string{"@ACME.test"}, Given: given()}); err != nil {
		t.Fatal(err)
	}
	var team api.Team
	ta.decode(t, &team)
	if team.Name != "support" || len(team.Protected) != 1 || team.Protected[0] != "support@acme.test" || team.ComplaintRemoval != api.ComplaintOverride || team.Intake.Threshold != 5 ||
		!team.ErasureKeepsDomain {
		t.Errorf("after unprotect: %+v; want the other rules as they were", team)
	}

	// Another team's rules are its own.
	ta.reset()
	if err := runTeamShow(ctx, &teamShowOptions{app: ta.app, Team: "audit", DB: db}); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &team)
	if team.Name != "audit" || len(team.Protected) != 0 || team.ComplaintRemoval != api.ComplaintConfirm || team.ErasureKeepsDomain {
		t.Errorf("another team: %+v", team)
	}
}

func TestTeamSetRefusesBadFlagsAndChangesNothing(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	db := filepath.Join(t.TempDir(), "team.db")
	for _, c := range []struct {
		o    teamSetOptions
		want string
	}{
		{teamSetOptions{}, "team set needs --team T"},
		{teamSetOptions{Team: "support", Rule: "never"}, `--complaint-removal must be confirm or override, not "never"`},
		{teamSetOptions{Team: "support", Protect: []string{"not an address"}}, `--protect "not an address" is not an address or @domain`},
		{teamSetOptions{Team: "support", Unprotect: []string{"@"}}, `--unprotect "@"`},
		{teamSetOptions{Team: "support", Soft: softFlags{threshold: 0}, Given: given("soft-bounce-threshold")}, "--soft-bounce-threshold must be from 1 to 100, not 0"},
		{teamSetOptions{Team: "support", Soft: softFlags{window: "a week"}, Given: given("soft-bounce-window")}, "--soft-bounce-window"},
		{teamSetOptions{Team: "support", Soft: softFlags{expiry: "-1d"}, Given: given("soft-bounce-expiry")}, "--soft-bounce-expiry"},
	} {
		o := c.o
		o.app, o.DB = ta.app, db
		if o.Given == nil {
			o.Given = given()
		}
		wantErr(t, runTeamSet(ctx, &o), ExitUsage, c.want)
	}
	wantErr(t, runTeamShow(ctx, &teamShowOptions{app: ta.app, DB: db}), ExitUsage, "team show needs --team T")

	var many []string
	for i := range api.MaxProtected + 1 {
		many = append(many, fmt.Sprintf("p%d@acme.test", i))
	}
	wantErr(t, runTeamSet(ctx, &teamSetOptions{app: ta.app, Team: "support", DB: db, Protect: many, Given: given()}), ExitUsage,
		"a team protects at most")

	ta.reset()
	if err := runTeamShow(ctx, &teamShowOptions{app: ta.app, Team: "support", DB: db}); err != nil {
		t.Fatal(err)
	}
	var team api.Team
	ta.decode(t, &team)
	if len(team.Protected) != 0 || team.ComplaintRemoval != api.ComplaintConfirm || team.Intake.Threshold != 3 {
		t.Errorf("a refused set changed the rules: %+v", team)
	}
}
