package cli

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// onCopy is a client of the service answering from the database at db,
// with key, in process.
func onCopy(t *testing.T, db, key string) *client.Client {
	t.Helper()
	st, err := server.OpenStore(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return client.New("http://copy.invalid", key, client.WithTransport(server.New(st, server.Options{}).Transport()))
}

func TestDBCopyCarriesEverythingTheServiceKeeps(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	reviewQueue(t, svc, "odd@example.com")
	ta := newTestApp(t, svc)
	hook := addWebhook(t, ta, "https://hooks.example.com/s", "added")
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "a@example.com", Yes: true, Reference: "T-1"}); err != nil {
		t.Fatal(err)
	}

	to := filepath.Join(t.TempDir(), "copy.db")
	ta.reset()
	ta.human()
	ta.io.StderrTTY = true
	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: to}); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) < 3 || strings.Join(fields(lines[0]), " ") != "TABLE ROWS CHECKSUM" {
		t.Fatalf("copy for a person:\n%s", ta.out.String())
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "Copied ") || !strings.Contains(last, " rows from "+svc.DB+" to "+to+" in ") ||
		!strings.HasSuffix(last, "; every table read back with the source's rows and checksum.") {
		t.Errorf("the last line %q", last)
	}
	// The progress line on a terminal is cleared at the end.
	if e := ta.err.String(); !strings.HasSuffix(e, "\r\x1b[K") {
		t.Errorf("stderr on a terminal %q", e)
	}

	// The copy answers as the source did: the same key, the trail under
	// its reference, the webhook with its secret, the review queue.
	c := onCopy(t, to, svc.Key)
	trail, err := c.Audit(ctx, client.AuditParams{Reference: "T-1"})
	if err != nil || len(trail.Data) != 1 || trail.Data[0].Suppression.Email != "a@example.com" {
		t.Errorf("the copy's trail: %+v %v", trail.Data, err)
	}
	w, err := c.GetWebhook(ctx, hook.ID)
	if err != nil || w.Endpoint != "https://hooks.example.com/s" {
		t.Errorf("the copy's webhook: %+v %v", w, err)
	}
	q, err := c.Review(ctx, client.ReviewParams{WebhookParams: client.WebhookParams{Limit: 10}})
	if err != nil || len(q.Data) != 1 || q.Data[0].Email != "odd@example.com" {
		t.Errorf("the copy's review queue: %+v %v", q.Data, err)
	}

	// --force replaces what the target held, and says how much.
	ta.reset()
	ta.io.StderrTTY = false
	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: to, Force: true}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); !strings.HasPrefix(l[len(l)-1], "It replaced the ") || !strings.HasSuffix(l[len(l)-1], " rows the target held (--force).") {
		t.Errorf("copy --force:\n%s", ta.out.String())
	}
	if ta.err.Len() != 0 {
		t.Errorf("a progress line off a terminal: %q", ta.err.String())
	}
}

func TestDBCopyOfSomethingElseLeavesNoTarget(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	dir := t.TempDir()
	notDB := filepath.Join(dir, "notes.db")
	if err := os.WriteFile(notDB, []byte("these are not the rows you are looking for\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	to := filepath.Join(dir, "new.db")
	err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: notDB, To: to})
	wantErr(t, err, ExitFailed, "copy "+notDB+" to "+to)
	for _, p := range []string{to, to + "-wal", to + "-shm"} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a failed copy left %s", p)
		}
	}
	if ta.out.Len() != 0 {
		t.Errorf("printed %q", ta.out.String())
	}
}

func TestAuditPruneAsksOnATerminal(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc).terminal("n\n")
	if err := runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, Before: "2999-01-01"}); err != nil {
		t.Fatal(err)
	}
	if e := ta.err.String(); !strings.Contains(e, "Delete every audit entry older than 2999-01-01T00:00:00Z? [y/N] ") || !strings.Contains(e, "Nothing removed.") {
		t.Errorf("the question: %q", e)
	}
	trail, err := svc.client().Audit(ctx, client.AuditParams{})
	if err != nil || len(trail.Data) != 2 {
		t.Fatalf("the trail after no: %d entries, %v", len(trail.Data), err)
	}

	ta.reset()
	ta.stdin("y\n")
	if err := runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, Before: "2999-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	want := "Deleted 2 audit entries, 0 delivered or given-up webhook events and 0 events the intake took in older than 2999-01-01T00:00:00Z from "
	if !strings.HasPrefix(ta.out.String(), want) {
		t.Errorf("prune said %q, want it to start %q", ta.out.String(), want)
	}
	if trail, _ := svc.client().Audit(ctx, client.AuditParams{}); len(trail.Data) != 0 {
		t.Errorf("the trail after the prune: %+v", trail.Data)
	}
	if l := svc.listed(t); len(l) != 2 {
		t.Errorf("the prune touched the list: %v", l)
	}

	for _, c := range []struct{ older, before, want string }{
		{"0d", "", "is not a whole number of days"},
		{"1.5d", "", "is not a whole number of days"},
		{"-3h", "", "is not an age like 365d or 72h"},
		{"", "31/01/2026", `--before: "31/01/2026" is neither a date (2026-01-31) nor an RFC 3339 time`},
	} {
		wantErr(t, runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, OlderThan: c.older, Before: c.before, Yes: true}), ExitUsage, c.want)
	}
}

// TestDBCopyToPostgreSQLAndBack: the list moves from SQLite to PostgreSQL
// and back whole (entries and the key answer the same), and the
// PostgreSQL password never shows. Needs SHUSH_TEST_POSTGRES.
func TestDBCopyToPostgreSQLAndBack(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.DSN(t)
	u, err := url.Parse(pg)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(u.User.Username(), "hunter2-secret")
	pg = u.String()

	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com")
	ta := newTestApp(t, svc).human()
	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: pg}); err != nil {
		t.Fatalf("copy to PostgreSQL: %v", err)
	}
	if strings.Contains(ta.out.String()+ta.err.String(), "hunter2") {
		t.Errorf("the copy shows the password:\n%s", ta.out.String())
	}
	if e, err := onCopy(t, pg, svc.Key).Get(ctx, "b@example.com"); err != nil || e.ID != added[1].ID {
		t.Errorf("PostgreSQL's entry %+v, %v", e, err)
	}

	back := filepath.Join(t.TempDir(), "back.db")
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: pg, To: back}); err != nil {
		t.Fatalf("copy back: %v", err)
	}
	var rep copyJSON
	ta.decode(t, &rep)
	if strings.Contains(rep.From, "hunter2") || rep.To != back || rep.Rows == 0 {
		t.Errorf("copy back --json: %+v", rep)
	}
	if e, err := onCopy(t, back, svc.Key).Get(ctx, "a@example.com"); err != nil || e.ID != added[0].ID {
		t.Errorf("the copy back's entry %+v, %v", e, err)
	}

	// PostgreSQL holds rows now: a second copy into it is refused.
	ta.reset()
	err = runDBCopy(ctx, &dbCopyOptions{app: ta.app, From: svc.DB, To: pg})
	wantErr(t, err, ExitUsage)
	if err != nil && strings.Contains(err.Error(), "hunter2") {
		t.Errorf("the refusal shows the password: %v", err)
	}
}
