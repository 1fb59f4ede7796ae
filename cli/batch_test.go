package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// writeFile writes text to a file of the test's and returns its path.
func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func batchOpts(ta *testApp, mode batch.Mode, file string) *batchOptions {
	return &batchOptions{app: ta.app, Mode: mode, batchFlags: batchFlags{file: file, format: "auto"}}
}

// runDoc is the --json document of a batch run.
type runDoc struct {
	Object string `json:"object"`
	Data   []struct {
		Email, ID, Outcome, Error string
		Deleted                   *bool
	} `json:"data"`
	Invalid []struct {
		Line           int
		Entry, Problem string
	} `json:"invalid"`
}

func (d runDoc) outcomes() map[string]string {
	m := map[string]string{}
	for _, e := range d.Data {
		m[e.Email] = e.Outcome
	}
	return m
}

// listed is the addresses on the service's list.
func (s *testService) listed(t *testing.T) []string {
	t.Helper()
	page, err := s.client().ListFull(context.Background(), client.ListParams{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range page.Data {
		out = append(out, e.Email)
	}
	return out
}

func TestBatchAddSendsAFileAndReportsEachEntry(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "old@example.com")
	file := writeFile(t, "bounces.txt", "a@example.com\nOLD@example.com\nbob@\nA@example.com\n")
	ta := newTestApp(t, svc)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, file)); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	got := doc.outcomes()
	if len(doc.Data) != 2 || got["a@example.com"] != "added" || got["old@example.com"] != "already_listed" {
		t.Errorf("outcomes %v", got)
	}
	if len(doc.Invalid) != 1 || doc.Invalid[0].Line != 3 || doc.Invalid[0].Entry != "bob@" {
		t.Errorf("invalid %+v", doc.Invalid)
	}
	if e := ta.err.String(); !strings.Contains(e, "shush: left out 1 invalid entry: line 3") {
		t.Errorf("stderr %q", e)
	}
	if l := svc.listed(t); len(l) != 2 {
		t.Errorf("listed %v", l)
	}
}

func TestBatchAddForAPerson(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	file := writeFile(t, "list.csv", "email,name\nann@example.com,Ann\nbob@example.com,Bob\nann@example.com,Ann again\n")
	ta := newTestApp(t, svc).human()
	if err := runBatch(ctx, batchOpts(ta, batch.Add, file)); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	for _, want := range []string{"ann@example.com", "bob@example.com", "Add on " + svc.URL + ", 1 batch: 2 added.", "Left out: 1 duplicate, 0 invalid."} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestBatchDryRunSendsNothing(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	file := writeFile(t, "list.txt", "a@example.com\nb@example.com\nnot-an-address\n")
	ta := newTestApp(t, svc)
	o := batchOpts(ta, batch.Add, file)
	o.dryRun = true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	var plan struct {
		DryRun  bool     `json:"dry_run"`
		Mode    string   `json:"mode"`
		Valid   int      `json:"valid"`
		Batches int      `json:"batches"`
		Values  []string `json:"values"`
		Target  string   `json:"target"`
	}
	ta.decode(t, &plan)
	if !plan.DryRun || plan.Mode != "add" || plan.Valid != 2 || plan.Batches != 1 || strings.Join(plan.Values, ",") != "a@example.com,b@example.com" || plan.Target != svc.URL {
		t.Errorf("plan %+v", plan)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("a dry run listed %v", l)
	}

	ta.reset()
	ta.human()
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "Would add 2 addresses on "+svc.URL+" in 1 batch of up to 100.\n") {
		t.Errorf("dry run for a person:\n%s", ta.out.String())
	}
}

func TestBatchRemove(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com", "c@example.com")
	file := writeFile(t, "gone.txt", "a@example.com\nnobody@example.com\n")
	ta := newTestApp(t, svc)

	wantErr(t, runBatch(ctx, batchOpts(ta, batch.RemoveEmails, file)), ExitUsage, "refusing to remove without confirmation: pass --yes")
	if l := svc.listed(t); len(l) != 3 {
		t.Fatalf("removed without --yes: %v", l)
	}

	o := batchOpts(ta, batch.RemoveEmails, file)
	o.yes = true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	got := doc.outcomes()
	if got["a@example.com"] != "removed" || got["nobody@example.com"] != "not_listed" {
		t.Errorf("outcomes %v", got)
	}
	for _, d := range doc.Data {
		if d.Deleted == nil || *d.Deleted != (d.Email == "a@example.com") {
			t.Errorf("deleted flag of %s: %v", d.Email, d.Deleted)
		}
	}

	// By ID.
	ta.reset()
	ids := writeFile(t, "ids.json", `{"ids": ["`+added[1].ID+`"]}`)
	o = batchOpts(ta, batch.RemoveIDs, ids)
	o.ids, o.yes = true, true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); strings.Join(l, ",") != "c@example.com" {
		t.Errorf("left on the list: %v", l)
	}

	// Entries from stdin leave no terminal to ask on.
	ta.reset()
	ta.stdin("c@example.com\n")
	wantErr(t, runBatch(ctx, batchOpts(ta, batch.RemoveEmails, "-")), ExitUsage, "the entries come from stdin")
}

func TestBatchRefusesBadFlagsBeforeReading(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	file := writeFile(t, "list.txt", "a@example.com\n")
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		f    batchFlags
		want string
	}{
		{batchFlags{file: file, concurrency: 0, concurrencyGiven: true}, "--concurrency must be between 1 and 16, not 0"},
		{batchFlags{file: file, concurrency: 17, concurrencyGiven: true}, "not 17"},
		{batchFlags{file: file, dryRun: true, resume: true}, "give --dry-run or --resume, not both"},
		{batchFlags{file: file, reference: "bad\nref"}, "--reference"},
		{batchFlags{file: file, includeRequester: true, excludeRequester: true}, "not both"},
		{batchFlags{file: file, format: "excel"}, "excel"},
		{batchFlags{file: file, keep: noteFlags{expires: "later"}}, "--expires"},
		{batchFlags{file: file, resume: true, keep: noteFlags{note: "n"}}, "a resumed run keeps the --note"},
		{batchFlags{}, "--file is required"},
		{batchFlags{file: filepath.Join(t.TempDir(), "missing.txt")}, "cannot read"},
		{batchFlags{file: writeFile(t, "empty.txt", "")}, "empty.txt: it is empty"},
		{batchFlags{file: writeFile(t, "bad.txt", "bob@\n@x\n")}, "has no valid entries to send"},
	} {
		o := &batchOptions{app: ta.app, Mode: batch.Add, batchFlags: c.f}
		if o.format == "" {
			o.format = "auto"
		}
		wantErr(t, runBatch(ctx, o), ExitUsage, c.want)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("a refused run listed %v", l)
	}
}

func TestBatchAddFromStdinWithNoteAndExpiry(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).stdin(`["full@example.com", "also@example.com"]`)
	o := batchOpts(ta, batch.Add, "-")
	o.keep = noteFlags{note: "mailbox full", expires: "7d"}
	o.reference = "T-1"
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	e, err := svc.client().Get(ctx, "also@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if e.Note == nil || *e.Note != "mailbox full" || e.ExpiresAt == nil {
		t.Errorf("entry %+v", e)
	}
}

func TestBatchFromATicketLeavesOutOurOwn(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ticket := writeFile(t, "TICKET-88.txt", `From: Jane <jane@customer.example>
To: support@shush.example
Subject: please stop mailing my colleague

Hi, please stop all mail to bob@customer.example, he left.
Thanks, Jane
`)
	ta := newTestApp(t, svc)
	o := batchOpts(ta, batch.Add, ticket)
	o.reference = autoReference
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); strings.Join(l, ",") != "bob@customer.example" {
		t.Errorf("listed %v, want the colleague only", l)
	}
	if e := ta.err.String(); !strings.Contains(e, "shush: reference #88, from the file name TICKET-88.txt") {
		t.Errorf("stderr %q", e)
	}

	// A removal ticket given to batch add stops, naming its words.
	ta.reset()
	back := writeFile(t, "back.txt", "From: ann@customer.example\nTo: support@shush.example\n\nPlease put me back on your mailing list, I want your mail again.\n")
	err := runBatch(ctx, batchOpts(ta, batch.Add, back))
	wantErr(t, err, ExitUsage)
	if l := svc.listed(t); len(l) != 1 {
		t.Errorf("the stopped ticket listed %v", l)
	}
}
