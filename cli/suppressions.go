package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
)

func (a *app) suppressionsCommand() *cobra.Command {
	batch := group("batch", "Add or remove many entries from a file (or stdin)", "",
		a.batchAddCommand(), a.batchRemoveCommand())
	return group("suppressions", "Read and change the suppression list",
		`Read and change the suppression list of the configured service (see
"shush config"), or the local list when no service is configured.

On a terminal the commands print tables and sentences; with --json, or when
stdout is a pipe or a file, they print the API's JSON. Exit status: 0 done;
1 the service refused, some batch failed or some entry's outcome could not
be established (unverified); 2 bad usage or unreadable input; 3 not on the
list (get, a single remove); 4 the service refused the key; 130 interrupted
(shush help exit-codes).`,
		batch, a.listCommand(), a.getCommand(), a.addCommand(), a.removeCommand(), a.checkCommand(), a.exportCommand(), a.eraseCommand())
}

// groupArgs refuses an unknown subcommand of a command group with a usage
// error.
func groupArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return unknownCommand(cmd, args[0])
	}
	return nil
}

func showHelp(cmd *cobra.Command, _ []string) error { return cmd.Help() }

// oneArg wants exactly one argument named what.
func oneArg(what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		switch len(args) {
		case 1:
			return nil
		case 0:
			return usagef("%s needs %s", cmd.CommandPath(), what)
		}
		return usagef("%s takes one argument (%s), got %d", cmd.CommandPath(), what, len(args))
	}
}

type listOptions struct {
	*app
	Paging paging
	Origin string
	Select selectFlags
}

func runList(ctx context.Context, o *listOptions) error {
	pg := &o.Paging
	for _, c := range []*string{&pg.after, &pg.before} {
		if *c == "" {
			continue
		}
		id, err := api.NormalizeID(*c)
		if err != nil {
			return usagef("%s is not a suppression ID: %v", api.Quote(*c), err)
		}
		*c = id
	}
	origin, err := originFlag(o.Origin)
	if err != nil {
		return err
	}
	narrow, err := o.Select.parse()
	if err != nil {
		return err
	}
	p := client.ListParams{Limit: pg.limit, Before: pg.before, Origin: origin, Search: narrow.search,
		CreatedAfter: narrow.after, CreatedBefore: narrow.before}
	return o.onService(ctx, func(conn *connection) error {
		if pg.all {
			r := &pageReader{ctx: ctx, conn: conn, p: p}
			return o.listAll(r.read, o.output().json)
		}
		p.After = pg.after
		page, err := conn.Client.ListFull(ctx, p)
		if err != nil {
			return noSearch(conn, unsupported(conn, err))
		}
		if o.output().json {
			if page.Data == nil {
				page.Data = []api.Entry{}
			}
			return writeJSON(o.io.Out, page)
		}
		return o.printList(page, p)
	})
}

func (a *app) listCommand() *cobra.Command {
	o := &listOptions{app: a}
	cmd := commandPaging(o, &o.Paging, "list", "List the suppressions, newest first", noArgs, runList)
	cmd.Aliases = []string{"ls"}
	cmd.Long = `List the suppressions, newest first, one page at a time (--limit, 1 to 100;
page with --after or --before the last or first ID shown), or every entry
with --all. --origin keeps only bounce, complaint or manual entries.

--search finds everyone at a domain (@example.com: exactly that domain, not
its subdomains), the addresses that start with a prefix (jane*, at least 3
characters before the *) or one address; --created-after and
--created-before keep a range of creation times. shush's own service
answers them from an index; a service that does not search (the hosted one)
is said to, and nothing is shown rather than the whole list.`
	cmd.Example = `  shush suppressions list
  shush suppressions list --search @firm.example --all
  shush suppressions list --search 'jane*' --origin bounce
  shush suppressions list --limit 100 --after 0195f3c2-…
  shush suppressions list --all --json > list.json`
	f := cmd.Flags()
	o.Paging.flags(f, "suppression", "entries", true)
	f.Lookup("all").Usage = "follow the pages to the end of the list (100 per page unless --limit), printing each as it comes"
	f.StringVar(&o.Origin, "origin", "", "only entries of this origin: bounce, complaint or manual")
	o.Select.flags(f)
	return cmd
}

// pageReader reads the list page after page for --all. A page the
// service stopped at its bound (a prefix search) goes on from where it
// stopped, not from its last entry; one that found nothing reads on.
type pageReader struct {
	ctx          context.Context
	conn         *connection
	p            client.ListParams
	last, cursor string
}

func (r *pageReader) read(after string) ([]api.Entry, bool, error) {
	if after != "" && after == r.last {
		after = r.cursor
	}
	r.p.After = after
	page, err := r.conn.Client.ListFull(r.ctx, r.p)
	for err == nil && len(page.Data) == 0 && page.HasMore && page.NextCursor != "" {
		r.p.After = page.NextCursor
		page, err = r.conn.Client.ListFull(r.ctx, r.p)
	}
	if err != nil {
		return nil, false, noSearch(r.conn, unsupported(r.conn, err))
	}
	r.last, r.cursor = "", ""
	if len(page.Data) > 0 && page.NextCursor != "" {
		r.last, r.cursor = page.Data[len(page.Data)-1].ID, page.NextCursor
	}
	return page.Data, page.HasMore && len(page.Data) > 0, nil
}

// The columns of the list.
var entryColumns = []string{"EMAIL", "ID", "ORIGIN", "CREATED", "EXPIRES", "NOTE"}

func entryRow(e api.Entry) []string {
	return []string{e.Email, e.ID, string(e.Origin), e.CreatedAt.UTC().Format(utc), expiryCell(e.ExpiresAt), noteCell(e.Note)}
}

func entryID(e api.Entry) string { return e.ID }

// printList shows one page of the list to a person.
func (a *app) printList(page api.ListResponse, p client.ListParams) error {
	if len(page.Data) == 0 && page.HasMore && page.NextCursor != "" {
		// A search over many entries that found none in those read so
		// far: not the end of the list.
		fmt.Fprintln(a.io.Out, "(no match among the entries read so far)")
		fmt.Fprintln(a.io.ErrOut, "More entries: "+nextListCommand(p, page))
		return nil
	}
	return listing[api.Entry]{
		columns: entryColumns,
		row:     entryRow,
		none:    "(no suppressions)",
		more:    func([]api.Entry) string { return "More entries: " + nextListCommand(p, page) },
	}.print(a, false, nil, page.Data, page.HasMore && page.Next(p.Before != "") != "")
}

// nextListCommand is the command that shows the page beyond the one shown,
// in the direction it was read.
func nextListCommand(p client.ListParams, page api.ListResponse) string {
	next := fmt.Sprintf("shush suppressions list --after %s --limit %d", page.Next(false), p.Limit)
	if p.Before != "" {
		next = fmt.Sprintf("shush suppressions list --before %s --limit %d", page.Next(true), p.Limit)
	}
	if p.Origin != "" {
		next += " --origin " + string(p.Origin)
	}
	if p.Search.Kind != api.SearchNone {
		next += " --search " + shellQuote(p.Search.String())
	}
	for _, r := range []struct {
		flag string
		at   time.Time
	}{{"--created-after", p.CreatedAfter}, {"--created-before", p.CreatedBefore}} {
		if !r.at.IsZero() {
			next += " " + r.flag + " " + r.at.UTC().Format(time.RFC3339Nano)
		}
	}
	return next
}

// listAll prints the whole list page by page as the pages arrive, so that
// memory stays flat. A service that answers a page it already gave (a
// cursor seen before, or an entry seen before) would make this loop
// forever: it stops with an error instead.
func (a *app) listAll(read func(after string) ([]api.Entry, bool, error), asJSON bool) error {
	var (
		t     *table
		n     int
		first = true
		last  string
	)
	bw := bufio.NewWriter(a.io.Out)
	defer bw.Flush()
	if asJSON {
		bw.WriteString("{\n  \"object\": \"list\",\n  \"has_more\": false,\n  \"data\": [")
	} else {
		t = newTable(bw)
		t.row(entryColumns...)
	}
	err := readPages("", true, read, entryID, func(page []api.Entry, _ bool) error {
		defer bw.Flush()
		for _, e := range page {
			if e.ID == last {
				return fmt.Errorf("the service repeated entry %s after %d entries; stopping rather than looping", safeText(e.ID), n)
			}
			n++
			if asJSON {
				if e.Object == "" {
					e.Object = api.ObjectSuppression
				}
				b, err := json.Marshal(e)
				if err != nil {
					return err
				}
				if !first {
					bw.WriteByte(',')
				}
				first = false
				bw.WriteString("\n    ")
				bw.Write(safe.JSON(b))
			} else {
				t.row(entryRow(e)...)
			}
		}
		if len(page) > 0 {
			last = page[len(page)-1].ID
		}
		if t != nil {
			return t.flush()
		}
		return nil
	})
	var repeated errRepeatedPage
	if errors.As(err, &repeated) {
		return fmt.Errorf("%w (%d entries printed)", err, n)
	}
	if err != nil {
		return err
	}
	if asJSON {
		if !first {
			bw.WriteString("\n  ")
		}
		bw.WriteString("]\n}\n")
	} else if n == 0 {
		bw.WriteString("(no suppressions)\n")
	}
	return bw.Flush()
}

// normalizeRef checks an argument that names an entry by ID or address (as
// mail writes it too: "Jane <jane@example.com>", mailto:) and returns it in
// the service's normal form.
func normalizeRef(s string) (string, error) {
	v, err := batch.Ref(s)
	if err != nil {
		return "", usageErr{err}
	}
	return v, nil
}

// notListed turns the service's 404 for one entry into a sentence naming it.
func notListed(conn *connection, ref string, err error) error {
	if client.IsNotFound(err) && !client.IsUnsupported(err) {
		return exitErr{ExitNotListed, fmt.Errorf("%s is not on the list: %w", ref, err)}
	}
	return unsupported(conn, err)
}

// unsupported explains the answer of a service that offers only the two
// batch endpoints, which the single-entry commands need more than.
func unsupported(conn *connection, err error) error {
	if client.IsUnsupported(err) {
		return fmt.Errorf("%s offers only the batch endpoints, not this command; use shush suppressions batch add|remove: %w", conn.Target, err)
	}
	return err
}

type getOptions struct {
	*app
	Ref string
}

func runGet(ctx context.Context, o *getOptions) error {
	ref, err := normalizeRef(o.Ref)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Entry, error) {
		e, err := c.Get(ctx, ref)
		if e.Object == "" {
			e.Object = api.ObjectSuppression
		}
		return e, err
	}, func(conn *connection, err error) error { return notListed(conn, ref, err) },
		func(_ *connection, e api.Entry) error {
			t := newTable(o.io.Out)
			t.row("Email:", e.Email)
			t.row("ID:", e.ID)
			t.row("Origin:", string(e.Origin))
			if e.SourceID != nil {
				t.row("Source:", *e.SourceID)
			}
			t.row("Created:", e.CreatedAt.UTC().Format("2006-01-02 15:04:05.000 UTC"))
			if e.ExpiresAt != nil {
				t.row("Expires:", e.ExpiresAt.UTC().Format("2006-01-02 15:04:05.000 UTC"))
			}
			if e.Note != nil {
				t.row("Note:", *e.Note)
			}
			evidenceRows(t, e.Evidence)
			if e.Erased {
				t.row("Erased:", erasedCell(e.ErasedDomain))
			}
			return t.flush()
		})
}

func (a *app) getCommand() *cobra.Command {
	o := &getOptions{app: a}
	cmd := command(o, "get ID_OR_EMAIL", "Show one suppression", oneArg("an ID or an email address"), runGet, &o.Ref)
	cmd.Example = "  shush suppressions get bob@example.com\n  shush suppressions get 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a --json"
	return cmd
}

type addOptions struct {
	*app
	Email     string
	Reference string
	Note      noteFlags
}

func runAdd(ctx context.Context, o *addOptions) error {
	email, err := api.NormalizeEntry(o.Email)
	if err != nil {
		return usagef("%s is not a valid email address, @domain or *.domain: %v", api.Quote(o.Email), err)
	}
	exp, err := o.Note.parse()
	if err != nil {
		return err
	}
	ctx, err = withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Suppression, error) {
		req := api.AddRequest{Email: email}
		if o.Note.note != "" {
			req.Note = &o.Note.note
		}
		at, err := expiresAt(ctx, c, exp)
		if err != nil {
			return api.Suppression{}, err
		}
		if !at.IsZero() {
			req.ExpiresAt = &api.Timestamp{Time: at}
		}
		return c.AddEntry(ctx, req)
	}, unsupported,
		func(_ *connection, s api.Suppression) error {
			_, err := fmt.Fprintln(o.io.Out, addedSentence(email, s))
			return err
		})
}

// addedSentence says what an add of email did: put it on the list, or
// found it there already (a service that says so: the hosted one does
// not, and then the sentence claims no more than that it is listed).
func addedSentence(email string, s api.Suppression) string {
	switch {
	case s.Erased:
		return fmt.Sprintf("%s was already on the list, as an erased entry (ID %s): nothing of it changed.", safeText(email), safeText(s.ID))
	case s.Created != nil && !*s.Created:
		return fmt.Sprintf("%s was already on the list (ID %s).", safeText(email), safeText(s.ID))
	}
	return fmt.Sprintf("%s is on the list (ID %s).", safeText(email), safeText(s.ID))
}

func (a *app) addCommand() *cobra.Command {
	o := &addOptions{app: a}
	cmd := command(o, "add EMAIL|@DOMAIN|*.DOMAIN", "Put one address (or a whole domain) on the list",
		oneArg("an email address, @domain or *.domain"), runAdd, &o.Email)
	cmd.Long = `Put one address on the list. An address already listed keeps its entry and ID.

During an incident a whole domain can be listed for a while: @evil.example
lists every address of evil.example, *.evil.example every address of its
subdomains. Check answers say "listed by @evil.example"; the team's
protected addresses are never listed by a domain entry; remove it as any
entry (shush suppressions remove @evil.example).

--note says why, kept with the entry ("mailbox full, asked on #48213");
--expires takes the entry off the list again after an age (30d) or at a date,
counted by the service's clock: the service removes it then, in its trail
as "expired". Re-adding a listed address with a later expiry or none extends
it, never shortens it, and gives a note only to an entry without one. Both
need shush's own service.`
	cmd.Example = "  shush suppressions add bob@example.com --reference T-5521\n  shush suppressions add full@example.com --note 'mailbox full, #48213' --expires 30d\n  shush suppressions add @evil.example --expires 24h --reference INC-7 --note 'phishing wave'"
	referenceFlag(cmd, &o.Reference)
	o.Note.flags(cmd.Flags())
	return cmd
}

type removeOptions struct {
	*app
	Ref       string
	Yes       bool
	Reference string
}

func runRemove(ctx context.Context, o *removeOptions) error {
	ref, err := normalizeRef(o.Ref)
	if err != nil {
		return err
	}
	ctx, err = withReference(ctx, o.Reference)
	if err != nil {
		return err
	}
	if ok, err := o.confirmRemoval(ctx, o.Yes, ref); !ok {
		return err
	}
	return callService(ctx, o.app, func(c *client.Client) (api.Suppression, error) { return c.Remove(ctx, ref) },
		func(conn *connection, err error) error { return notListed(conn, ref, err) },
		func(_ *connection, out api.Suppression) error {
			_, err := fmt.Fprintf(o.io.Out, "Removed %s (ID %s).\n", safeText(ref), safeText(out.ID))
			return err
		})
}

func (a *app) removeCommand() *cobra.Command {
	o := &removeOptions{app: a}
	cmd := command(o, "remove ID_OR_EMAIL", "Take one entry off the list",
		oneArg("an ID or an email address"), runRemove, &o.Ref)
	cmd.Aliases = []string{"rm", "delete"}
	cmd.Long = `Take one entry, named by ID or address, off the list: mail may then be sent to
the address again. On a terminal shush asks first; elsewhere it needs --yes.`
	cmd.Example = "  shush suppressions remove bob@example.com --reference T-5521\n  shush suppressions remove 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a --yes --json"
	cmd.Flags().BoolVar(&o.Yes, "yes", false, "remove without asking")
	referenceFlag(cmd, &o.Reference)
	return cmd
}

// referenceFlag adds --reference, the ticket a change is for.
func referenceFlag(cmd *cobra.Command, ref *string) {
	cmd.Flags().StringVar(ref, "reference", "", "ticket number or URL sent with the request (Shush-Reference), kept in the service's audit trail")
}

// withReference checks a --reference and has every request of ctx carry
// it ("" carries none).
func withReference(ctx context.Context, ref string) (context.Context, error) {
	if ref == "" {
		return ctx, nil
	}
	if err := api.ValidReference(ref); err != nil {
		return ctx, usagef("--reference: %v", err)
	}
	return client.WithReference(ctx, ref), nil
}

// confirm asks the question on a terminal and says whether the answer was
// "y" or "yes". Without a terminal to ask on (or when stdin carries the
// input) it refuses with a usage error unless --yes was given.
func (a *app) confirm(ctx context.Context, yes, stdinIsInput bool, question string) (bool, error) {
	return a.confirmAfter(ctx, yes, stdinIsInput, question, nil)
}

// confirmRemoval is confirm for taking what (one entry, a webhook) off the
// configured service: "Remove what from TARGET?".
func (a *app) confirmRemoval(ctx context.Context, yes bool, what string) (bool, error) {
	s, err := a.settings()
	if err != nil {
		return false, err
	}
	return a.confirm(ctx, yes, false, fmt.Sprintf("Remove %s from %s?", what, s.Target()))
}

// confirmAfter is confirm that first shows the person what show lists
// (every address to be touched, paged when long), when it asks at all.
func (a *app) confirmAfter(ctx context.Context, yes, stdinIsInput bool, question string, show func(width int) string) (bool, error) {
	if yes {
		return true, nil
	}
	if stdinIsInput {
		return false, usagef("refusing to remove without confirmation: the entries come from stdin, so there is no terminal to ask on; pass --yes")
	}
	if !a.io.StdinTTY || !a.io.StderrTTY {
		return false, usagef("refusing to remove without confirmation: pass --yes")
	}
	if show != nil {
		if err := a.page(a.io.ErrOut, show(widthOf(a.io.ErrOut))); err != nil {
			return false, err
		}
	}
	fmt.Fprintf(a.io.ErrOut, "%s [y/N] ", safeText(question))
	// Ctrl-C cancels ctx rather than killing the process, so the read must
	// not be what keeps the user waiting.
	type answer struct {
		line string
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		line, err := bufio.NewReader(a.io.In).ReadString('\n')
		got <- answer{line, err}
	}()
	var line string
	select {
	case <-ctx.Done():
		fmt.Fprintln(a.io.ErrOut)
		return false, exitErr{ExitInterrupted, errors.New("interrupted: nothing removed")}
	case ans := <-got:
		if ans.err != nil && ans.err != io.EOF {
			return false, usagef("cannot read the answer: %v", ans.err)
		}
		line = ans.line
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true, nil
	}
	fmt.Fprintln(a.io.ErrOut, "Nothing removed.")
	return false, nil
}

// waitNotice tells a person at a terminal why a single command is slow:
// the client is waiting for the rate limit or before a retry.
func (a *app) waitNotice() client.Option {
	return client.WithWaitHook(func(w client.WaitInfo) {
		if w.Delay < time.Second || !a.io.StderrTTY {
			return
		}
		why := w.Reason.String()
		if w.Err != nil {
			why += " after: " + w.Err.Error()
		}
		fmt.Fprintf(a.io.ErrOut, "shush: waiting %s (%s)\n", w.Delay.Round(100*time.Millisecond), safeText(why))
	})
}
