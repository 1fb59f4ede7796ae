package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

// maildir is a Maildir folder of bounce's sample messages, in new/.
func maildir(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, d := range []string{"cur", "new", "tmp"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("..", "bounce", "testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "new", n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBouncesIngestOfAMaildir: each message's report goes where the rules
// say (a complaint and permanent failures listed, a delay counted, an
// auto-reply ignored), a message that is not mail is named with its file,
// and the command ends with 1 after taking in the others.
func TestBouncesIngestOfAMaildir(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	dir := maildir(t, "arf-abuse.eml", "exim-delayed.eml", "vacation-german.eml", "dsn-postfix-permanent.eml", "malformed-not-mail.eml")
	ta := newTestApp(t, svc).human()

	err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: dir, DryRun: true})
	wantErr(t, err, ExitFailed, "1 message could not be read; the others were read (nothing sent)")
	out := ta.out.String()
	if miss := lacks(out, "Read 4 messages: 4 reports (nothing sent).", "pat.lee@mail.example.net", "complaint", "arf", "jane.doe@example.com", "5.1.1", "orders@bakery.example", "4.2.2", "auto_reply"); len(miss) > 0 {
		t.Errorf("the dry run lacks %q:\n%s", miss, out)
	}
	if e := ta.err.String(); !strings.Contains(e, filepath.Join(dir, "new", "malformed-not-mail.eml")+": it is not a mail message") {
		t.Errorf("stderr %q", e)
	}
	if strings.Contains(ta.err.String(), "taken in") {
		t.Errorf("a dry run says messages were taken in: %q", ta.err.String())
	}
	if l := svc.listed(t); len(l) != 0 {
		t.Fatalf("a dry run listed %v", l)
	}

	ta.reset()
	err = runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: dir, Reference: "mailbox sweep"})
	wantErr(t, err, ExitFailed, "1 message could not be read; the others were taken in")
	if l := ta.lines(); len(l) != 1 || l[0] != "Read 4 messages: 4 reports: 2 listed, 1 counted, 1 ignored." {
		t.Errorf("ingest for a person:\n%s", ta.out.String())
	}
	got := svc.everything(t)
	if got["pat.lee@mail.example.net"].Origin != api.OriginComplaint || got["jane.doe@example.com"].Origin != api.OriginBounce || len(got) != 2 {
		t.Errorf("listed %+v", got)
	}

	// --json: each report with what became of it, by its own event.
	ta.reset()
	ta.io.StdoutTTY = false
	err = runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: dir})
	wantErr(t, err, ExitFailed)
	var doc ingestDoc
	ta.decode(t, &doc)
	if doc.Messages != 4 || len(doc.Data) != 4 || len(doc.Unreadable) != 1 || !strings.HasSuffix(doc.Unreadable[0].Source, "malformed-not-mail.eml") {
		t.Fatalf("ingest --json: %+v", doc)
	}
	for _, d := range doc.Data {
		if d.Decision != api.DecisionDuplicate || d.EventID == "" {
			t.Errorf("the second ingest of %s: %+v", d.Email, d)
		}
	}
	if ta.err.Len() != 0 {
		t.Errorf("stderr under --json: %q", ta.err.String())
	}
}

func TestBouncesIngestPutsTheDoubtfulBeforeAnAgent(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	noStatus := strings.Replace(dsn, "Status: 5.1.1\n", "", 1)
	noStatus = strings.ReplaceAll(noStatus, "5.1.1 ", "")
	ta := newTestApp(t, svc).human()
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: writeFile(t, "odd.eml", noStatus)}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if miss := lacks(out, "1 review.", "Waiting for an agent (shush intake review):", "odd.eml", "gone@example.com"); len(miss) > 0 {
		t.Errorf("ingest lacks %q:\n%s", miss, out)
	}
	q := waiting(t, ta, reviewOpts(ta, 20))
	if len(q.Data) != 1 || q.Data[0].Email != "gone@example.com" || q.Data[0].Provider != "mail" {
		t.Errorf("the review queue: %+v", q.Data)
	}
}

// TestBouncesIngestFromStdin: --file - reads the command's standard
// input (IOStreams.In), as every other command's --file - does, not the
// process's: a caller of Main that hands in its own stdin is read.
func TestBouncesIngestFromStdin(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	// The process's own stdin holds nothing: only the command's may count.
	empty, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer empty.Close()
	saved := os.Stdin
	os.Stdin = empty
	defer func() { os.Stdin = saved }()

	ta := newTestApp(t, svc).stdin(dsn)
	if err := runBouncesIngest(ctx, &bouncesIngestOptions{app: ta.app, File: "-"}); err != nil {
		t.Fatal(err)
	}
	var doc ingestDoc
	ta.decode(t, &doc)
	if doc.Messages != 1 || len(doc.Data) != 1 || doc.Data[0].Decision != api.DecisionListed {
		t.Errorf("ingest of stdin: %+v", doc)
	}
}

func TestBouncesIngestOfAFileThatIsNot(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	wantErr(t, runBouncesIngest(context.Background(), &bouncesIngestOptions{app: ta.app, File: filepath.Join(t.TempDir(), "none")}), ExitUsage, "none")
	if ta.out.Len() != 0 {
		t.Errorf("printed %q", ta.out.String())
	}
}
