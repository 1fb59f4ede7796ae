package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// TestBatchProgressOnATerminal: a run of several batches rewrites one
// line on stderr with how far it got, and clears it before the report.
func TestBatchProgressOnATerminal(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	ta.io.StderrTTY = true
	o := batchOpts(ta, batch.Add, writeFile(t, "list.txt", strings.Join(addresses("p", 250), "\n")+"\n"))
	o.concurrency, o.concurrencyGiven = 1, true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	for _, want := range []string{"\r\x1b[Kbatch 1/3 · 100/250 entries", "\r\x1b[Kbatch 3/3 · 250/250 entries"} {
		if !strings.Contains(e, want) {
			t.Errorf("the progress lacks %q:\n%q", want, e)
		}
	}
	if !strings.HasSuffix(e, "\r\x1b[K") {
		t.Errorf("the progress line is not cleared at the end: %q", e)
	}
	if strings.Contains(ta.out.String(), "\x1b") {
		t.Error("the report on stdout holds an escape sequence")
	}

	// One batch shows no line at all; off a terminal nothing either.
	ta.reset()
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "one.txt", "one@example.com\n"))); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ta.err.String(), "batch 1/1") {
		t.Errorf("a single batch's progress: %q", ta.err.String())
	}
	ta.reset()
	ta.io.StderrTTY = false
	o = batchOpts(ta, batch.RemoveEmails, writeFile(t, "rm.txt", strings.Join(addresses("p", 250), "\n")+"\n"))
	o.yes = true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(ta.err.String(), "\r") {
		t.Errorf("progress off a terminal: %q", ta.err.String())
	}
}

// TestAnExportReadBackWithoutKeepIDsSaysTheIDsAreNew: the entries an
// export lists get new IDs and dates on another service, and the report
// says so, for a person and beside the JSON.
func TestAnExportReadBackWithoutKeepIDsSaysTheIDsAreNew(t *testing.T) {
	ctx := context.Background()
	from := newTestService(t)
	to := newTestService(t)
	from.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, from)
	path := filepath.Join(t.TempDir(), "list.csv")
	o := &exportOptions{app: ta.app, OutPath: path}
	o.Params.Format = "csv"
	if err := runExport(ctx, o); err != nil {
		t.Fatal(err)
	}

	tb := newTestApp(t, to).human()
	if err := runBatch(ctx, batchOpts(tb, batch.Add, path)); err != nil {
		t.Fatal(err)
	}
	want := "IDs and dates are new: the file gives 2 entries their own ID and creation time, and the entries this run lists get new ones, dated now."
	if !strings.Contains(tb.out.String()+tb.err.String(), want) {
		t.Errorf("the report lacks %q:\n%s\n%s", want, tb.out.String(), tb.err.String())
	}
	old, now := from.everything(t), to.everything(t)
	if len(now) != 2 || now["a@example.com"].ID == old["a@example.com"].ID {
		t.Errorf("read back without --keep-ids: %+v", now)
	}

	// Under --json the note goes to stderr, marked, and the document
	// stays whole on stdout.
	again := newTestService(t)
	tj := newTestApp(t, again)
	if err := runBatch(ctx, batchOpts(tj, batch.Add, path)); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	tj.decode(t, &doc)
	if len(doc.Data) != 2 || !strings.Contains(tj.err.String(), "shush: "+want) {
		t.Errorf("--json: %+v; stderr %q", doc, tj.err.String())
	}
}

// TestJSONOnATerminalHasNoProgressLine: --json written to a terminal is
// what the terminal shows; no progress line is redrawn beside it to cut
// its lines. Off a terminal (a pipe), stderr's progress stays.
func TestJSONOnATerminalHasNoProgressLine(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	ta.io.StdoutTTY, ta.io.StderrTTY = true, true
	ta.io.ErrOut = ta.io.Out // one terminal
	o := batchOpts(ta, batch.Add, writeFile(t, "list.txt", strings.Join(addresses("j", 2500), "\n")+"\n"))
	o.concurrency, o.concurrencyGiven = 1, true
	ta.globals.json = true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	screen := ta.out.String()
	if strings.Contains(screen, "\r") || strings.Contains(screen, "batch 1/25") {
		t.Errorf("a progress line beside the JSON on the terminal: %q", screen[:min(len(screen), 300)])
	}
	var doc struct{ Data []json.RawMessage }
	if err := json.Unmarshal([]byte(screen[strings.Index(screen, "{"):]), &doc); err != nil || len(doc.Data) != 2500 {
		t.Errorf("the terminal's JSON: %d entries, %v", len(doc.Data), err)
	}

	ta.reset()
	ta.io.StdoutTTY, ta.globals.json = false, false
	ta.io.ErrOut = ta.err
	o = batchOpts(ta, batch.RemoveEmails, writeFile(t, "rm.txt", strings.Join(addresses("j", 2500), "\n")+"\n"))
	o.yes, o.concurrency, o.concurrencyGiven = true, 1, true
	if err := runBatch(ctx, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "batch 1/25") {
		t.Errorf("the progress on stderr with stdout a pipe: %q", ta.err.String()[:min(len(ta.err.String()), 200)])
	}
}
