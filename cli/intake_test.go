package cli

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

func TestIntakeCreatePrintsTheURLNotTheCredential(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	o := &intakeCreateOptions{app: ta.app, Request: api.CreateIntakeRequest{Provider: " Resend ", Secret: secret, Name: "prod"}}
	if err := runIntakeCreate(ctx, o); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, l := range ta.lines() {
		f := fields(l)
		got[f[0]] = f[1]
	}
	if got["provider"] != "resend" || got["name"] != "prod" || !strings.HasPrefix(got["url"], svc.URL) && !strings.Contains(got["url"], "/intake/") || got["id"] == "" {
		t.Errorf("create printed:\n%s", ta.out.String())
	}
	if !strings.HasPrefix(ta.err.String(), "In Resend: Webhooks, Add Endpoint") {
		t.Errorf("provider help %q", ta.err.String())
	}
	if strings.Contains(ta.out.String()+ta.err.String(), secret) {
		t.Error("create shows the credential")
	}

}

func TestIntakeCredentialFromStdinListAndDelete(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	if err := runIntakeCreate(ctx, &intakeCreateOptions{app: ta.app, Request: api.CreateIntakeRequest{Provider: "resend", Secret: secret}}); err != nil {
		t.Fatal(err)
	}
	var first api.Intake
	ta.decode(t, &first)
	got := map[string]string{"id": first.ID}

	ta.reset()
	ta.io.StdoutTTY = false
	ta.stdin("hook:" + strings.Repeat("p", 32) + "\n")
	if err := runIntakeCreate(ctx, &intakeCreateOptions{app: ta.app, Request: api.CreateIntakeRequest{Provider: "postmark", BasicAuth: "-"}}); err != nil {
		t.Fatal(err)
	}
	var pm api.Intake
	ta.decode(t, &pm)
	if pm.Provider != "postmark" || pm.ID == "" {
		t.Errorf("create --json %+v", pm)
	}

	ta.reset()
	if err := runIntakeList(ctx, &intakeListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var list api.IntakeList
	ta.decode(t, &list)
	// Two endpoints made in the same millisecond list in no set order.
	var ids []string
	for _, e := range list.Data {
		ids = append(ids, e.ID)
	}
	if len(ids) != 2 || !slices.Contains(ids, got["id"]) || !slices.Contains(ids, pm.ID) {
		t.Errorf("list %+v, want %s and %s", list.Data, got["id"], pm.ID)
	}
	if strings.Contains(ta.out.String(), secret) || strings.Contains(ta.out.String(), "pppppppp") {
		t.Error("list shows a credential")
	}

	ta.reset()
	ta.human()
	if err := runIntakeDelete(ctx, &intakeDeleteOptions{app: ta.app, Arg: pm.ID}); err != nil {
		t.Fatal(err)
	}
	if ta.out.String() != "Deleted intake endpoint "+pm.ID+".\n" {
		t.Errorf("delete said %q", ta.out.String())
	}
	ta.reset()
	if err := runIntakeList(ctx, &intakeListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if l := ta.lines(); len(l) != 2 || !strings.HasPrefix(l[1], got["id"]) {
		t.Errorf("list after delete:\n%s", ta.out.String())
	}
	wantErr(t, runIntakeDelete(ctx, &intakeDeleteOptions{app: ta.app, Arg: pm.ID}), ExitFailed, "no intake endpoint or review item has the ID")
	wantErr(t, runIntakeDelete(ctx, &intakeDeleteOptions{app: ta.app, Arg: "x"}), ExitUsage, `"x" is not an intake endpoint ID (see shush intake list)`)
}

func TestIntakeCreateRefusesBadFlags(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	for _, c := range []struct {
		req   api.CreateIntakeRequest
		stdin string
		want  string
	}{
		{api.CreateIntakeRequest{Provider: "sparkpost"}, "", `--provider must be one of resend, sendgrid, postmark, mailgun, ses, not "sparkpost"`},
		{api.CreateIntakeRequest{Provider: "resend", Secret: "-"}, "\n", "--secret -: the first line of stdin is empty"},
		{api.CreateIntakeRequest{Provider: "ses", Name: strings.Repeat("n", 200)}, "", "--name"},
	} {
		ta.stdin(c.stdin)
		wantErr(t, runIntakeCreate(ctx, &intakeCreateOptions{app: ta.app, Request: c.req}), ExitUsage, c.want)
	}
	ta.reset()
	if err := runIntakeList(ctx, &intakeListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	var list api.IntakeList
	ta.decode(t, &list)
	if len(list.Data) != 0 {
		t.Errorf("refused creates made %+v", list.Data)
	}
	// Empty, for a person: advice on stderr.
	ta.reset()
	ta.human()
	if err := runIntakeList(ctx, &intakeListOptions{app: ta.app}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || !strings.Contains(ta.err.String(), "shush intake create --provider P") {
		t.Errorf("stdout %q, stderr %q", ta.out.String(), ta.err.String())
	}
}

func TestIntakeReviewAndDecideOfNothing(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := runIntakeReview(ctx, &intakeReviewOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	if ta.out.Len() != 0 || strings.TrimSpace(ta.err.String()) != "No events wait for a decision." {
		t.Errorf("review: %q %q", ta.out.String(), ta.err.String())
	}
	ta.reset()
	if err := runIntakeReview(ctx, &intakeReviewOptions{app: ta.app, Paging: paging{limit: 20}, Decided: true}); err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(ta.err.String()) != "No events were decided yet." {
		t.Errorf("review --decided: %q", ta.err.String())
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := runIntakeReview(ctx, &intakeReviewOptions{app: ta.app, Paging: paging{limit: 20}}); err != nil {
		t.Fatal(err)
	}
	var list api.ReviewList
	ta.decode(t, &list)
	if list.Object != "list" || len(list.Data) != 0 {
		t.Errorf("review --json %+v", list)
	}

	id := "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a"
	wantErr(t, runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: id, Decision: api.ReviewIgnore}), ExitFailed, "no intake endpoint or review item has the ID")
	wantErr(t, runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: "x", Decision: api.ReviewIgnore}), ExitUsage, `"x" is not a review item ID`)
	wantErr(t, runIntakeDecide(ctx, &intakeDecideOptions{app: ta.app, Arg: id, Decision: api.ReviewIgnore, Reference: "a\nb"}), ExitUsage, "--reference")
}
