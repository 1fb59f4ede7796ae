package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
)

// auditDoc is the --json of audit.
type auditDoc struct {
	Object  string
	HasMore bool `json:"has_more"`
	Data    []struct {
		ID          string
		Type        string
		Reference   *string
		Suppression struct{ Email string }
		Key         *struct{ Name string }
	}
}

func TestAuditShowsWhoChangedWhatUnderWhichReference(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "bob@example.com", Reference: "#48213"}); err != nil {
		t.Fatal(err)
	}
	if err := runRemove(ctx, &removeOptions{app: ta.app, Ref: "bob@example.com", Yes: true, Reference: "#48214"}); err != nil {
		t.Fatal(err)
	}
	svc.add(t, "ann@example.com")

	ta.reset()
	o := &auditOptions{app: ta.app, Paging: paging{limit: 20}}
	o.Params.Email = "BOB@example.com"
	if err := runAudit(ctx, o); err != nil {
		t.Fatal(err)
	}
	var doc auditDoc
	ta.decode(t, &doc)
	if doc.Object != "list" || len(doc.Data) != 2 {
		t.Fatalf("audit --email: %s", ta.out.String())
	}
	if d := doc.Data[0]; d.Type != api.AuditRemoved || d.Reference == nil || *d.Reference != "#48214" || d.Suppression.Email != "bob@example.com" {
		t.Errorf("newest: %+v", d)
	}
	if d := doc.Data[1]; d.Type != api.AuditAdded || *d.Reference != "#48213" {
		t.Errorf("oldest: %+v", d)
	}

	// --type takes the short words.
	ta.reset()
	o = &auditOptions{app: ta.app, Paging: paging{limit: 20}}
	o.Params.Type = "added"
	if err := runAudit(ctx, o); err != nil {
		t.Fatal(err)
	}
	ta.decode(t, &doc)
	if len(doc.Data) != 2 {
		t.Errorf("--type added: %d entries", len(doc.Data))
	}

}

func TestAuditForAPersonNamesWho(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runAdd(ctx, &addOptions{app: ta.app, Email: "bob@example.com", Reference: "#48213"}); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	// For a person: a table with who did it.
	o := &auditOptions{app: ta.app, Paging: paging{limit: 1}}
	o.Params.Reference = "#48213"
	if err := runAudit(ctx, o); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "WHEN (UTC)") || !strings.Contains(lines[1], "added") ||
		!strings.Contains(lines[1], "bob@example.com") || !strings.Contains(lines[1], "jane") || !strings.HasSuffix(lines[1], "#48213") {
		t.Errorf("audit table:\n%s", ta.out.String())
	}
}

func TestAuditPagesAndReadsOn(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com", "b@example.com", "c@example.com")
	ta := newTestApp(t, svc).human()
	if err := runAudit(ctx, &auditOptions{app: ta.app, Paging: paging{limit: 2}}); err != nil {
		t.Fatal(err)
	}
	if len(ta.lines()) != 3 || !strings.HasPrefix(ta.err.String(), "More entries: add --after ") {
		t.Errorf("stdout:\n%s\nstderr %q", ta.out.String(), ta.err.String())
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runAudit(ctx, &auditOptions{app: ta.app, Paging: paging{limit: 2, all: true}}); err != nil {
		t.Fatal(err)
	}
	var doc auditDoc
	ta.decode(t, &doc)
	if len(doc.Data) != 3 || doc.HasMore {
		t.Errorf("--all: %d entries, has_more %v", len(doc.Data), doc.HasMore)
	}
}

func TestAuditRefusesBadFlags(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		p    func(o *auditOptions)
		want string
	}{
		{func(o *auditOptions) { o.Params.Email = "bob@" }, `--email: "bob@" is not a valid email address`},
		{func(o *auditOptions) { o.Params.Reference = "a\x00b" }, "--reference"},
		{func(o *auditOptions) { o.Params.Type = "changed" }, `--type must be added or removed (suppression.added, suppression.removed), not "changed"`},
	} {
		o := &auditOptions{app: ta.app, Paging: paging{limit: 5}}
		c.p(o)
		wantErr(t, runAudit(ctx, o), ExitUsage, c.want)
	}
}

func TestAuditPruneDeletesTheOldTrail(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, svc)

	wantErr(t, runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, OlderThan: "1d"}), ExitUsage, "pass --yes")
	for _, c := range []struct {
		o    auditPruneOptions
		want string
	}{
		{auditPruneOptions{}, "audit prune needs --older-than (365d) or --before (2026-01-31)"},
		{auditPruneOptions{OlderThan: "1d", Before: "2026-01-01"}, "give --older-than or --before, not both"},
		{auditPruneOptions{OlderThan: "1.5d"}, `--older-than: "1.5d" is not a whole number of days`},
		{auditPruneOptions{OlderThan: "soon"}, `"soon" is not an age like 365d or 72h`},
		{auditPruneOptions{Before: "Jan 1"}, `--before: "Jan 1" is neither a date`},
	} {
		o := c.o
		o.app, o.DB, o.Yes = ta.app, svc.DB, true
		wantErr(t, runAuditPrune(ctx, &o), ExitUsage, c.want)
	}

	// Nothing is a year old yet.
	if err := runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, OlderThan: "365d", Yes: true}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		AuditEntries  int64 `json:"audit_entries"`
		WebhookEvents int64 `json:"webhook_events"`
		Before        string
	}
	ta.decode(t, &got)
	if got.AuditEntries != 0 {
		t.Errorf("a year's prune deleted %d", got.AuditEntries)
	}

	ta.reset()
	ta.human()
	tomorrow := time.Now().Add(24 * time.Hour).UTC().Format("2006-01-02")
	if err := runAuditPrune(ctx, &auditPruneOptions{app: ta.app, DB: svc.DB, Before: tomorrow, Yes: true}); err != nil {
		t.Fatal(err)
	}
	if want := "Deleted 1 audit entry, 0 delivered or given-up webhook events and 0 events the intake took in older than " + tomorrow + "T00:00:00Z from "; !strings.HasPrefix(ta.out.String(), want) {
		t.Errorf("prune said %q, want %q…", ta.out.String(), want)
	}
	if l := svc.listed(t); len(l) != 1 {
		t.Errorf("prune touched the list: %v", l)
	}
}
