package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/server"
)

// A support agent finds last week's runs, reads one, undoes it and the
// list is as before; a removal's undo brings entries back with their
// origin.
func TestRunsListShowUndo(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "old@example.com").want(t, 0)
	in := writeFile(t, sb.home, "ticket.txt", "old@example.com\nnew1@example.com\nnew2@example.com\nnot an address\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--reference", "#4711").want(t, 0)

	type header struct {
		ID, Mode, Reference, State string
		UndoOf                     string `json:"undo_of"`
		Entries                    int
		Counts                     map[string]int
	}
	list := decode[struct{ Data []header }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 1 {
		t.Fatalf("runs: %+v", list.Data)
	}
	run := list.Data[0]
	if run.Mode != "add" || run.Reference != "#4711" || run.State != "finished" || run.Entries != 3 ||
		run.Counts["added"] != 2 || run.Counts["already_listed"] != 1 {
		t.Errorf("the run's header: %+v", run)
	}

	show := decode[struct {
		Data []struct{ Email, ID, Outcome string }
	}](t, sb.run(t, nil, "runs", "show", run.ID[:20], "--json").want(t, 0))
	outcomes := map[string]string{}
	for _, x := range show.Data {
		outcomes[x.Email] = x.Outcome
	}
	if len(show.Data) != 3 || outcomes["old@example.com"] != "already_listed" || outcomes["new1@example.com"] != "added" {
		t.Errorf("runs show: %+v", show.Data)
	}

	// A dry run lists every entry the undo would touch (here as JSON: the
	// output is a pipe).
	r := sb.run(t, nil, "runs", "undo", run.ID, "--dry-run").want(t, 0)
	dry := decode[struct {
		DryRun  bool     `json:"dry_run"`
		Notes   []string `json:"notes"`
		Entries []struct {
			Email string `json:"email"`
			ID    string `json:"id"`
		} `json:"entries"`
	}](t, r)
	var touched []string
	for _, e := range dry.Entries {
		if e.ID == "" {
			t.Errorf("undo --dry-run: an entry without its ID: %+v", e)
		}
		touched = append(touched, e.Email)
	}
	if !dry.DryRun || !slices.Equal(sorted(touched...), []string{"new1@example.com", "new2@example.com"}) ||
		len(dry.Notes) != 1 || dry.Notes[0] != "1 entry was already listed before the run stays." {
		t.Errorf("undo --dry-run: %s", r)
	}
	if got := svc.emails(t); len(got) != 3 {
		t.Fatalf("a dry run changed the list: %v", got)
	}
	sb.run(t, nil, "runs", "undo", run.ID, "--yes").want(t, 0)
	if got := svc.emails(t); len(got) != 1 || got[0] != "old@example.com" {
		t.Errorf("after the undo: %v", got)
	}
	list = decode[struct{ Data []header }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 2 || list.Data[0].UndoOf != run.ID {
		t.Errorf("the undo is not listed as the run's undo: %+v", list.Data)
	}
	// Unknown and ambiguous IDs are the caller's mistake.
	sb.run(t, nil, "runs", "show", "nope").want(t, 2)
	sb.run(t, nil, "runs", "show", "2").want(t, 2)
	// Pruning keeps what is younger than keep_runs_days (90), and with
	// --older-than-days 0 deletes every finished run.
	r = sb.run(t, nil, "runs", "prune").want(t, 0)
	if !strings.Contains(r.stdout, `"older_than_days": 90,`) || !strings.Contains(r.stdout, `"pruned": 0`) {
		t.Errorf("prune: %s", r)
	}
	r = sb.run(t, nil, "runs", "prune", "--older-than-days", "0").want(t, 0)
	if !strings.Contains(r.stdout, `"pruned": 2`) {
		t.Errorf("prune everything: %s", r)
	}
	sb.run(t, nil, "runs", "prune", "--older-than-days", "-1").want(t, 2)
	if got := svc.emails(t); len(got) != 1 {
		t.Errorf("pruning runs changed the list: %v", got)
	}
}

// A run whose service stops answering pauses after a few batches in a row
// and says why in one sentence, with the command that finishes it; the
// resume by run ID ends with the whole list.
func TestPausedRunSaysWhyAndResumes(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	var seen atomic.Int32
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") && seen.Add(1) > 2 && down.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, `{"statusCode":502,"name":"bad_gateway","message":"upstream is down"}`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	down.Store(true)
	sb := newSandbox(t).at(svc)
	var body strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&body, "p%04d@example.com\n", i)
	}
	in := writeFile(t, sb.home, "big.txt", body.String())
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 1)
	if !strings.Contains(r.stderr, "paused after 3 batches in a row failed") || !strings.Contains(r.stderr, "upstream is down") ||
		!strings.Contains(r.stderr, "finish the run with: shush suppressions batch add --file "+in+" --resume") {
		t.Errorf("the pause: %s", r)
	}
	if got := len(svc.emails(t)); got != 200 {
		t.Errorf("%d entries listed after the pause, want the 2 batches before it", got)
	}
	list := decode[struct{ Data []struct{ ID, State string } }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(list.Data) != 1 || list.Data[0].State != "paused" {
		t.Fatalf("runs: %+v", list.Data)
	}
	down.Store(false)
	r = sb.run(t, nil, "runs", "resume", list.Data[0].ID).want(t, 0)
	if !strings.Contains(r.stderr, "200 of 1000 entries were sent") {
		t.Errorf("resume: %s", r)
	}
	if got := len(svc.emails(t)); got != 1000 {
		t.Errorf("%d entries listed after the resume", got)
	}
}
