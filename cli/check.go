package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

// checkItem is one address of `suppressions check --json`.
type checkItem struct {
	Email     string     `json:"email"`
	Listed    bool       `json:"listed"`
	ListedBy  string     `json:"listed_by,omitempty"`
	ID        string     `json:"id,omitempty"`
	Origin    api.Origin `json:"origin,omitempty"`
	SourceID  *string    `json:"source_id,omitempty"`
	CreatedAt string     `json:"created_at,omitempty"`
	Note      *string    `json:"note,omitempty"`
	ExpiresAt string     `json:"expires_at,omitempty"`
	// Erased marks an erased entry (docs/erasure.md): listed, found by
	// the address's keyed hash.
	Erased bool `json:"erased,omitempty"`
	// ErasedDomain is the domain an erased entry keeps when its team's
	// policy keeps it.
	ErasedDomain string `json:"erased_domain,omitempty"`
	Error        string `json:"error,omitempty"`
	// Requester marks the ticket's requester; Rule says how the rule of
	// whom a ticket is about reads the address (absent for one the
	// ticket's words simply name).
	Requester bool             `json:"requester,omitempty"`
	Rule      *ticket.Decision `json:"rule,omitempty"`
}

// checkJSON is the whole answer of `suppressions check --json`: every
// address looked up, and the invalid entries.
type checkJSON struct {
	Object  string       `json:"object"`
	Data    []checkItem  `json:"data"`
	Invalid []batch.Item `json:"invalid,omitempty"`
}

type checkOptions struct {
	*app
	File, Format string
	Concurrency  int
	// Args are addresses given on the command line instead of --file.
	Args []string
}

// check refuses flags out of range before anything is read.
func (o *checkOptions) check() error {
	if o.Concurrency < 1 || o.Concurrency > 16 {
		return usagef("--concurrency must be between 1 and 16, not %d", o.Concurrency)
	}
	if o.Format != "" && o.Format != "table" && o.Format != "json" && o.Format != "ndjson" {
		return usagef("--format must be table, json or ndjson, not %s", api.Quote(o.Format))
	}
	if o.globals.jq != "" && o.Format != "" && o.Format != "json" {
		return usagef("--jq filters one JSON document: leave out --format %s", o.Format)
	}
	return nil
}

// runCheck looks up every address of the file and says which are listed.
func runCheck(ctx context.Context, o *checkOptions) error {
	if err := o.check(); err != nil {
		return err
	}
	items, tk, err := o.checkItems(ctx)
	if err != nil {
		return err
	}
	settings, err := o.settings()
	if err != nil {
		return err
	}
	rule := roles(items, tk, ticket.NewOwn(settings.Own))
	in := batch.NewInput(batch.RemoveEmails, items)
	values := slices.Collect(in.Values())
	w := o.checkWriter(o.Format, in.Invalid)
	failed := 0
	if len(values) > 0 {
		err := o.onService(ctx, func(conn *connection) error {
			prog := o.checkProgress(conn, len(values))
			defer prog.clear()
			k := &batch.Checker{Client: conn.Client, Concurrency: o.Concurrency}
			return k.CheckAll(ctx, values, func(start int, found []batch.Found) error {
				prog.notice(k)
				for _, f := range found {
					it := checkItemOf(f)
					if f.Err != nil {
						failed++
					}
					if d, ok := rule[f.Input]; ok {
						it.Requester, it.Rule = d.Requester, &d
					}
					w.item(it)
				}
				prog.done(start + len(found))
				return w.flush()
			})
		})
		if err != nil {
			return err
		}
	}
	if err := w.close(); err != nil {
		return err
	}
	if failed > 0 {
		return exitErr{ExitFailed, fmt.Errorf("%s could not be looked up", plural(failed, "address", "addresses"))}
	}
	return nil
}

func (a *app) checkCommand() *cobra.Command {
	o := &checkOptions{app: a}
	var includeRequester bool
	cmd := command(o, "check ADDR... | --file F", "Say which addresses (the arguments, or a file's or ticket's) are on the list; changes nothing",
		cobra.ArbitraryArgs, runCheck)
	before(cmd, func(c *cobra.Command) error {
		o.Args = c.Flags().Args()
		return nil
	})
	cmd.Long = `Look up the addresses given as arguments, or every address of a file (any
input format: a ticket's free text, a list, CSV or JSON), and say which are
on the list, with their origin, date, expiry and note. Nothing is added or removed, so nobody is left out: the
ticket's requester, our own addresses and those of headers and signatures
are looked up too, each marked with what the ticket makes of it (the
requester, and why a batch would leave an address out).

shush's own service answers 1,000 addresses a request (10,000 in ten
requests); a service without the bulk check (the hosted one) is asked one
address at a time, paced to its rate limit. On a terminal, stderr shows how
far the check got. --json prints one document whose items are written as
their answers come; --format ndjson prints one item a line.`
	cmd.Example = `  shush suppressions check jane@example.com kim@example.org
  shush suppressions check --file ticket-4711.txt
  shush suppressions check --file crm-export.csv --format ndjson > checked.ndjson
  pbpaste | shush suppressions check --file - --json`
	fl := cmd.Flags()
	fl.StringVar(&o.File, "file", "", "file of addresses or a ticket's text; - reads stdin")
	fl.StringVar(&o.Format, "format", "", "table, json (as --json) or ndjson (one item a line); default: a table on a terminal, else json")
	// check leaves nobody out any more; the flag stays so that scripts
	// that pass it keep working.
	fl.BoolVar(&includeRequester, "include-requester", false, "no effect: check looks up every address")
	_ = fl.MarkHidden("include-requester")
	fl.IntVar(&o.Concurrency, "concurrency", 4, "look-ups in flight at once against a service without the bulk check (1-16)")
	return cmd
}

// checkItems reads the addresses to look up: the arguments, or --file
// (a ticket's text, a list, CSV or JSON). An argument that is no address
// is refused with its place before anything is looked up.
func (o *checkOptions) checkItems(ctx context.Context) ([]batch.Item, *ticket.Ticket, error) {
	if len(o.Args) == 0 {
		if o.File == "" {
			return nil, nil, usagef("give the addresses to look up, or --file: a file of entries, or - for stdin")
		}
		return o.readTicket(ctx, o.File, batch.RemoveEmails)
	}
	if o.File != "" {
		return nil, nil, usagef("give addresses or --file, not both")
	}
	items := make([]batch.Item, len(o.Args))
	for i, arg := range o.Args {
		items[i] = batch.NewItem(batch.RemoveEmails, i+1, arg)
		if !items[i].Valid() {
			return nil, nil, usagef("argument %d (%s) is not a valid email address: %s", i+1, api.Quote(arg), items[i].Problem)
		}
	}
	return items, nil, nil
}

// checkItemOf is what check says of one address.
func checkItemOf(f batch.Found) checkItem {
	it := checkItem{Email: f.Input, Listed: f.Listed}
	switch {
	case f.Err != nil:
		it.Error = f.Err.Error()
	case f.Listed:
		e := f.Entry
		it.ID, it.Origin, it.SourceID, it.Note, it.ListedBy, it.Erased = e.ID, e.Origin, e.SourceID, e.Note, f.ListedBy, e.Erased
		it.ErasedDomain = e.ErasedDomain
		it.CreatedAt = e.CreatedAt.UTC().Format(api.TimestampLayout)
		if e.ExpiresAt != nil {
			it.ExpiresAt = e.ExpiresAt.UTC().Format(api.TimestampLayout)
		}
	}
	return it
}

// checkOut writes a check's answer as it comes: a JSON document whose
// data items are written chunk by chunk, NDJSON, or (for people) a table
// once every address is answered.
type checkOut struct {
	a       *app
	format  string
	bw      *bufio.Writer
	n       int
	doc     checkJSON // the table's rows
	invalid []batch.Item
}

// checkWriter is the writer of the format asked for: --format, else
// --json, else a table on a terminal and JSON elsewhere.
func (a *app) checkWriter(format string, invalid []batch.Item) *checkOut {
	switch {
	case format == "" && a.output().json:
		format = "json"
	case format == "":
		format = "table"
	}
	w := &checkOut{a: a, format: format, bw: bufio.NewWriterSize(a.io.Out, 64<<10), invalid: invalid, doc: checkJSON{Object: "list", Invalid: invalid}}
	if format == "json" {
		w.bw.WriteString("{\n  \"object\": \"list\",\n  \"data\": [")
	}
	return w
}

func (w *checkOut) item(it checkItem) {
	switch w.format {
	case "table":
		w.doc.Data = append(w.doc.Data, it)
		return
	case "json":
		if w.n > 0 {
			w.bw.WriteByte(',')
		}
		w.bw.WriteString("\n    ")
	}
	w.n++
	b, err := json.Marshal(it)
	if err != nil {
		return
	}
	w.bw.Write(safe.JSON(b))
	if w.format == "ndjson" {
		w.bw.WriteByte('\n')
	}
}

// flush hands on what the last chunk wrote.
func (w *checkOut) flush() error { return w.bw.Flush() }

// close ends the document (the invalid entries after the data), or prints
// the table; NDJSON says what was invalid on stderr.
func (w *checkOut) close() error {
	switch w.format {
	case "table":
		w.a.printCheck(w.doc)
	case "json":
		if w.n > 0 {
			w.bw.WriteString("\n  ")
		}
		w.bw.WriteString("]")
		if len(w.invalid) > 0 {
			b, err := json.MarshalIndent(w.invalid, "  ", "  ")
			if err != nil {
				return err
			}
			w.bw.WriteString(",\n  \"invalid\": ")
			w.bw.Write(safe.JSON(b))
		}
		w.bw.WriteString("\n}\n")
	case "ndjson":
		if len(w.invalid) > 0 {
			fmt.Fprintf(w.a.io.ErrOut, "shush: invalid, not looked up: %s\n", describeInvalid(w.invalid, 3))
		}
	}
	return w.bw.Flush()
}

// checkProgress says on a terminal's stderr how far a long check got, and
// once that the service is asked one address at a time.
type checkProgress struct {
	a      *app
	conn   *connection
	total  int
	show   bool
	shown  bool
	slowly bool
}

func (a *app) checkProgress(conn *connection, total int) *checkProgress {
	return &checkProgress{a: a, conn: conn, total: total, show: a.io.StderrTTY}
}

// notice says, once, that the service has no bulk check.
func (p *checkProgress) notice(k *batch.Checker) {
	if k.Bulk() || p.slowly {
		return
	}
	p.slowly = true
	p.clear()
	fmt.Fprintf(p.a.io.ErrOut, "shush: %s has no bulk check; looking up each address, paced to its rate limit\n", safeText(p.conn.Target))
}

// done shows that n addresses are answered, when there is more to come.
func (p *checkProgress) done(n int) {
	if !p.show || n >= p.total {
		return
	}
	p.shown = true
	fmt.Fprintf(p.a.io.ErrOut, "\rChecked %d of %d addresses…", n, p.total)
}

func (p *checkProgress) clear() {
	if p.shown {
		fmt.Fprint(p.a.io.ErrOut, "\r\x1b[K")
		p.shown = false
	}
}

func (a *app) printCheck(doc checkJSON) {
	listed := 0
	t := newTable(a.io.Out)
	t.row("ADDRESS", "LISTED", "ORIGIN", "SINCE", "EXPIRES", "ID", "TICKET", "NOTE")
	for _, it := range doc.Data {
		note := ""
		if it.Rule != nil {
			note = checkNote(*it.Rule)
		}
		switch {
		case it.Error != "":
			t.row(it.Email, "?", "", "", "", "look-up failed: "+it.Error, note)
		case it.Listed && it.Erased:
			listed++
			yes := "yes — erased entry"
			if it.ErasedDomain != "" {
				yes += " (domain " + it.ErasedDomain + ")"
			}
			t.row(it.Email, yes, string(it.Origin), minutes(it.CreatedAt), minutes(it.ExpiresAt), it.ID, note, "")
		case it.Listed:
			listed++
			yes := "yes"
			if it.ListedBy != "" {
				yes = "listed by " + it.ListedBy
			}
			t.row(it.Email, yes, string(it.Origin), minutes(it.CreatedAt), minutes(it.ExpiresAt), it.ID, note, noteCell(it.Note))
		default:
			t.row(it.Email, "no", "", "", "", "", note)
		}
	}
	_ = t.flush()
	fmt.Fprintf(a.io.Out, "\n%d of %s on the list.\n", listed, plural(len(doc.Data), "address", "addresses"))
	if len(doc.Invalid) > 0 {
		fmt.Fprintf(a.io.Out, "Invalid, not looked up: %s\n", describeInvalid(doc.Invalid, 3))
	}
}

// minutes shows an RFC 3339 time to the minute, "" as "".
func minutes(s string) string {
	if ts, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return ts.UTC().Format("2006-01-02 15:04 UTC")
	}
	return s
}

// checkNote says what the ticket makes of an address, in a check's table:
// "requester" and what they ask, or why a batch would leave it out.
func checkNote(d ticket.Decision) string {
	s := d.Reason
	switch {
	case d.Requester && d.Leave:
		s = "requester; not asking for themselves"
	case d.Requester:
		s = "requester; " + strings.TrimPrefix(d.Reason, "the requester ")
	}
	return fmt.Sprintf("%s (line %d)", s, d.By.Line)
}

// roles is the rule's decision about each address of items that has one
// (the ticket tk's, nil for a list: only our own addresses).
func roles(items []batch.Item, tk *ticket.Ticket, own ticket.Own) map[string]ticket.Decision {
	rule := map[string]ticket.Decision{}
	if tk != nil {
		rule = tk.Roles(own)
	}
	for _, it := range items {
		if _, seen := rule[it.Value]; it.Valid() && !seen && own.Has(it.Value) {
			rule[it.Value] = tk.OwnDecision(it.Line)
		}
	}
	return rule
}

// erasedCell says what an erased entry keeps beyond its hash.
func erasedCell(domain string) string {
	if domain == "" {
		return "yes (a keyed hash of the address, nothing else of it)"
	}
	return "yes (a keyed hash of the address, and its domain " + domain + ")"
}
