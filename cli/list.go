package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/safe"
)

// suppressions list: one page of the list, or the whole list as it
// arrives (--all), narrowed by origin, search and creation time.

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
