package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
)

// checked is check's answer for each address of emails.
func checked(t *testing.T, ta *testApp, emails ...string) map[string]checkItem {
	t.Helper()
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runCheck(context.Background(), checkOpts(ta, writeFile(t, "check.txt", strings.Join(emails, "\n")+"\n"))); err != nil {
		t.Fatal(err)
	}
	var doc checkJSON
	ta.decode(t, &doc)
	out := map[string]checkItem{}
	for _, it := range doc.Data {
		out[it.Email] = it
	}
	ta.reset()
	return out
}

func TestDomainEntriesBlockEveryAddressOfTheDomain(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "@Evil.example", Reference: "INC-7", Note: noteFlags{note: "phishing wave", expires: "24h"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "@evil.example is on the list (ID ") {
		t.Errorf("add said %q", ta.out.String())
	}
	ta.reset()
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "*.sub.example"}); err != nil {
		t.Fatal(err)
	}

	got := checked(t, ta, "anyone@evil.example", "x@deep.sub.example", "x@sub.example", "x@notevil.example")
	if it := got["anyone@evil.example"]; !it.Listed || it.ListedBy != "@evil.example" || it.ExpiresAt == "" {
		t.Errorf("an address of @evil.example: %+v", it)
	}
	if it := got["x@deep.sub.example"]; !it.Listed || it.ListedBy != "*.sub.example" {
		t.Errorf("an address of a subdomain of sub.example: %+v", it)
	}
	if got["x@sub.example"].Listed || got["x@notevil.example"].Listed {
		t.Errorf("listed beyond the domain entries: %+v", got)
	}

	// The entry is read and removed by its own name.
	ta.human()
	if err := runGet(ctx, &getOptions{app: ta.app, Ref: "@EVIL.example"}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	if miss := lacks(out, "Email: @evil.example", "Note: phishing wave", "Expires: "); len(miss) > 0 {
		t.Errorf("get of a domain entry lacks %q:\n%s", miss, ta.out.String())
	}
	ta.reset()
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "@evil.example", Yes: true}); err != nil {
		t.Fatal(err)
	}
	if got := checked(t, ta, "anyone@evil.example"); got["anyone@evil.example"].Listed {
		t.Error("still listed after the domain entry was removed")
	}
}

func TestAddTheExpiryForms(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	next := time.Now().UTC().AddDate(1, 0, 0).Format("2006-01-02")
	for email, exp := range map[string]string{"date@example.com": next, "never@example.com": "never", "hours@example.com": "12h"} {
		ta.reset()
		if err := runAdd(ctx, &addOptions{app: ta.app, Email: email, Note: noteFlags{expires: exp}}); err != nil {
			t.Fatalf("--expires %s: %v", exp, err)
		}
	}
	got := svc.everything(t)
	if e := got["date@example.com"]; e.ExpiresAt == nil || e.ExpiresAt.UTC().Format("2006-01-02") != next {
		t.Errorf("--expires %s: %+v", next, e.ExpiresAt)
	}
	if e := got["never@example.com"]; e.ExpiresAt != nil {
		t.Errorf("--expires never: %v", e.ExpiresAt)
	}
	if e := got["hours@example.com"]; e.ExpiresAt == nil || e.ExpiresAt.Sub(time.Now()) < 11*time.Hour || e.ExpiresAt.Sub(time.Now()) > 13*time.Hour {
		t.Errorf("--expires 12h: %v", e.ExpiresAt)
	}
	for _, c := range []struct{ exp, note string }{
		{"yesterday", ""},
		{"-3d", ""},
		{"2020-01-01", ""},
		{"", strings.Repeat("n", 501)},
		{"", "a\x1b[2Jb"},
	} {
		err := runAdd(ctx, &addOptions{app: ta.app, Email: "late@example.com", Note: noteFlags{note: c.note, expires: c.exp}})
		if c.note != "" {
			wantErr(t, err, ExitUsage, "--note")
		} else {
			wantErr(t, err, ExitUsage, "--expires")
		}
	}
	if _, ok := svc.everything(t)["late@example.com"]; ok {
		t.Error("a refused add listed the address")
	}
}

func TestOneEntryByIDOrAsMailWritesIt(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "bob@example.com", "ann@example.com")
	ta := newTestApp(t, svc)
	for _, ref := range []string{added[0].ID, strings.ToUpper(added[0].ID), "Bob Smith <Bob@Example.com>", "mailto:bob@example.com"} {
		ta.reset()
		if err := runGet(ctx, &getOptions{app: ta.app, Ref: ref}); err != nil {
			t.Fatalf("get %q: %v", ref, err)
		}
		var e api.Entry
		ta.decode(t, &e)
		if e.ID != added[0].ID || e.Email != "bob@example.com" || e.Object != api.ObjectSuppression {
			t.Errorf("get %q: %+v", ref, e)
		}
	}
	ta.reset()
	wantErr(t, runGet(ctx, &getOptions{app: ta.app, Ref: "not an address"}), ExitUsage)

	ta.human()
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: added[1].ID, Yes: true, Reference: "T-77"}); err != nil {
		t.Fatal(err)
	}
	if want := "Removed " + added[1].ID + " (ID " + added[1].ID + ").\n"; ta.out.String() != want {
		t.Errorf("remove by ID said %q, want %q", ta.out.String(), want)
	}
	if got := svc.everything(t); len(got) != 1 || got["bob@example.com"].ID != added[0].ID {
		t.Errorf("after removing ann by ID: %v", got)
	}
	ta.reset()
	wantErr(t, runRemove(ctx, &removeOptions{app: ta.app, Ref: added[1].ID, Yes: true}), ExitNotListed, added[1].ID+" is not on the list")
	wantErr(t, runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com", Yes: true, Reference: "two\nlines"}), ExitUsage, "--reference")
}

// TestExportReadBackKeepsTheEntries: an export read back with --keep-ids
// by a key with the import right makes the same entries on another
// service: IDs, origins, notes and creation times.
func TestExportReadBackKeepsTheEntries(t *testing.T) {
	ctx := context.Background()
	// Both services first: each isolates the test's directories anew.
	from := newTestService(t)
	to := newTestService(t)
	ta := newTestApp(t, from)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "export.csv", exportCSV))); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "noted@example.com", Note: noteFlags{note: "asked on #5521", expires: "30d"}}); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "list.csv")
	ta.reset()
	o := &exportOptions{app: ta.app, OutPath: path}
	o.Params.Format = "csv"
	if err := runExport(ctx, o); err != nil {
		t.Fatal(err)
	}
	want := from.everything(t)

	// Without the import right the service refuses, saying which right
	// it takes, and lists nothing.
	plain := newTestApp(t, to)
	imp := batchOpts(plain, batch.Add, path)
	imp.keepIDs = true
	wantErr(t, runBatch(ctx, imp), ExitRefused, "the service refused this key", "the import right (shush keys create --import)")
	if got := to.everything(t); len(got) != 0 {
		t.Errorf("a refused import listed %v", got)
	}

	// With it, the entries come back as they were.
	again := newTestService(t)
	importer := newTestApp(t, again)
	importer.globals.apiKey = again.key(t, "support", server.KeyPermissions{Import: true})
	imp = batchOpts(importer, batch.Add, path)
	imp.keepIDs = true
	if err := runBatch(ctx, imp); err != nil {
		t.Fatal(err)
	}
	got := again.everything(t)
	if len(got) != len(want) {
		t.Fatalf("%d entries read back, want %d", len(got), len(want))
	}
	for email, w := range want {
		g := got[email]
		if g.ID != w.ID || g.Origin != w.Origin || !g.CreatedAt.Equal(w.CreatedAt.Time) || (w.Note == nil) != (g.Note == nil) ||
			w.Note != nil && *g.Note != *w.Note || (w.ExpiresAt == nil) != (g.ExpiresAt == nil) {
			t.Errorf("%s read back as %+v, want %+v", email, g, w)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
}

func TestListOfAnOriginForAPerson(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runBatch(ctx, batchOpts(ta, batch.Add, writeFile(t, "export.csv", exportCSV))); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	ta.human()
	o := listOpts(ta, 20)
	o.Origin = "complaint"
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	l := ta.lines()
	if len(l) != 2 || fields(l[1])[0] != "angry@example.com" || fields(l[1])[2] != "complaint" {
		t.Errorf("list --origin complaint:\n%s", ta.out.String())
	}
	// The flag takes the origin in any case, as --provider does.
	want := ta.out.String()
	ta.reset()
	ta.human()
	o = listOpts(ta, 20)
	o.Origin = "Complaint"
	if err := runList(ctx, o); err != nil || ta.out.String() != want {
		t.Errorf("list --origin Complaint: %v\n%s", err, ta.out.String())
	}
	ta.reset()
	o = listOpts(ta, 20)
	o.Select.search = "@nowhere.example"
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "(no suppressions)\n" {
		t.Errorf("an empty list for a person: %q", ta.out.String())
	}
	ta.reset()
	o = listOpts(ta, 20)
	o.Origin = "spam"
	wantErr(t, runList(ctx, o), ExitUsage, "--origin")
}

// TestListAllStopsWhenAServiceRepeatsItsPages: a service that answers
// every page as the first (it ignores after) would keep list --all
// reading for ever; it stops with one sentence and what it printed.
func TestListAllStopsWhenAServiceRepeatsItsPages(t *testing.T) {
	ctx := context.Background()
	svc := newServiceBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && (r.URL.Path == "/suppressions" || r.URL.Path == "/webhooks") {
				q := r.URL.Query()
				q.Del("after")
				r.URL.RawQuery = q.Encode()
			}
			next.ServeHTTP(w, r)
		})
	})
	svc.add(t, "a@example.com", "b@example.com", "c@example.com")
	ta := newTestApp(t, svc).human()
	o := listOpts(ta, 2)
	o.Paging.all = true
	err := runList(ctx, o)
	wantErr(t, err, ExitFailed, "stopping rather than looping")
	if l := ta.lines(); len(l) < 3 || len(l) > 5 {
		t.Errorf("printed before it stopped:\n%s", ta.out.String())
	}

	// The same for the other lists that page: the webhooks.
	for i := range 3 {
		addWebhook(t, ta, "https://hooks.example.com/"+string(rune('a'+i)), "added")
	}
	err = runWebhooksList(ctx, &webhooksListOptions{app: ta.app, Paging: paging{limit: 1, all: true}})
	wantErr(t, err, ExitFailed, "the service answered the page after ", " twice; stopping rather than looping")
}

// TestASlowAnswerSaysWhyOnATerminal: a service that asks to wait (429,
// Retry-After: 1) is waited out, and a person at a terminal is told why
// the command is slow.
func TestASlowAnswerSaysWhyOnATerminal(t *testing.T) {
	ctx := context.Background()
	var limited atomic.Int32
	svc := newServiceBehind(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/suppressions/") && limited.Add(1) == 1 {
				w.Header().Set("Retry-After", "1")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				w.Write([]byte(`{"name":"rate_limit_exceeded","message":"Too many requests.","statusCode":429}`))
				return
			}
			next.ServeHTTP(w, r)
		})
	})
	svc.add(t, "a@example.com")
	ta := newTestApp(t, svc).terminal("")
	if err := runGet(ctx, &getOptions{app: ta.app, Ref: "a@example.com"}); err != nil {
		t.Fatalf("get after a 429: %v", err)
	}
	if e := ta.err.String(); !strings.HasPrefix(e, "shush: waiting 1") || !strings.Contains(e, "s (rate limit exceeded (429) after: ") || !strings.Contains(e, "Too many requests.") {
		t.Errorf("stderr %q", e)
	}
	if !strings.Contains(ta.out.String(), "a@example.com") {
		t.Errorf("get printed %q", ta.out.String())
	}
}
