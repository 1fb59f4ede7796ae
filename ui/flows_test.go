package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
)

const ticketText = "Hi support,\r\nplease stop mailing Alice@Example.com and bob@example.org.\r\n" +
	"My colleague <carol@example.net> too, and alice@example.com again!\r\n" +
	"Also dave@ (typo) — thanks, Erin\r\n"

// Paste a ticket, add, and see one ID per address; the run is in History.
func TestFlowPasteAddResults(t *testing.T) {
	svc := service(t, nil)
	h := newHarness(t, svc, 100, 30)
	h.paste(ticketText)
	h.mustSee("Paste: 3 added, 1 skipped as duplicates, 1 invalid.", "dave@  ✗ the domain after @ is empty")
	if got := h.m.build.list.values(); strings.Join(got, " ") != "alice@example.com bob@example.org carol@example.net" {
		t.Fatalf("list values = %v", got)
	}
	h.keys("ctrl+s")
	h.mustSee("Review · add", "3 addresses in 1 batch of up to 100", "Excluded: 1 invalid entry, never sent:", "dave@ — the domain after @ is empty")
	h.keys("tab")
	h.typeText("T-1234")
	h.keys("enter") // to the confirmation field
	h.keys("enter") // nothing typed: not sent
	h.mustSee(`Type "add" to send; nothing was sent.`)
	h.typeText("add")
	h.keys("enter")
	run := h.results()
	if len(run.Results) != 3 || run.Counts[batch.Added] != 3 || run.Ticket != "T-1234" {
		t.Fatalf("results = %+v", run)
	}
	seen := map[string]bool{}
	for _, r := range run.Results {
		e, err := svc.Get(context.Background(), r.Input)
		if err != nil || e.ID != r.ID || seen[r.ID] {
			t.Fatalf("%s shows ID %s; the service says %s (%v)", r.Input, r.ID, e.ID, err)
		}
		seen[r.ID] = true
		h.mustSee(r.ID)
	}
	h.mustSee("3 entries: 3 added")

	// The same addresses again: already listed.
	h.keys("n")
	h.paste("alice@example.com bob@example.org zed@example.com")
	h.keys("ctrl+s")
	h.typeText("add")
	h.keys("enter")
	run = h.results()
	if run.Counts[batch.AlreadyListed] != 2 || run.Counts[batch.Added] != 1 {
		t.Fatalf("second run counts = %+v", run.Counts)
	}

	h.keys("f3")
	h.mustSee("History · 2 runs", "T-1234", "3 added")
	// The history is the recorded runs: private, like the addresses in them.
	headers, _ := filepath.Glob(filepath.Join(h.state, "journal", "*.run.json"))
	if len(headers) != 2 {
		t.Fatalf("recorded runs: %v", headers)
	}
	for _, path := range headers {
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v; want mode 0600", path, err)
		}
	}
	h.keys("down", "enter")
	if r := h.results(); r.Ticket != "T-1234" || len(r.Results) != 3 {
		t.Fatalf("history opened %+v", r)
	}
}

// A file of IDs, removed by ID after typing "remove": deleted: true.
func TestFlowFileOfIDsRemove(t *testing.T) {
	svc := service(t, nil)
	ctx := context.Background()
	added, err := svc.BatchAdd(ctx, []string{"a@example.com", "b@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 100, 30)
	missing := "0190a000-0000-7000-8000-000000000000"
	file := filepath.Join(h.dir, "IDS.TXT")
	os.WriteFile(file, []byte(added[0].ID+"\n"+strings.ToUpper(added[1].ID)+"\n"+missing+"\nnot-an-id\n"), 0o600)
	h.keys("esc", "m", "m")
	h.mustSee("mode: remove by ID")
	h.keys("o")
	h.mustSee("Open a file", "IDS.TXT")
	h.keys("enter")
	h.mustSee("IDS.TXT: 3 added, 0 skipped as duplicates, 1 invalid.", "not-an-id  ✗ it is not a UUID")
	h.keys("r")
	h.mustSee("Preview: 2 on the list · 1 not on the list", "a@example.com", "This removes 2 entries from the list.")
	h.typeText("remov")
	h.keys("enter")
	h.mustSee(`Type "remove" to send; nothing was sent.`)
	h.keys("e", "enter")
	run := h.results()
	h.mustSee("deleted: true", "not on the list", "2 removed · 1 not on the list")
	for _, r := range run.Results[:2] {
		if r.Outcome != batch.Removed || run.address(r) == "" {
			t.Fatalf("result %+v (address %q)", r, run.address(r))
		}
		if _, err := svc.Get(ctx, r.ID); !client.IsNotFound(err) {
			t.Fatalf("%s is still on the list (%v)", r.ID, err)
		}
	}

	// Undo the run: the two addresses come back.
	h.keys("U")
	h.mustSee("Undo: put the 2 removed addresses back? [y/N]")
	h.keys("y")
	run = h.results()
	if run.Counts[batch.Added] != 2 {
		t.Fatalf("undo counts %+v", run.Counts)
	}
	if _, err := svc.Get(ctx, "b@example.com"); err != nil {
		t.Fatalf("b@example.com is not back: %v", err)
	}
}

// Remove by address: the preview checks every address (one bulk check),
// the removal goes by ID, and an address not on the list is reported as
// such.
func TestFlowRemoveByAddressPreview(t *testing.T) {
	var byEmails, byIDs, lookups atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "@") || r.URL.Path == "/suppressions/batch/check" {
				lookups.Add(1)
			}
			if r.URL.Path == "/suppressions/batch/remove" {
				var body api.BatchRemoveRequest
				data, _ := readBody(r)
				json.Unmarshal(data, &body)
				if len(body.IDs) > 0 {
					byIDs.Add(1)
				} else {
					byEmails.Add(1)
				}
			}
			next.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	if _, err := svc.BatchAdd(ctx, []string{"on1@example.com", "on2@example.com"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 40)
	h.keys("esc", "m")
	h.paste("on1@example.com\noff@example.com\nON2@example.com")
	h.keys("r")
	h.mustSee("Preview: 2 on the list · 1 not on the list", "✓ on1@example.com", "- off@example.com  not on the list", "manual")
	if n := lookups.Load(); n != 1 {
		t.Fatalf("the preview made %d requests for 3 addresses; want one bulk check", n)
	}
	h.typeText("remove")
	h.keys("enter")
	run := h.results()
	if n := lookups.Load(); n != 1 {
		t.Fatalf("the send looked addresses up again (%d requests in all); the preview's answers should do", n)
	}
	if run.Counts[batch.Removed] != 2 || run.Counts[batch.NotListed] != 1 {
		t.Fatalf("counts %+v", run.Counts)
	}
	if byIDs.Load() != 1 || byEmails.Load() != 0 {
		t.Fatalf("removal went %d times by ID and %d by address; want by ID once", byIDs.Load(), byEmails.Load())
	}
	h.mustSee("off@example.com", "not on the list", "deleted: true")
}

// A failed batch shows the service's message; R retries it.
func TestFlowFailedBatchRetry(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	var calls atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" && calls.Add(1) == 2 && fail.Load() {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(409)
				w.Write([]byte(`{"statusCode":409,"name":"conflict","message":"the list is frozen for maintenance"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 100, 30)
	var b strings.Builder
	for i := 0; i < 250; i++ {
		b.WriteString("user" + strconv.Itoa(i) + "@example.com\n")
	}
	h.paste(b.String())
	h.keys("ctrl+s")
	h.mustSee("250 addresses in 3 batches of up to 100")
	h.keys("ctrl+s")
	run := h.results()
	if run.Counts[batch.Added] != 150 || run.Counts[batch.Failed] != 100 {
		t.Fatalf("counts %+v", run.Counts)
	}
	h.mustSee("100 entries failed; R retries their batches.")
	h.keys("f")
	h.mustSee("row 1 of 100 · only failed")
	h.keys("G")
	h.mustSee("Row 100: failed: the service answered 409 conflict: the list is frozen for maintenance")
	for _, r := range run.Results[100:200] {
		if r.Outcome != batch.Failed || !strings.Contains(r.Message, "frozen for maintenance") {
			t.Fatalf("result %+v", r)
		}
	}
	h.keys("f")
	h.mustSee("row 1 of 150 · only added")
	h.keys("f")
	h.mustSee("row 1 of 250")
	fail.Store(false)
	h.keys("R")
	h.mustSee("Send the 100 failed or unsent entries again? [y/N]")
	h.keys("y")
	run = h.results()
	if run.Counts[batch.Added] != 250 || run.Counts[batch.Failed] != 0 {
		t.Fatalf("after retry: %+v", run.Counts)
	}
}

// A batch the service refuses for what it holds (422) is not offered for
// a retry that would be refused again: the line under the table says to
// correct the list, and R asks nothing.
func TestFlowRefusedBatchIsNotRetried(t *testing.T) {
	var calls atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" && calls.Add(1) == 2 {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(422)
				w.Write([]byte(`{"statusCode":422,"name":"validation_error","message":"emails[3] is protected by the team"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 100, 30)
	var b strings.Builder
	for i := 0; i < 150; i++ {
		b.WriteString("user" + strconv.Itoa(i) + "@example.com\n")
	}
	h.paste(b.String())
	h.keys("ctrl+s")
	h.mustSee("150 addresses in 2 batches of up to 100")
	h.keys("ctrl+s")
	run := h.results()
	if run.Counts[batch.Added] != 100 || run.Counts[batch.Failed] != 50 {
		t.Fatalf("counts %+v", run.Counts)
	}
	h.mustSee("50 entries were refused as sent: sending them again would be refused again.")
	h.mustNotSee("R retries")
	h.keys("R")
	h.mustNotSee("Send the 50 failed or unsent entries again?")
}

// Cancel lets the batch in flight finish (within the stop's grace) and
// leaves the rest unsent.
func TestSendCancel(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	var adds atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" && adds.Add(1) == 1 {
				close(arrived)
				<-release
			}
			next.ServeHTTP(w, r)
		})
	})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	h := newHarness(t, svc, 100, 30)
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString("c" + strconv.Itoa(i) + "@example.com\n")
	}
	h.paste(b.String())
	h.keys("ctrl+s")
	// Hand-drive the send as the runtime does: its command runs in a
	// goroutine of its own, and the agent presses esc while the first
	// batch is at the service.
	nm, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	h.m = nm.(Model)
	nm, first := h.m.Update(cmd())
	h.m = nm.(Model)
	h.mustSee("Sending · add", "Batch 1 of 3", "So far: 300 unsent")
	got := make(chan tea.Msg, 1)
	go func() { got <- first() }()
	<-arrived
	nm, _ = h.m.Update(tea.KeyMsg{Type: tea.KeyEsc})
	h.m = nm.(Model)
	h.mustSee("Cancelling: the batch in flight gets a moment to finish, the rest stays unsent.")
	free()
	h.send(<-got)
	run := h.results()
	if run.Counts[batch.Added] != 100 || run.Counts[batch.Unsent] != 200 {
		t.Fatalf("counts %+v", run.Counts)
	}
	h.mustSee("200 entries were not sent (cancelled); R sends them.", "unsent")
	resp, _ := svc.List(context.Background(), client.ListParams{Limit: 100})
	if n := len(resp.Data); n != 100 || resp.HasMore {
		t.Fatalf("the service holds %d entries (more: %v); want exactly the first batch", n, resp.HasMore)
	}

	// The run is journaled, so the CLI's --resume would find it.
	runs := &batch.Runs{Dir: filepath.Join(h.state, "journal"), Client: svc}
	if ri, ok, err := runs.Interrupted(); err != nil || !ok || ri.Sent() != 100 {
		t.Fatalf("no unfinished run of the cancelled run in %s: %+v (%v)", runs.Dir, ri, err)
	}

	// R sends the rest.
	h.keys("R")
	h.mustSee("Send the 200 failed or unsent entries again? [y/N]")
	h.keys("y")
	if c := h.results().Counts; c[batch.Added] != 300 {
		t.Fatalf("after R: %+v", c)
	}
	if n := adds.Load(); n != 3 {
		t.Fatalf("%d add requests; want 3 (the first batch is not sent twice)", n)
	}
	if ri, ok, err := runs.Interrupted(); err != nil || ok {
		t.Fatalf("the finished run is still offered for --resume: %+v (%v)", ri, err)
	}
}

func readBody(r *http.Request) ([]byte, error) {
	data, err := io.ReadAll(r.Body)
	r.Body.Close()
	r.Body = io.NopCloser(bytes.NewReader(data))
	return data, err
}

// A 429 from the service shows as a wait for the rate limit, then the batch
// goes through.
func TestSendShowsRateLimitWait(t *testing.T) {
	var limited atomic.Bool
	limited.Store(true)
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if batchSend(r) && r.URL.Path == "/suppressions/batch/add" && limited.CompareAndSwap(true, false) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "1")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"statusCode":429,"name":"rate_limit_exceeded","message":"Too many requests"}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	h := newHarness(t, svc, 100, 30)
	h.paste("w1@example.com")
	h.keys("ctrl+s")
	nm, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	h.m = nm.(Model)
	nm, cmd = h.m.Update(cmd())
	h.m = nm.(Model)
	// Step through the send one message at a time, looking at each screen.
	waited := false
	for h.m.screen == scrSend && cmd != nil {
		nm, cmd = h.m.Update(cmd())
		h.m = nm.(Model)
		if strings.Contains(h.view(), "Waiting ") {
			h.mustSee(": rate limit exceeded (429).")
			waited = true
		}
	}
	h.run(cmd)
	if !waited {
		t.Fatal("the Send screen never showed the wait for the rate limit")
	}
	if run := h.results(); run.Counts[batch.Added] != 1 {
		t.Fatalf("%+v", run.Counts)
	}
}

// Undo of an add run removes by ID what it added, and only that.
func TestUndoAddRun(t *testing.T) {
	svc := service(t, nil)
	ctx := context.Background()
	if _, err := svc.BatchAdd(ctx, []string{"keep@example.com"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond) // an ID of an earlier millisecond: already listed
	h := newHarness(t, svc, 100, 30)
	h.paste("keep@example.com new1@example.com new2@example.com")
	h.keys("ctrl+s", "ctrl+s")
	if c := h.results().Counts; c[batch.Added] != 2 || c[batch.AlreadyListed] != 1 {
		t.Fatalf("%+v", c)
	}
	h.keys("U")
	h.mustSee("Undo: remove the 2 entries this run added (by ID)? [y/N]", "1 entry was already listed before the run stays.")
	h.keys("y")
	if c := h.results().Counts; c[batch.Removed] != 2 {
		t.Fatalf("undo: %+v", c)
	}
	if _, err := svc.Get(ctx, "keep@example.com"); err != nil {
		t.Fatalf("the entry that was there before is gone: %v", err)
	}
	if _, err := svc.Get(ctx, "new1@example.com"); !client.IsNotFound(err) {
		t.Fatalf("new1 is still listed: %v", err)
	}
}

// TestResultsCountOne checks the counts line speaks of one entry as one.
func TestResultsCountOne(t *testing.T) {
	h := newHarness(t, service(t, nil), 100, 30)
	h.paste("Please block solo@example.com, thanks.")
	h.keys("ctrl+s", "ctrl+s")
	h.mustSee("1 entry: 1 added")
}

// A list that went out does not stay on the Build screen: it starts
// empty, in add mode, for the next ticket, so ctrl+s cannot send it again
// and nothing is appended to it. History's o brings it back as a new
// list, which is sent only through its review.
func TestSentListLeavesTheBuildScreen(t *testing.T) {
	svc, batches := countingService(t)
	if _, err := svc.BatchAdd(context.Background(), []string{"once1@example.com", "once2@example.com"}); err != nil {
		t.Fatal(err)
	}
	batches.Store(0)
	h := newHarness(t, svc, 110, 30)
	h.keys("esc", "m")
	h.paste("From: Jane <jane@customer.test>\nSubject: #5521 please\n\nPlease put once1@example.com and once2@example.com back, and not bad@@x.")
	h.keys("ctrl+s")
	h.mustSee("Review · remove by address", "Ticket: #5521")
	h.typeText("remove")
	h.keys("enter")
	h.results()
	// The results are the removal's, whatever the next ticket's list is.
	h.mustSee("mode: remove by address")
	h.mustNotSee("mode: add")
	h.keys("f1")
	h.mustSee("mode: add", "List · 0 entries", "Sent. The list is empty for the next ticket")
	h.keys("ctrl+s")
	h.mustSee("The list is empty: nothing to review.")
	h.mustNotSee("Review ·")
	if n := batches.Load(); n != 1 {
		t.Fatalf("%d batches went out, want the first send's 1", n)
	}

	// History brings it back as a new list, in its mode, for its ticket,
	// with what it left out.
	h.keys("esc", "f3", "o")
	h.mustSee("List · 4 entries · 3 valid · 1 invalid", "mode: remove by address", "once1@example.com", "bad@@x", "jane@customer.test",
		"The list of the run of")
	h.keys("ctrl+s")
	h.mustSee("Review · remove by address", "Ticket: #5521", "The ticket reference is from the run it was sent in")
	if n := batches.Load(); n != 1 {
		t.Fatalf("%d batches went out, want the first send's 1", n)
	}
}

// At start the UI offers to finish a run that did not (here one the CLI
// recorded and never sent), with its counts; yes sends what is left.
func TestStartOffersToResume(t *testing.T) {
	svc := service(t, nil)
	dir := t.TempDir()
	cli := &batch.Runs{Dir: filepath.Join(dir, "state", "journal"), Client: svc, Source: "cli"}
	items := []batch.Item{batch.NewItem(batch.Add, 1, "r1@example.com"), batch.NewItem(batch.Add, 2, "r2@example.com")}
	// Recorded, and stopped before anything went out.
	stopped, cancel := context.WithCancel(context.Background())
	cancel()
	if ri, _ := cli.Start(stopped, batch.NewInput(batch.Add, items), batch.RunMeta{Reference: "T-77"}, batch.Observer{}); ri.ID == "" {
		t.Fatal("the run was not recorded")
	}
	m := New(Options{Service: svc, Target: Target{Profile: "default", Label: "local list"}, StateDir: filepath.Join(dir, "state"),
		Runs: &batch.Runs{Dir: cli.Dir, Client: svc, Source: "ui"}, StartDir: dir, Clipboard: io.Discard, Renderer: asciiRenderer()})
	h := newHarnessOf(t, m, dir, filepath.Join(dir, "state"))
	h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	h.run(m.Init())
	h.mustSee("A run did not finish: add for T-77, 0 of 2 entries sent", "Resume it now? [y/N]")
	h.keys("y")
	if c := h.results().Counts; c[batch.Added] != 2 {
		t.Fatalf("resumed: %+v", c)
	}
	h.mustSee("Results · add → local list", "ticket T-77", "2 entries: 2 added")
	if _, ok, _ := cli.Interrupted(); ok {
		t.Error("the run is still unfinished after the resume")
	}
}

// The ticket typed in the review goes out as Shush-Reference with every
// request of the run, so the service's trail says why; one it cannot
// carry is refused before anything is sent.
func TestTicketGoesOutAsTheReference(t *testing.T) {
	svc := service(t, nil)
	h := newHarness(t, svc, 110, 30)
	h.paste("ref1@example.com ref2@example.com")
	h.keys("ctrl+s", "tab")
	h.typeText("T-\u202e1")
	h.keys("enter", "ctrl+s")
	h.mustSee("Ticket: the reference", "holds a character that is not printable; nothing was sent.")
	h.keys("tab")
	h.key(tea.KeyCtrlU)
	h.typeText("T-5150")
	h.keys("enter", "ctrl+s")
	h.results()
	trail, err := svc.Audit(context.Background(), client.AuditParams{Reference: "T-5150"})
	if err != nil || len(trail.Data) != 2 {
		t.Fatalf("the trail under T-5150: %+v %v", trail.Data, err)
	}
}

// The review of an addition lists every address with its state: new, or
// already listed with its origin and date.
func TestAddReviewShowsWhatIsListed(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAddEntries(context.Background(), []api.NewEntry{{Email: "old@example.com", Origin: api.OriginBounce}}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 110, 30)
	h.paste("old@example.com fresh@example.com")
	h.keys("ctrl+s")
	h.mustSee("Preview: 1 new · 1 already listed", "✓ old@example.com  bounce  added ", "+ fresh@example.com  new",
		"This adds 1 new entry; 1 already listed stays as it is.")
	h.keys("ctrl+s")
	if c := h.results().Counts; c[batch.Added] != 1 || c[batch.AlreadyListed] != 1 {
		t.Fatalf("%+v", c)
	}
}

// ownHarness is a harness whose config lists our own domain.
func ownHarness(t *testing.T, svc *client.Client, w, hgt int) *harness {
	t.Helper()
	dir := t.TempDir()
	m := New(Options{Service: svc, Target: Target{Profile: "default", Label: "local list"}, StateDir: filepath.Join(dir, "state"),
		Runs: &batch.Runs{Dir: filepath.Join(dir, "state", "journal"), Client: svc, Source: "ui"}, StartDir: dir, Clipboard: io.Discard, Renderer: asciiRenderer(),
		Own: []string{"@ourcompany.test"}})
	h := newHarnessOf(t, m, dir, filepath.Join(dir, "state"))
	h.send(tea.WindowSizeMsg{Width: w, Height: hgt})
	h.run(m.Init())
	return h
}

// A ticket's requester who does not ask for themselves, our own addresses
// and a signature's are left out, greyed with the reason; t on the list
// flips one.
func TestRequesterIsLeftOutInTheUI(t *testing.T) {
	svc := service(t, nil)
	h := ownHarness(t, svc, 120, 30)
	h.paste("From: Jane Doe <jane@customer.test>\nTo: help@ourcompany.test\n\nPlease stop mailing bob@example.com.\n\nThanks,\nJane\njane.doe@customer.test\n")
	h.mustSee("Paste: 4 added, 0 skipped as duplicates, 0 invalid. 3 left out (greyed; t flips one).",
		"jane@customer.test  ↷ left out: the requester, who does not ask for themselves",
		"help@ourcompany.test  ↷ left out: one of our own addresses",
		"jane.doe@customer.test  ↷ left out: only in a signature", "· 3 left out")
	h.keys("ctrl+s")
	h.mustSee("1 address in 1 batch", "Requester: jane@customer.test (line 1: \"From: Jane Doe <jane@customer.test>\")",
		"↷ jane@customer.test — the requester, who does not ask for themselves (line 1)",
		"Left out: 3, taken in: 0")
	h.keys("esc", "esc", "g", "t")
	h.mustSee("Row 1 taken in: it will be sent.", "· 2 left out", "jane@customer.test  ✓ the requester, who does not ask for themselves (taken in by hand)")
	h.keys("j", "t")
	h.mustSee("Row 2 is one of our own addresses (config own): it is never sent.")
	h.keys("ctrl+s")
	h.mustSee("2 addresses in 1 batch")
	h.keys("ctrl+s")
	run := h.results()
	got := map[string]bool{}
	for _, x := range run.Results {
		got[x.Input] = true
	}
	if len(got) != 2 || !got["bob@example.com"] || !got["jane@customer.test"] {
		t.Fatalf("sent %v", got)
	}
}

// The review's Requester section shows whom the ticket is about, each with
// the line that decided; tab reaches it, t flips the row under the cursor,
// and the plan and its preview follow. The reference the ticket names is
// offered in the ticket field, and can be edited.
func TestReviewRequesterSection(t *testing.T) {
	svc := service(t, nil)
	h := ownHarness(t, svc, 120, 32)
	h.paste("From: Jane Doe <jane@customer.test>\nTo: support@ourcompany.test\nCc: Tom <tom@customer.test>\nSubject: Re: [#5521] newsletter\n\n" +
		"Please unsubscribe me and my colleague (cc'd).\n\nThanks,\nJane Doe | Marketing | jane@customer.test\n")
	h.mustSee("jane@customer.test  ✓ the requester asks for themselves", "tom@customer.test  ✓ a colleague the requester includes")
	h.keys("ctrl+s")
	h.mustSee("2 addresses in 1 batch",
		`Requester: jane@customer.test (line 6: "Please unsubscribe me and my colleague (cc'd).")`,
		"  ✓ jane@customer.test — the requester asks for themselves (line 6)",
		"  ↷ support@ourcompany.test — one of our own addresses (line 2)",
		"  ✓ tom@customer.test — a colleague the requester includes (line 6)",
		"Left out: 1, taken in: 2 · tab: choose, t: take in / leave out",
		"Preview: 2 new · 0 already listed",
		"Ticket: #5521", "The ticket reference is from the subject, line 4 (tab to edit it).")
	// tab: the ticket, the note, the expiry, the Requester section.
	h.keys("tab", "tab", "tab", "tab")
	h.mustSee("> ✓ jane@customer.test", "↑/↓ choose, t: take in / leave out")
	h.keys("down", "t")
	h.mustSee("support@ourcompany.test is one of our own addresses (config own): it is never sent.", "2 addresses in 1 batch")
	h.keys("down", "t")
	h.mustSee("tom@customer.test left out: it will not be sent (t takes it in again).", "1 address in 1 batch",
		"> ↷ tom@customer.test — a colleague the requester includes (left out by hand) (line 6)",
		"Left out: 2, taken in: 1", "Preview: 1 new · 0 already listed")
	// The ticket field: edited, the agent's own stays.
	h.keys("tab", "tab")
	h.key(tea.KeyBackspace)
	h.typeText("9")
	h.mustSee("Ticket: #5529")
	h.mustNotSee("The ticket reference is from")
	h.keys("enter")
	h.typeText("add")
	h.keys("enter")
	run := h.results()
	if len(run.Results) != 1 || run.Results[0].Input != "jane@customer.test" || run.Ticket != "#5529" {
		t.Fatalf("sent %+v under %q", run.Results, run.Ticket)
	}
}

// Check answers a pasted ticket without arming anything: which addresses
// are listed, with origin, date, and from the trail who and under which
// reference; it can be written out; nothing is sent.
func TestCheckArmsNothing(t *testing.T) {
	svc, batches := countingService(t)
	ctx := client.WithReference(context.Background(), "T-77")
	if _, err := svc.BatchAdd(ctx, []string{"listed@example.com"}); err != nil {
		t.Fatal(err)
	}
	before := batches.Load()
	home := t.TempDir()
	t.Setenv(config.EnvExportDir, home)
	h := newHarness(t, svc, 120, 30)
	h.paste("Is listed@example.com blocked? And free@example.com?")
	h.keys("esc", "c")
	h.mustSee("Check · 2 addresses → local list · nothing is sent", "1 listed · 1 not listed",
		"✓ listed@example.com  manual  added ", "ref T-77", "- free@example.com  not listed")
	h.keys("w")
	h.mustSee("Wrote 2 addresses to " + home)
	files, _ := filepath.Glob(filepath.Join(home, "*check*.csv"))
	if len(files) != 1 {
		t.Fatalf("export: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), "listed@example.com,true,") || !strings.Contains(string(data), ",T-77,") || !strings.Contains(string(data), "free@example.com,false,") {
		t.Errorf("export:\n%s", data)
	}
	h.keys("esc")
	h.mustSee("List · 2 entries")
	if n := batches.Load() - before; n != 0 {
		t.Errorf("check sent %d batches", n)
	}
}

// The review's list can show only the new, only the already listed, or
// all (ctrl+f).
func TestReviewFilter(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAdd(context.Background(), []string{"was1@example.com", "was2@example.com"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 110, 30)
	h.paste("was1@example.com new1@example.com was2@example.com new2@example.com new3@example.com")
	h.keys("ctrl+s")
	h.mustSee("Preview: 3 new · 2 already listed")
	h.keys("ctrl+f")
	h.mustSee("showing the already listed (2; ctrl+f: next)", "✓ was1@example.com", "✓ was2@example.com")
	h.mustNotSee("+ new1@example.com")
	h.keys("ctrl+f")
	h.mustSee("showing the new (3", "+ new1@example.com", "+ new3@example.com")
	h.mustNotSee("✓ was1@example.com")
	h.keys("ctrl+f", "ctrl+f")
	h.mustSee("✓ was1@example.com", "+ new1@example.com")
}

// Check sends nothing, so it leaves nobody out: the requester, whom a
// batch would leave out, is looked up too and marked, on the screen and
// in the export.
func TestCheckMarksTheRequester(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAdd(context.Background(), []string{"jane@customer.test"}); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	t.Setenv(config.EnvExportDir, home)
	h := newHarness(t, svc, 120, 30)
	h.paste("From: Jane <jane@customer.test>\n\nWhat about free@example.com, is it blocked?\n")
	h.mustSee("jane@customer.test  ↷ left out: the requester, who does not ask for themselves")
	h.keys("esc", "c")
	h.mustSee("Check · 2 addresses", "1 listed · 1 not listed", "✓ jane@customer.test (requester)  manual", "- free@example.com  not listed")
	h.keys("w")
	h.mustSee("Wrote 2 addresses to " + home)
	files, _ := filepath.Glob(filepath.Join(home, "*check*.csv"))
	if len(files) != 1 {
		t.Fatalf("export: %v", files)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), ",requester\n") || !strings.Contains(string(data), "jane@customer.test,true,") {
		t.Errorf("export:\n%s", data)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "jane@") && !strings.HasSuffix(l, ",true") || strings.HasPrefix(l, "free@") && !strings.HasSuffix(l, ",false") {
			t.Errorf("the requester column: %q", l)
		}
	}
}

// A reference the review offered for one ticket's list does not follow
// the agent to the next ticket's: a list reviewed and left with esc, then
// replaced by a paste that names no reference, is reviewed with an empty
// ticket field and sent under none; a reference the agent typed stays.
func TestOfferedReferenceStaysWithItsTicket(t *testing.T) {
	svc := service(t, nil)
	h := ownHarness(t, svc, 120, 32)
	h.paste("From: Jane Doe <jane@customer.test>\nTo: support@ourcompany.test\nSubject: [#5521] newsletter\n\nPlease unsubscribe me.\n\nJane\n")
	h.keys("ctrl+s")
	h.mustSee("Ticket: #5521", "The ticket reference is from the subject")
	h.keys("esc")
	h.paste("From: Ola Berg <ola@other.test>\nTo: support@ourcompany.test\nSubject: stop\n\nPlease unsubscribe me.\n\nOla\n")
	h.mustSee("New list for this paste?")
	h.keys("enter")
	h.mustSee("ola@other.test")
	h.keys("ctrl+s")
	h.mustSee("Review · add")
	h.mustNotSee("#5521", "The ticket reference is from")
	h.keys("ctrl+s")
	run := h.results()
	if run.Ticket != "" || len(run.Results) != 1 || run.Results[0].Input != "ola@other.test" {
		t.Fatalf("sent %+v under %q; want ola@other.test under no reference", run.Results, run.Ticket)
	}
}
