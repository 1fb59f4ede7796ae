package cli

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// syncDoc is what sync --json prints, the parts a test reads.
type syncDoc struct {
	Here, There string
	Direction   string
	Applied     bool
	Plan        struct {
		First   bool
		NewHere []struct{ Email string } `json:"new_here"`
		Same    int
	}
	Actions map[string][]string
	Runs    []struct{ Action, State string }
}

func TestRunSyncRefusesFlagsThatDoNotGoTogether(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		f    syncFlags
		want string
	}{
		{syncFlags{}, "sync needs --with PROFILE"},
		{syncFlags{with: "local", push: true, pull: true}, "give one of --push, --pull and --both"},
		{syncFlags{with: "local", apply: true}, "--apply needs a direction"},
		{syncFlags{with: "nosuch"}, "--with"},
	} {
		err := runSync(context.Background(), &syncOptions{app: ta.app, syncFlags: c.f})
		wantErr(t, err, ExitUsage, c.want)
	}

	// The local list against itself is one list, not two.
	local := newTestApp(t, nil)
	err := runSync(context.Background(), &syncOptions{app: local.app, syncFlags: syncFlags{with: "local"}})
	wantErr(t, err, ExitUsage, "names the list this profile works on", "a sync needs two lists")
}

func TestRunSyncShowsThePlanThenPushes(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com")

	// Without --apply: the plan, nothing changed.
	ta := newTestApp(t, svc)
	if err := runSync(ctx, &syncOptions{app: ta.app, syncFlags: syncFlags{with: "local", push: true}}); err != nil {
		t.Fatal(err)
	}
	var plan syncDoc
	ta.decode(t, &plan)
	var news []string
	for _, x := range plan.Plan.NewHere {
		news = append(news, x.Email)
	}
	slices.Sort(news)
	if plan.Applied || !plan.Plan.First || plan.Direction != "push" || !slices.Equal(news, []string{"a@example.com", "b@example.com"}) ||
		len(plan.Actions["add_there"]) != 2 || !strings.Contains(plan.There, "local") {
		t.Fatalf("plan %+v", plan)
	}

	// A person reads the same plan, and that nothing was changed.
	ta.human().reset()
	if err := runSync(ctx, &syncOptions{app: ta.app, syncFlags: syncFlags{with: "local", push: true}}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Only here, new (2): to be added there", "a@example.com", "Nothing was changed (no --apply)."} {
		if !strings.Contains(ta.out.String(), want) {
			t.Errorf("the plan lacks %q:\n%s", want, ta.out.String())
		}
	}

	// --apply pushes them; the next sync finds both lists agree.
	applied := newTestApp(t, svc)
	if err := runSync(ctx, &syncOptions{app: applied.app, syncFlags: syncFlags{with: "local", push: true, apply: true}}); err != nil {
		t.Fatalf("%v; stderr %s", err, applied.err.String())
	}
	var done syncDoc
	applied.decode(t, &done)
	if !done.Applied || len(done.Runs) != 1 || done.Runs[0].State != "finished" {
		t.Fatalf("apply %+v", done)
	}
	again := bareApp()
	again.globals = applied.globals
	if err := runSync(ctx, &syncOptions{app: again.app, syncFlags: syncFlags{with: "local"}}); err != nil {
		t.Fatal(err)
	}
	var after syncDoc
	again.decode(t, &after)
	if after.Plan.First || after.Plan.Same != 2 || len(after.Plan.NewHere) != 0 {
		t.Errorf("after the push: %+v", after)
	}
}
