package cli

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func listOpts(ta *testApp, limit int) *listOptions {
	return &listOptions{app: ta.app, Paging: paging{limit: limit}}
}

func TestListPrintsTheAPIsPageAsJSON(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "a@example.com", "b@example.com", "c@example.com")
	ta := newTestApp(t, svc)
	if err := runList(ctx, listOpts(ta, 2)); err != nil {
		t.Fatal(err)
	}
	var page api.ListResponse
	ta.decode(t, &page)
	if page.Object != "list" || len(page.Data) != 2 || !page.HasMore {
		t.Fatalf("page %+v", page)
	}
	// Newest first.
	if page.Data[0].Email != "c@example.com" || page.Data[1].Email != "b@example.com" || page.Data[0].ID != added[2].ID {
		t.Errorf("order: %s, %s", page.Data[0].Email, page.Data[1].Email)
	}

	// The next page goes on after the last entry shown.
	ta.reset()
	o := listOpts(ta, 2)
	o.Paging.after = page.Data[1].ID
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &page)
	if len(page.Data) != 1 || page.Data[0].Email != "a@example.com" || page.HasMore {
		t.Errorf("second page %+v", page)
	}
}

func TestListForAPersonSaysHowToReadOn(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com", "c@example.com")
	ta := newTestApp(t, svc).human()
	o := listOpts(ta, 2)
	o.Origin = "manual"
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 3 || fields(lines[0])[0] != "EMAIL" || fields(lines[1])[0] != "c@example.com" || fields(lines[1])[2] != "manual" {
		t.Fatalf("table:\n%s", ta.out.String())
	}
	id := fields(lines[2])[1]
	want := "More entries: shush suppressions list --after " + id + " --limit 2 --origin manual"
	if strings.TrimSpace(ta.err.String()) != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
}

func TestListAllFollowsEveryPage(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	var emails []string
	for i := range 7 {
		emails = append(emails, string(rune('a'+i))+"@example.com")
	}
	svc.add(t, emails...)
	ta := newTestApp(t, svc)
	o := listOpts(ta, 3)
	o.Paging.all = true
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc api.ListResponse
	ta.decode(t, &doc)
	if len(doc.Data) != 7 || doc.HasMore {
		t.Fatalf("--all gave %d entries, has_more %v", len(doc.Data), doc.HasMore)
	}
	seen := map[string]bool{}
	for _, e := range doc.Data {
		if seen[e.ID] || e.Object != api.ObjectSuppression {
			t.Errorf("entry %+v repeated or without object", e)
		}
		seen[e.ID] = true
	}

	ta.reset()
	ta.human()
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	if n := len(ta.lines()); n != 8 {
		t.Errorf("--all for a person: %d lines, want a header and 7 rows:\n%s", n, ta.out.String())
	}
}

func TestListSearchesAndNarrows(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "jane@firm.example", "joe@firm.example", "jane@sub.firm.example", "janet@other.example")
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		search string
		want   []string
	}{
		{"@firm.example", []string{"joe@firm.example", "jane@firm.example"}},
		{"jan*", []string{"janet@other.example", "jane@sub.firm.example", "jane@firm.example"}},
		{"JOE@firm.example", []string{"joe@firm.example"}},
	} {
		ta.reset()
		o := listOpts(ta, 20)
		o.Select.search = c.search
		if err := runList(ctx, o); err != nil {
			t.Fatalf("--search %s: %v", c.search, err)
		}
		var page api.ListResponse
		ta.decode(t, &page)
		var got []string
		for _, e := range page.Data {
			got = append(got, e.Email)
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("--search %s: %v, want %v", c.search, got, c.want)
		}
	}

	// Nothing created after tomorrow.
	ta.reset()
	o := listOpts(ta, 20)
	o.Select.after = time.Now().Add(48 * time.Hour).UTC().Format("2006-01-02")
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	var page api.ListResponse
	ta.decode(t, &page)
	if len(page.Data) != 0 || !strings.Contains(ta.out.String(), `"data": []`) {
		t.Errorf("--created-after tomorrow: %s", ta.out.String())
	}

	ta.reset()
	ta.human()
	if err := runList(ctx, o); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "(no suppressions)\n" {
		t.Errorf("an empty list for a person: %q", ta.out.String())
	}
}

func TestListRefusesBadFlags(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		o    listOptions
		want string
	}{
		{listOptions{Paging: paging{limit: 5, after: "nope"}}, `"nope" is not a suppression ID`},
		{listOptions{Paging: paging{limit: 5}, Origin: "spam"}, "--origin"},
		{listOptions{Paging: paging{limit: 5}, Select: selectFlags{search: "ja*"}}, "--search"},
		{listOptions{Paging: paging{limit: 5}, Select: selectFlags{after: "yesterday"}}, "--created-after"},
	} {
		o := c.o
		o.app = ta.app
		wantErr(t, runList(ctx, &o), ExitUsage, c.want)
	}
	if ta.out.Len() != 0 {
		t.Errorf("a refused list printed %q", ta.out.String())
	}
}

func TestGetShowsOneEntry(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "bob@example.com")
	ta := newTestApp(t, svc)
	for _, ref := range []string{"bob@example.com", "Bob <BOB@example.com>", "mailto:bob@example.com", added[0].ID} {
		ta.reset()
		if err := runGet(ctx, &getOptions{app: ta.app, Ref: ref}); err != nil {
			t.Fatalf("get %q: %v", ref, err)
		}
		var e api.Entry
		ta.decode(t, &e)
		if e.Email != "bob@example.com" || e.ID != added[0].ID || e.Object != api.ObjectSuppression || e.Origin != api.OriginManual {
			t.Errorf("get %q: %+v", ref, e)
		}
	}

	ta.reset()
	ta.human()
	if err := runGet(ctx, &getOptions{app: ta.app, Ref: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range ta.lines() {
		f := fields(l)
		got[f[0]] = f[1]
	}
	if got["Email:"] != "bob@example.com" || got["ID:"] != added[0].ID || got["Origin:"] != "manual" || got["Created:"] == "" {
		t.Errorf("get for a person:\n%s", ta.out.String())
	}
}

func TestGetOfAnAddressNotListed(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	wantErr(t, runGet(ctx, &getOptions{app: ta.app, Ref: "nobody@example.com"}), ExitNotListed, "nobody@example.com is not on the list")
	wantErr(t, runGet(ctx, &getOptions{app: ta.app, Ref: "not an address"}), ExitUsage)
}

func TestAddPutsOneAddressWithNoteAndExpiry(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	o := &addOptions{app: ta.app, Email: "Full@Example.com", Reference: "T-5521", Note: noteFlags{note: "mailbox full", expires: "30d"}}
	if err := runAdd(ctx, o); err != nil {
		t.Fatal(err)
	}
	e, err := svc.client().Get(ctx, "full@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if want := "full@example.com is on the list (ID " + e.ID + ").\n"; ta.out.String() != want {
		t.Errorf("add said %q, want %q", ta.out.String(), want)
	}
	if e.Note == nil || *e.Note != "mailbox full" || e.ExpiresAt == nil {
		t.Fatalf("entry %+v", e)
	}
	// The same address again: the sentence says it was there already.
	ta.out.Reset()
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "full@example.com"}); err != nil {
		t.Fatal(err)
	}
	if want := "full@example.com was already on the list (ID " + e.ID + ").\n"; ta.out.String() != want {
		t.Errorf("a second add said %q, want %q", ta.out.String(), want)
	}
	if d := time.Until(e.ExpiresAt.Time); d < 29*24*time.Hour || d > 31*24*time.Hour {
		t.Errorf("expires in %v, want about 30 days", d)
	}

	// The trail keeps the reference.
	trail, _, err := svc.Store.Audit(ctx, "support", store.AuditQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) == 0 || trail[0].Reference != "T-5521" {
		t.Errorf("trail %+v", trail)
	}
}

func TestAddRefusesBadInputBeforeSending(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	wantErr(t, runAdd(ctx, &addOptions{app: ta.app, Email: "bob@"}), ExitUsage, `"bob@" is not a valid email address`)
	wantErr(t, runAdd(ctx, &addOptions{app: ta.app, Email: "bob@example.com", Note: noteFlags{expires: "soon"}}), ExitUsage, "--expires")
	wantErr(t, runAdd(ctx, &addOptions{app: ta.app, Email: "bob@example.com", Reference: "a\nb"}), ExitUsage, "--reference")
	page, err := svc.client().ListFull(ctx, client.ListParams{Limit: 10})
	if err != nil || len(page.Data) != 0 {
		t.Errorf("a refused add listed %+v (%v)", page.Data, err)
	}
}

func TestAddWithAReadOnlyKeyIsRefused(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	ta.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	err := runAdd(ctx, &addOptions{app: ta.app, Email: "bob@example.com"})
	wantErr(t, err, ExitRefused)
	if doc := errorDoc(err); doc.Error.Status == nil || *doc.Error.Status != 403 {
		t.Errorf("error document %+v", doc)
	}
}

func TestRemoveNeedsYesOffATerminal(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	added := svc.add(t, "bob@example.com")
	ta := newTestApp(t, svc)
	wantErr(t, runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com"}), ExitUsage, "pass --yes")
	if _, err := svc.client().Get(ctx, "bob@example.com"); err != nil {
		t.Fatalf("removed without --yes: %v", err)
	}
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com", Yes: true}); err != nil {
		t.Fatal(err)
	}
	var out api.Suppression
	ta.decode(t, &out)
	if out.ID != added[0].ID {
		t.Errorf("remove printed %+v", out)
	}
	wantErr(t, runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com", Yes: true}), ExitNotListed, "not on the list")
}

func TestRemoveAsksOnATerminal(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "bob@example.com", "ann@example.com")
	ta := newTestApp(t, svc).human()
	ta.io.StdinTTY, ta.io.StderrTTY = true, true

	ta.stdin("n\n")
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	if e := ta.err.String(); !strings.Contains(e, "Remove bob@example.com from "+svc.URL+"? [y/N]") || !strings.Contains(e, "Nothing removed.") {
		t.Errorf("the question and answer: %q", e)
	}
	if _, err := svc.client().Get(ctx, "bob@example.com"); err != nil {
		t.Fatalf("removed after no: %v", err)
	}

	ta.reset()
	ta.stdin("yes\n")
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com"}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(ta.out.String(), "Removed bob@example.com (ID ") {
		t.Errorf("remove said %q", ta.out.String())
	}
	if _, err := svc.client().Get(ctx, "bob@example.com"); err == nil {
		t.Error("still listed after yes")
	}

	// Ctrl-C while it asks: nothing removed, exit 130.
	ta.reset()
	r, w := io.Pipe()
	defer w.Close()
	ta.io.In = r
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	wantErr(t, runRemove(cancelled, &removeOptions{app: ta.app, Ref: "ann@example.com"}), ExitInterrupted, "nothing removed")
}

// TestGetShowsWhatAnErasedEntryKeeps: after team set
// --erasure-keeps-domain=true and an erasure, get for a person says the
// entry is erased and keeps the domain; an entry erased with the rule off
// keeps nothing of the address.
func TestGetShowsWhatAnErasedEntryKeeps(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	eraser, ok := svc.Store.(store.Eraser)
	if !ok {
		t.Fatalf("%T does not erase", svc.Store)
	}
	if _, err := eraser.Erase(ctx, "support", store.Change{}, []string{"off@rule.example"}); err != nil {
		t.Fatal(err)
	}
	if err := runTeamSet(ctx, &teamSetOptions{app: ta.app, Team: "support", DB: svc.DB, KeepsDomain: true, Given: given("erasure-keeps-domain")}); err != nil {
		t.Fatal(err)
	}
	if _, err := eraser.Erase(ctx, "support", store.Change{}, []string{"private.name@kept.example"}); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]string{
		"private.name@kept.example": "yes (a keyed hash of the address, and its domain kept.example)",
		"off@rule.example":          "yes (a keyed hash of the address, nothing else of it)",
	} {
		ta.reset()
		if err := runGet(ctx, &getOptions{app: ta.app, Ref: addr}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(ta.out.String(), "Erased:") || !strings.Contains(ta.out.String(), want) {
			t.Errorf("get %s for a person:\n%s\nwant Erased: %s", addr, ta.out.String(), want)
		}
	}
}
