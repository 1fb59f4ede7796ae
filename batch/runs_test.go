package batch_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/ticket"
)

// A recorded run of several segments is cut off, listed from its header,
// resumed from its ID alone and ends with exactly the intended list; a
// second resume sends nothing.
func TestRecordedRunResumesFromItsID(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	values := addresses("seg", 450)
	ctx, cancel := context.WithCancel(context.Background())
	var segments []batch.Report
	rs := &batch.Runs{Client: c, Dir: dir, Source: "cli", SegmentSize: 200}
	var started []batch.RunInfo
	ri, err := rs.Start(ctx, planOf(batch.Add, values).Input(), batch.RunMeta{Reference: "#77", Input: "in.txt"}, batch.Observer{
		Started: func(ri batch.RunInfo) { started = append(started, ri) },
		Event: func(e batch.Event) {
			if e.Kind == batch.BatchDone && e.Batch == 3 {
				cancel()
			}
		},
		Segment: func(rep batch.Report) { segments = append(segments, rep) }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}
	if ri.State != batch.Stopped || ri.Segments != 3 || ri.Counts[batch.Added] != 300 || ri.Counts[batch.Unsent] != 150 {
		t.Fatalf("header after the cancel: %+v", ri)
	}
	if len(segments) != 3 || segments[1].Base != 2 || segments[1].Results[0].Batch != 3 {
		t.Fatalf("segments reported: %d, second based at %d", len(segments), segments[1].Base)
	}
	if len(started) != 1 || started[0].ID != ri.ID || started[0].State != batch.Running {
		t.Fatalf("started: %+v", started)
	}

	runs, err := rs.List()
	if err != nil || len(runs) != 1 || runs[0].ID != ri.ID || runs[0].Reference != "#77" || runs[0].Source != "cli" || !runs[0].Resumable() {
		t.Fatalf("runs: %+v %v", runs, err)
	}
	if got, ok, _ := rs.Interrupted(); !ok || got.ID != ri.ID {
		t.Fatalf("interrupted: %+v %v", got, ok)
	}

	before := svc.gate.batches.Load()
	r2 := &batch.Runs{Client: c, Dir: dir}
	ri, err = r2.Resume(context.Background(), ri.ID[:12], batch.Observer{})
	if err != nil || ri.State != batch.Finished || ri.Counts[batch.Added] != 450 {
		t.Fatalf("resume: %+v %v", ri, err)
	}
	if sent := svc.gate.batches.Load() - before; sent != 2 {
		t.Errorf("the resume sent %d batches, want the 2 left", sent)
	}
	if got := listed(t, c); len(got) != 450 {
		t.Errorf("list holds %d entries", len(got))
	}
	before = svc.gate.batches.Load()
	if _, err := r2.Resume(context.Background(), ri.ID, batch.Observer{}); err != nil {
		t.Fatal(err)
	}
	if sent := svc.gate.batches.Load() - before; sent != 0 {
		t.Errorf("resuming a finished run sent %d batches", sent)
	}
	if _, ok, _ := r2.Interrupted(); ok {
		t.Error("a finished run is still offered")
	}

	// Read reads the journals: every address with its true ID.
	truth := listed(t, c)
	n := 0
	if _, err := r2.Read(ri.ID, func(rep batch.Report) error {
		for _, x := range rep.Results {
			n++
			if truth[x.Input] != x.ID {
				t.Errorf("%s: %s, list says %s", x.Input, x.ID, truth[x.Input])
			}
		}
		return nil
	}); err != nil || n != 450 {
		t.Fatalf("load: %d results, %v", n, err)
	}
}

// Undo of an addition removes only what the run created: not what was
// listed before it, and not an entry someone else removed and added again
// since (it has another ID).
func TestUndoOfAnAdditionRemovesOnlyWhatTheRunCreated(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	dir := t.TempDir()
	values := addresses("undo", 120)
	if _, err := c.BatchAdd(ctx, values[:10]); err != nil {
		t.Fatal(err)
	}
	rs := &batch.Runs{Client: c, Dir: dir}
	ri, err := rs.Start(ctx, planOf(batch.Add, values).Input(), batch.RunMeta{Reference: "T-5"}, batch.Observer{})
	if err != nil || ri.Counts[batch.Added] != 110 || ri.Counts[batch.AlreadyListed] != 10 {
		t.Fatalf("send: %+v %v", ri.Counts, err)
	}
	// Another agent re-creates one of the run's entries meanwhile.
	if _, err := c.Remove(ctx, values[50]); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Add(ctx, values[50]); err != nil {
		t.Fatal(err)
	}
	u, err := rs.PlanUndo(ctx, ri.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u.Mode != batch.RemoveIDs || len(u.Values) != 110 || len(u.Notes) != 1 || !strings.Contains(u.Notes[0], "10 entries were already listed before the run stay") {
		t.Fatalf("undo plan: %d values, notes %q", len(u.Values), u.Notes)
	}
	undo, err := rs.Undo(ctx, u, batch.Observer{})
	if err != nil || undo.Counts[batch.Removed] != 109 || undo.Counts[batch.NotListed] != 1 {
		t.Fatalf("undo: %+v %v", undo.Counts, err)
	}
	// The undo is a run of its own, for the same ticket.
	if undo.UndoOf != ri.ID || undo.Reference != "T-5" || undo.Input != "undo of "+ri.ID {
		t.Errorf("undo run: of %q, reference %q, input %q", undo.UndoOf, undo.Reference, undo.Input)
	}
	got := listed(t, c)
	if len(got) != 11 {
		t.Errorf("after the undo the list holds %d entries, want the 10 from before and the one re-added", len(got))
	}
	for _, v := range append(values[:10:10], values[50]) {
		if got[v] == "" {
			t.Errorf("%s is gone", v)
		}
	}
}

// Undo of a removal puts each entry back with the origin it had, found by
// the run's look-ups or in the trail; against a service that takes no
// origins it says beforehand that they come back manual.
func TestUndoOfARemovalRestoresTheOrigin(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	ctx := context.Background()
	dir := t.TempDir()
	src := "msg-1"
	entries := []api.NewEntry{
		{Email: "b@example.com", Origin: api.OriginBounce, SourceID: &src},
		{Email: "c@example.com", Origin: api.OriginComplaint},
		{Email: "m@example.com"},
	}
	added, err := c.BatchAddEntries(ctx, entries)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []batch.Mode{batch.RemoveEmails, batch.RemoveIDs} {
		values := []string{"b@example.com", "c@example.com", "m@example.com", "never@example.com"}
		if mode == batch.RemoveIDs {
			values = nil
			for _, s := range added {
				values = append(values, s.ID)
			}
		}
		rs := &batch.Runs{Client: c, Dir: dir}
		ri, err := rs.Start(ctx, planOf(mode, values).Input(), batch.RunMeta{}, batch.Observer{})
		if err != nil || ri.Counts[batch.Removed] != 3 {
			t.Fatalf("%s: %+v %v", mode, ri.Counts, err)
		}
		u, err := rs.PlanUndo(ctx, ri.ID)
		if err != nil || len(u.Values) != 3 || u.Manual != 1 || len(u.Notes) != 0 {
			t.Fatalf("%s undo plan: %+v %v", mode, u, err)
		}
		if _, err := rs.Undo(ctx, u, batch.Observer{}); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"b@example.com": "bounce/msg-1", "c@example.com": "complaint/", "m@example.com": "manual/"}
		for email, w := range want {
			e, err := c.Get(ctx, email)
			if err != nil {
				t.Fatal(err)
			}
			sid := ""
			if e.SourceID != nil {
				sid = *e.SourceID
			}
			if got := string(e.Origin) + "/" + sid; got != w {
				t.Errorf("%s: %s came back as %s, want %s", mode, email, got, w)
			}
		}
		added = nil
		for _, email := range []string{"b@example.com", "c@example.com", "m@example.com"} {
			e, _ := c.Get(ctx, email)
			added = append(added, api.Suppression{ID: e.ID})
		}
	}

	// The hosted service takes no origins: said beforehand.
	h := hostedtest.Start(t)
	h.Add("x@example.com", "y@example.com")
	fc := foreignClient(h)
	fdir := t.TempDir()
	frs := &batch.Runs{Client: fc, Dir: fdir}
	ri, err := frs.Start(ctx, planOf(batch.RemoveEmails, []string{"x@example.com", "y@example.com"}).Input(), batch.RunMeta{}, batch.Observer{})
	if err != nil || ri.Counts[batch.Removed] != 2 {
		t.Fatalf("foreign removal: %+v %v", ri.Counts, err)
	}
	u, err := frs.PlanUndo(ctx, ri.ID)
	if err != nil || u.Manual != 2 || u.Restore != nil || len(u.Notes) != 1 || !strings.Contains(u.Notes[0], "2 entries will come back with origin manual") {
		t.Fatalf("foreign undo plan: %+v %v", u, err)
	}
	if _, err := frs.Undo(ctx, u, batch.Observer{}); err != nil {
		t.Fatal(err)
	}
	if truth := h.Truth(); len(truth) != 2 {
		t.Errorf("the hosted list after the undo: %v", truth)
	}
}

// A stop takes effect within a second even while the service sits on a
// batch: the batch is journaled as failed (it may have been applied) and a
// resume sends it again.
func TestStopWithinASecond(t *testing.T) {
	svc := startService(t, 10000)
	hold := make(chan struct{})
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
			select {
			case <-hold:
			case <-r.Context().Done():
			}
			return true
		}
		return false
	})
	defer close(hold)
	c := svc.client()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	rs := &batch.Runs{Client: c, Dir: dir}
	stopped := make(chan time.Time, 1)
	context.AfterFunc(ctx, func() { stopped <- time.Now() })
	ri, err := rs.Start(ctx, planOf(batch.Add, addresses("hold", 150)).Input(), batch.RunMeta{}, batch.Observer{Event: func(e batch.Event) {
		if e.Kind == batch.BatchStarted {
			time.AfterFunc(100*time.Millisecond, cancel)
		}
	}})
	if took := time.Since(<-stopped); took > time.Second {
		t.Errorf("the stop took %s", took)
	}
	if !errors.Is(err, context.Canceled) || ri.Counts[batch.Failed] != 100 || ri.Counts[batch.Unsent] != 50 {
		t.Fatalf("stopped run: %+v %v", ri.Counts, err)
	}
	var msg string
	if _, err := rs.Read(ri.ID, func(rep batch.Report) error {
		msg = rep.Results[0].Message
		return nil
	}); err != nil || !strings.Contains(msg, "may or may not have applied it") {
		t.Fatalf("journaled failure: %q %v", msg, err)
	}
	svc.gate.setFault(nil)
	ri, err = rs.Resume(context.Background(), ri.ID, batch.Observer{})
	if err != nil || ri.Counts[batch.Added] != 150 {
		t.Fatalf("resume: %+v %v", ri.Counts, err)
	}
}

// Journals of earlier versions (one file per run, no header) are listed
// as runs and read as they were written, and pruning deletes finished runs
// past the cut and keeps unfinished ones.
func TestEarlierJournalsAndPruning(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	const id = "20250102T030405.000Z-0a0b0c0d"
	legacy := `{"kind":"plan","v":1,"mode":"add","target":"` + c.BaseURL() + `","created":"2025-01-02T03:04:05Z","values":["old0@example.com","old1@example.com"]}
{"kind":"batch","batch":1,"ok":true,"results":[{"input":"old0@example.com","id":"0194a000-0000-7000-8000-000000000001","outcome":"added","batch":1},{"input":"old1@example.com","id":"0194a000-0000-7000-8000-000000000002","outcome":"already listed","batch":1}]}
{"kind":"end"}
`
	path := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(path, []byte(legacy), 0o600); err != nil {
		t.Fatal(err)
	}
	rs := &batch.Runs{Client: c, Dir: dir}
	runs, err := rs.List()
	if err != nil || len(runs) != 1 || runs[0].ID != id || runs[0].State != batch.Finished ||
		runs[0].Counts[batch.Added] != 1 || runs[0].Counts[batch.AlreadyListed] != 1 {
		t.Fatalf("adopted: %+v %v", runs, err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the old journal is still beside its segment: %v", err)
	}
	var results []batch.Result
	if _, err := rs.Read(id, func(rep batch.Report) error {
		results = append(results, rep.Results...)
		return nil
	}); err != nil || len(results) != 2 || results[1].ID != "0194a000-0000-7000-8000-000000000002" {
		t.Fatalf("read back: %+v %v", results, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	open, _ := rs.Start(ctx, planOf(batch.Add, addresses("open", 3)).Input(), batch.RunMeta{}, batch.Observer{})
	n, err := rs.Prune(time.Now().Add(time.Hour))
	if err != nil || n != 1 {
		t.Fatalf("pruned %d: %v", n, err)
	}
	runs, _ = rs.List()
	if len(runs) != 1 || runs[0].ID != open.ID {
		t.Fatalf("left: %+v", runs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 2 {
		t.Errorf("files left: %v", files)
	}
}

// A run is offered to resume only to the profile and key that started
// it; its header keeps the key's fingerprint, never the key.
func TestInterruptedIsOnlyTheKeysOwn(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	mine := &batch.Runs{Client: c, Dir: dir, Profile: "support", KeyPrint: "a1b2c3d4e5f6"}
	ri, _ := mine.Start(stopped, planOf(batch.Add, addresses("own", 3)).Input(), batch.RunMeta{}, batch.Observer{})
	if ri.ID == "" || ri.Profile != "support" || ri.KeyPrint != "a1b2c3d4e5f6" {
		t.Fatalf("header: %+v", ri)
	}
	header, err := os.ReadFile(filepath.Join(dir, ri.ID+".run.json"))
	if err != nil || strings.Contains(string(header), svc.Key) {
		t.Fatalf("the header holds the key, or cannot be read: %v", err)
	}
	for _, other := range []*batch.Runs{
		{Client: c, Dir: dir, Profile: "support", KeyPrint: "ffffffffffff"},
		{Client: c, Dir: dir, Profile: "other", KeyPrint: "a1b2c3d4e5f6"},
		{Client: c, Dir: dir},
	} {
		if got, ok, _ := other.Interrupted(); ok {
			t.Errorf("profile %q, key %q is offered %s", other.Profile, other.KeyPrint, got.ID)
		}
	}
	if got, ok, _ := mine.Interrupted(); !ok || got.ID != ri.ID {
		t.Errorf("its own run is not offered: %+v %v", got, ok)
	}
}

// A refused key (401, 403) stops the run at its first batch: nothing more
// is sent, the run is Refused and offered to nobody; a paused run stays
// Paused.
func TestRefusedAndPausedRunsSayWhatTheyAre(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	dir := t.TempDir()
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		io.WriteString(w, `{"statusCode":403,"name":"restricted_api_key","message":"This key may only read."}`)
		return true
	})
	rs := &batch.Runs{Client: c, Dir: dir, Concurrency: 1}
	ri, err := rs.Start(context.Background(), planOf(batch.Add, addresses("ro", 300)).Input(), batch.RunMeta{}, batch.Observer{})
	var refused *batch.RefusedError
	if !errors.As(err, &refused) || ri.State != batch.Refused || ri.Resumable() || ri.Counts[batch.Failed] != 100 || ri.Counts[batch.Unsent] != 200 {
		t.Fatalf("refused run: %+v, %v", ri, err)
	}
	if _, ok, _ := rs.Interrupted(); ok {
		t.Error("a refused run is offered to resume")
	}
	if got, _ := rs.Get(ri.ID); got.State != batch.Refused {
		t.Errorf("read back as %s", got.State)
	}

	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"statusCode":503,"name":"service_unavailable","message":"try later"}`)
		return true
	})
	ri, err = rs.Start(context.Background(), planOf(batch.Add, addresses("down", 500)).Input(), batch.RunMeta{}, batch.Observer{})
	var paused *batch.PausedError
	if !errors.As(err, &paused) || ri.State != batch.Paused || !ri.Resumable() {
		t.Fatalf("paused run: %+v, %v", ri, err)
	}
	if got, ok, _ := rs.Interrupted(); !ok || got.ID != ri.ID || got.State != batch.Paused {
		t.Errorf("the paused run is offered as %+v", got)
	}
}

// What a plan leaves out (invalid entries, our own and the requester's
// addresses) is journaled with the run and read back with it.
func TestLeftOutIsJournaled(t *testing.T) {
	svc := startService(t, 10000)
	rs := &batch.Runs{Client: svc.client(), Dir: t.TempDir()}
	in, err := batch.ReadPlan(strings.NewReader("From: Jane <jane@customer.test>\n\nPlease stop mailing bob@example.com, bob@@example.com and help@ours.test.\n"),
		"ticket.txt", batch.Add, ticket.NewOwn([]string{"@ours.test"}), ticket.ByRule)
	if err != nil {
		t.Fatal(err)
	}
	ri, err := rs.Start(context.Background(), in, batch.RunMeta{}, batch.Observer{})
	if err != nil || ri.Invalid != 1 || ri.LeftOut != 2 {
		t.Fatalf("run: %+v %v", ri, err)
	}
	var first batch.Report
	if _, err := rs.Read(ri.ID, func(rep batch.Report) error {
		first = rep
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(first.Invalid) != 1 || len(first.LeftOut) != 2 || first.LeftOut[0].Value != "jane@customer.test" || first.LeftOut[1].Reason != ticket.ReasonOwn {
		t.Errorf("read back: invalid %+v, left out %+v", first.Invalid, first.LeftOut)
	}
	// With the rule's word on each: the requester and the line that decided.
	if j := first.LeftOut[0]; !j.Requester || j.Reason != ticket.ReasonRequester || j.By.Line != 1 || j.By.Text != "From: Jane <jane@customer.test>" {
		t.Errorf("the requester read back: %+v", j)
	}
}

// A run whose only failed batch the service refused for what it held
// (422) has nothing a resume could send: it is not offered to resume, and
// read back from its journals it says so. A run with a batch that failed
// for the moment (409) beside it stays resumable.
func TestRunRefusedAsSentIsNotResumable(t *testing.T) {
	svc := startService(t, 10000)
	dir := t.TempDir()
	svc.gate.setFault(func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		w.Header().Set("Content-Type", "application/json")
		switch {
		case bytes.Contains(body, []byte("refusedhere")):
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"statusCode":422,"name":"validation_error","message":"emails[0] is not allowed here"}`)
		case bytes.Contains(body, []byte("busyhere")):
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"statusCode":409,"name":"concurrent_idempotent_requests","message":"in progress"}`)
		default:
			return false
		}
		return true
	})
	rs := &batch.Runs{Client: svc.client(), Dir: dir, Concurrency: 1}
	values := append(addresses("refusedhere", 100), addresses("fine", 200)...)
	ri, _ := rs.Start(context.Background(), planOf(batch.Add, values).Input(), batch.RunMeta{}, batch.Observer{})
	if ri.State != batch.Stopped || ri.Counts[batch.Added] != 200 || ri.Counts[batch.Failed] != 100 || ri.RefusedAsSent != 100 {
		t.Fatalf("run with a batch refused as sent: %+v", ri)
	}
	if ri.Resumable() {
		t.Error("a run whose only failures were refused as sent is resumable")
	}
	if got, ok, _ := rs.Interrupted(); ok {
		t.Errorf("it is offered to resume: %+v", got)
	}
	if got, err := rs.Get(ri.ID); err != nil || got.RefusedAsSent != 100 || got.Resumable() {
		t.Errorf("read back: %+v, %v", got, err)
	}

	values = append(addresses("refusedhere-b", 100), addresses("busyhere", 100)...)
	ri, _ = rs.Start(context.Background(), planOf(batch.Add, values).Input(), batch.RunMeta{}, batch.Observer{})
	if ri.Counts[batch.Failed] != 200 || ri.RefusedAsSent != 100 || !ri.Resumable() {
		t.Fatalf("run with a refused batch and a busy one: %+v", ri)
	}
	if got, ok, _ := rs.Interrupted(); !ok || got.ID != ri.ID {
		t.Errorf("the run with a batch to send again is not offered: %+v", got)
	}
}
