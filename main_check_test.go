package main

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// A support agent checks a ticket: which addresses are on the list, with
// origin and date. Check changes nothing, so it leaves nobody out: the
// requester (marked as such) and our own domain are looked up too.
func TestCheckATicketChangesNothing(t *testing.T) {
	var writes atomic.Int64
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// The bulk check is a POST that changes nothing.
			if r.Method != http.MethodGet && r.URL.Path != "/suppressions/batch/check" {
				writes.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	listed, err := svc.store.Add(ctx, svc.team, store.Change{}, store.Listed(api.OriginBounce, nil, "bounced@lists.example", "jane@customer.example"))
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t).at(svc)
	if err := os.MkdirAll(filepath.Dir(sb.configFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(sb.configFile()), "config.toml", "own = [\"@ourcompany.test\"]\n")
	ticket := writeFile(t, sb.home, "ticket-4711.txt", `From: Jane Doe <jane@customer.example>
To: support@ourcompany.test
Subject: why am I not getting your mail?

Hello, I get nothing from you any more. Are bounced@lists.example and
fresh@lists.example still suppressed too?

Thanks,
Jane
jane@customer.example
`)
	before := svc.emails(t)
	r := sb.run(t, nil, "suppressions", "check", "--file", ticket, "--json").want(t, 0)
	type item struct {
		Email     string `json:"email"`
		Listed    bool   `json:"listed"`
		ID        string `json:"id"`
		Origin    string `json:"origin"`
		CreatedAt string `json:"created_at"`
		Requester bool   `json:"requester"`
		Rule      *struct {
			Reason    string `json:"reason"`
			DecidedBy struct {
				Line int    `json:"line"`
				Text string `json:"text"`
			} `json:"decided_by"`
		} `json:"rule"`
	}
	doc := decode[struct {
		Data []item `json:"data"`
	}](t, r)
	byEmail := map[string]item{}
	for _, d := range doc.Data {
		byEmail[d.Email] = d
	}
	if len(doc.Data) != 4 || len(byEmail) != 4 {
		t.Fatalf("looked up %d addresses; want all 4 the ticket names: %s", len(doc.Data), r.stdout)
	}
	if j := byEmail["jane@customer.example"]; !j.Listed || !j.Requester || j.Rule == nil || j.Rule.DecidedBy.Line != 3 ||
		!strings.Contains(j.Rule.Reason, "asks for themselves") || j.Origin != "bounce" || j.ID != listed[1].ID {
		t.Errorf("the requester: %+v; want her listed, marked as the requester who asks (line 3)", j)
	}
	if b := byEmail["bounced@lists.example"]; !b.Listed || b.Origin != "bounce" || b.ID != listed[0].ID || b.CreatedAt == "" || b.Requester || b.Rule != nil {
		t.Errorf("bounced@: %+v; want listed as bounce with id %s", b, listed[0].ID)
	}
	if f := byEmail["fresh@lists.example"]; f.Listed || f.ID != "" {
		t.Errorf("fresh@: %+v; want not listed", f)
	}
	if o := byEmail["support@ourcompany.test"]; o.Listed || o.Rule == nil || o.Rule.Reason != "one of our own addresses" {
		t.Errorf("our own address: %+v; want looked up and marked ours", o)
	}
	if writes.Load() != 0 {
		t.Errorf("check sent %d changing requests", writes.Load())
	}
	if after := svc.emails(t); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("the list changed: %v → %v", before, after)
	}

	// --include-requester is accepted from older scripts and changes
	// nothing: everyone is looked up anyway.
	r2 := sb.run(t, nil, "suppressions", "check", "--file", ticket, "--include-requester", "--json").want(t, 0)
	if again := decode[struct {
		Data []item `json:"data"`
	}](t, r2); len(again.Data) != 4 {
		t.Errorf("--include-requester: %s", r2.stdout)
	}
}

// A batch add of a ticket whose requester asks about someone else leaves
// the requester, the address it was sent to and a signature's out; the
// dry run lists each with the reason and the line that decided;
// --include-requester takes them in, never our own; --exclude-requester
// leaves out a requester who asks for themselves.
func TestBatchLeavesOutTheRequester(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	if err := os.MkdirAll(filepath.Dir(sb.configFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(sb.configFile()), "config.toml", "own = [\"@ourcompany.test\"]\n")
	ticket := writeFile(t, sb.home, "ticket.txt", `From: Jane Doe <jane@customer.example>
To: support@ourcompany.test

Please block bounce1@lists.example and bounce2@lists.example.

Thanks,
Jane
jane@customer.example
`)
	type left struct {
		Value, Reason string
		Line          int
		Requester     bool
		DecidedBy     struct {
			Line int
			Text string
		} `json:"decided_by"`
	}
	plan := decode[struct {
		Valid     int
		LeftOut   []left `json:"left_out"`
		Decisions []struct {
			Value string
			Sent  bool
		}
	}](t, sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket, "--dry-run").want(t, 0))
	if plan.Valid != 2 || len(plan.LeftOut) != 3 || len(plan.Decisions) != 2 {
		t.Fatalf("dry run: %+v", plan)
	}
	for _, l := range plan.LeftOut {
		switch l.Value {
		case "jane@customer.example":
			if !l.Requester || l.Reason != "the requester, who does not ask for themselves" || l.DecidedBy.Line != 1 ||
				l.DecidedBy.Text != "From: Jane Doe <jane@customer.example>" {
				t.Errorf("jane: %+v", l)
			}
		case "support@ourcompany.test":
			if l.Reason != "one of our own addresses" || l.Line != 2 {
				t.Errorf("support: %+v", l)
			}
		default:
			t.Errorf("left out %+v", l)
		}
	}

	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket).want(t, 0)
	if got := svc.emails(t); strings.Join(got, ",") != "bounce1@lists.example,bounce2@lists.example" {
		t.Errorf("sent %v: %s", got, r)
	}
	if !strings.Contains(r.stdout, `"left_out"`) || !strings.Contains(r.stdout, `"decided_by"`) || !strings.Contains(r.stdout, "jane@customer.example") {
		t.Errorf("the run's document does not list what it left out and why: %s", r.stdout)
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket, "--include-requester").want(t, 0)
	got := svc.emails(t)
	if !slices.Contains(got, "jane@customer.example") || slices.Contains(got, "support@ourcompany.test") {
		t.Errorf("--include-requester sent %v", got)
	}

	self := writeFile(t, sb.home, "self.txt", "From: kim@customer.example\nTo: support@ourcompany.test\n\nPlease unsubscribe me.\n")
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", self, "--exclude-requester").want(t, 2)
	if !strings.Contains(r.stderr, "has nothing to send: every address is left out (kim@customer.example: the requester asks for themselves") {
		t.Errorf("--exclude-requester: %s", r)
	}
	if slices.Contains(svc.emails(t), "kim@customer.example") {
		t.Errorf("--exclude-requester sent the requester")
	}
	if r := sb.run(t, nil, "suppressions", "batch", "add", "--file", self, "--exclude-requester", "--include-requester"); r.code != 2 ||
		!strings.Contains(r.stderr, "not both") {
		t.Errorf("both overrides: %s", r)
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", self).want(t, 0)
	if !slices.Contains(svc.emails(t), "kim@customer.example") {
		t.Errorf("a requester who asks to be unsubscribed was not sent")
	}
}
