package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// What the commands that read the service share: one connection per
// command, one call printed as the API's JSON or for a person, and the
// lists the API pages by ID (--limit, --after, --before, --all).

// onService connects to the configured service for one command and closes
// the connection after fn.
func (a *app) onService(ctx context.Context, fn func(conn *connection) error) error {
	conn, err := a.connect(ctx, a.waitNotice())
	if err != nil {
		return err
	}
	defer conn.Close()
	return fn(conn)
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

// callService makes one call on the configured service and prints its
// answer: the API's JSON with --json (or off a terminal), else what human
// writes. refused says what a failure means for this command.
func callService[T any](ctx context.Context, a *app, call func(*client.Client) (T, error),
	refused func(*connection, error) error, human func(*connection, T) error) error {
	return a.onService(ctx, func(conn *connection) error {
		v, err := call(conn.Client)
		if err != nil {
			return refused(conn, err)
		}
		return a.printOut(v, func(io.Writer) error { return human(conn, v) })
	})
}

// paging holds the flags of a command that reads a list the API pages by
// ID, newest first.
type paging struct {
	limit         int
	after, before string
	all           bool
}

// flags adds --limit, --after, --before (when the list pages backwards
// too) and --all; item names what the list holds ("webhook").
func (p *paging) flags(f *pflag.FlagSet, item, items string, before bool) {
	f.IntVar(&p.limit, "limit", 20, items+" per page (1-100)")
	f.StringVar(&p.after, "after", "", "the page after (older than) this "+item+" ID")
	if before {
		f.StringVar(&p.before, "before", "", "the page before (newer than) this "+item+" ID")
	}
	f.BoolVar(&p.all, "all", false, "follow every page")
}

// check refuses paging flags that contradict each other. With --all and
// no --limit, pages are as large as the API allows.
func (p *paging) check(cmd *cobra.Command) error {
	switch {
	case p.limit < 1 || p.limit > api.MaxBatch:
		return usagef("--limit must be between 1 and %d, not %d", api.MaxBatch, p.limit)
	case p.after != "" && p.before != "":
		return usagef("give --after or --before, not both")
	case p.all && (p.after != "" || p.before != ""):
		return usagef("--all lists from the start: leave out --after and --before")
	}
	if p.all && !cmd.Flags().Changed("limit") {
		p.limit = api.MaxBatch
	}
	return nil
}

// errRepeatedPage is a service answering a page it gave already; paging on
// would never end.
type errRepeatedPage struct{ after string }

func (e errRepeatedPage) Error() string {
	return fmt.Sprintf("the service answered the page after %s twice; stopping rather than looping", safeText(e.after))
}

// errStopPaging ends readPages early without an error.
var errStopPaging = errors.New("stop paging")

// readPages reads the page after after (from the start when ""), and with
// all every page that follows, handing each to use as it comes, so that a
// caller may print a long list in flat memory. read maps its own errors
// (what a refusal means for the command); use may return errStopPaging.
func readPages[T any](after string, all bool, read func(after string) ([]T, bool, error), id func(T) string,
	use func(items []T, hasMore bool) error) error {
	seen := map[string]bool{}
	for {
		items, more, err := read(after)
		if err != nil {
			return err
		}
		if err := use(items, more); err != nil {
			if errors.Is(err, errStopPaging) {
				return nil
			}
			return err
		}
		if !all || !more || len(items) == 0 {
			return nil
		}
		after = id(items[len(items)-1])
		if seen[after] {
			return errRepeatedPage{after}
		}
		seen[after] = true
	}
}

// collectPages is readPages into one slice (never nil, for the JSON's
// "data"), with whether more remain after it.
func collectPages[T any](after string, all bool, read func(after string) ([]T, bool, error), id func(T) string) ([]T, bool, error) {
	out := []T{}
	var more bool
	err := readPages(after, all, read, id, func(items []T, m bool) error {
		out, more = append(out, items...), m
		return nil
	})
	return out, more, err
}

// listing is how a command shows a list to a person: a table, a line
// when it is empty, and how to read on when more remain.
type listing[T any] struct {
	columns []string
	row     func(T) []string
	// none stands in for an empty table on stdout ("(no suppressions)");
	// noneHint is advice on stderr instead. One of them is set.
	none, noneHint string
	// more says, on stderr, how to read the rest.
	more func(shown []T) string
}

// print writes the list: doc (the API's list object) with --json, else the
// table.
func (l listing[T]) print(a *app, asJSON bool, doc any, items []T, hasMore bool) error {
	if asJSON {
		return writeJSON(a.io.Out, doc)
	}
	if len(items) == 0 {
		if l.noneHint != "" {
			fmt.Fprintln(a.io.ErrOut, l.noneHint)
		} else {
			fmt.Fprintln(a.io.Out, l.none)
		}
		return nil
	}
	t := newTable(a.io.Out)
	t.row(l.columns...)
	for _, it := range items {
		t.row(l.row(it)...)
	}
	if err := t.flush(); err != nil {
		return err
	}
	if hasMore && l.more != nil {
		fmt.Fprintln(a.io.ErrOut, l.more(items))
	}
	return nil
}

// readOn is the usual way to read the rest of a list: from the last item
// shown, or all of it.
func readOn(what, lastID string) string {
	return fmt.Sprintf("More %s: add --after %s, or --all.", what, safeText(lastID))
}

// originFlag reads --origin: "" for every origin.
func originFlag(s string) (api.Origin, error) {
	if s == "" {
		return "", nil
	}
	// A person types BOUNCE as readily as bounce; the wire takes the
	// contract's lower case.
	o, err := api.ParseOrigin(strings.ToLower(strings.TrimSpace(s)))
	if err != nil {
		return "", usagef("--origin: %v", err)
	}
	return o, nil
}

// utc is how the tables show a time.
const utc = "2006-01-02 15:04:05"
