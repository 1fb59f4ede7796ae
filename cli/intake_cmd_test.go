package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
)

func reviewOpts(ta *testApp, limit int) *intakeReviewOptions {
	return &intakeReviewOptions{app: ta.app, Paging: paging{limit: limit}}
}

// waiting is the review queue as --json prints it.
func waiting(t *testing.T, ta *testApp, o *intakeReviewOptions) api.ReviewList {
	t.Helper()
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runIntakeReview(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	var l api.ReviewList
	ta.decode(t, &l)
	return l
}

func TestIntakeReviewListsWhatWaitsAndReadsOn(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	reviewQueue(t, svc, "a@example.com", "b@example.com", "c@example.com")
	ta := newTestApp(t, svc).human()

	if err := runIntakeReview(ctx, reviewOpts(ta, 2)); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 3 {
		t.Fatalf("review, 2 a page:\n%s", ta.out.String())
	}
	head, first := fields(lines[0]), fields(lines[1])
	if strings.Join(head, " ") != "ID RECEIVED (UTC) PROVIDER EMAIL STATUS WHY IT WAITS" {
		t.Errorf("header %q", lines[0])
	}
	// Newest first, with the status code and why it waits.
	if first[3] != "resend" || first[4] != "c@example.com" || first[5] != "5.7.1" || !strings.Contains(lines[1], "a policy refusal (5.7.1)") {
		t.Errorf("first row %q", lines[1])
	}
	last := fields(lines[2])[0]
	if want := "More events: add --after " + last + ", or --all.\nDecide with: shush intake decide ID suppress|ignore\n"; ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}

	// The next page goes on after the last one shown.
	o := reviewOpts(ta, 2)
	o.Paging.after = last
	page := waiting(t, ta, o)
	if len(page.Data) != 1 || page.Data[0].Email != "a@example.com" || page.HasMore {
		t.Errorf("the page after %s: %+v", last, page)
	}

	// --all follows every page, whatever the page size.
	o = reviewOpts(ta, 1)
	o.Paging.all = true
	all := waiting(t, ta, o)
	var emails []string
	for _, it := range all.Data {
		emails = append(emails, it.Email)
	}
	if strings.Join(emails, " ") != "c@example.com b@example.com a@example.com" || all.HasMore {
		t.Errorf("--all read %v (has_more %v)", emails, all.HasMore)
	}
	// The remote server's words keep their escape sequence in JSON, as
	// data, never as a raw control character.
	if d := all.Data[0].Evidence.Diagnostic; d != "550 5.7.1 \x1b]0;pwned\x07 rejected by policy" {
		t.Errorf("diagnostic %q", d)
	}
	if strings.ContainsRune(ta.out.String(), 0x1b) {
		t.Error("--json wrote a raw escape character")
	}
}

func TestIntakeDecideSuppressListsTheAddressWithItsEvidence(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	reviewQueue(t, svc, "policy@example.com", "odd@example.com")
	ta := newTestApp(t, svc).human()
	q := waiting(t, ta, reviewOpts(ta, 20))
	if len(q.Data) != 2 {
		t.Fatalf("queue %+v", q)
	}
	odd, policy := q.Data[0], q.Data[1]

	ta.reset()
	ta.human()
	o := &intakeDecideOptions{app: ta.app, Arg: strings.ToUpper(policy.ID), Decision: api.ReviewSuppress, Note: "a real block, checked", Reference: "#4821"}
	if err := runIntakeDecide(ctx, o); err != nil {
		t.Fatal(err)
	}
	e, err := svc.client().Get(ctx, "policy@example.com")
	if err != nil {
		t.Fatalf("not listed after suppress: %v", err)
	}
	if want := "Suppressed policy@example.com (entry " + e.ID + "), by jane.\n"; ta.out.String() != want {
		t.Errorf("decide said %q, want %q", ta.out.String(), want)
	}
	if e.Origin != api.OriginBounce || e.Note == nil || *e.Note != "a real block, checked" || e.Evidence == nil || e.Evidence.Status != "5.7.1" {
		t.Errorf("the entry the decision listed: %+v", e)
	}
	trail, err := svc.client().Audit(ctx, client.AuditParams{Reference: "#4821"})
	if err != nil {
		t.Fatal(err)
	}
	if len(trail.Data) != 1 || trail.Data[0].Suppression.Email != "policy@example.com" || trail.Data[0].Key == nil || trail.Data[0].Key.Name != "jane" {
		t.Errorf("the trail under the reference: %+v", trail.Data)
	}

	// get shows the evidence for a person, the remote words made safe.
	ta.reset()
	if err := runGet(ctx, &getOptions{app: ta.app, Ref: "policy@example.com"}); err != nil {
		t.Fatal(err)
	}
	out := squeeze(ta.out.String())
	if miss := lacks(out, "Evidence: bounce from resend", "Status: 5.7.1", `Diagnostic: 550 5.7.1 \x1b]0;pwned\x07 rejected by policy`, "Reported: 2026-11-02 09:30:00.000 UTC", "Event: msg-policy@example.com"); len(miss) > 0 {
		t.Errorf("get lacks %q:\n%s", miss, ta.out.String())
	}
	if strings.ContainsRune(ta.out.String(), 0x1b) {
		t.Error("get wrote the remote server's escape sequence to the terminal")
	}

	// The same decision again changes nothing; the other way is refused
	// with the service's sentence.
	ta.reset()
	if err := runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: policy.ID, Decision: api.ReviewSuppress}); err != nil {
		t.Errorf("the same decision again: %v", err)
	}
	err = runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: policy.ID, Decision: api.ReviewIgnore})
	wantErr(t, err, ExitFailed, "decided")
	if strings.Contains(err.Error(), "422") {
		t.Errorf("the refusal shows the status rather than only the sentence: %v", err)
	}

	// ignore lists nothing.
	ta.reset()
	if err := runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: odd.ID, Decision: api.ReviewIgnore}); err != nil {
		t.Fatal(err)
	}
	if want := "Ignored the event of odd@example.com, by jane; nothing was listed.\n"; ta.out.String() != want {
		t.Errorf("ignore said %q", ta.out.String())
	}
	if _, err := svc.client().Get(ctx, "odd@example.com"); err == nil {
		t.Error("ignore listed the address")
	}

	// Nothing waits now; --decided lists both, with who decided.
	ta.reset()
	if err := runIntakeReview(ctx, reviewOpts(ta, 20)); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || ta.err.String() != "No events wait for a decision.\n" {
		t.Errorf("review after deciding: %q %q", ta.out.String(), ta.err.String())
	}
	ta.reset()
	o2 := reviewOpts(ta, 20)
	o2.Decided = true
	if err := runIntakeReview(ctx, o2); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "DECISION") || !strings.HasSuffix(lines[1], "ignore by jane") || !strings.HasSuffix(lines[2], "suppress by jane") {
		t.Errorf("review --decided:\n%s", ta.out.String())
	}
	if strings.Contains(ta.err.String(), "Decide with") {
		t.Errorf("review --decided advises deciding: %q", ta.err.String())
	}
}

func TestIntakeDecideOfAProtectedAddressIsRefused(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	reviewQueue(t, svc, "billing@acme.test")
	ta := newTestApp(t, svc)
	if err := runTeamSet(ctx, &teamSetOptions{app: ta.app, Team: "support", DB: svc.DB, Protect: []string{"@acme.test"}, Given: given()}); err != nil {
		t.Fatal(err)
	}
	q := waiting(t, ta, reviewOpts(ta, 20))
	err := runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: q.Data[0].ID, Decision: api.ReviewSuppress})
	wantErr(t, err, ExitFailed, "protected")
	if _, err := svc.client().Get(ctx, "billing@acme.test"); err == nil {
		t.Error("a protected address was listed")
	}
	if q = waiting(t, ta, reviewOpts(ta, 20)); len(q.Data) != 1 {
		t.Errorf("the refused decision took the item off the queue: %+v", q.Data)
	}
}

func TestIntakeReadOnlyKeyReadsButDoesNotDecide(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	reviewQueue(t, svc, "a@example.com")
	ta := newTestApp(t, svc)
	ta.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	q := waiting(t, ta, reviewOpts(ta, 20))
	if len(q.Data) != 1 {
		t.Fatalf("a read-only key reads %+v", q)
	}
	wantErr(t, runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: q.Data[0].ID, Decision: api.ReviewSuppress}), ExitRefused)
	wantErr(t, runIntakeCreate(ctx, &intakeCreateOptions{app: ta.app, Request: api.CreateIntakeRequest{Provider: "ses"}}), ExitRefused)
	if _, err := svc.client().Get(ctx, "a@example.com"); err == nil {
		t.Error("a read-only key's decision listed the address")
	}
}

func TestIntakeOfAnotherTeamIsNotFound(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	id := reviewQueue(t, svc, "a@example.com")
	other := newTestApp(t, svc)
	other.globals.apiKey = svc.key(t, "sales", server.KeyPermissions{})
	q := waiting(t, other, reviewOpts(other, 20))
	if len(q.Data) != 0 {
		t.Errorf("team sales sees support's queue: %+v", q.Data)
	}
	err := runIntakeDelete(ctx, &intakeDeleteOptions{app: other.app, Arg: id})
	wantErr(t, err, ExitFailed, "no intake endpoint or review item has the ID "+api.Quote(id)+" on "+svc.URL)
	mine := newTestApp(t, svc)
	if err := runIntakeList(ctx, &intakeListOptions{app: mine.app}); err != nil {
		t.Fatal(err)
	}
	var list api.IntakeList
	mine.decode(t, &list)
	if len(list.Data) != 1 || list.Data[0].ID != id {
		t.Errorf("another team's delete removed the endpoint: %+v", list.Data)
	}
}

func TestIntakeDecideCommandLine(t *testing.T) {
	svc := newTestService(t)
	reviewQueue(t, svc, "a@example.com")
	ta := newTestApp(t, svc)
	id := waiting(t, ta, reviewOpts(ta, 20)).Data[0].ID
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{id}, "intake decide needs an ID and a decision (suppress or ignore)"},
		{[]string{id, "maybe"}, `the decision must be suppress or ignore, not "maybe"`},
		{[]string{id, "suppress", "--note", strings.Repeat("n", 501)}, "--note"},
		{[]string{"not-an-id", "ignore"}, `"not-an-id" is not a review item ID (see shush intake review)`},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, append([]string{"intake", "decide"}, c.args...)...), ExitUsage, c.want)
	}
	ta.reset()
	if err := ta.exec(t, "intake", "decide", id, "suppress", "--reference", "T-1"); err != nil {
		t.Fatal(err)
	}
	var it api.ReviewItem
	ta.decode(t, &it)
	if it.ID != id || it.Decision != api.ReviewSuppress || it.DecidedBy != "jane" || it.EntryID == "" || it.DecidedAt == nil {
		t.Errorf("decide --json: %+v", it)
	}
}

func TestIntakeReviewPagingFlags(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "0"}, "--limit must be between 1 and 100, not 0"},
		{[]string{"--limit", "101"}, "--limit must be between 1 and 100, not 101"},
		{[]string{"--after", "x", "--before", "y"}, "give --after or --before, not both"},
		{[]string{"--all", "--after", "x"}, "--all lists from the start: leave out --after and --before"},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, append([]string{"intake", "review"}, c.args...)...), ExitUsage, c.want)
	}
	// --all without --limit reads pages of the API's largest size.
	reviewQueue(t, svc, "a@example.com")
	ta.reset()
	if err := ta.exec(t, "intake", "review", "--all"); err != nil {
		t.Fatal(err)
	}
	var l api.ReviewList
	ta.decode(t, &l)
	if len(l.Data) != 1 || l.HasMore {
		t.Errorf("review --all: %+v", l)
	}
}

func TestIntakeCreateOfEachProvider(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	arn := "arn:aws:sns:us-east-1:123456789012:ses-bounces"
	for _, c := range []struct {
		req  api.CreateIntakeRequest
		help string
	}{
		{api.CreateIntakeRequest{Provider: "ses", TopicArn: arn, Name: "ses prod"}, "In Amazon SNS: subscribe this URL"},
		{api.CreateIntakeRequest{Provider: "MAILGUN", Secret: "key-0123456789abcdef0123456789abcdef"}, "In Mailgun: Sending, Webhooks"},
		{api.CreateIntakeRequest{Provider: "postmark", BasicAuth: "hook:" + strings.Repeat("s", 32)}, "In Postmark: the stream's Webhooks"},
	} {
		ta.reset()
		if err := runIntakeCreate(ctx, &intakeCreateOptions{app: ta.app, Request: c.req}); err != nil {
			t.Fatalf("%s: %v", c.req.Provider, err)
		}
		rows := map[string]string{}
		for _, l := range ta.lines() {
			k, v, _ := strings.Cut(l, " ")
			rows[k] = strings.TrimSpace(v)
		}
		if rows["provider"] != strings.ToLower(c.req.Provider) || rows["id"] == "" || !strings.Contains(rows["url"], rows["id"]) {
			t.Errorf("%s: create printed\n%s", c.req.Provider, ta.out.String())
		}
		if c.req.TopicArn != "" && (rows["topic"] != arn || rows["name"] != "ses prod") {
			t.Errorf("ses: create printed\n%s", ta.out.String())
		}
		if !strings.HasPrefix(ta.err.String(), c.help) {
			t.Errorf("%s: the provider's help %q", c.req.Provider, ta.err.String())
		}
		if strings.Contains(ta.out.String()+ta.err.String(), strings.Repeat("s", 32)) || strings.Contains(ta.out.String(), "key-0123") {
			t.Errorf("%s: create shows the credential", c.req.Provider)
		}
	}
	ta.reset()
	if err := runIntakeList(ctx, &intakeListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	l := ta.lines()
	if len(l) != 4 || strings.Join(fields(l[0]), " ") != "ID PROVIDER NAME URL CREATED (UTC)" {
		t.Fatalf("intake list:\n%s", ta.out.String())
	}
	// Endpoints made in the same millisecond have no order among them.
	var providers []string
	for _, row := range l[1:] {
		providers = append(providers, fields(row)[1])
	}
	slices.Sort(providers)
	if strings.Join(providers, " ") != "mailgun postmark ses" {
		t.Errorf("intake list:\n%s", ta.out.String())
	}
}

func TestIntakeCreateOnTheLocalListSaysWhenProvidersReachIt(t *testing.T) {
	ta := newTestApp(t, nil).human()
	if err := runIntakeCreate(context.Background(), &intakeCreateOptions{app: ta.app, Request: api.CreateIntakeRequest{Provider: "ses"}}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), "Providers reach this endpoint while a shush serve runs on the local list") ||
		!strings.Contains(ta.err.String(), "(serve --public-url)") {
		t.Errorf("stderr %q", ta.err.String())
	}
}

// TestIntakeCommandLines: the credential from stdin (-), the endpoint's
// aliases, and the arguments each command takes.
func TestIntakeCommandLines(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	ta.stdin(secret + "\n")
	if err := ta.exec(t, "intake", "add", "--provider", "resend", "--secret", "-", "--name", "prod"); err != nil {
		t.Fatal(err)
	}
	var in api.Intake
	ta.decode(t, &in)
	if in.Provider != "resend" || in.Name != "prod" || strings.Contains(ta.out.String(), secret) {
		t.Errorf("intake add --secret -: %s", ta.out.String())
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"intake", "create", "--provider", "resend", "extra"}, `takes no arguments, got "extra"`},
		{[]string{"intake", "delete"}, "an intake endpoint ID"},
		{[]string{"intake", "rm", in.ID, "other"}, "an intake endpoint ID"},
		{[]string{"intake", "review", "--decided", "--limit", "0"}, "--limit must be between 1 and 100"},
	} {
		ta.reset()
		wantErr(t, ta.exec(t, c.args...), ExitUsage, c.want)
	}
	ta.reset()
	ta.human()
	if err := ta.exec(t, "intake", "rm", in.ID); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Deleted intake endpoint "+in.ID+".\n" {
		t.Errorf("intake rm said %q", ta.out.String())
	}
	ta.reset()
	if err := ta.exec(t, "intake", "ls"); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.Contains(ta.err.String(), "No intake endpoints yet") {
		t.Errorf("intake ls after rm: %q %q", ta.out.String(), ta.err.String())
	}
}
