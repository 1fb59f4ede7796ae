package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// checkItem is one address of `suppressions check --json`.
type checkItem struct {
	Email     string     `json:"email"`
	Listed    bool       `json:"listed"`
	ID        string     `json:"id,omitempty"`
	Origin    api.Origin `json:"origin,omitempty"`
	CreatedAt string     `json:"created_at,omitempty"`
	Error     string     `json:"error,omitempty"`
}

// checkJSON is the whole answer of `suppressions check --json`: the
// addresses looked up, and those left out with the reason.
type checkJSON struct {
	Object  string          `json:"object"`
	Data    []checkItem     `json:"data"`
	LeftOut []batch.LeftOut `json:"left_out,omitempty"`
	Invalid []batch.Item    `json:"invalid,omitempty"`
}

func (a *app) checkCommand() *cobra.Command {
	var (
		file                     string
		asJSON, includeRequester bool
		concurrency              int
	)
	cmd := &cobra.Command{
		Use:   "check --file F",
		Short: "Say which addresses of a file or ticket are on the list; changes nothing",
		Long: `Look up every address of a file (any input format: a ticket's free text, a
list, CSV or JSON) and say which are on the list, with their origin and
date. Nothing is added or removed.

As for batch add, our own addresses (config "own") and addresses a ticket
names only in its headers, reply attributions or signature are left out and
listed with the reason; --include-requester looks those up too.`,
		Example: `  shush suppressions check --file ticket-4711.txt
  pbpaste | shush suppressions check --file - --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if concurrency < 1 || concurrency > 16 {
				return usagef("--concurrency must be between 1 and 16, not %d", concurrency)
			}
			items, _, err := a.readInput(file, batch.RemoveEmails)
			if err != nil {
				return err
			}
			settings, err := a.settings()
			if err != nil {
				return err
			}
			keep, left := batch.LeaveOut(items, batch.NewOwn(settings.Own), includeRequester)
			plan := batch.NewPlan(batch.RemoveEmails, keep)
			out := a.output(asJSON)
			var found []batch.Found
			if len(plan.Values) > 0 {
				conn, err := a.connect(cmd.Context(), a.waitNotice())
				if err != nil {
					return err
				}
				defer conn.Close()
				found, err = batch.Lookup(cmd.Context(), conn.Client, plan.Values, concurrency)
				if err != nil {
					return err
				}
			}
			failed := 0
			doc := checkJSON{Object: "list", Data: make([]checkItem, 0, len(found)), LeftOut: left, Invalid: plan.Invalid}
			for _, f := range found {
				it := checkItem{Email: f.Input, Listed: f.Listed}
				switch {
				case f.Err != nil:
					it.Error = f.Err.Error()
					failed++
				case f.Listed:
					it.ID, it.Origin = f.Entry.ID, f.Entry.Origin
					it.CreatedAt = f.Entry.CreatedAt.UTC().Format(time.RFC3339Nano)
				}
				doc.Data = append(doc.Data, it)
			}
			if out.json {
				if err := writeJSON(a.io.Out, doc); err != nil {
					return err
				}
			} else {
				a.printCheck(doc)
			}
			if failed > 0 {
				return exitErr{ExitFailed, fmt.Errorf("%s could not be looked up", plural(failed, "address", "addresses"))}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&file, "file", "", "file of addresses or a ticket's text; - reads stdin")
	fl.BoolVar(&asJSON, "json", false, "print JSON: data items {email, listed, id, origin, created_at}")
	fl.BoolVar(&includeRequester, "include-requester", false, "also look up addresses a ticket names only in headers, attributions or signature")
	fl.IntVar(&concurrency, "concurrency", 4, "look-ups in flight at once (1-16)")
	return cmd
}

func (a *app) printCheck(doc checkJSON) {
	listed := 0
	t := newTable(a.io.Out)
	t.row("ADDRESS", "LISTED", "ORIGIN", "SINCE", "ID")
	for _, it := range doc.Data {
		switch {
		case it.Error != "":
			t.row(it.Email, "?", "", "", "look-up failed: "+it.Error)
		case it.Listed:
			listed++
			since := it.CreatedAt
			if ts, err := time.Parse(time.RFC3339Nano, it.CreatedAt); err == nil {
				since = ts.Format("2006-01-02 15:04 UTC")
			}
			t.row(it.Email, "yes", string(it.Origin), since, it.ID)
		default:
			t.row(it.Email, "no", "", "", "")
		}
	}
	_ = t.flush()
	fmt.Fprintf(a.io.Out, "\n%d of %s on the list.\n", listed, plural(len(doc.Data), "address", "addresses"))
	if len(doc.LeftOut) > 0 {
		fmt.Fprintf(a.io.Out, "Left out (not looked up; --include-requester takes requesters in):\n")
		lt := newTable(a.io.Out)
		for _, l := range doc.LeftOut {
			lt.row("  "+l.Value, fmt.Sprintf("line %d", l.Line), l.Reason)
		}
		_ = lt.flush()
	}
	if len(doc.Invalid) > 0 {
		fmt.Fprintf(a.io.Out, "Invalid, not looked up: %s\n", describeInvalid(doc.Invalid, 3))
	}
}
