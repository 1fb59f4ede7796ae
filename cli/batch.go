package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
)

// ExitInterrupted is the exit status of a batch run stopped by SIGINT or
// SIGTERM (128 + SIGINT, as shells report it); --resume finishes it.
const ExitInterrupted = 130

// defaultConcurrency is how many batches are in flight at once unless
// --concurrency says otherwise: one, so that batches reach the service in
// the order of the input and a failure is easy to read.
const defaultConcurrency = 1

// maxShownInvalid bounds how many invalid entries a human summary lists.
const maxShownInvalid = 20

// maxShownResults is the largest run whose entries the human summary lists
// one by one (address, ID, outcome); a larger run gets counts only.
const maxShownResults = 50

// batchFlags are the flags of "suppressions batch add|remove".
type batchFlags struct {
	file        string
	ids         bool
	dryRun      bool
	asJSON      bool
	yes         bool
	resume      bool
	concurrency int
	reference   string
	// includeRequester takes in the addresses a ticket names only in its
	// headers, attributions or signature.
	includeRequester bool
}

func (a *app) batchAddCommand() *cobra.Command {
	var f batchFlags
	cmd := &cobra.Command{
		Use:   "add --file F",
		Short: "Put every address of a file on the list",
		Long: `Put every address of a file (or stdin with --file -) on the list, in batches of
up to 100. The file may be a JSON array of strings, a JSON request body
({"emails": [...]}), CSV or TSV with an "email" column (or one column), one
address per line, or free text pasted from a ticket.

Addresses are normalized (trimmed, lowercased) and de-duplicated; invalid
entries are left out and reported with their line. --dry-run shows the plan
and sends nothing. An interrupted run (Ctrl-C, a crash) is finished by
running the same command again with --resume: batches already sent are not
sent again.`,
		Example: `  shush suppressions batch add --file bounces.csv
  shush suppressions batch add --file bounces.csv --dry-run
  cat addresses.txt | shush suppressions batch add --file - --json
  shush suppressions batch add --file bounces.csv --resume`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runBatch(cmd, batch.Add, f)
		},
	}
	addBatchFlags(cmd, &f, false)
	return cmd
}

func (a *app) batchRemoveCommand() *cobra.Command {
	var f batchFlags
	cmd := &cobra.Command{
		Use:     "remove --file F [--ids]",
		Aliases: []string{"rm"},
		Short:   "Take every address (or ID) of a file off the list",
		Long: `Take every address of a file (or stdin with --file -) off the list, or every
suppression ID with --ids, in batches of up to 100. The formats are those of
"batch add" ({"ids": [...]} bodies too).

Mail may be sent to removed addresses again, so shush asks first on a
terminal; without a terminal (or with the entries on stdin) it needs --yes.
Entries that are not on the list are reported, not an error.`,
		Example: `  shush suppressions batch remove --file resolved.txt
  shush suppressions batch remove --file ids.json --ids --yes --json
  shush suppressions batch remove --file resolved.txt --dry-run`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			mode := batch.RemoveEmails
			if f.ids {
				mode = batch.RemoveIDs
			}
			return a.runBatch(cmd, mode, f)
		},
	}
	addBatchFlags(cmd, &f, true)
	return cmd
}

func addBatchFlags(cmd *cobra.Command, f *batchFlags, remove bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.file, "file", "", "file of entries; - reads stdin")
	fl.BoolVar(&f.dryRun, "dry-run", false, "show the plan (counts, batches, invalid entries) and send nothing")
	fl.BoolVar(&f.asJSON, "json", false, "print the API's JSON, batches merged into one data array")
	fl.BoolVar(&f.resume, "resume", false, "finish the last interrupted run of this command against this service")
	fl.IntVar(&f.concurrency, "concurrency", defaultConcurrency, "batches in flight at once (1-16); the client keeps within the rate limit")
	fl.BoolVar(&f.includeRequester, "include-requester", false, "also send the addresses a ticket names only in its headers, reply attributions or signature (our own addresses, config own, never go)")
	fl.StringVar(&f.reference, "reference", "", "ticket number or URL sent with every request of the run (Shush-Reference), kept in the service's audit trail")
	if remove {
		fl.BoolVar(&f.ids, "ids", false, "the entries are suppression IDs, not addresses")
		fl.BoolVar(&f.yes, "yes", false, "remove without asking")
	}
}

// readInput reads the entries of --file.
func (a *app) readInput(file string, mode batch.Mode) ([]batch.Item, batch.Format, error) {
	if file == "" {
		return nil, 0, usagef("--file is required: a file of entries, or - for stdin")
	}
	var r io.Reader = a.io.In
	name := "stdin"
	if file != "-" {
		fh, err := os.Open(file)
		if err != nil {
			return nil, 0, usagef("cannot read %s: %v", file, errors.Unwrap(err))
		}
		defer fh.Close()
		r, name = fh, file
	} else if r == nil || isTerminal(r) {
		return nil, 0, usagef("--file - reads stdin, but nothing is piped to it")
	}
	items, format, err := batch.ReadFormat(r, name, mode)
	if err != nil {
		return nil, format, usageErr{err}
	}
	if len(items) == 0 {
		return nil, format, usagef("%s holds no entries", name)
	}
	return items, format, nil
}

func (a *app) runBatch(cmd *cobra.Command, mode batch.Mode, f batchFlags) error {
	if f.concurrency < 1 || f.concurrency > 16 {
		return usagef("--concurrency must be between 1 and 16, not %d", f.concurrency)
	}
	if f.dryRun && f.resume {
		return usagef("give --dry-run or --resume, not both")
	}
	if f.reference != "" {
		if err := api.ValidReference(f.reference); err != nil {
			return usagef("--reference: %v", err)
		}
	}
	items, format, err := a.readInput(f.file, mode)
	if err != nil {
		return err
	}
	settings, err := a.settings()
	if err != nil {
		return err
	}
	// Our own addresses never go; a ticket's requester only on request.
	keep, left := batch.LeaveOut(items, batch.NewOwn(settings.Own), f.includeRequester)
	plan := batch.NewPlan(mode, keep)
	out := a.output(f.asJSON)
	if f.dryRun {
		return a.printPlan(out, plan, left, format, len(items), settings.Target())
	}
	if len(plan.Values) == 0 {
		return usagef("%s has no valid entries to send: %s", inputName(f.file), describeInvalid(plan.Invalid, 3))
	}
	if mode != batch.Add {
		q := fmt.Sprintf("Remove %s from %s?", entriesOf(mode, len(plan.Values)), settings.Target())
		if ok, err := a.confirm(cmd.Context(), f.yes, f.file == "-", q); !ok {
			return err
		}
	}

	ctx := api.WithReference(cmd.Context(), f.reference)
	conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	resumeID := ""
	if f.resume {
		if resumeID, err = a.interruptedRun(conn, plan, f.file); err != nil {
			return err
		}
	} else {
		a.pruneRuns(conn)
	}
	send := func(r *batch.Runner) error {
		if resumeID != "" {
			_, err := r.ResumeRun(ctx, resumeID)
			return err
		}
		_, err := r.Send(ctx, plan, batch.RunMeta{Reference: f.reference, Source: "cli", Input: inputName(f.file)})
		return err
	}
	return a.sendRun(ctx, conn, newSummary(plan), left, f.asJSON, f.concurrency, a.resumeCommand(cmd, f), send)
}

// sendRun runs send with a Runner that reports into sum, prints the run's
// report (or its --json document) and says how it ended: the exit status
// and, for a run with entries left, the command that finishes it.
func (a *app) sendRun(ctx context.Context, conn *connection, sum *summary, left []batch.LeftOut, asJSON bool, concurrency int, resume string, send func(*batch.Runner) error) error {
	plan := sum.plan
	progress := a.progress(sum.batches, sum.entries)
	var merged *mergedWriter
	if a.output(asJSON).json {
		merged = newMergedWriter(a.io.Out)
	}
	runner := &batch.Runner{Client: conn.Client, Concurrency: concurrency, JournalDir: conn.JournalDir, OnEvent: progress.event,
		OnSegment: func(rep batch.Report) {
			sum.add(rep)
			if merged != nil {
				merged.add(plan.Mode, rep)
			}
		}}
	runErr := send(runner)
	progress.clear()

	if merged != nil {
		if err := merged.close(plan.Invalid, left); err != nil {
			return err
		}
		if len(plan.Invalid) > 0 {
			fmt.Fprintf(a.io.Err, "shush: left out %s: %s\n", plural(len(plan.Invalid), "invalid entry", "invalid entries"), describeInvalid(plan.Invalid, 3))
		}
	} else {
		a.printReport(sum, conn.Target)
		a.listLeftOut(a.io.Out, left)
	}

	var paused *batch.PausedError
	switch {
	case errors.As(runErr, &paused):
		return exitErr{ExitFailed, fmt.Errorf("%v; %s of %s not sent; when the service is back, finish the run with: %s",
			paused, plural(sum.unsent(), "batch", "batches"), plural(sum.batches, "batch", "batches"), resume)}
	case runErr != nil && ctx.Err() != nil:
		return exitErr{ExitInterrupted, fmt.Errorf("interrupted with %s of %s not sent; finish the run with: %s",
			plural(sum.unsent()+len(sum.failed), "batch", "batches"), plural(sum.batches, "batch", "batches"), resume)}
	case runErr != nil:
		return runErr
	case !sum.complete():
		return exitErr{ExitFailed, fmt.Errorf("%s of %s failed; send them again with: %s",
			plural(len(sum.failed)+sum.unsent(), "batch", "batches"), plural(sum.batches, "batch", "batches"), resume)}
	}
	return nil
}

// interruptedRun finds the newest unfinished run of this mode against the
// connection's service whose plan is the one the file given now makes
// (resuming finishes the recorded plan, so a different file would
// silently not be sent). When unfinished runs exist but none is of this
// file, it refuses rather than guess; when there are none, a new run
// starts ("" is returned). Only the runs' headers are read.
func (a *app) interruptedRun(conn *connection, plan batch.Plan, file string) (string, error) {
	runs, err := batch.Runs(conn.JournalDir)
	if err != nil {
		return "", err
	}
	sum := batch.Sum(plan.Values)
	var newest *batch.RunInfo
	for i, ri := range runs {
		if ri.Target != conn.Client.BaseURL() || ri.Mode != plan.Mode || !ri.Resumable() {
			continue
		}
		if newest == nil {
			newest = &runs[i]
		}
		if ri.Entries == len(plan.Values) && ri.Sum == sum {
			a.sayResuming(conn.JournalDir, ri)
			return ri.ID, nil
		}
	}
	if newest != nil {
		return "", usagef("the last interrupted %s run on %s was of other entries (%d) than %s holds (%d); resume it with the same file, or with: shush runs resume %s",
			plan.Mode, conn.Target, newest.Entries, inputName(file), len(plan.Values), newest.ID)
	}
	fmt.Fprintf(a.io.Err, "No interrupted %s run on %s; starting a new one.\n", plan.Mode, conn.Target)
	return "", nil
}

// sayResuming tells what a resume picks up. A run cut off by a crash has
// a header older than its journals, so they are read for the count.
func (a *app) sayResuming(dir string, ri batch.RunInfo) {
	if ri.State == batch.Running {
		if exact, err := batch.Load(dir, ri.ID, nil); err == nil {
			ri = exact
		}
	}
	fmt.Fprintf(a.io.Err, "Resuming the run of %s: %d of %d entries were sent.\n", ri.Created.Local().Format(time.DateTime), ri.Sent(), ri.Entries)
}

// resumeCommand is the command line that finishes this run: the same
// command with --resume, and the target flags that were given (never the
// key).
func (a *app) resumeCommand(cmd *cobra.Command, f batchFlags) string {
	parts := []string{"shush"}
	if a.globals.profile != "" {
		parts = append(parts, "--profile", shellQuote(a.globals.profile))
	}
	if a.globals.baseURL != "" {
		parts = append(parts, "--base-url", shellQuote(a.globals.baseURL))
	}
	parts = append(parts, strings.Fields(strings.TrimPrefix(cmd.CommandPath(), "shush "))...)
	parts = append(parts, "--file", shellQuote(f.file))
	if f.ids {
		parts = append(parts, "--ids")
	}
	if f.yes {
		parts = append(parts, "--yes")
	}
	return strings.Join(append(parts, "--resume"), " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@=+,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func inputName(file string) string {
	if file == "-" {
		return "stdin"
	}
	return file
}

// describeInvalid names the first n invalid entries with line and reason.
func describeInvalid(items []batch.Item, n int) string {
	var parts []string
	for i, it := range items {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more (--dry-run lists them)", len(items)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("line %d %s: %s", it.Line, api.Quote(it.Raw), it.Problem))
	}
	return strings.Join(parts, "; ")
}

// planView is what --dry-run --json prints.
type planView struct {
	DryRun     bool            `json:"dry_run"`
	Mode       string          `json:"mode"`
	Target     string          `json:"target"`
	Format     string          `json:"format"`
	Entries    int             `json:"entries"`
	Valid      int             `json:"valid"`
	Duplicates int             `json:"duplicates"`
	Invalid    []batch.Item    `json:"invalid"`
	LeftOut    []batch.LeftOut `json:"left_out"`
	Batches    int             `json:"batches"`
	BatchSize  int             `json:"batch_size"`
}

func (a *app) printPlan(out outputMode, plan batch.Plan, left []batch.LeftOut, format batch.Format, entries int, target string) error {
	v := planView{DryRun: true, Mode: plan.Mode.String(), Target: target, Format: format.String(), Entries: entries,
		Valid: len(plan.Values), Duplicates: plan.Duplicates, Invalid: plan.Invalid, LeftOut: left, Batches: len(plan.Batches()), BatchSize: api.MaxBatch}
	if v.Invalid == nil {
		v.Invalid = []batch.Item{}
	}
	if v.LeftOut == nil {
		v.LeftOut = []batch.LeftOut{}
	}
	if out.json {
		return writeJSON(a.io.Out, v)
	}
	w := a.io.Out
	verb := "add"
	if plan.Mode != batch.Add {
		verb = "remove"
	}
	fmt.Fprintf(w, "Would %s %s on %s in %s of up to %d.\n", verb, entriesOf(plan.Mode, v.Valid),
		safeText(target), plural(v.Batches, "batch", "batches"), api.MaxBatch)
	fmt.Fprintf(w, "Read %s (%s): %d to send, %s, %d invalid.\n", plural(entries, "entry", "entries"), format,
		v.Valid, plural(v.Duplicates, "duplicate", "duplicates"), len(v.Invalid))
	a.listInvalid(w, plan.Invalid, len(plan.Invalid))
	a.listLeftOut(w, left)
	fmt.Fprintln(w, "Nothing was sent (--dry-run).")
	return nil
}

// listLeftOut prints the valid addresses left out of the plan, with why:
// our own, or the ticket's requester (which --include-requester takes in).
func (a *app) listLeftOut(w io.Writer, left []batch.LeftOut) {
	if len(left) == 0 {
		return
	}
	requester := false
	for _, l := range left {
		requester = requester || l.Requester()
	}
	hint := ""
	if requester {
		hint = "; --include-requester takes the requester's in"
	}
	fmt.Fprintf(w, "Left out %s%s:\n", plural(len(left), "address", "addresses"), hint)
	t := newTable(w)
	for _, l := range left {
		t.row("  line "+fmt.Sprint(l.Line), l.Value, l.Reason)
	}
	_ = t.flush()
}

// listInvalid prints up to max invalid entries, one a line.
func (a *app) listInvalid(w io.Writer, items []batch.Item, max int) {
	for i, it := range items {
		if i == max {
			fmt.Fprintf(w, "  … and %d more (--dry-run lists them all)\n", len(items)-max)
			return
		}
		fmt.Fprintf(w, "  line %d: %s: %s\n", it.Line, safeText(api.Quote(it.Raw)), safeText(it.Problem))
	}
}

func (a *app) printReport(sum *summary, target string) {
	w := a.io.Out
	counts := sum.outcomes()
	var parts []string
	for _, o := range []batch.Outcome{batch.Added, batch.AlreadyListed, batch.Removed, batch.NotListed, batch.Unverified, batch.Failed, batch.Unsent} {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o.Text()))
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "nothing to send")
	}
	plan := sum.plan
	if sum.results > 0 && sum.results <= maxShownResults {
		a.listResults(w, plan.Mode, sum.shown)
	}
	fmt.Fprintf(w, "%s on %s, %s: %s.\n", capitalize(plan.Mode.String()), safeText(target),
		plural(sum.batches, "batch", "batches"), strings.Join(parts, ", "))
	if sum.results > maxShownResults {
		fmt.Fprintf(w, "(--json lists every entry with its ID.)\n")
	}
	if plan.Duplicates > 0 || len(plan.Invalid) > 0 {
		fmt.Fprintf(w, "Left out: %s, %d invalid.\n", plural(plan.Duplicates, "duplicate", "duplicates"), len(plan.Invalid))
		a.listInvalid(w, plan.Invalid, maxShownInvalid)
	}
	for _, b := range sum.failed {
		fmt.Fprintf(w, "Batch %d failed: %s\n", b.number, safeText(b.message))
	}
}

// listResults prints one row per entry: what was sent, the suppression ID
// the service returned, and the outcome (with the service's message for a
// failure).
func (a *app) listResults(w io.Writer, mode batch.Mode, results []batch.Result) {
	head := "ADDRESS"
	if mode == batch.RemoveIDs {
		head = "SENT ID"
	}
	t := newTable(w)
	t.row(head, "ID", "OUTCOME")
	for _, r := range results {
		outcome := r.Outcome.Text()
		switch {
		case r.Outcome == batch.Removed:
			outcome += " (deleted: true)"
		case r.Message != "":
			outcome += ": " + r.Message
		}
		id := r.ID
		if id == "" {
			id = "-"
		}
		t.row(r.Input, id, outcome)
	}
	t.flush()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// runItem is one entry of a run's --json document: what the service says
// of it, the outcome a script acts on, and why when it is not settled.
type runItem struct {
	Object  string        `json:"object"`
	ID      string        `json:"id,omitempty"`
	Email   string        `json:"email,omitempty"`
	Outcome batch.Outcome `json:"outcome"`
	Deleted *bool         `json:"deleted,omitempty"`
	Error   string        `json:"error,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	Batch   int           `json:"batch,omitempty"`
}

func itemOf(mode batch.Mode, r batch.Result) runItem {
	it := runItem{Object: api.ObjectSuppression, ID: r.ID, Email: r.Input, Outcome: r.Outcome, Batch: r.Batch}
	if mode == batch.RemoveIDs {
		it.Email = r.Email
		if it.ID == "" {
			it.ID = r.Input
		}
	}
	if mode != batch.Add && (r.Outcome == batch.Removed || r.Outcome == batch.NotListed) {
		d := r.Outcome == batch.Removed
		it.Deleted = &d
	}
	switch r.Outcome {
	case batch.Failed, batch.Unsent:
		it.Error = r.Message
		if it.Error == "" && r.Outcome == batch.Unsent {
			it.Error = "not sent: the run stopped first"
		}
	default:
		it.Reason = r.Message
	}
	return it
}

// mergedWriter prints a run as one JSON document a script can act on:
// `data` with an item per entry (object, id, email, outcome; deleted for
// removals; error for failures; reason for unverified entries), then the
// invalid entries left out. It streams, so that a run of millions of
// entries never holds its whole answer in memory; every string is escaped
// so that the document is exact and still safe on a terminal.
type mergedWriter struct {
	bw *bufio.Writer
	n  int
}

func newMergedWriter(w io.Writer) *mergedWriter {
	m := &mergedWriter{bw: bufio.NewWriterSize(w, 64<<10)}
	m.bw.WriteString("{\n  \"object\": \"list\",\n  \"data\": [")
	return m
}

// add prints the items of one report.
func (m *mergedWriter) add(mode batch.Mode, rep batch.Report) {
	for _, r := range rep.Results {
		b, err := json.Marshal(itemOf(mode, r))
		if err != nil {
			continue
		}
		if m.n > 0 {
			m.bw.WriteByte(',')
		}
		m.n++
		m.bw.WriteString("\n    ")
		m.bw.Write(safe.JSON(b))
	}
}

// close ends the data, adds the invalid entries and the addresses left
// out, and flushes.
func (m *mergedWriter) close(invalid []batch.Item, left []batch.LeftOut) error {
	type invalidItem struct {
		Line    int    `json:"line"`
		Entry   string `json:"entry"`
		Problem string `json:"problem"`
	}
	type leftItem struct {
		Line   int    `json:"line"`
		Email  string `json:"email"`
		Reason string `json:"reason"`
	}
	inv := make([]any, len(invalid))
	for i, it := range invalid {
		inv[i] = invalidItem{it.Line, it.Raw, it.Problem}
	}
	lo := make([]any, len(left))
	for i, l := range left {
		lo[i] = leftItem{l.Line, l.Value, l.Reason}
	}
	m.endArray(m.n)
	m.array("invalid", inv)
	m.array("left_out", lo)
	m.bw.WriteString("\n}\n")
	return m.bw.Flush()
}

// array writes `,\n  "name": [items]`, one item a line.
func (m *mergedWriter) array(name string, items []any) {
	m.bw.WriteString(",\n  \"" + name + "\": [")
	n := 0
	for _, v := range items {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if n > 0 {
			m.bw.WriteByte(',')
		}
		n++
		m.bw.WriteString("\n    ")
		m.bw.Write(safe.JSON(b))
	}
	m.endArray(n)
}

// endArray closes an array of n items.
func (m *mergedWriter) endArray(n int) {
	if n > 0 {
		m.bw.WriteString("\n  ")
	}
	m.bw.WriteByte(']')
}

// writeMerged prints one report as the run's JSON document.
func writeMerged(w io.Writer, mode batch.Mode, rep batch.Report) error {
	m := newMergedWriter(w)
	m.add(mode, rep)
	return m.close(rep.Plan.Invalid, nil)
}

// exitErr is an error with its own exit status.
type exitErr struct {
	code int
	err  error
}

func (e exitErr) Error() string { return e.err.Error() }
func (e exitErr) Unwrap() error { return e.err }
func (e exitErr) ExitCode() int { return e.code }

// progressLine shows a run's progress on stderr, one line rewritten in
// place; it is silent unless stderr is a terminal and the run has more
// than one batch.
type progressLine struct {
	w       io.Writer
	on      bool
	started time.Time
	// batches and total count the whole plan (events count across a
	// run's segments).
	batches, total int
}

func (a *app) progress(batches, total int) *progressLine {
	return &progressLine{w: a.io.Err, on: batches > 1 && isTerminal(a.io.Err), started: time.Now(), batches: batches, total: total}
}

func (p *progressLine) event(e batch.Event) {
	if !p.on {
		return
	}
	if e.Kind == batch.Listing {
		fmt.Fprintf(p.w, "\r\x1b[Kreading the list to find the IDs · %s", plural(e.Pages, "page", "pages"))
		return
	}
	done := e.Done
	line := fmt.Sprintf("batch %d/%d · %d/%d entries", e.Batch, p.batches, done, p.total)
	switch e.Kind {
	case batch.Waiting:
		line += fmt.Sprintf(" · waiting %s (%s)", e.Wait.Round(100*time.Millisecond), e.Reason)
	case batch.BatchFailed:
		line += " · batch failed"
	}
	if done > 0 {
		el := time.Since(p.started)
		left := time.Duration(float64(el) / float64(done) * float64(p.total-done))
		line += fmt.Sprintf(" · %s left", left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s", line)
}

func (p *progressLine) clear() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// entriesOf counts the entries of a mode: "3 addresses", "1 ID".
func entriesOf(mode batch.Mode, n int) string {
	if mode == batch.RemoveIDs {
		return plural(n, "ID", "IDs")
	}
	return plural(n, "address", "addresses")
}
