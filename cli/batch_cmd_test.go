package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// provider is one of batch's samples of another provider's export.
func provider(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "batch", "testdata", "providers", name))
	if err != nil {
		t.Fatal(err)
	}
	return writeFile(t, name, string(b))
}

func TestBatchRemoveAsksListingEveryAddress(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com", "keep@example.com")
	file := writeFile(t, "rm.txt", "a@example.com\nb@example.com\nnever@example.com\n")
	ta := newTestApp(t, svc).terminal("n\n")
	rm := batchOpts(ta, batch.RemoveEmails, file)
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	want := "These 3 addresses would be removed:\na@example.com\nb@example.com\nnever@example.com\nRemove 3 addresses from " + svc.URL + "? [y/N] Nothing removed.\n"
	if e != want {
		t.Errorf("the question:\n%q\nwant\n%q", e, want)
	}
	if l := svc.everything(t); len(l) != 3 {
		t.Fatalf("removed after no: %v", l)
	}

	ta.reset()
	ta.stdin("yes\n")
	if err := runBatch(ctx, batchOpts(ta, batch.RemoveEmails, file)); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if miss := lacks(out, "Remove by address on "+svc.URL+", 1 batch: 2 removed, 1 not on the list."); len(miss) > 0 {
		t.Errorf("the report lacks %q:\n%s", miss, out)
	}
	if l := svc.everything(t); len(l) != 1 {
		t.Errorf("after yes: %v", l)
	}
}

func TestBatchRemoveFromStdinNeedsYes(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, svc).terminal("a@example.com\n")
	ta.io.StdinTTY = false
	wantErr(t, runBatch(ctx, batchOpts(ta, batch.RemoveEmails, "-")), ExitUsage, "the entries come from stdin, so there is no terminal to ask on; pass --yes")
	if l := svc.listed(t); len(l) != 1 {
		t.Fatalf("removed without --yes: %v", l)
	}
	ta.reset()
	ta.stdin("a@example.com\n")
	rm := batchOpts(ta, batch.RemoveEmails, "-")
	rm.yes = true
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("after --yes: %v", l)
	}

}

func TestBatchOfAnotherProvidersExport(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runBatch(ctx, batchOpts(ta, batch.Add, provider(t, "mailgun-bounces.csv"))); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String()+ta.err.String(), "Mailgun bounces CSV") {
		t.Errorf("the report does not say how the file was read:\n%s\n%s", ta.out.String(), ta.err.String())
	}
	got := svc.everything(t)
	e := got["mg.bounce1@example.com"]
	if len(got) != 2 || e.Origin != api.OriginBounce || e.Evidence == nil || e.Evidence.Provider != "mailgun" || e.Evidence.Status != "5.1.1" {
		t.Errorf("the import: %+v", got)
	}

	// The same file read as a plain list keeps nothing but the addresses.
	plain := newTestService(t)
	tp := newTestApp(t, plain)
	o := batchOpts(tp, batch.Add, provider(t, "mailgun-bounces.csv"))
	o.format = "plain"
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	for email, e := range plain.everything(t) {
		if e.Origin != api.OriginManual || e.Evidence != nil {
			t.Errorf("--format plain listed %s as %+v", email, e)
		}
	}

	// Named as another provider's, it is refused, naming both.
	tp.reset()
	o = batchOpts(tp, batch.Add, provider(t, "mailgun-bounces.csv"))
	o.format = "sendgrid"
	err := runBatch(ctx, o)
	wantErr(t, err, ExitUsage)
	if err != nil && !strings.Contains(strings.ToLower(err.Error()), "sendgrid") {
		t.Errorf("the refusal does not name the format asked for: %v", err)
	}
}

func TestBatchTicketReferenceAndRequester(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ticket := writeFile(t, "mail.txt", `From: Jane <jane@customer.example>
To: support@shush.example
Subject: Case AB-2026-7: unsubscribe me and my colleague (cc'd)
Cc: bob@customer.example

Please unsubscribe me and my colleague bob@customer.example (cc'd) from all mail.
Jane
`)
	ta := newTestApp(t, svc)

	// A reference found but not asked for is said, and not sent.
	d := batchOpts(ta, batch.Add, ticket)
	d.dryRun = true
	if err := runBatch(ctx, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "shush: the ticket names the reference ") || !strings.Contains(ta.err.String(), "--reference auto sends it") {
		t.Errorf("stderr %q", ta.err.String())
	}

	// --exclude-requester leaves out Jane; the address her words name
	// still goes.
	ta.reset()
	ex := batchOpts(ta, batch.Add, ticket)
	ex.excludeRequester = true
	if err := runBatch(ctx, ex); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); strings.Join(l, " ") != "bob@customer.example" {
		t.Errorf("--exclude-requester listed %v", l)
	}

	// By the rule both go, under the ticket's reference.
	ta.reset()
	o := batchOpts(ta, batch.Add, ticket)
	o.reference = autoReference
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	got := svc.everything(t)
	if _, ok := got["jane@customer.example"]; !ok || len(got) != 2 {
		t.Errorf("listed %v; want jane and bob", got)
	}
	if _, ok := got["support@shush.example"]; ok {
		t.Error("the address the ticket was sent to was listed")
	}
	id := lastRun(t, ta)
	if ri := runInfo(t, ta, id); !strings.Contains(ri.Reference, "AB-2026-7") {
		t.Errorf("the run's reference %q", ri.Reference)
	}

	// --reference auto of a file that names none is refused.
	ta.reset()
	none := writeFile(t, "list.txt", "x@example.com\n")
	o = batchOpts(ta, batch.Add, none)
	o.reference = autoReference
	wantErr(t, runBatch(ctx, o), ExitUsage, "--reference auto: "+none+" names no ticket reference")
}

// TestBatchTicketThatAsksForTheOtherMode: a requester who asks to get
// mail again is not listed by batch add, and is by batch remove taken
// off.
func TestBatchTicketThatAsksForTheOtherMode(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "ann@customer.example")
	back := writeFile(t, "back.txt", "From: ann@customer.example\nTo: support@shush.example\n\nPlease put me back on your mailing list, I want your mail again.\n")
	ta := newTestApp(t, svc)
	err := runBatch(ctx, batchOpts(ta, batch.Add, back))
	wantErr(t, err, ExitUsage, back+`: the ticket asks to get mail again (line 4: "put me back on"), not to add it to the list; nothing was changed (--ignore-intent sends it as add anyway)`)

	// As a removal it is what it asks for.
	ta.reset()
	rm := batchOpts(ta, batch.RemoveEmails, back)
	rm.yes = true
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("after the removal the ticket asks for: %v", l)
	}

	// --include-requester takes her in for an addition after all.
	ta.reset()
	o := batchOpts(ta, batch.Add, back)
	o.includeRequester, o.ignoreIntent = true, true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); len(l) != 1 {
		t.Errorf("--include-requester: %v", l)
	}
}

func TestBatchDryRunOfARemovalForAPerson(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc).human()
	o := batchOpts(ta, batch.RemoveIDs, writeFile(t, "ids.txt", added[0].ID+"\n"+added[1].ID+"\n"+added[0].ID+"\nnope\n"))
	o.dryRun = true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if miss := lacks(out, added[0].ID, added[1].ID, "nope", "line 4"); len(miss) > 0 {
		t.Errorf("the plan lacks %q:\n%s", miss, out)
	}
	if !strings.Contains(strings.ToLower(out), "duplicate") {
		t.Errorf("the plan does not count the duplicate:\n%s", out)
	}
	if l := svc.listed(t); len(l) != 2 {
		t.Errorf("a dry run removed: %v", l)
	}
}

func TestBatchConcurrencyIsChecked(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	file := writeFile(t, "list.txt", strings.Join(addresses("c", 250), "\n")+"\n")
	for _, n := range []int{0, 17} {
		o := batchOpts(ta, batch.Add, file)
		o.concurrency, o.concurrencyGiven = n, true
		wantErr(t, runBatch(ctx, o), ExitUsage, "--concurrency must be between 1 and 16")
	}
	o := batchOpts(ta, batch.Add, file)
	o.concurrency, o.concurrencyGiven = 3, true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	if len(doc.Data) != 250 || len(svc.everything(t)) != 250 {
		t.Errorf("3 in flight sent %d entries", len(doc.Data))
	}
}

func TestBatchOnTheLocalList(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil).human()
	file := writeFile(t, "list.txt", "a@example.com\nb@example.com\n")
	if err := runBatch(ctx, batchOpts(ta, batch.Add, file)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), "Add on the local list") || !strings.Contains(ta.out.String(), "2 added") {
		t.Errorf("the report:\n%s", ta.out.String())
	}
	// The same list is there for the next command, with its own key.
	ta.reset()
	if err := runGet(ctx, &getOptions{app: ta.app, Ref: "b@example.com"}); err != nil {
		t.Fatalf("the local list lost the run: %v", err)
	}
	if !strings.Contains(ta.out.String(), "b@example.com") {
		t.Errorf("get: %q", ta.out.String())
	}
}
