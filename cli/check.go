package cli

import (
	"fmt"
	"strings"
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
	// Requester marks the ticket's requester; Rule says how the rule of
	// whom a ticket is about reads the address (absent for one the
	// ticket's words simply name).
	Requester bool            `json:"requester,omitempty"`
	Rule      *batch.Decision `json:"rule,omitempty"`
}

// checkJSON is the whole answer of `suppressions check --json`: every
// address looked up, and the invalid entries.
type checkJSON struct {
	Object  string       `json:"object"`
	Data    []checkItem  `json:"data"`
	Invalid []batch.Item `json:"invalid,omitempty"`
}

func (a *app) checkCommand() *cobra.Command {
	var (
		file             string
		includeRequester bool
		concurrency      int
	)
	cmd := &cobra.Command{
		Use:   "check --file F",
		Short: "Say which addresses of a file or ticket are on the list; changes nothing",
		Long: `Look up every address of a file (any input format: a ticket's free text, a
list, CSV or JSON) and say which are on the list, with their origin and
date. Nothing is added or removed, so nobody is left out: the ticket's
requester, our own addresses and those of headers and signatures are looked
up too, each marked with what the ticket makes of it (the requester, and
why a batch would leave an address out).`,
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
			roles := batch.Roles(items, batch.NewOwn(settings.Own))
			rule := map[string]batch.Decision{}
			for i, d := range roles {
				if _, seen := rule[items[i].Value]; !seen && d.Decided() {
					rule[items[i].Value] = d
				}
			}
			plan := batch.NewPlan(batch.RemoveEmails, items)
			out := a.output()
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
			doc := checkJSON{Object: "list", Data: make([]checkItem, 0, len(found)), Invalid: plan.Invalid}
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
				if d, ok := rule[f.Input]; ok {
					it.Requester, it.Rule = d.Requester, &d
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
	// check leaves nobody out any more; the flag stays so that scripts
	// that pass it keep working.
	fl.BoolVar(&includeRequester, "include-requester", false, "no effect: check looks up every address")
	_ = fl.MarkHidden("include-requester")
	fl.IntVar(&concurrency, "concurrency", 4, "look-ups in flight at once (1-16)")
	return cmd
}

func (a *app) printCheck(doc checkJSON) {
	listed := 0
	t := newTable(a.io.Out)
	t.row("ADDRESS", "LISTED", "ORIGIN", "SINCE", "ID", "TICKET")
	for _, it := range doc.Data {
		note := ""
		if it.Rule != nil {
			note = checkNote(*it.Rule)
		}
		switch {
		case it.Error != "":
			t.row(it.Email, "?", "", "", "look-up failed: "+it.Error, note)
		case it.Listed:
			listed++
			since := it.CreatedAt
			if ts, err := time.Parse(time.RFC3339Nano, it.CreatedAt); err == nil {
				since = ts.Format("2006-01-02 15:04 UTC")
			}
			t.row(it.Email, "yes", string(it.Origin), since, it.ID, note)
		default:
			t.row(it.Email, "no", "", "", "", note)
		}
	}
	_ = t.flush()
	fmt.Fprintf(a.io.Out, "\n%d of %s on the list.\n", listed, plural(len(doc.Data), "address", "addresses"))
	if len(doc.Invalid) > 0 {
		fmt.Fprintf(a.io.Out, "Invalid, not looked up: %s\n", describeInvalid(doc.Invalid, 3))
	}
}

// checkNote says what the ticket makes of an address, in a check's table:
// "requester" and what they ask, or why a batch would leave it out.
func checkNote(d batch.Decision) string {
	s := d.Reason
	switch {
	case d.Requester && d.Leave:
		s = "requester; not asking for themselves"
	case d.Requester:
		s = "requester; " + strings.TrimPrefix(d.Reason, "the requester ")
	}
	return fmt.Sprintf("%s (line %d)", s, d.By.Line)
}
