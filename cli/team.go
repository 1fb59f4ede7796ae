package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func (a *app) teamCommand() *cobra.Command {
	return group("team", "Show or set a team's rules on the service's database", `A team's rules hold for every key and agent of the team: its protected
addresses and @domains (its own mailboxes) are never suppressed, a batch add
naming one is refused whole; and its rule for removing entries listed by a
complaint: confirm (clients ask a second confirmation naming the complaint)
or override (only keys and agents with the override permission may remove
one); and its policy for the temporary failures intake takes in: so many
within a window list the address for a while (default 3 within 7 days, for
7 days); and whether an erasure keeps the address's domain beside its hash
(off by default: nothing of the address is kept). Over the API: GET and
PATCH /team.`,
		a.teamShowCommand(), a.teamSetCommand(), a.teamErasureCommand())
}

// teamFlag adds --team, which the team commands need.
func teamFlag(cmd *cobra.Command, team *string) {
	cmd.Flags().StringVar(team, "team", "", "the team (as its keys and agents name it)")
}

type teamShowOptions struct {
	*app
	Team, DB string
}

func runTeamShow(ctx context.Context, o *teamShowOptions) error {
	if err := server.ValidateTeam(o.Team); err != nil {
		return usagef("team show needs --team T: %v", err)
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		t, err := readTeam(ctx, st, o.Team)
		if err != nil {
			return err
		}
		return o.printTeam(t)
	})
}

// readTeam reads a team's rules from the database.
func readTeam(ctx context.Context, st store.Store, team string) (store.TeamSettings, error) {
	t, err := st.TeamSettings(ctx, team)
	if err != nil {
		return t, fmt.Errorf("read the team's rules: %w", err)
	}
	return t, nil
}

func (a *app) teamShowCommand() *cobra.Command {
	o := &teamShowOptions{app: a}
	cmd := command(o, "show --team T", "Show a team's rules", noArgs, runTeamShow)
	cmd.Long = `Show a team's rules: what it protects, and who may remove complaints.`
	teamFlag(cmd, &o.Team)
	dbFlag(cmd, &o.DB)
	return cmd
}

// printTeam shows a team's rules.
func (a *app) printTeam(t store.TeamSettings) error {
	p := server.PolicyWire(t.Intake)
	if a.output().json {
		return writeJSON(a.io.Out, server.TeamObject(t))
	}
	protected := "none"
	if len(t.Protected) > 0 {
		protected = strings.Join(t.Protected, ", ")
	}
	keeps := "no (nothing of the address is kept)"
	if t.ErasureKeepsDomain {
		keeps = "yes (the domain is kept beside the hash)"
	}
	fmt.Fprintf(a.io.Out, "Team %s\nProtected: %s\nComplaint removal: %s\nSoft bounces: %d within %s list the address for %s\nErasure keeps the domain: %s\n",
		safeText(t.Team), protected, t.ComplaintRemoval, p.Threshold, p.Window, p.Expiry, keeps)
	return nil
}

type teamSetOptions struct {
	*app
	Team, DB, Rule     string
	Protect, Unprotect []string
	Soft               softFlags
	KeepsDomain        bool
	Given              func(flag string) bool
}

func runTeamSet(ctx context.Context, o *teamSetOptions) error {
	if err := server.ValidateTeam(o.Team); err != nil {
		return usagef("team set needs --team T: %v", err)
	}
	if o.Rule != "" && o.Rule != api.ComplaintConfirm && o.Rule != api.ComplaintOverride {
		return usagef("--complaint-removal must be confirm or override, not %s", safeText(api.Quote(o.Rule)))
	}
	add, err := protectedFlag("--protect", o.Protect)
	if err != nil {
		return err
	}
	drop, err := protectedFlag("--unprotect", o.Unprotect)
	if err != nil {
		return err
	}
	return onStore(ctx, o.DB, func(st store.Store) error {
		t, err := readTeam(ctx, st, o.Team)
		if err != nil {
			return err
		}
		if t, err = o.change(t, add, drop); err != nil {
			return err
		}
		if err := st.SetTeamSettings(ctx, t); err != nil {
			return fmt.Errorf("store the team's rules: %w", err)
		}
		return o.printTeam(t)
	})
}

// change makes the changes the flags ask of the rules t: the protected
// addresses to add and drop, and the rules given.
func (o *teamSetOptions) change(t store.TeamSettings, add, drop []string) (store.TeamSettings, error) {
	for _, p := range add {
		if !slices.Contains(t.Protected, p) {
			t.Protected = append(t.Protected, p)
		}
	}
	t.Protected = slices.DeleteFunc(t.Protected, func(p string) bool { return slices.Contains(drop, p) })
	if len(t.Protected) > api.MaxProtected {
		return t, usagef("a team protects at most %d addresses and domains; this would make %d", api.MaxProtected, len(t.Protected))
	}
	if o.Rule != "" {
		t.ComplaintRemoval = o.Rule
	}
	var err error
	if t.Intake, err = o.Soft.apply(o.Given, t.Intake); err != nil {
		return t, err
	}
	if o.Given != nil && o.Given("erasure-keeps-domain") {
		t.ErasureKeepsDomain = o.KeepsDomain
	}
	return t, nil
}

func (a *app) teamSetCommand() *cobra.Command {
	o := &teamSetOptions{app: a}
	cmd := command(o, "set --team T [--protect ADDR]... [--unprotect ADDR]... [--complaint-removal confirm|override] [--soft-bounce-threshold N] [--soft-bounce-window SPAN] [--soft-bounce-expiry SPAN] [--erasure-keeps-domain=true|false]",
		"Change a team's rules", noArgs, runTeamSet)
	cmd.Long = `Change a team's rules and show them. --protect adds addresses or @domains to
the protected list (repeat it, or separate them with commas); --unprotect
takes them off. --complaint-removal sets the rule for removing complaints.
--soft-bounce-threshold, --soft-bounce-window and --soft-bounce-expiry set
the intake policy: that many temporary failures of distinct messages within
the window list the address for the expiry (spans like 7d, 36h, 90m).
--erasure-keeps-domain=true has later erasures keep the address's domain in
clear beside its hash, so that reports can count erased entries by domain;
=false (the default) keeps nothing of the address. Entries erased before
keep what they kept.`
	cmd.Example = `  shush team set --team support --protect support@acme.test,@acme.test
  shush team set --team support --complaint-removal override
  shush team set --team support --unprotect @acme.test
  shush team set --team support --soft-bounce-threshold 5 --soft-bounce-window 3d --soft-bounce-expiry 14d
  shush team set --team support --erasure-keeps-domain=true`
	teamFlag(cmd, &o.Team)
	f := cmd.Flags()
	f.StringSliceVar(&o.Protect, "protect", nil, "addresses or @domains never to suppress")
	f.StringSliceVar(&o.Unprotect, "unprotect", nil, "addresses or @domains to take off the protected list")
	f.StringVar(&o.Rule, "complaint-removal", "", "confirm or override: who may remove an entry listed by a complaint")
	o.Soft.flags(f)
	f.BoolVar(&o.KeepsDomain, "erasure-keeps-domain", false, "whether an erasure keeps the address's domain beside its hash")
	o.Given = f.Changed
	dbFlag(cmd, &o.DB)
	return cmd
}

// softFlags are the intake policy's flags of team set.
type softFlags struct {
	threshold      int
	window, expiry string
}

func (s *softFlags) flags(f *pflag.FlagSet) {
	f.IntVar(&s.threshold, "soft-bounce-threshold", 0, "temporary failures that list an address (1-100; default 3)")
	f.StringVar(&s.window, "soft-bounce-window", "", "within how long they count (7d, 36h; default 7d)")
	f.StringVar(&s.expiry, "soft-bounce-expiry", "", "how long the address is then listed (7d, 36h; default 7d)")
}

// apply sets the fields given on the policy; a bad value is a usage error
// naming its flag.
func (s *softFlags) apply(given func(flag string) bool, p store.IntakePolicy) (store.IntakePolicy, error) {
	if given("soft-bounce-threshold") {
		if s.threshold < 1 || s.threshold > api.MaxSoftThreshold {
			return p, usagef("--soft-bounce-threshold must be from 1 to %d, not %d", api.MaxSoftThreshold, s.threshold)
		}
		p.Threshold = s.threshold
	}
	for _, f := range []struct {
		name, v string
		dst     *time.Duration
	}{{"soft-bounce-window", s.window, &p.Window}, {"soft-bounce-expiry", s.expiry, &p.Expiry}} {
		if !given(f.name) {
			continue
		}
		d, err := api.ParseSpan(f.v)
		if err != nil {
			return p, usagef("--%s: %v", f.name, err)
		}
		*f.dst = d
	}
	return p, nil
}

// protectedFlag normalizes a flag's addresses and @domains; a bad one is
// a usage error naming it.
func protectedFlag(flag string, values []string) ([]string, error) {
	out := make([]string, 0, len(values))
	for _, v := range values {
		p, err := api.NormalizeProtected(v)
		if err != nil {
			return nil, usagef("%s %s is not an address or @domain: %v", flag, safeText(api.Quote(v)), err)
		}
		out = append(out, p)
	}
	return out, nil
}
