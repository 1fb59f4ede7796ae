package cli

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/config"
)

// twoProfiles makes profiles work (the default) and staging on two
// services through the command line, each with its own key from stdin.
func twoProfiles(t *testing.T) (work, staging *testService) {
	t.Helper()
	work, staging = newTestService(t), newTestService(t)
	ta := newTestApp(t, nil)
	for _, p := range []struct {
		name string
		svc  *testService
		use  bool
	}{{"work", work, true}, {"staging", staging, false}} {
		ta.reset()
		ta.stdin(p.svc.Key + "\n")
		args := []string{"--base-url", p.svc.URL, "config", "set-profile", p.name, "--api-key-stdin"}
		if p.use {
			args = append(args, "--use")
		}
		if err := ta.exec(t, args...); err != nil {
			t.Fatalf("set-profile %s: %v", p.name, err)
		}
	}
	return work, staging
}

func TestProfilesPickTheService(t *testing.T) {
	work, staging := twoProfiles(t)
	work.add(t, "at-work@example.com")
	staging.add(t, "at-staging@example.com")
	listOf := func(args ...string) []string {
		t.Helper()
		a := bareApp()
		if err := a.exec(t, append(args, "suppressions", "list")...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var page struct{ Data []struct{ Email string } }
		a.decode(t, &page)
		var out []string
		for _, e := range page.Data {
			out = append(out, e.Email)
		}
		return out
	}
	if got := listOf(); strings.Join(got, " ") != "at-work@example.com" {
		t.Errorf("the default profile lists %v", got)
	}
	if got := listOf("--profile", "staging"); strings.Join(got, " ") != "at-staging@example.com" {
		t.Errorf("--profile staging lists %v", got)
	}
	t.Setenv(config.EnvProfile, "staging")
	if got := listOf(); strings.Join(got, " ") != "at-staging@example.com" {
		t.Errorf("SHUSH_PROFILE=staging lists %v", got)
	}
	// The flag wins over the variable.
	if got := listOf("--profile", "work"); strings.Join(got, " ") != "at-work@example.com" {
		t.Errorf("--profile work under SHUSH_PROFILE=staging lists %v", got)
	}

	a := bareApp()
	if err := a.exec(t, "--profile", "staging", "config"); err != nil {
		t.Fatal(err)
	}
	var v configView
	a.decode(t, &v)
	if v.Profile.Value != "staging" || v.Profile.Source != "--profile flag" || v.BaseURL.Value != staging.URL || !strings.HasPrefix(v.BaseURL.Source, `profile "staging" in `) {
		t.Errorf("config --profile staging: %+v", v)
	}

	a = bareApp()
	wantErr(t, a.exec(t, "--profile", "nope", "suppressions", "list"), ExitUsage, "nope")
}

// TestAProfilesKeyGoesOnlyToItsService: --base-url elsewhere does not
// carry the profile's key there.
func TestAProfilesKeyGoesOnlyToItsService(t *testing.T) {
	work, staging := twoProfiles(t)
	a := bareApp()
	err := a.exec(t, "--profile", "work", "--base-url", staging.URL, "suppressions", "list")
	wantErr(t, err, ExitUsage, "no API key for "+staging.URL+" (from --base-url flag)",
		`the key of profile "work" belongs to `+work.URL+" and is not sent elsewhere")
	if err != nil && strings.Contains(err.Error(), work.Key) {
		t.Errorf("the error shows the key: %v", err)
	}
	if a.out.Len() != 0 {
		t.Errorf("printed %q", a.out.String())
	}
}
