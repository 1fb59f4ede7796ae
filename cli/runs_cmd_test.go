package cli

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
)

// cutAt is the network of a service that a test cuts at the nth batch
// request: cut is called with it (and the request's own context), and
// whether the request then reaches the service is what cut returns.
type cutAt struct {
	n    int32
	seen atomic.Int32
	cut  func(w http.ResponseWriter, r *http.Request) bool
}

func (c *cutAt) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") && r.URL.Path != "/suppressions/batch/check" && c.seen.Add(1) >= c.n && c.cut != nil {
			if !c.cut(w, r) {
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// runInfo is the run the journal directory holds by ID.
func runInfo(t *testing.T, ta *testApp, id string) batch.RunInfo {
	t.Helper()
	rs, err := ta.recorded()
	if err != nil {
		t.Fatal(err)
	}
	ri, err := rs.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	return ri
}

// lastRun is the newest run's ID.
func lastRun(t *testing.T, ta *testApp) string {
	t.Helper()
	rs, err := ta.recorded()
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rs.List()
	if err != nil || len(runs) == 0 {
		t.Fatalf("no run recorded: %v", err)
	}
	return runs[0].ID
}

// TestBatchCutOffByCtrlCIsFinishedByResume: a Ctrl-C while the second of
// three batches is on the wire stops the run with exit 130 and the command
// that finishes it; that command sends what is left, nothing twice.
func TestBatchCutOffByCtrlCIsFinishedByResume(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cutAt{n: 2}
	var cut atomic.Bool
	c.cut = func(w http.ResponseWriter, r *http.Request) bool {
		if !cut.CompareAndSwap(false, true) {
			return true
		}
		// Ctrl-C while the request is on the wire: it never gets an
		// answer (the client lets it go after its grace).
		cancel()
		select {
		case <-r.Context().Done():
		case <-time.After(800 * time.Millisecond): // past the client's grace (batch.stopGrace)
		}
		return false
	}
	svc := newServiceBehind(t, c.wrap)
	emails := addresses("cut", 250)
	file := writeFile(t, "list.txt", strings.Join(emails, "\n")+"\n")
	ta := newTestApp(t, svc)
	o := batchOpts(ta, batch.Add, file)
	o.concurrency, o.concurrencyGiven = 1, true
	err := runBatch(ctx, o)
	wantErr(t, err, ExitInterrupted, "interrupted with", "of 3 batches not sent; finish the run with: shush --base-url "+svc.URL+" suppressions batch add --file "+file+" --resume")
	var doc runDoc
	ta.decode(t, &doc)
	outcomes := map[string]int{}
	for _, d := range doc.Data {
		outcomes[d.Outcome]++
	}
	if outcomes["added"] != 100 || len(doc.Data) != 250 {
		t.Errorf("the cut-off run's document: %v of %d entries", outcomes, len(doc.Data))
	}
	id := lastRun(t, ta)
	if ri := runInfo(t, ta, id); !ri.Resumable() || ri.Sent() != 100 {
		t.Errorf("the run after the cut: %+v", ri)
	}

	// Another file is not this run's: resume refuses rather than guess.
	ta.reset()
	other := writeFile(t, "other.txt", "x@example.com\ny@example.com\n")
	o = batchOpts(ta, batch.Add, other)
	o.resume = true
	wantErr(t, runBatch(context.Background(), o), ExitUsage,
		"the last interrupted add run on "+svc.URL+" was of other entries (250) than "+other+" holds (2); resume it with the same file, or with: shush runs resume "+id)

	// The same command with --resume finishes it.
	ta.reset()
	o = batchOpts(ta, batch.Add, file)
	o.resume = true
	if err := runBatch(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "Resuming the run of ") || !strings.Contains(ta.err.String(), ": 100 of 250 entries were sent.") {
		t.Errorf("stderr %q", ta.err.String())
	}
	if got := svc.everything(t); len(got) != 250 {
		t.Errorf("%d of 250 addresses listed after the resume", len(got))
	}
	ri := runInfo(t, ta, id)
	if ri.State != batch.Finished || ri.Counts[batch.Added] != 250 {
		t.Errorf("the run after its resume: %s %v", ri.State, ri.Counts)
	}

	// Nothing is left: a resume now starts a new run.
	ta.reset()
	o = batchOpts(ta, batch.Add, other)
	o.resume = true
	if err := runBatch(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "No interrupted add run on "+svc.URL+"; starting a new one.") {
		t.Errorf("stderr %q", ta.err.String())
	}
}

// TestRunPausedByAnOutageIsFinishedByRunsResume: a service that asks to
// wait an hour (429, Retry-After) pauses the run with exit 1 and the
// command that finishes it; runs list and show say where it stands, and
// runs resume finishes it once the service is back.
func TestRunPausedByAnOutageIsFinishedByRunsResume(t *testing.T) {
	var down atomic.Bool
	c := &cutAt{n: 2, cut: func(w http.ResponseWriter, _ *http.Request) bool {
		if !down.Load() {
			return true
		}
		w.Header().Set("Retry-After", "3600")
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write([]byte(`{"name":"rate_limit_exceeded","message":"Down for maintenance.","statusCode":429}`))
		return false
	}}
	down.Store(true)
	// Made first: each service isolates the test's directories anew.
	elsewhere := newTestService(t)
	svc := newServiceBehind(t, c.wrap)
	emails := addresses("pause", 230)
	file := writeFile(t, "list.txt", strings.Join(emails, "\n")+"\n")
	ta := newTestApp(t, svc).human()
	o := batchOpts(ta, batch.Add, file)
	o.concurrency, o.concurrencyGiven = 1, true
	err := runBatch(context.Background(), o)
	wantErr(t, err, ExitFailed, "paused: the service asks to wait 1h0m0s before the next request (Retry-After)", "; 2 batches of 3 batches not sent;",
		"when the service is back, finish the run with: shush --base-url "+svc.URL+" suppressions batch add --file "+file+" --resume")
	id := lastRun(t, ta)

	ta.reset()
	if err := runRunsList(context.Background(), &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 || !strings.Contains(l[1], "paused, 100 of 230 sent") || !strings.Contains(l[1], "100 added") {
		t.Errorf("runs list:\n%s", ta.out.String())
	}
	ta.reset()
	if err := runRunsShow(context.Background(), &runsShowOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	if miss := lacks(out, "State: paused, 100 of 230 sent", "Stopped by: ", "Entries: 230 (0 invalid and 0 duplicates left out)", "pause000@example.com", "pause229@example.com", "failed: the service answered 429"); len(miss) > 0 {
		t.Errorf("runs show lacks %q:\n%s", miss, ta.out.String())
	}

	// Resumed against another service: refused, naming both.
	ta2 := newTestApp(t, elsewhere)
	ta2.io = ta.io
	wantErr(t, runRunsResume(context.Background(), &runsResumeOptions{app: ta2.app, Arg: id}), ExitUsage,
		"run "+id+" was sent to "+svc.URL+", not "+elsewhere.URL+": resume it with the same --profile or --base-url")

	down.Store(false)
	ta.reset()
	if err := runRunsResume(context.Background(), &runsResumeOptions{app: ta.app, Arg: id[:10], Concurrency: 2, ConcurrencyGiven: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), ": 100 of 230 entries were sent.") {
		t.Errorf("stderr %q", ta.err.String())
	}
	if !strings.Contains(ta.out.String(), "230 added") {
		t.Errorf("the resumed run's report:\n%s", ta.out.String())
	}
	if got := svc.everything(t); len(got) != 230 {
		t.Errorf("%d of 230 listed after runs resume", len(got))
	}
}

// TestRunRefusedForItsKeyIsNotResumed: a read-only key's run is refused at
// its first batch and cannot be resumed with the same key.
func TestRunRefusedForItsKeyIsNotResumed(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	ta.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	file := writeFile(t, "list.txt", "a@example.com\nb@example.com\n")
	err := runBatch(context.Background(), batchOpts(ta, batch.Add, file))
	if exitCode(err) == ExitOK {
		t.Fatal("a read-only key's run succeeded")
	}
	id := lastRun(t, ta)
	ta.reset()
	ta.human()
	if err := runRunsList(context.Background(), &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 || !strings.Contains(l[1], "refused (the key), 0 of 2 sent") {
		t.Errorf("runs list:\n%s", ta.out.String())
	}
	wantErr(t, runRunsResume(context.Background(), &runsResumeOptions{app: ta.app, Arg: id}), ExitUsage,
		"run "+id+" was refused by the service", "nothing is resumed with a key it refuses")
	if l := svc.listed(t); len(l) != 0 {
		t.Errorf("listed %v", l)
	}
}

// exportCSV is a shush export with origins: what undo of a removal must
// put back as it was.
const exportCSV = `email,id,origin,created_at
bounced@example.com,,bounce,
angry@example.com,,complaint,
plain@example.com,,manual,
`

func TestRunsUndoOfARemovalPutsBackTheOrigins(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "export.csv", exportCSV))); err != nil {
		t.Fatal(err)
	}
	if got := svc.everything(t); got["bounced@example.com"].Origin != api.OriginBounce || got["angry@example.com"].Origin != api.OriginComplaint {
		t.Fatalf("the import did not keep the origins: %+v", got)
	}
	ta.reset()
	rm := batchOpts(ta, batch.RemoveEmails, writeFile(t, "rm.txt", "bounced@example.com\nplain@example.com\nnever@example.com\n"))
	rm.yes = true
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	id := lastRun(t, ta)

	// A dry run lists what it would put back, each with its origin.
	ta.reset()
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	var plan struct {
		DryRun  bool `json:"dry_run"`
		Mode    string
		Target  string
		Entries []undoEntry
	}
	ta.decode(t, &plan)
	back := map[string]api.Origin{}
	for _, e := range plan.Entries {
		back[e.Email] = e.Origin
	}
	if !plan.DryRun || plan.Mode != "add" || plan.Target != svc.URL || len(back) != 2 || back["bounced@example.com"] != api.OriginBounce || back["plain@example.com"] != api.OriginManual {
		t.Errorf("undo --dry-run --json: %+v", plan)
	}

	ta.reset()
	ta.human()
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if miss := lacks(out, "Undo the remove by address run "+id, "put back 2 addresses on "+svc.URL, "It would put back:\n", "bounced@example.com (bounce)\n", "plain@example.com (manual)\n", "Nothing was sent (--dry-run).\n"); len(miss) > 0 {
		t.Errorf("undo --dry-run lacks %q:\n%s", miss, out)
	}
	if _, ok := svc.everything(t)["bounced@example.com"]; ok {
		t.Fatal("a dry run put an address back")
	}

	// On a terminal it asks, listing them first; no keeps them off.
	ta.reset()
	ta.terminal("no\n")
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	if i, j := strings.Index(e, "bounced@example.com (bounce)"), strings.Index(e, "Go ahead? [y/N]"); i < 0 || j < i || !strings.Contains(e, "Nothing removed.") {
		t.Errorf("the question:\n%s", e)
	}
	if _, ok := svc.everything(t)["bounced@example.com"]; ok {
		t.Fatal("put back after no")
	}

	ta.reset()
	ta.stdin("y\n")
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	got := svc.everything(t)
	if got["bounced@example.com"].Origin != api.OriginBounce || got["plain@example.com"].Origin != api.OriginManual || len(got) != 3 {
		t.Errorf("after the undo: %+v", got)
	}

	// The undo is a run of its own, marked so.
	ta.reset()
	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 4 || !strings.Contains(l[1], "add (undo)") {
		t.Errorf("runs list after the undo:\n%s", ta.out.String())
	}
}

func TestRunsUndoThatHasNothingToPutBack(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	rm := batchOpts(ta, batch.RemoveEmails, writeFile(t, "rm.txt", "never@example.com\n"))
	rm.yes = true
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	id := lastRun(t, ta)
	ta.reset()
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "Nothing to undo: the run changed nothing that can be put back.") || ta.out.Len() != 0 {
		t.Errorf("stdout %q, stderr %q", ta.out.String(), ta.err.String())
	}
	wantErr(t, runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: "zzzz"}), ExitUsage, "zzzz")
}

func TestRunsShowOfARemovalByID(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc)
	rm := batchOpts(ta, batch.RemoveIDs, writeFile(t, "ids.txt", added[0].ID+"\nnot-an-id\n"+added[1].ID+"\n"))
	rm.yes = true
	if err := runBatch(ctx, rm); err != nil {
		t.Fatal(err)
	}
	id := lastRun(t, ta)
	ta.reset()
	ta.human()
	if err := runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	if miss := lacks(out, "Mode: remove by ID", "SENT ID ID OUTCOME BATCH", added[0].ID, "2 removed.", "Invalid, not sent: 1 entry.", "not-an-id"); len(miss) > 0 {
		t.Errorf("runs show lacks %q:\n%s", miss, ta.out.String())
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	emails := map[string]bool{}
	for _, d := range doc.Data {
		emails[d.Email] = d.Deleted != nil && *d.Deleted
	}
	if !emails["a@example.com"] || !emails["b@example.com"] || len(doc.Invalid) != 1 || doc.Invalid[0].Line != 2 {
		t.Errorf("runs show --json: %+v", doc)
	}
}

// TestRunsShowSaysWhatATicketsRunLeftOut: days later, runs show still
// tells whom the ticket's run left out and why, as the run's report did.
func TestRunsShowSaysWhatATicketsRunLeftOut(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var empty struct {
		Object string
		Data   []batch.RunInfo
	}
	ta.decode(t, &empty)
	if empty.Object != "list" || empty.Data == nil || len(empty.Data) != 0 {
		t.Errorf("runs list of no runs: %s", ta.out.String())
	}

	ticket := writeFile(t, "T-31.txt", "From: Jane <jane@customer.example>\nTo: support@shush.example\n\nPlease stop mailing bob@customer.example, he left the company.\nJane\n")
	ta.reset()
	if err := runBatch(ctx, batchOpts(ta, batch.Add, ticket)); err != nil {
		t.Fatal(err)
	}
	id := lastRun(t, ta)
	ta.reset()
	ta.human()
	if err := runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	if miss := lacks(out, "bob@customer.example", "1 added.", "Left out 2 addresses; --include-requester takes in all but our own and the address the ticket was sent to:",
		"support@shush.example", "the address the ticket was sent to", "jane@customer.example"); len(miss) > 0 {
		t.Errorf("runs show lacks %q:\n%s", miss, ta.out.String())
	}
	if l := svc.listed(t); strings.Join(l, " ") != "bob@customer.example" {
		t.Errorf("listed %v", l)
	}
}

// TestRunsUndoTwiceRemovesNothingMore: the second undo of an addition
// finds the entries it made gone and removes nothing; entries listed
// since under the same addresses (new IDs) stay.
func TestRunsUndoTwiceRemovesNothingMore(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	id := sendRun(t, svc, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc)
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Fatalf("after the undo: %v", l)
	}
	again := svc.add(t, "a@example.com")

	ta.reset()
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	var plan struct{ Entries []undoEntry }
	ta.decode(t, &plan)
	for _, e := range plan.Entries {
		if e.ID == again[0].ID {
			t.Errorf("the second undo would remove the entry listed since: %+v", plan.Entries)
		}
	}
	ta.reset()
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, Yes: true}); err != nil {
		t.Fatal(err)
	}
	got := svc.everything(t)
	if len(got) != 1 || got["a@example.com"].ID != again[0].ID {
		t.Errorf("after the second undo: %+v", got)
	}
}
