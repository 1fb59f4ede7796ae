package main

import (
	"encoding/csv"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/intake/intaketest"
)

// startServeWith runs the built binary's shush serve on db at a free loopback
// port, with the extra flags, until the test ends, and returns its URL.
func startServeWith(t *testing.T, sb *sandbox, db string, flags ...string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(shushBin, append([]string{"serve", "--addr", addr, "--db", db}, flags...)...)
	cmd.Env = sb.env
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("serve's log:\n%s", errOut.String())
		}
	})
	waitFor(t, "serve to answer", func() bool {
		resp, err := http.Get("http://" + addr + "/livez")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return true
	})
	return "http://" + addr
}

// deliver sends a provider's request and returns its status and body.
func deliver(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// A support lead points Postmark, Resend, SendGrid and Mailgun at shush
// serve with the CLI; their signed events list bounces and complaints
// with evidence (get, export, the trail), forged ones are refused, and the
// event the rules could not place is decided from the CLI, in the trail by
// the key's name.
func TestIntakeFromTheCLI(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	db := filepath.Join(sb.home, "shush.db")
	key := strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "acme", "--name", "lead", "--db", db).want(t, 0).stdout)
	sb.run(t, nil, "team", "set", "--team", "acme", "--protect", "@acme.test", "--soft-bounce-threshold", "2", "--soft-bounce-expiry", "3d", "--db", db).want(t, 0)
	show := sb.run(t, nil, "team", "show", "--team", "acme", "--db", db, "--json").want(t, 0)
	if team := decode[api.Team](t, show); team.Intake == nil || team.Intake.Threshold != 2 || team.Intake.Window != "7d" || team.Intake.Expiry != "3d" {
		t.Fatalf("team show: %s", show)
	}
	sb.run(t, nil, "team", "set", "--team", "acme", "--soft-bounce-window", "soon", "--db", db).want(t, 2)
	url := startServeWith(t, sb, db, "--public-url", "https://shush.example.com")
	cli := sb.with("SHUSH_BASE_URL="+url, "SHUSH_API_KEY="+key)

	pm := intaketest.NewPostmark()
	r := cli.run(t, []byte(pm.BasicAuth()+"\n"), "intake", "create", "--provider", "postmark", "--basic-auth", "-", "--name", "postmark prod").want(t, 0)
	in := decode[api.Intake](t, r)
	if !strings.HasPrefix(in.URL, "https://shush.example.com/intake/") || strings.Contains(r.stdout+r.stderr, pm.Pass) {
		t.Fatalf("intake create: %s", r)
	}
	local := url + "/intake/" + in.ID
	resend := intaketest.NewResend()
	rin := decode[api.Intake](t, cli.run(t, nil, "intake", "create", "--provider", "resend", "--secret", resend.Secret).want(t, 0))
	sg := intaketest.NewSendGrid()
	sgin := decode[api.Intake](t, cli.run(t, nil, "intake", "create", "--provider", "sendgrid", "--public-key", sg.PublicKey).want(t, 0))
	mg := intaketest.NewMailgun()
	mgin := decode[api.Intake](t, cli.run(t, nil, "intake", "create", "--provider", "mailgun", "--secret", mg.Key).want(t, 0))
	cli.run(t, nil, "intake", "create", "--provider", "gmail").want(t, 2)
	if list := decode[api.IntakeList](t, cli.run(t, nil, "intake", "list").want(t, 0)); len(list.Data) != 4 {
		t.Fatalf("intake list: %+v", list)
	}

	now := time.Now()
	for _, req := range []*http.Request{
		pm.Request(local, intaketest.PostmarkBounce(1, "gone@example.com", "HardBounce", 1, "smtp;550 5.1.1 The email account does not exist.")),
		pm.Request(local, intaketest.PostmarkBounce(1, "gone@example.com", "HardBounce", 1, "smtp;550 5.1.1 The email account does not exist.")),
		resend.Request(url+"/intake/"+rin.ID, "msg_1", intaketest.ResendEvent("email.complained", "angry@example.com"), now),
		resend.Request(url+"/intake/"+rin.ID, "msg_2", intaketest.ResendBounce("policy@example.com", "Permanent", "General", "550 5.7.1 \x1b[2J message refused"), now),
		sg.Request(url+"/intake/"+sgin.ID, intaketest.SendGridBatch(
			intaketest.SendGridEvent("deferred", "full@example.com", "d1", map[string]any{"response": "452 4.2.2 mailbox full", "smtp-id": "<m1@acme.test>"}),
			intaketest.SendGridEvent("deferred", "full@example.com", "d2", map[string]any{"response": "452 4.2.2 mailbox full", "smtp-id": "<m2@acme.test>"}),
			intaketest.SendGridEvent("bounce", "support@acme.test", "b1", map[string]any{"type": "bounce", "status": "5.1.1"})), now),
		mustRequest(t, url+"/intake/"+mgin.ID, mg.Body(intaketest.MailgunEvent("mg1", "complained", "grumpy@example.com"), now)),
	} {
		if status, body := deliver(t, req); status != http.StatusOK {
			t.Fatalf("a provider's event: %d %s", status, body)
		}
	}
	for _, req := range []*http.Request{
		intaketest.Postmark{User: pm.User, Pass: "guess"}.Request(local, intaketest.PostmarkComplaint(7, "forged@example.com")),
		intaketest.NewResend().Request(url+"/intake/"+rin.ID, "msg_9", intaketest.ResendEvent("email.complained", "forged@example.com"), now),
		intaketest.NewSendGrid().Request(url+"/intake/"+sgin.ID, intaketest.SendGridBatch(intaketest.SendGridEvent("spamreport", "forged@example.com", "x", nil)), now),
		mustRequest(t, url+"/intake/"+mgin.ID, intaketest.Mailgun{Key: "key-guess"}.Body(intaketest.MailgunEvent("mg9", "complained", "forged@example.com"), now)),
	} {
		if status, body := deliver(t, req); status != http.StatusUnauthorized {
			t.Fatalf("a forged event: %d %s; want 401", status, body)
		}
	}

	got := decode[api.Entry](t, cli.run(t, nil, "suppressions", "get", "gone@example.com").want(t, 0))
	if got.Origin != "bounce" || got.Evidence == nil || got.Evidence.Provider != "postmark" || got.Evidence.Status != "5.1.1" {
		t.Errorf("get: %+v %+v", got, got.Evidence)
	}
	if e := decode[api.Entry](t, cli.run(t, nil, "suppressions", "get", "full@example.com").want(t, 0)); e.ExpiresAt == nil || e.Note == nil {
		t.Errorf("two deferrals of two messages, threshold 2: %+v; want listed for 3 days with a note", e)
	}
	cli.run(t, nil, "suppressions", "get", "forged@example.com").want(t, 3)
	cli.run(t, nil, "suppressions", "get", "support@acme.test").want(t, 3)

	export := cli.run(t, nil, "suppressions", "export").want(t, 0)
	recs, err := csv.NewReader(strings.NewReader(export.stdout)).ReadAll()
	if err != nil || len(recs) != 5 {
		t.Fatalf("export: %v\n%s", err, export.stdout)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	for _, rec := range recs[1:] {
		if rec[col["email"]] == "angry@example.com" && (rec[col["evidence_provider"]] != "resend" || rec[col["evidence_kind"]] != "complaint") {
			t.Errorf("the export's row of a complaint: %q", rec)
		}
	}

	review := decode[api.ReviewList](t, cli.run(t, nil, "intake", "review").want(t, 0))
	if len(review.Data) != 2 || review.Data[0].Email != "support@acme.test" || review.Data[1].Email != "policy@example.com" {
		t.Fatalf("intake review: %+v", review.Data)
	}
	policy := review.Data[1].ID
	r = cli.run(t, nil, "intake", "decide", policy, "suppress", "--note", "checked with the customer", "--reference", "T-77").want(t, 0)
	cli.run(t, nil, "intake", "decide", policy, "ignore").want(t, 1)
	cli.run(t, nil, "intake", "decide", review.Data[0].ID, "suppress").want(t, 1)
	cli.run(t, nil, "intake", "decide", review.Data[0].ID, "maybe").want(t, 2)
	cli.run(t, nil, "intake", "decide", review.Data[0].ID, "ignore").want(t, 0)
	if rest := decode[api.ReviewList](t, cli.run(t, nil, "intake", "review").want(t, 0)); len(rest.Data) != 0 {
		t.Errorf("after the decisions the queue holds %+v", rest.Data)
	}
	var trail api.AuditList
	if err := json.Unmarshal([]byte(cli.run(t, nil, "audit", "--email", "policy@example.com").want(t, 0).stdout), &trail); err != nil ||
		len(trail.Data) != 1 || trail.Data[0].Key == nil || trail.Data[0].Key.Name != "lead" || *trail.Data[0].Reference != "T-77" {
		t.Errorf("the decision's trail: %+v %v", trail, err)
	}
	cli.run(t, nil, "intake", "delete", in.ID).want(t, 0)
	if status, _ := deliver(t, pm.Request(local, intaketest.PostmarkBounce(2, "later@example.com", "HardBounce", 1, "550 5.1.1"))); status != http.StatusNotFound {
		t.Errorf("a deleted endpoint answered %d; want 404", status)
	}
}

func mustRequest(t *testing.T, url string, body []byte) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	return req
}
