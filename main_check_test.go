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
// origin and date; the requester (header, signature) and our own domain are
// left out with the reason; nothing on the list changes.
func TestCheckATicketChangesNothing(t *testing.T) {
	var writes atomic.Int64
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodGet {
				writes.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	})
	ctx := context.Background()
	listed, err := svc.store.Add(ctx, svc.team, store.Change{}, store.Listed(api.OriginBounce, nil, "bounced@lists.example"))
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

Are bounced@lists.example and fresh@lists.example still suppressed?

Thanks,
Jane
jane@customer.example
`)
	before := svc.emails(t)
	r := sb.run(t, nil, "suppressions", "check", "--file", ticket, "--json").want(t, 0)
	doc := decode[struct {
		Data    []map[string]any `json:"data"`
		LeftOut []struct {
			Value  string `json:"value"`
			Line   int    `json:"line"`
			Reason string `json:"reason"`
		} `json:"left_out"`
	}](t, r)
	if len(doc.Data) != 2 {
		t.Fatalf("looked up %d addresses; want 2: %s", len(doc.Data), r.stdout)
	}
	byEmail := map[string]map[string]any{}
	for _, d := range doc.Data {
		byEmail[d["email"].(string)] = d
	}
	b := byEmail["bounced@lists.example"]
	if b["listed"] != true || b["origin"] != "bounce" || b["id"] != listed[0].ID || b["created_at"] == "" {
		t.Errorf("bounced@: %v; want listed as bounce with id %s", b, listed[0].ID)
	}
	if f := byEmail["fresh@lists.example"]; f["listed"] != false || f["id"] != nil {
		t.Errorf("fresh@: %v; want not listed", f)
	}
	reasons := map[string]string{}
	for _, l := range doc.LeftOut {
		reasons[l.Value] = l.Reason
	}
	if !strings.Contains(reasons["jane@customer.example"], "requester?") || !strings.Contains(reasons["support@ourcompany.test"], "own") {
		t.Errorf("left out: %+v", doc.LeftOut)
	}
	if writes.Load() != 0 {
		t.Errorf("check sent %d changing requests", writes.Load())
	}
	if after := svc.emails(t); strings.Join(after, ",") != strings.Join(before, ",") {
		t.Errorf("the list changed: %v → %v", before, after)
	}

	// --include-requester looks the requester up as well; own stays out.
	r = sb.run(t, nil, "suppressions", "check", "--file", ticket, "--include-requester").want(t, 0)
	if !strings.Contains(r.stdout, `"email": "jane@customer.example"`) || strings.Contains(r.stdout, "requester?") ||
		!strings.Contains(r.stdout, "one of our own addresses") {
		t.Errorf("--include-requester:\n%s", r.stdout)
	}
}

// A ticket's requester and our own addresses stay out of a batch add;
// --dry-run lists them with the reason; --include-requester takes the
// requester in, never our own.
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
	plan := decode[struct {
		Valid   int
		LeftOut []struct {
			Value, Reason string
			Line          int
		} `json:"left_out"`
	}](t, sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket, "--dry-run").want(t, 0))
	if plan.Valid != 2 || len(plan.LeftOut) != 3 {
		t.Fatalf("dry run: %+v", plan)
	}
	reasons := map[string]string{}
	for _, l := range plan.LeftOut {
		reasons[l.Value] = l.Reason
	}
	if !strings.HasPrefix(reasons["jane@customer.example"], "requester?") || reasons["support@ourcompany.test"] != "one of our own addresses" {
		t.Errorf("left out: %+v", plan.LeftOut)
	}

	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket).want(t, 0)
	if got := svc.emails(t); strings.Join(got, ",") != "bounce1@lists.example,bounce2@lists.example" {
		t.Errorf("sent %v: %s", got, r)
	}
	if !strings.Contains(r.stdout, `"left_out"`) || !strings.Contains(r.stdout, "jane@customer.example") {
		t.Errorf("the run's document does not list what it left out: %s", r.stdout)
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", ticket, "--include-requester").want(t, 0)
	got := svc.emails(t)
	if !slices.Contains(got, "jane@customer.example") || slices.Contains(got, "support@ourcompany.test") {
		t.Errorf("--include-requester sent %v", got)
	}
}
