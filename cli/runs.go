package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// The runs commands work on the recorded runs of both faces (the CLI's
// batch commands and the UI's sends): list their headers, show one's
// results, undo it, resume it, prune the old ones.
func (a *app) runsCommand() *cobra.Command {
	return group("runs", "List, show, undo and resume the batch runs of the CLI and the UI",
		`Every batch run, from the command line or the UI, is recorded in the
journal directory (shush config shows it): what was sent where, for which
ticket, and each entry's outcome. A run is named by its ID; any unique
beginning of it will do.

Finished runs older than keep_runs_days (config file, default 90) are
pruned when a new run starts; a run with entries left to send is kept
until it is resumed or pruned by hand.`,
		a.runsListCommand(), a.runsShowCommand(), a.runsUndoCommand(), a.runsResumeCommand(), a.runsPruneCommand())
}

// recorded is the run service of the journal directory, for commands that
// only read runs (no connection, no client).
func (a *app) recorded() (*batch.Runs, error) {
	dir, err := journalDirOf()
	if err != nil {
		return nil, err
	}
	return &batch.Runs{Dir: dir, Source: "cli"}, nil
}

// findRun finds the run an argument names (its ID or a unique beginning
// of it) in the journal directory, with exact counts.
func (a *app) findRun(id string) (*batch.Runs, batch.RunInfo, error) {
	rs, err := a.recorded()
	if err != nil {
		return nil, batch.RunInfo{}, err
	}
	ri, err := rs.Get(id)
	if err != nil {
		return nil, ri, usagef("%v", err)
	}
	return rs, ri, nil
}

// onRun finds the run arg names and connects to the configured service
// for fn, every request carrying the run's reference; the connection
// closes after fn.
func (a *app) onRun(ctx context.Context, arg string, fn func(context.Context, batch.RunInfo, *connection) error) error {
	_, ri, err := a.findRun(arg)
	if err != nil {
		return err
	}
	ctx = client.WithReference(ctx, ri.Reference)
	conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(ctx, ri, conn)
}

type runsListOptions struct {
	*app
}

func runRunsList(ctx context.Context, o *runsListOptions) error {
	rs, err := o.recorded()
	if err != nil {
		return err
	}
	runs, err := rs.List()
	if err != nil {
		return err
	}
	if o.output().json {
		if runs == nil {
			runs = []batch.RunInfo{}
		}
		return writeJSON(o.io.Out, map[string]any{"object": "list", "data": runs})
	}
	if len(runs) == 0 {
		fmt.Fprintf(o.io.Out, "No runs recorded in %s.\n", rs.Dir)
		return nil
	}
	t := newTable(o.io.Out)
	t.row("RUN", "STARTED", "MODE", "ENTRIES", "STATE", "OUTCOMES", "REFERENCE", "TARGET")
	for _, ri := range runs {
		t.row(ri.ID, ri.Created.Local().Format("2006-01-02 15:04"), runMode(ri), fmt.Sprint(ri.Entries),
			stateText(ri), countsLine(ri.Counts), dash(ri.Reference), client.TargetName(ri.Target))
	}
	return t.flush()
}

func (a *app) runsListCommand() *cobra.Command {
	o := &runsListOptions{app: a}
	cmd := command(o, "list", "List the recorded runs, newest first", cobra.NoArgs, runRunsList)
	cmd.Aliases = []string{"ls"}
	return cmd
}

type runsShowOptions struct {
	*app
	Arg string
}

func runRunsShow(ctx context.Context, o *runsShowOptions) error {
	rs, ri, err := o.findRun(o.Arg)
	if err != nil {
		return err
	}
	if o.output().json {
		m := newMergedWriter(o.io.Out)
		var first batch.Report
		if _, err := rs.Read(ri.ID, func(rep batch.Report) error {
			if rep.Base == 0 {
				first = rep
			}
			m.add(ri.Mode, rep)
			return nil
		}); err != nil {
			return err
		}
		return m.close(first.Invalid, first.LeftOut)
	}
	w := o.io.Out
	o.printRunHeader(w, ri)
	fmt.Fprintln(w)
	t := newTable(w)
	head := "ADDRESS"
	if ri.Mode == batch.RemoveIDs {
		head = "SENT ID"
	}
	t.row(head, "ID", "OUTCOME", "BATCH")
	var first batch.Report
	ri, err = rs.Read(ri.ID, func(rep batch.Report) error {
		if rep.Base == 0 {
			first = rep
		}
		for _, r := range rep.Results {
			outcome := r.Outcome.Text()
			if r.Message != "" {
				outcome += ": " + r.Message
			}
			t.row(r.Input, dash(r.ID), outcome, fmt.Sprint(r.Batch))
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s.\n", capitalize(countsLine(ri.Counts)))
	// What the customer is told includes what was not sent, and why.
	if n := len(first.Invalid); n > 0 {
		fmt.Fprintf(w, "Invalid, not sent: %s.\n", plural(n, "entry", "entries"))
		o.listInvalid(w, first.Invalid, n)
	}
	o.listLeftOut(w, first.LeftOut)
	return nil
}

func (a *app) runsShowCommand() *cobra.Command {
	o := &runsShowOptions{app: a}
	return command(o, "show RUN", "Show a run and every entry's outcome", cobra.ExactArgs(1), runRunsShow, &o.Arg)
}

func (a *app) printRunHeader(w io.Writer, ri batch.RunInfo) {
	t := newTable(w)
	t.row("Run:", ri.ID)
	t.row("Started:", ri.Created.Local().Format("2006-01-02 15:04:05"))
	t.row("Mode:", runMode(ri))
	t.row("Target:", client.TargetName(ri.Target))
	if ri.Reference != "" {
		t.row("Reference:", ri.Reference)
	}
	if ri.Input != "" {
		t.row("Input:", ri.Input+" ("+ri.Source+")")
	}
	t.row("Entries:", fmt.Sprintf("%d (%d invalid and %d duplicates left out)", ri.Entries, ri.Invalid, ri.Duplicates))
	t.row("State:", stateText(ri))
	if ri.Note != "" {
		t.row("Stopped by:", ri.Note)
	}
	_ = t.flush()
}

type runsUndoOptions struct {
	*app
	Arg         string
	Yes, DryRun bool
}

func runRunsUndo(ctx context.Context, o *runsUndoOptions) error {
	return o.onRun(ctx, o.Arg, o.undo)
}

// undo plans the undo of run ri, and sends it on conn once it is agreed.
func (o *runsUndoOptions) undo(ctx context.Context, ri batch.RunInfo, conn *connection) error {
	runs := o.runsOf(false, conn, 0)
	u, err := runs.PlanUndo(ctx, ri.ID)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("Undo the %s run %s of %s: %s %s on %s.", ri.Mode, ri.ID, ri.Created.Local().Format(time.DateTime),
		undoVerb(u.Mode), entriesOf(u.Mode, len(u.Values)), conn.Target)
	if o.DryRun {
		return o.printUndo(u, conn.Target, what)
	}
	fmt.Fprint(o.io.ErrOut, undoSays(u, what))
	if len(u.Values) == 0 {
		return nil
	}
	show := func(width int) string { return touchList("It would "+undoVerb(u.Mode)+":", undoLines(u), width) }
	if ok, err := o.confirmAfter(ctx, o.Yes, false, "Go ahead?", show); !ok {
		return err
	}
	send := func(on batch.Observer) error {
		_, err := runs.Undo(ctx, u, on)
		return err
	}
	return o.sendRun(ctx, conn.Target, newSummary(u.Mode, len(u.Values)), "shush runs resume RUN (shush runs list names it)", send)
}

func (a *app) runsUndoCommand() *cobra.Command {
	o := &runsUndoOptions{app: a}
	cmd := command(o, "undo RUN", "Undo a run: remove what it added, put back what it removed",
		cobra.ExactArgs(1), runRunsUndo, &o.Arg)
	cmd.Long = `Undo a run, from any session, days later.

The undo of an addition removes, by ID, only the entries the run itself
created: entries listed before the run stay, and so does an entry someone
removed and added again since (it has another ID). The undo of a removal
adds the removed addresses back with the origin they had (bounce,
complaint, …) where the service takes origins (shush's own service); it
says beforehand which will come back as manual.`
	cmd.Flags().BoolVarP(&o.Yes, "yes", "y", false, "undo without asking")
	cmd.Flags().BoolVar(&o.DryRun, "dry-run", false, "say what the undo would send, every entry, and send nothing")
	return cmd
}

// undoEntry is one entry an undo would touch, for --dry-run --json.
type undoEntry struct {
	Email  string     `json:"email,omitempty"`
	ID     string     `json:"id,omitempty"`
	Origin api.Origin `json:"origin,omitempty"`
}

// undoEntries lists what u would touch: the entries it removes by ID
// (with their address), or the addresses it puts back (with the origin
// they come back with).
func undoEntries(u batch.Undo) []undoEntry {
	out := make([]undoEntry, 0, len(u.Values))
	for _, v := range u.Values {
		if u.Mode == batch.RemoveIDs {
			out = append(out, undoEntry{ID: v, Email: u.Emails[v]})
			continue
		}
		o := api.OriginManual
		if to, ok := u.Restore[v]; ok && to.Origin != "" {
			o = to.Origin
		}
		out = append(out, undoEntry{Email: v, Origin: o})
	}
	return out
}

// undoLines is undoEntries for a person: "jane@example.com (bounce)",
// "jane@example.com (ID 0195…)".
func undoLines(u batch.Undo) []string {
	var out []string
	for _, e := range undoEntries(u) {
		switch {
		case e.ID != "" && e.Email != "":
			out = append(out, e.Email+" (ID "+e.ID+")")
		case e.ID != "":
			out = append(out, e.ID)
		default:
			out = append(out, e.Email+" ("+string(e.Origin)+")")
		}
	}
	return out
}

// printUndo is runs undo --dry-run: what the undo would send, every entry,
// and nothing sent.
func (a *app) printUndo(u batch.Undo, target, what string) error {
	if a.output().json {
		notes := u.Notes
		if notes == nil {
			notes = []string{}
		}
		return writeJSON(a.io.Out, map[string]any{"dry_run": true, "undo_of": u.Of.ID, "mode": u.Mode.String(),
			"target": target, "notes": notes, "entries": undoEntries(u)})
	}
	s := undoSays(u, what)
	if len(u.Values) > 0 {
		s += touchList("It would "+undoVerb(u.Mode)+":", undoLines(u), widthOf(a.io.Out))
	}
	return a.page(a.io.Out, s+"Nothing was sent (--dry-run).\n")
}

// undoSays is what an undo says first, and all it says when there is
// nothing to undo: what (the run, what the undo does, where), then the
// notes of its plan, one a line.
func undoSays(u batch.Undo, what string) string {
	s := safeText(what) + "\n"
	for _, n := range u.Notes {
		s += "  " + safeText(n) + "\n"
	}
	if len(u.Values) == 0 {
		s += "Nothing to undo: the run changed nothing that can be put back.\n"
	}
	return s
}

func undoVerb(m batch.Mode) string {
	if m == batch.Add {
		return "put back"
	}
	return "remove"
}

type runsResumeOptions struct {
	*app
	Arg              string
	Concurrency      int
	ConcurrencyGiven bool
}

func runRunsResume(ctx context.Context, o *runsResumeOptions) error {
	if err := checkConcurrency(o.ConcurrencyGiven, o.Concurrency); err != nil {
		return err
	}
	return o.onRun(ctx, o.Arg, o.resume)
}

// resume sends what run ri has left on conn, the service it was sent to.
func (o *runsResumeOptions) resume(ctx context.Context, ri batch.RunInfo, conn *connection) error {
	if !client.SameTarget(ri.Target, conn.Client.BaseURL()) {
		return usagef("run %s was sent to %s, not %s: resume it with the same --profile or --base-url", ri.ID, client.TargetName(ri.Target), conn.Target)
	}
	switch ri.State {
	case batch.Refused:
		return usagef("run %s was refused by the service (%s): nothing is resumed with a key it refuses; send the list again with a key that may change the list", ri.ID, ri.Note)
	case batch.Finished:
		fmt.Fprintf(o.io.ErrOut, "Run %s is finished: nothing left to send.\n", ri.ID)
		return nil
	}
	if !ri.Resumable() && ri.RefusedAsSent > 0 {
		return fmt.Errorf("run %s has nothing to send again: its %d failed entries were refused as sent, and the same entries would be refused again; take out what the service named (shush runs show %s) and send the corrected file as a new run", ri.ID, ri.RefusedAsSent, ri.ID)
	}
	o.sayResuming(ri)
	runs := o.runsOf(o.ConcurrencyGiven, conn, o.Concurrency)
	send := func(on batch.Observer) error {
		_, err := runs.Resume(ctx, ri.ID, on)
		return err
	}
	return o.sendRun(ctx, conn.Target, summaryOf(ri), "shush runs resume "+ri.ID, send)
}

func (a *app) runsResumeCommand() *cobra.Command {
	o := &runsResumeOptions{app: a}
	cmd := command(o, "resume RUN", "Send what a stopped or interrupted run has left",
		cobra.ExactArgs(1), runRunsResume, &o.Arg)
	cmd.Long = `Send what a run has left: the batches its journal does not record as
answered. Nothing answered is sent twice, so the run ends with exactly the
intended list. The run must be resumed against the service it was sent to.

` + concurrencyHelp
	cmd.Flags().IntVar(&o.Concurrency, "concurrency", 0, "batches in flight at once (1–16; default: chosen for the target, see above)")
	flagGiven(cmd, "concurrency", &o.ConcurrencyGiven)
	return cmd
}

type runsPruneOptions struct {
	*app
	Days      int
	DaysGiven bool
}

func runRunsPrune(ctx context.Context, o *runsPruneOptions) error {
	rs, err := o.recorded()
	if err != nil {
		return err
	}
	var keep time.Duration
	if o.DaysGiven {
		if o.Days < 0 {
			return usagef("--older-than-days must be 0 or more, not %d", o.Days)
		}
		keep = time.Duration(o.Days) * 24 * time.Hour
	} else {
		s, err := o.settings()
		if err != nil {
			return err
		}
		keep = s.KeepRuns
	}
	n, err := rs.Prune(time.Now().Add(-keep))
	if err != nil {
		return err
	}
	if o.output().json {
		return writeJSON(o.io.Out, map[string]int{"pruned": n, "older_than_days": int(keep / (24 * time.Hour))})
	}
	fmt.Fprintf(o.io.Out, "Pruned %s finished more than %s ago.\n", plural(n, "run", "runs"), daysText(keep))
	return nil
}

func (a *app) runsPruneCommand() *cobra.Command {
	o := &runsPruneOptions{app: a}
	cmd := command(o, "prune [--older-than-days N]", "Delete finished runs older than keep_runs_days (or N days)",
		cobra.NoArgs, runRunsPrune)
	cmd.Flags().IntVar(&o.Days, "older-than-days", 0, "prune finished runs older than this many days (default: keep_runs_days)")
	flagGiven(cmd, "older-than-days", &o.DaysGiven)
	return cmd
}

// pruneRuns deletes the finished runs older than keep, before a new run;
// a failure only costs disk and is not the run's.
func (a *app) pruneRuns(rs *batch.Runs, keep time.Duration) {
	if _, err := rs.Prune(time.Now().Add(-keep)); err != nil {
		fmt.Fprintf(a.io.ErrOut, "shush: pruning old runs: %v\n", err)
	}
}

func daysText(d time.Duration) string {
	return plural(int(d/(24*time.Hour)), "day", "days")
}

func runMode(ri batch.RunInfo) string {
	if ri.UndoOf != "" {
		return ri.Mode.String() + " (undo)"
	}
	return ri.Mode.String()
}

func stateText(ri batch.RunInfo) string {
	switch ri.State {
	case batch.Running:
		return "running or cut off"
	case batch.Stopped, batch.Paused:
		if ri.RefusedAsSent > 0 {
			return fmt.Sprintf("%s, %d of %d sent, %d refused as sent", ri.State, ri.Sent(), ri.Entries, ri.RefusedAsSent)
		}
		return fmt.Sprintf("%s, %d of %d sent", ri.State, ri.Sent(), ri.Entries)
	case batch.Refused:
		return fmt.Sprintf("refused (the key), %d of %d sent", ri.Sent(), ri.Entries)
	}
	return string(ri.State)
}

// countsLine is a run's outcomes in words: "3 added, 1 already listed".
func countsLine(c map[batch.Outcome]int) string {
	if s := batch.CountsText(c, ", "); s != "" {
		return s
	}
	return "nothing"
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
