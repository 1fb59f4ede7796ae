package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/ui"
)

// syncFlags are the flags of sync.
type syncFlags struct {
	with             string
	push, pull, both bool
	apply, yes       bool
}

// direction is the direction the flags name (0 for none).
func (f syncFlags) direction() (batch.Direction, error) {
	n := 0
	var d batch.Direction
	for _, c := range []struct {
		on bool
		d  batch.Direction
	}{{f.push, batch.Push}, {f.pull, batch.Pull}, {f.both, batch.Both}} {
		if c.on {
			n++
			d = c.d
		}
	}
	if n > 1 {
		return 0, usagef("give one of --push, --pull and --both")
	}
	if f.apply && n == 0 {
		return 0, usagef("--apply needs a direction: --push (here to there), --pull (there to here) or --both (both ways, removals too)")
	}
	return d, nil
}

// localProfile names the local list when no profile has that name.
const localProfile = "local"

// syncOptions are sync's: the app and the settings of its flags.
type syncOptions struct {
	*app
	syncFlags
}

func (a *app) syncCommand() *cobra.Command {
	o := &syncOptions{app: a}
	f := &o.syncFlags
	cmd := command(o, "sync --with PROFILE [--push | --pull | --both] [--apply]", "Compare this list with another profile's and carry the changes over",
		noArgs, runSync)
	cmd.Long = `Compare the list of this profile (here) with another profile's (there: the
hosted service, another shush serve, or the local list: a profile without a
base URL, or "local"), and show the plan, every address listed: what is
new on each side, what was removed on each side since the last sync, and
entries listed on both whose origin, note or expiry differ (notes and
expiries where both services show them). Nothing is changed without --apply.

--push adds here's new entries there, --pull there's here, --both does both
and carries removals: an entry removed on one side since the last sync is
removed on the other, each named in the plan. A removal is never carried
otherwise. Entries go over with their origin, note, expiry and evidence
where the receiving service takes them (shush's own; the hosted service
takes plain addresses, listed as manual). Entries listed on both that
differ are shown, not changed.

To tell new from removed, shush keeps a record of what both lists held
when they last agreed (in its state directory, one per pair of lists); the
first sync of a pair takes nothing for removed. --apply sends through the
same runs as batch add and remove: paced, recorded (shush runs list), every
ID the service's own; an apply cut off (Ctrl-C, a crash) is finished by the
same command again, before anything else. Each side's key goes only to its
own profile's service: another profile's key and URL come from the config
file alone, never from SHUSH_BASE_URL or --base-url.`
	cmd.Example = `  shush sync --with hosted
  shush sync --with hosted --push --apply
  shush --profile hosted sync --with local --both --apply --yes --json`
	fl := cmd.Flags()
	fl.StringVar(&f.with, "with", "", "the profile whose list to compare with (\"local\": the local list)")
	fl.BoolVar(&f.push, "push", false, "add here's new entries there")
	fl.BoolVar(&f.pull, "pull", false, "add there's new entries here")
	fl.BoolVar(&f.both, "both", false, "both ways, and remove on each side what was removed on the other since the last sync")
	fl.BoolVar(&f.apply, "apply", false, "carry the plan out (without it, only the plan is shown)")
	fl.BoolVar(&f.yes, "yes", false, "remove without asking (--both)")
	return cmd
}

// otherSettings resolves the profile a sync compares with from the config
// file alone: the variables and flags that point this profile somewhere
// else must not carry its key (or another's) there.
func (a *app) otherSettings(name string) (config.Settings, error) {
	f, err := loadConfigFile()
	if err != nil {
		return config.Settings{}, err
	}
	env := func(k string) string {
		switch k {
		case config.EnvProfile, config.EnvBaseURL, config.EnvAPIKey, config.EnvResendAPIKey, config.EnvResendBaseURL:
			return ""
		}
		return os.Getenv(k)
	}
	if _, ok := f.Profiles[name]; !ok && name == localProfile {
		s, err := config.Resolve(&config.File{Path: f.Path}, config.Flags{}, env)
		s.Profile = config.Setting{Value: localProfile, Source: "the local list"}
		return s, err
	}
	s, err := config.Resolve(f, config.Flags{Profile: name}, env)
	if err != nil {
		return s, usagef("--with: %v", err)
	}
	return s, nil
}

// syncSide is one list of a sync: its connection, its runs, its name.
type syncSide struct {
	conn *connection
	runs *batch.Runs
	name string
	snap batch.Snapshot
}

// runSync compares the two lists and shows the plan, or carries it out
// with --apply.
func runSync(ctx context.Context, o *syncOptions) error {
	a, f := o.app, o.syncFlags
	d, err := f.direction()
	if err != nil {
		return err
	}
	if f.with == "" {
		return usagef("sync needs --with PROFILE: the profile whose list to compare with")
	}
	here, there, err := a.syncSides(ctx, f.with)
	if err != nil {
		return err
	}
	defer here.conn.Close()
	defer there.conn.Close()
	rec, err := here.runs.LoadSync(here.conn.Client.BaseURL(), there.conn.Client.BaseURL())
	if err != nil {
		return err
	}
	if err := a.finishCutOff(ctx, rec, here, there, f.apply); err != nil {
		return err
	}
	for _, s := range []*syncSide{here, there} {
		if s.snap, err = a.readSide(ctx, s); err != nil {
			return err
		}
	}
	var prev *batch.SyncRecord
	if rec.Known() {
		prev = rec
	}
	plan := batch.CompareLists(here.snap, there.snap, prev)
	if !f.apply {
		return a.printSyncPlan(plan, d, here, there, true)
	}
	return a.applySync(ctx, plan, d, rec, here, there, f.yes)
}

// syncSides connects to both lists: here (this profile, as every command
// connects) and there (the other profile, from the config file alone).
func (a *app) syncSides(ctx context.Context, with string) (*syncSide, *syncSide, error) {
	other, err := a.otherSettings(with)
	if err != nil {
		return nil, nil, err
	}
	hc, err := a.connect(ctx)
	if err != nil {
		return nil, nil, err
	}
	tc, err := a.connectWith(ctx, other)
	if err != nil {
		hc.Close()
		return nil, nil, err
	}
	if client.SameTarget(hc.Client.BaseURL(), tc.Client.BaseURL()) {
		hc.Close()
		tc.Close()
		return nil, nil, usagef("--with %s names the list this profile works on (%s): a sync needs two lists", with, hc.Target)
	}
	here := &syncSide{conn: hc, name: "here (" + hc.Target + ")"}
	there := &syncSide{conn: tc, name: "there (" + tc.Target + ", profile " + tc.Profile + ")"}
	for _, s := range []*syncSide{here, there} {
		s.runs = &batch.Runs{Dir: s.conn.JournalDir, Client: s.conn.Client, Source: "cli", Profile: s.conn.Profile, KeyPrint: s.conn.KeyPrint,
			Concurrency: a.concurrencyFor(false, s.conn, 0)}
	}
	return here, there, nil
}

// readSide reads one side's whole list, saying so on a terminal.
func (a *app) readSide(ctx context.Context, s *syncSide) (batch.Snapshot, error) {
	on := a.io.StderrTTY
	snap, err := batch.ReadList(ctx, s.conn.Client, func(n int) {
		if on {
			fmt.Fprintf(a.io.ErrOut, "\r\x1b[Kreading %s · %d entries", safeText(s.name), n)
		}
	})
	if on {
		fmt.Fprint(a.io.ErrOut, "\r\x1b[K")
	}
	if err != nil {
		return snap, fmt.Errorf("reading the list %s: %w", s.name, err)
	}
	return snap, nil
}

// finishCutOff settles the runs of an apply that was cut off: with
// --apply it first finishes them, then counts them into the record;
// without, it counts what they did and says what is left.
func (a *app) finishCutOff(ctx context.Context, rec *batch.SyncRecord, here, there *syncSide, apply bool) error {
	if len(rec.Runs) == 0 {
		return nil
	}
	if apply {
		fmt.Fprintf(a.io.ErrOut, "shush: finishing the sync that was cut off (%s)\n", plural(len(rec.Runs), "run", "runs"))
	}
	left, err := batch.FinishCutOff(ctx, rec, here.runs, there.runs, apply)
	if err != nil {
		return err
	}
	if left > 0 {
		fmt.Fprintf(a.io.ErrOut, "shush: a sync's apply was cut off with entries left to send; --apply finishes it first\n")
	}
	return nil
}

// syncView is the plan as --json prints it.
type syncView struct {
	Here      string              `json:"here"`
	There     string              `json:"there"`
	Direction string              `json:"direction,omitempty"`
	Applied   bool                `json:"applied"`
	Plan      batch.SyncPlan      `json:"plan"`
	Actions   map[string][]string `json:"actions"`
	Requests  map[string]int      `json:"requests"`
	Runs      []syncRunView       `json:"runs,omitempty"`
}

type syncRunView struct {
	ID     string                `json:"id"`
	Action string                `json:"action"`
	State  batch.RunState        `json:"state"`
	Counts map[batch.Outcome]int `json:"counts"`
}

func directionName(d batch.Direction) string {
	switch d {
	case batch.Push:
		return "push"
	case batch.Pull:
		return "pull"
	case batch.Both:
		return "both"
	}
	return ""
}

func emails(items []batch.SyncItem) []string {
	out := make([]string, len(items))
	for i, x := range items {
		out[i] = x.Email
	}
	return out
}

func (a *app) syncJSON(plan batch.SyncPlan, d batch.Direction, here, there *syncSide) syncView {
	v := syncView{Here: here.conn.Target, There: there.conn.Target, Direction: directionName(d), Plan: plan,
		Requests: map[string]int{"here": here.snap.Requests, "there": there.snap.Requests}, Actions: map[string][]string{}}
	acts := plan.Actions(d)
	for name, l := range map[string][]batch.SyncItem{"add_there": acts.AddThere, "add_here": acts.AddHere,
		"remove_there": acts.RemoveThere, "remove_here": acts.RemoveHere} {
		v.Actions[name] = emails(l)
	}
	return v
}

// printSyncPlan shows the plan: every address of each kind, and what the
// direction (or each, without one) does with it.
func (a *app) printSyncPlan(plan batch.SyncPlan, d batch.Direction, here, there *syncSide, dry bool) error {
	if a.output().json {
		if !dry {
			return nil
		}
		return writeJSON(a.io.Out, a.syncJSON(plan, d, here, there))
	}
	var w strings.Builder
	fmt.Fprintf(&w, "Here: %s, %s. There: %s, %s.\n", safeText(here.conn.Target), plural(len(here.snap.Entries), "entry", "entries"),
		safeText(there.conn.Target), plural(len(there.snap.Entries), "entry", "entries"))
	if plan.First {
		w.WriteString("No earlier sync of these lists is on record: an address on one side only is taken as new, never as removed.\n")
	} else {
		fmt.Fprintf(&w, "Since the last sync (%s):\n", plan.Since.Local().Format("2006-01-02 15:04"))
	}
	section := func(title, action string, items []batch.SyncItem) {
		if len(items) == 0 {
			return
		}
		fmt.Fprintf(&w, "%s (%d): %s\n", title, len(items), action)
		for _, x := range items {
			fmt.Fprintf(&w, "  %s  %s\n", safeText(x.Email), x.Entry.Origin)
		}
	}
	section("Only here, new", addWord(d, batch.Push, "added there"), plan.NewHere)
	section("Only there, new", addWord(d, batch.Pull, "added here"), plan.NewThere)
	section("Removed there since, still listed here", removeWord(d, "removed here"), plan.GoneThere)
	section("Removed here since, still listed there", removeWord(d, "removed there"), plan.GoneHere)
	section("Expired on one side, not carried", "the service takes them off within a minute", plan.Expired)
	section("Protected by the other side's team, not carried", "its rules refuse them", plan.Protected)
	if len(plan.Differ) > 0 {
		fmt.Fprintf(&w, "Listed on both, different (%d): shown, not changed\n", len(plan.Differ))
		for _, x := range plan.Differ {
			fmt.Fprintf(&w, "  %s  %s: here %s, there %s\n", safeText(x.Email), strings.Join(x.What, ", "), entryWords(x.Here), entryWords(x.There))
		}
	}
	fmt.Fprintf(&w, "Listed on both: %d. Read in %s here and %s there.\n", plan.Same,
		plural(here.snap.Requests, "request", "requests"), plural(there.snap.Requests, "request", "requests"))
	if acts := plan.Actions(d); dry && d != 0 && acts.Empty() {
		w.WriteString("Nothing to do: the lists agree for this direction.\n")
	}
	if dry {
		w.WriteString("Nothing was changed (no --apply).\n")
	}
	return a.page(a.io.Out, w.String())
}

// addWord says what a direction does with new entries of one side.
func addWord(d, way batch.Direction, what string) string {
	if d == 0 {
		return what + " with --" + directionName(way) + " or --both"
	}
	if d == way || d == batch.Both {
		return "to be " + what
	}
	return "left (--" + directionName(way) + " or --both would add them)"
}

func removeWord(d batch.Direction, what string) string {
	if d == batch.Both {
		return "to be " + what
	}
	return "left (--both would have them " + what + ")"
}

// entryWords shows an entry's origin, note and expiry in a few words.
func entryWords(e api.Entry) string {
	s := string(e.Origin)
	if e.Note != nil && *e.Note != "" {
		s += ", note " + api.Quote(safeText(*e.Note))
	}
	if e.ExpiresAt != nil {
		s += ", expires " + e.ExpiresAt.UTC().Format(time.RFC3339)
	}
	return s
}

// applySync carries the plan out (batch.ApplySync), asking first when it
// removes.
func (a *app) applySync(ctx context.Context, plan batch.SyncPlan, d batch.Direction, rec *batch.SyncRecord, here, there *syncSide, yes bool) error {
	if err := a.printSyncPlan(plan, d, here, there, false); err != nil {
		return err
	}
	acts := plan.Actions(d)
	if n := len(acts.RemoveHere) + len(acts.RemoveThere); n > 0 {
		q := fmt.Sprintf("Remove %s (%d here, %d there), as removed on the other side since the last sync?",
			plural(n, "entry", "entries"), len(acts.RemoveHere), len(acts.RemoveThere))
		if ok, err := a.confirm(ctx, yes, false, q); !ok {
			return err
		}
	}
	// The trail of each side says why its entries came or went.
	ref := "sync with " + there.conn.Profile
	var progress *progressLine
	runs, runErr := batch.ApplySync(ctx, plan, d, rec, batch.SyncSide{Runs: here.runs, Snap: here.snap}, batch.SyncSide{Runs: there.runs, Snap: there.snap}, ref,
		func(_ string, n int) batch.Observer {
			if progress != nil {
				progress.clear()
			}
			progress = a.progress(batch.BatchCount(n), n)
			return batch.Observer{Event: progress.event}
		})
	if progress != nil {
		progress.clear()
	}
	views := make([]syncRunView, len(runs))
	for i, r := range runs {
		views[i] = syncRunView{ID: r.Info.ID, Action: r.Action, State: r.Info.State, Counts: r.Info.Counts}
	}
	return a.endSync(plan, d, here, there, views, runErr)
}

// endSync reports the apply's runs and how it ended.
func (a *app) endSync(plan batch.SyncPlan, d batch.Direction, here, there *syncSide, views []syncRunView, runErr error) error {
	if a.output().json {
		v := a.syncJSON(plan, d, here, there)
		v.Applied, v.Runs = runErr == nil, views
		if err := writeJSON(a.io.Out, v); err != nil {
			return err
		}
	} else {
		a.printSyncRuns(a.io.Out, views)
	}
	if runErr != nil {
		return exitErr{ExitFailed, fmt.Errorf("%v; the same command with --apply finishes the sync", runErr)}
	}
	for _, v := range views {
		if v.State != batch.Finished {
			return exitErr{ExitFailed, fmt.Errorf("the run %s (%s) ended %s; the same command with --apply finishes the sync", v.ID, v.Action, v.State)}
		}
	}
	return nil
}

func (a *app) printSyncRuns(w io.Writer, views []syncRunView) {
	if len(views) == 0 {
		fmt.Fprintln(w, "Nothing to do: the lists agree for this direction.")
		return
	}
	for _, v := range views {
		fmt.Fprintf(w, "%s: %s (run %s).\n", capitalize(v.Action), batch.CountsText(v.Counts, ", "), v.ID)
	}
}

// syncPeers are the lists the UI's History offers to sync with: every
// other profile of the config file, and the local list when this profile
// works elsewhere. Each is connected to only when chosen, from the config
// file alone (otherSettings).
func (a *app) syncPeers(conn *connection) []ui.SyncPeer {
	var names []string
	if f, err := loadConfigFile(); err == nil {
		names = f.ProfileNames()
	}
	if !conn.Settings.Local() && !slices.Contains(names, localProfile) {
		names = append(names, localProfile)
	}
	var peers []ui.SyncPeer
	for _, name := range names {
		if name == conn.Profile {
			continue
		}
		other, err := a.otherSettings(name)
		if err != nil || other.Local() && conn.Settings.Local() || !other.Local() && other.BaseURL.Value == conn.Settings.BaseURL.Value {
			continue
		}
		// Notes on stderr would land on the UI's screen.
		quiet := *a
		quiet.io.ErrOut = io.Discard
		peers = append(peers, ui.SyncPeer{Name: name, Label: other.Target(), Open: func(ctx context.Context) (*batch.Runs, func() error, error) {
			c, err := quiet.connectWith(ctx, other)
			if err != nil {
				return nil, nil, err
			}
			return &batch.Runs{Dir: c.JournalDir, Client: c.Client, Source: "ui", Profile: c.Profile, KeyPrint: c.KeyPrint, Concurrency: 1}, c.Close, nil
		}})
	}
	return peers
}
