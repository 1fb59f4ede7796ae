package cli

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// The human reports of the batch commands: the plan of a dry run, the
// summary of a run, the entries left out.

// maxShownInvalid bounds how many invalid entries a human summary lists.
const maxShownInvalid = 20

// maxShownResults is the largest run whose entries the human summary lists
// one by one (address, ID, outcome); a larger run gets counts only.
const maxShownResults = 50

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
	// Decisions are the rule's about whom the ticket is about, sent or
	// not.
	Decisions []ticket.Decided `json:"decisions"`
	Batches   int              `json:"batches"`
	BatchSize int              `json:"batch_size"`
	// Reference is what the run would send; Found the one the ticket
	// names.
	Reference string            `json:"reference,omitempty"`
	Found     *ticket.Reference `json:"reference_found,omitempty"`
	// Note and Expires are what an addition would give each entry
	// (--note, --expires as given).
	Note    string `json:"note,omitempty"`
	Expires string `json:"expires,omitempty"`
	// Preset is the provider's file the input was read as, Warnings what
	// its entries left unsaid.
	Preset   *batch.Preset `json:"read_as,omitempty"`
	Warnings []string      `json:"warnings,omitempty"`
}

func (a *app) printPlan(out outputMode, in *batch.Input, target, reference string, keep noteFlags, keepIDs bool) error {
	v := planView{DryRun: true, Mode: in.Mode.String(), Target: target, Format: in.Format.String(), Entries: in.Entries,
		Valid: in.Len(), Duplicates: in.Duplicates, Invalid: in.Invalid, LeftOut: in.LeftOut, Decisions: in.Decisions,
		Batches: in.Batches(), BatchSize: api.MaxBatch, Reference: reference, Note: keep.note, Expires: keep.expires,
		Preset: in.Preset, Warnings: in.Warnings}
	if in.HasReference {
		v.Found = &in.Reference
	}
	if v.Invalid == nil {
		v.Invalid = []batch.Item{}
	}
	if v.LeftOut == nil {
		v.LeftOut = []batch.LeftOut{}
	}
	if v.Decisions == nil {
		v.Decisions = []ticket.Decided{}
	}
	if out.json {
		// Every value it would send, as the UI's review shows them.
		return writeJSONWithList(a.io.Out, v, "values", in.Values())
	}
	// The report goes to the pager whole when it is long: the values are
	// listed, every one.
	var w strings.Builder
	verb := "add"
	if in.Mode != batch.Add {
		verb = "remove"
	}
	fmt.Fprintf(&w, "Would %s %s on %s in %s of up to %d.\n", verb, entriesOf(in.Mode, v.Valid),
		safeText(target), plural(v.Batches, "batch", "batches"), api.MaxBatch)
	fmt.Fprintf(&w, "Read %s (%s): %d to send, %s, %d invalid.\n", plural(in.Entries, "entry", "entries"), in.Format,
		v.Valid, plural(v.Duplicates, "duplicate", "duplicates"), len(v.Invalid))
	if v.Valid > 0 {
		w.WriteString(touchList(fmt.Sprintf("It would %s:", verb), slices.Collect(in.Values()), widthOf(a.io.Out)))
	}
	a.listInvalid(&w, in.Invalid, len(in.Invalid))
	ownIDs := in.OwnIDs()
	if keepIDs {
		if ownIDs > 0 {
			fmt.Fprintf(&w, "IDs kept (--keep-ids): %s would go with the ID and creation time the file gives, kept where the service allows.\n", plural(ownIDs, "entry", "entries"))
		}
		ownIDs = 0
	}
	a.listReading(&w, in.Preset, in.Warnings, ownIDs, "would")
	a.listTakenIn(&w, in.Decisions)
	a.listLeftOut(&w, in.LeftOut)
	if reference != "" {
		fmt.Fprintf(&w, "Reference: %s.\n", safeText(reference))
	}
	if v.Note != "" {
		fmt.Fprintf(&w, "Note on each entry: %s\n", safeText(v.Note))
	}
	if v.Expires != "" {
		fmt.Fprintf(&w, "Expires: %s (counted by the service's clock when sent).\n", safeText(v.Expires))
	}
	fmt.Fprintln(&w, "Nothing was sent (--dry-run).")
	return a.page(a.io.Out, w.String())
}

// listTakenIn prints the addresses the rule sends although the ticket's
// words do not name them (the requester who asks for themselves, the
// colleagues they include), with the line that decided.
func (a *app) listTakenIn(w io.Writer, decisions []ticket.Decided) {
	var taken []ticket.Decided
	for _, d := range decisions {
		if d.Sent {
			taken = append(taken, d)
		}
	}
	if len(taken) == 0 {
		return
	}
	fmt.Fprintf(w, "Taken in from the ticket (--exclude-requester leaves them out):\n")
	t := newTable(w)
	for _, d := range taken {
		t.row("  "+d.Value, d.Text(), evidence(d.By))
	}
	_ = t.flush()
}

// listLeftOut prints the valid addresses left out of the plan, each once
// with the lines that name it and why: our own, or whom the ticket is not
// about (which --include-requester takes in).
func (a *app) listLeftOut(w io.Writer, left []batch.LeftOut) {
	if len(left) == 0 {
		return
	}
	var order []string
	lines := map[string][]string{}
	first := map[string]ticket.Decision{}
	takeable := false
	for _, l := range left {
		if _, ok := first[l.Value]; !ok {
			order = append(order, l.Value)
			first[l.Value] = l.Decision
		}
		lines[l.Value] = append(lines[l.Value], fmt.Sprint(l.Line))
		takeable = takeable || !l.Fixed()
	}
	hint := ""
	if takeable {
		hint = "; --include-requester takes in all but our own and the address the ticket was sent to"
	}
	fmt.Fprintf(w, "Left out %s%s:\n", plural(len(order), "address", "addresses"), hint)
	t := newTable(w)
	for _, v := range order {
		d := first[v]
		t.row("  "+v, "line "+strings.Join(lines[v], ", "), d.Text(), evidence(d.By))
	}
	_ = t.flush()
}

// evidence cites the line that decided, in parentheses.
func evidence(e ticket.Evidence) string {
	if e.Line == 0 {
		return ""
	}
	return "(" + e.String() + ")"
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
	counts := batch.CountsText(sum.outcomes(), ", ")
	if counts == "" {
		counts = "nothing to send"
	}
	plan := sum.plan
	if sum.results > 0 && sum.results <= maxShownResults {
		a.listResults(w, plan.Mode, sum.shown)
	}
	fmt.Fprintf(w, "%s on %s, %s: %s.\n", capitalize(plan.Mode.String()), safeText(target),
		plural(sum.batches, "batch", "batches"), counts)
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
	a.listReading(w, sum.preset, sum.warnings, sum.ownIDsNew(), "")
	a.listKept(w, sum)
}

// listKept says what a run that kept IDs kept.
func (a *app) listKept(w io.Writer, sum *summary) {
	if !sum.keepIDs || sum.kept+sum.renewed == 0 {
		return
	}
	fmt.Fprintf(w, "IDs kept: %s listed with the ID and creation time the file gives", plural(sum.kept, "entry", "entries"))
	if sum.renewed > 0 {
		fmt.Fprintf(w, "; %s with new ones (their ID was in use, or is not one this service could have made before now: a UUIDv7)", plural(sum.renewed, "entry", "entries"))
	}
	fmt.Fprintln(w, ".")
}

// listReading says what the input was read as (another provider's file),
// what its entries left unsaid, and that the entries it lists get new IDs
// and creation times when the file gave its own (verb "would" for a plan).
func (a *app) listReading(w io.Writer, preset *batch.Preset, warnings []string, ownIDs int, verb string) {
	if preset != nil {
		fmt.Fprintf(w, "Read as %s.\n", safeText(preset.String()))
	}
	for _, warn := range warnings {
		fmt.Fprintf(w, "Note: %s.\n", safeText(warn))
	}
	if ownIDs > 0 {
		get := "get"
		if verb != "" {
			get = verb + " get"
		}
		fmt.Fprintf(w, "IDs and dates are new: the file gives %s their own ID and creation time, and the entries this run lists %s new ones, dated now.\n",
			plural(ownIDs, "entry", "entries"), get)
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
	kept := false // the service said a note or an expiry of some entry
	for _, r := range results {
		kept = kept || r.Note != "" || !r.ExpiresAt.IsZero()
	}
	t := newTable(w)
	if kept {
		t.row(head, "ID", "OUTCOME", "EXPIRES", "NOTE")
	} else {
		t.row(head, "ID", "OUTCOME")
	}
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
		if kept {
			t.row(r.Input, id, outcome, timeCell(r.ExpiresAt), cut(r.Note, maxNoteCell))
		} else {
			t.row(r.Input, id, outcome)
		}
	}
	t.flush()
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
