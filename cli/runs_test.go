package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// sendRun adds the addresses with a batch run and returns the run's ID.
func sendRun(t *testing.T, svc *testService, emails ...string) string {
	t.Helper()
	ctx := context.Background()
	ta := newTestApp(t, svc)
	o := batchOpts(ta, batch.Add, writeFile(t, "run.txt", strings.Join(emails, "\n")+"\n"))
	o.reference = "T-9"
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var doc struct{ Data []batch.RunInfo }
	ta.decode(t, &doc)
	if len(doc.Data) == 0 {
		t.Fatal("no run recorded")
	}
	return doc.Data[0].ID
}

func TestRunsList(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	id := sendRun(t, svc, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc)

	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Object string
		Data   []batch.RunInfo
	}
	ta.decode(t, &doc)
	if doc.Object != "list" || len(doc.Data) != 1 {
		t.Fatalf("runs list %+v", doc)
	}
	ri := doc.Data[0]
	if ri.Mode != batch.Add || ri.Entries != 2 || ri.Reference != "T-9" || ri.State != batch.Finished || ri.Counts[batch.Added] != 2 {
		t.Errorf("run %+v", ri)
	}

	ta.reset()
	ta.human()
	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 2 || fields(lines[0])[0] != "RUN" || !strings.HasPrefix(lines[1], id) || !strings.Contains(lines[1], "2 added") || !strings.Contains(lines[1], "T-9") {
		t.Errorf("runs list for a person:\n%s", ta.out.String())
	}

}

func TestRunsShow(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	id := sendRun(t, svc, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc).human()

	// show by a unique beginning of the ID.
	if err := runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: id[:8]}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	for _, want := range []string{"Run: " + id, "Mode: add", "Reference: T-9", "a@example.com", "b@example.com", "2 added."} {
		if !strings.Contains(out, want) {
			t.Errorf("runs show lacks %q:\n%s", want, ta.out.String())
		}
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	var shown runDoc
	ta.decode(t, &shown)
	if got := shown.outcomes(); len(got) != 2 || got["a@example.com"] != "added" {
		t.Errorf("runs show --json: %v", got)
	}

	wantErr(t, runRunsShow(ctx, &runsShowOptions{app: ta.app, Arg: "ffffffff"}), ExitUsage, "ffffffff")
}

func TestRunsUndoOfAnAddition(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "before@example.com")
	id := sendRun(t, svc, "before@example.com", "new@example.com")
	ta := newTestApp(t, svc)

	// A dry run says what it would remove and sends nothing.
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, DryRun: true}); err != nil {
		t.Fatal(err)
	}
	var plan struct {
		DryRun  bool   `json:"dry_run"`
		UndoOf  string `json:"undo_of"`
		Mode    string `json:"mode"`
		Notes   []string
		Entries []undoEntry
	}
	ta.decode(t, &plan)
	if !plan.DryRun || plan.UndoOf != id || plan.Mode != "remove by ID" || len(plan.Entries) != 1 || plan.Entries[0].Email != "new@example.com" ||
		len(plan.Notes) != 1 || plan.Notes[0] != "1 entry was already listed before the run stays." {
		t.Errorf("undo plan %+v\n%s", plan, ta.out.String())
	}
	if l := svc.listed(t); len(l) != 2 {
		t.Fatalf("a dry run changed the list: %v", l)
	}

	ta.reset()
	wantErr(t, runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id}), ExitUsage, "pass --yes")
	if err := runRunsUndo(ctx, &runsUndoOptions{app: ta.app, Arg: id, Yes: true}); err != nil {
		t.Fatal(err)
	}
	// What was listed before the run stays.
	if l := svc.listed(t); strings.Join(l, ",") != "before@example.com" {
		t.Errorf("after the undo: %v", l)
	}
	if !strings.Contains(ta.err.String(), "Undo the add run "+id) {
		t.Errorf("stderr %q", ta.err.String())
	}
}

func TestRunsResumeOfAFinishedRun(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	id := sendRun(t, svc, "a@example.com")
	ta := newTestApp(t, svc)
	if err := runRunsResume(ctx, &runsResumeOptions{app: ta.app, Arg: id}); err != nil {
		t.Fatal(err)
	}
	if want := "Run " + id + " is finished: nothing left to send.\n"; ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
	wantErr(t, runRunsResume(ctx, &runsResumeOptions{app: ta.app, Arg: id, Concurrency: 40, ConcurrencyGiven: true}), ExitUsage, "--concurrency")

	// Another service is not the run's.
	other := newTestService(t)
	ta2 := newTestApp(t, other)
	ta2.io = ta.io
	err := runRunsResume(ctx, &runsResumeOptions{app: ta2.app, Arg: id})
	if err == nil {
		t.Fatal("resumed on another service")
	}
}

func TestRunsPrune(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	sendRun(t, svc, "a@example.com")
	ta := newTestApp(t, svc).human()
	wantErr(t, runRunsPrune(ctx, &runsPruneOptions{app: ta.app, Days: -1, DaysGiven: true}), ExitUsage, "--older-than-days must be 0 or more, not -1")

	if err := runRunsPrune(ctx, &runsPruneOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if want := "Pruned 0 runs finished more than 90 days ago.\n"; ta.out.String() != want {
		t.Errorf("prune said %q, want %q", ta.out.String(), want)
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runRunsPrune(ctx, &runsPruneOptions{app: ta.app, Days: 0, DaysGiven: true}); err != nil {
		t.Fatal(err)
	}
	var got map[string]int
	ta.decode(t, &got)
	if got["pruned"] != 1 || got["older_than_days"] != 0 {
		t.Errorf("prune --json %v", got)
	}
	ta.reset()
	ta.human()
	if err := runRunsList(ctx, &runsListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "No runs recorded in ") {
		t.Errorf("after prune: %q", ta.out.String())
	}
}

// What an undo says first is the same whether it sends or only shows
// (--dry-run): the run and what the undo does, the plan's notes indented,
// and, when nothing can be put back, that and no more; every line safe on
// a terminal.
func TestUndoSays(t *testing.T) {
	what := "Undo the remove run 0195f3c2 of 2026-11-27 10:00:00: put back 2 entries on the local list."
	u := batch.Undo{Mode: batch.Add, Values: []string{"a@example.com", "b@example.com"},
		Notes: []string{"1 entry comes back as manual: the service takes no origins.", "evil\x1b[2Jnote"}}
	want := what + "\n  1 entry comes back as manual: the service takes no origins.\n  evil" + safeText("\x1b[2J") + "note\n"
	if got := undoSays(u, what); got != want || strings.Contains(got, "\x1b") {
		t.Errorf("undo of two entries:\n%q\nwant\n%q", got, want)
	}
	if got := undoSays(batch.Undo{Mode: batch.RemoveIDs}, "Undo the add run 0195f3c2."); got != "Undo the add run 0195f3c2.\nNothing to undo: the run changed nothing that can be put back.\n" {
		t.Errorf("undo of nothing: %q", got)
	}
}
