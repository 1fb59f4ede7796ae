package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// ExitInterrupted is the exit status of a batch run stopped by SIGINT or
// SIGTERM (128 + SIGINT, as shells report it); --resume finishes it.
const ExitInterrupted = 130

// batchFlags are the flags of "suppressions batch add|remove".
type batchFlags struct {
	file        string
	ids         bool
	dryRun      bool
	yes         bool
	resume      bool
	concurrency int
	reference   string
	// includeRequester and excludeRequester override the rule of whom a
	// ticket is about (ticket.Override).
	includeRequester, excludeRequester bool
	// ignoreIntent sends a ticket whose words ask for another mode.
	ignoreIntent bool
	// keep is the note and expiry of an addition's entries.
	keep noteFlags
	// format names the file's format (batch.CheckFormat).
	format string
	// keepIDs sends each entry's own ID and creation time (an export
	// read back), for a key with the import right.
	keepIDs bool
	// concurrencyGiven says --concurrency was given (else it is chosen
	// for the target).
	concurrencyGiven bool
}

// batchOptions are those of "suppressions batch add|remove".
type batchOptions struct {
	*app
	Mode batch.Mode
	batchFlags
}

// batchCommand is the cobra command of batch add or remove.
func (a *app) batchCommand(cmd *cobra.Command, remove bool) *cobra.Command {
	o := &batchOptions{app: a, Mode: batch.Add}
	cmd.Args = noArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error {
		o.concurrencyGiven = cmd.Flags().Changed("concurrency")
		if o.ids {
			o.Mode = batch.RemoveIDs
		} else if remove {
			o.Mode = batch.RemoveEmails
		}
		return runBatch(cmd.Context(), o)
	}
	addBatchFlags(cmd, &o.batchFlags, remove)
	return cmd
}

// override is the rule's override the flags ask for.
func (f batchFlags) override() (ticket.Override, error) {
	switch {
	case f.includeRequester && f.excludeRequester:
		return 0, usagef("give --include-requester or --exclude-requester, not both")
	case f.includeRequester:
		return ticket.TakeInAll, nil
	case f.excludeRequester:
		return ticket.LeaveOutPeople, nil
	}
	return ticket.ByRule, nil
}

// autoReference is the --reference that takes the one found in the
// ticket.
const autoReference = "auto"

// whomHelp says how the batch commands decide whom a ticket is about.
const whomHelp = `From a ticket's free text, the addresses it names go, and whom it is not
about is left out, each with the reason and the line that decided: the
address it was sent to and our own (config "own") never go; the requester
(the top mail's sender) goes when they ask for themselves ("unsubscribe me",
"put me back", "am I blocked?"), with the colleagues they include ("me and
my colleague (cc'd)"); header, reply-attribution and signature addresses do
not. --include-requester takes in everyone left out but those two;
--exclude-requester leaves out the requester and colleagues the rule took
in.

A ticket whose words ask for something else than the command (a removal
ticket given to batch add, one that only asks "am I blocked?", or takes its
request back) stops as bad usage does, with one sentence naming its words
and line, and changes nothing; --ignore-intent sends it anyway. "shush
ticket read" shows what a ticket asks.

Without --reference nothing is sent as the run's reference; a reference the
ticket names (its file name, subject or words: TICKET-88.txt, "#5521", "case
AB-2026-7") is shown, and --reference auto sends it.`

func (a *app) batchAddCommand() *cobra.Command {
	return a.batchCommand(&cobra.Command{
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
sent again; it keeps the run's --note and --expires.

--note says why, kept with every entry the run lists; --expires takes them
off the list again after an age (30d, counted by the service's clock) or at
a date: the service removes them then, in its trail as "expired". An
address already listed keeps its note (or gets this one if it has none) and
keeps a later expiry: re-adding extends, never shortens. Both need shush's
own service.

` + whomHelp + `

` + concurrencyHelp,
		Example: `  shush suppressions batch add --file bounces.csv
  shush suppressions batch add --file full-mailboxes.txt --note 'mailbox full, #48213' --expires 30d
  shush suppressions batch add --file bounces.csv --dry-run
  cat addresses.txt | shush suppressions batch add --file - --json
  shush suppressions batch add --file bounces.csv --resume`,
	}, false)
}

func (a *app) batchRemoveCommand() *cobra.Command {
	return a.batchCommand(&cobra.Command{
		Use:     "remove --file F [--ids]",
		Aliases: []string{"rm", "delete"},
		Short:   "Take every address (or ID) of a file off the list",
		Long: `Take every address of a file (or stdin with --file -) off the list, or every
suppression ID with --ids, in batches of up to 100. The formats are those of
"batch add" ({"ids": [...]} bodies too).

Mail may be sent to removed addresses again, so shush asks first on a
terminal; without a terminal (or with the entries on stdin) it needs --yes.
Entries that are not on the list are reported, not an error.

` + whomHelp + `

` + concurrencyHelp,
		Example: `  shush suppressions batch remove --file resolved.txt
  shush suppressions batch remove --file ids.json --ids --yes --json
  shush suppressions batch remove --file resolved.txt --dry-run`,
	}, true)
}

func addBatchFlags(cmd *cobra.Command, f *batchFlags, remove bool) {
	fl := cmd.Flags()
	fl.StringVar(&f.file, "file", "", "file of entries; - reads stdin")
	fl.BoolVar(&f.dryRun, "dry-run", false, "show the plan (every address it would send, counts, batches, invalid entries) and send nothing")
	fl.BoolVar(&f.resume, "resume", false, "finish the last interrupted run of this command against this service")
	fl.IntVar(&f.concurrency, "concurrency", 0, "batches in flight at once (1-16; default: chosen for the target, see above); the client keeps within the rate limit")
	fl.BoolVar(&f.includeRequester, "include-requester", false, "send every address the rule of whom a ticket is about leaves out (our own, config own, and the address the ticket was sent to never go)")
	fl.BoolVar(&f.excludeRequester, "exclude-requester", false, "leave out the requester and colleagues the rule takes in from a ticket")
	fl.BoolVar(&f.ignoreIntent, "ignore-intent", false, "send a ticket whose words ask for another mode (see shush ticket read)")
	fl.StringVar(&f.reference, "reference", "", "ticket number or URL sent with every request of the run (Shush-Reference), kept in the service's audit trail; auto: the one the ticket names")
	fl.StringVar(&f.format, "format", "auto", "the file's format: auto (another provider's export is known by its header or shape), plain (any file as a list), or the provider whose export it is: sendgrid, mailgun, ses, postmark, resend")
	if remove {
		fl.BoolVar(&f.ids, "ids", false, "the entries are suppression IDs, not addresses")
		fl.BoolVar(&f.yes, "yes", false, "remove without asking")
	} else {
		f.keep.flags(fl)
		fl.BoolVar(&f.keepIDs, "keep-ids", false, "keep each entry's own ID and creation time where the file gives them (a shush export): needs a key with the import right, or the local list; an ID in use, or not one this service could have made before now, gets a new one and the report says so")
	}
}

// readInput reads the entries of --file.
func (a *app) readInput(ctx context.Context, file string, mode batch.Mode) ([]batch.Item, batch.Format, error) {
	items, format, err := withInput(ctx, a, file, func(r io.Reader, name string) ([]batch.Item, batch.Format, error) {
		return batch.ReadFormat(r, name, mode)
	})
	if err == nil && len(items) == 0 {
		return nil, format, usagef("%s holds no entries", inputName(file))
	}
	return items, format, err
}

// readTicket reads the entries of --file, and the ticket a free text is
// read as (nil for any other format).
func (a *app) readTicket(ctx context.Context, file string, mode batch.Mode) ([]batch.Item, *ticket.Ticket, error) {
	type read struct {
		items []batch.Item
		tk    *ticket.Ticket
	}
	r, _, err := withInput(ctx, a, file, func(r io.Reader, name string) (read, batch.Format, error) {
		items, f, tk, err := batch.ReadTicket(r, name, mode)
		return read{items, tk}, f, err
	})
	if err == nil && len(r.items) == 0 {
		return nil, nil, usagef("%s holds no entries", inputName(file))
	}
	return r.items, r.tk, err
}

// readPlan reads and plans the entries of --file in one pass (see
// batch.ReadPlan): a file of millions of entries is never held whole.
func (a *app) readPlan(ctx context.Context, file string, mode batch.Mode, own ticket.Own, ov ticket.Override, format string) (*batch.Input, error) {
	in, _, err := withInput(ctx, a, file, func(r io.Reader, name string) (*batch.Input, batch.Format, error) {
		in, err := batch.ReadPlanAs(r, name, mode, own, ov, format)
		if err != nil {
			return nil, 0, err
		}
		return in, in.Format, nil
	})
	if err == nil && in.Entries == 0 {
		return nil, usagef("%s holds no entries", inputName(file))
	}
	return in, err
}

// withInput opens --file (or stdin) and reads it with read.
func withInput[T any](ctx context.Context, a *app, file string, read func(r io.Reader, name string) (T, batch.Format, error)) (T, batch.Format, error) {
	var zero T
	if file == "" {
		return zero, 0, usagef("--file is required: a file of entries, or - for stdin")
	}
	var r io.Reader = a.io.In
	name := "stdin"
	if file != "-" {
		fh, err := a.openInput(ctx, file)
		if ctx.Err() != nil {
			return zero, 0, ctx.Err()
		}
		if err != nil {
			return zero, 0, usagef("cannot read %s: %v", file, errors.Unwrap(err))
		}
		defer fh.Close()
		r, name = fh, file
	} else if r == nil || isTerminal(r) {
		return zero, 0, usagef("--file - reads stdin, but nothing is piped to it")
	}
	v, format, err := read(r, name)
	if ctx.Err() != nil {
		// The read ended because the file was closed on an interrupt.
		return zero, format, ctx.Err()
	}
	if err != nil {
		return zero, format, usageErr{err}
	}
	return v, format, nil
}

// check refuses flags that do not go together, before anything is read;
// it returns the rule's override and the expiry asked for.
func (f *batchFlags) check(ctx context.Context) (ticket.Override, batch.Expiry, error) {
	if err := checkConcurrency(f.concurrencyGiven, f.concurrency); err != nil {
		return 0, batch.Expiry{}, err
	}
	if f.dryRun && f.resume {
		return 0, batch.Expiry{}, usagef("give --dry-run or --resume, not both")
	}
	if f.reference != autoReference {
		// A bad reference is refused before the input is read.
		if _, err := withReference(ctx, f.reference); err != nil {
			return 0, batch.Expiry{}, err
		}
	}
	ov, err := f.override()
	if err != nil {
		return 0, batch.Expiry{}, err
	}
	if f.format, err = batch.CheckFormat(f.format); err != nil {
		return 0, batch.Expiry{}, usageErr{err}
	}
	exp, err := f.keep.parse()
	if err != nil {
		return 0, batch.Expiry{}, err
	}
	if f.resume && (f.keep.note != "" || f.keep.expires != "") {
		return 0, batch.Expiry{}, usagef("a resumed run keeps the --note and --expires it started with: leave them out of --resume")
	}
	return ov, exp, nil
}

// runBatch reads the file, plans and sends (or shows the plan of) a
// batch add or remove.
func runBatch(ctx context.Context, o *batchOptions) error {
	a, f, mode := o.app, o.batchFlags, o.Mode
	ov, exp, err := f.check(ctx)
	if err != nil {
		return err
	}
	defer collectAt(readingGC)()
	in, target, err := a.readBatchInput(ctx, f, mode, ov)
	if err != nil {
		return err
	}
	if f.reference, err = a.chooseReference(f.reference, in, f.file); err != nil {
		return err
	}
	ctx, err = withReference(ctx, f.reference)
	if err != nil {
		return err
	}
	if f.dryRun {
		return a.printPlan(a.output(), in, target, f.reference, f.keep, f.keepIDs)
	}
	if ok, err := a.readyToSend(ctx, in, mode, f, target); !ok {
		return err
	}
	conn, err := a.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return a.sendBatch(ctx, conn, in, mode, f, exp)
}

// readBatchInput reads and plans the input of a batch run, and returns it
// with the target the settings name.
func (a *app) readBatchInput(ctx context.Context, f batchFlags, mode batch.Mode, ov ticket.Override) (*batch.Input, string, error) {
	// Our own addresses never go; whom a ticket is about, the rule
	// decides. What is wrong with the input is said before what is wrong
	// with the settings, as when the input was read before them.
	settings, serr := a.settings()
	in, err := a.readPlan(ctx, f.file, mode, ticket.NewOwn(settings.Own), ov, f.format)
	if err != nil {
		return nil, "", err
	}
	if serr != nil {
		return nil, "", serr
	}
	if err := intentGuard(in, mode, f); err != nil {
		return nil, "", err
	}
	return in, settings.Target(), nil
}

// readyToSend lists what the input takes in (for a person), refuses an
// input with nothing to send, and asks before a removal. It reports
// whether to send; not sending without an error is a removal declined.
func (a *app) readyToSend(ctx context.Context, in *batch.Input, mode batch.Mode, f batchFlags, target string) (bool, error) {
	if !a.output().json {
		a.listTakenIn(a.io.Out, in.Decisions)
	}
	switch {
	case in.Len() == 0 && len(in.LeftOut) > 0:
		l := in.LeftOut[0]
		return false, usagef("%s has nothing to send: every address is left out (%s: %s); --dry-run shows why, --include-requester takes them in",
			inputName(f.file), l.Value, l.Text())
	case in.Len() == 0:
		return false, usagef("%s has no valid entries to send: %s", inputName(f.file), describeInvalid(in.Invalid, 3))
	}
	if mode == batch.Add {
		return true, nil
	}
	q := fmt.Sprintf("Remove %s from %s?", entriesOf(mode, in.Len()), target)
	show := func(width int) string {
		return touchList(fmt.Sprintf("These %s would be removed:", entriesOf(mode, in.Len())), slices.Collect(in.Values()), width)
	}
	return a.confirmAfter(ctx, f.yes, f.file == "-", q, show)
}

// sendBatch starts the run of the input on the connection (or resumes the
// interrupted one, with --resume) and reports it.
func (a *app) sendBatch(ctx context.Context, conn *connection, in *batch.Input, mode batch.Mode, f batchFlags, exp batch.Expiry) error {
	// An export re-imported keeps its entries' origins where the service
	// takes them; elsewhere they are listed as manual, and that is said.
	if mode == batch.Add && in.HasOrigins() && !f.resume && !batch.TakesOrigins(ctx, conn.Client) {
		if n := in.Carried(); n > 0 {
			fmt.Fprintf(a.io.ErrOut, "shush: %s will be listed as plain manual entries, without the origin, note, expiry or evidence the file gives: %s takes plain addresses only (shush's own service keeps them)\n",
				plural(n, "address", "addresses"), conn.Target)
		}
		in.DropOrigins()
	}

	meta := batch.RunMeta{Reference: f.reference, Input: inputName(f.file), Note: f.keep.note, KeepIDs: f.keepIDs}
	var err error
	if meta.ExpiresAt, err = expiresAt(ctx, conn.Client, exp); err != nil {
		return err
	}
	runs := a.runsOf(f.concurrencyGiven, conn, f.concurrency)
	resumeID := ""
	if f.resume {
		if resumeID, err = a.interruptedRun(runs, conn.Target, in, f.file); err != nil {
			return err
		}
	} else {
		a.pruneRuns(runs, conn.Settings.KeepRuns)
	}
	sum := summaryOfInput(in)
	sum.ownIDs, sum.keepIDs = in.OwnIDs(), f.keepIDs
	send := func(on batch.Observer) error {
		if resumeID != "" {
			in.Release() // the run's journals have the values
			startSending()
			_, err := runs.Resume(ctx, resumeID, on)
			return err
		}
		// Recording lets go of the values; sending holds a segment's
		// values and the results of the batches in flight.
		on.Started = func(batch.RunInfo) { startSending() }
		_, err := runs.Start(ctx, in, meta, on)
		return err
	}
	return a.sendRun(ctx, conn.Target, sum, a.resumeCommand(mode, f), send)
}

// chooseReference settles the run's reference: the one given, the one the
// ticket names for "auto" (an error when it names none), or none. A
// reference found but not asked for is said on stderr: a script's run
// stays as its flags say.
func (a *app) chooseReference(given string, in *batch.Input, file string) (string, error) {
	switch {
	case given == autoReference && !in.HasReference:
		return "", usagef("--reference auto: %s names no ticket reference (in its name, subject or words); give one with --reference", inputName(file))
	case given == autoReference:
		fmt.Fprintf(a.io.ErrOut, "shush: reference %s, from %s\n", safeText(in.Reference.Value), safeText(in.Reference.Where()))
		return in.Reference.Value, nil
	case given == "" && in.HasReference:
		fmt.Fprintf(a.io.ErrOut, "shush: the ticket names the reference %s (%s); --reference auto sends it\n", safeText(in.Reference.Value), safeText(in.Reference.Where()))
	}
	return given, nil
}

func inputName(file string) string {
	if file == "-" {
		return "stdin"
	}
	return file
}
