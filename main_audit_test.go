package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/server"
)

// An agent asks "who suppressed this and why": shush audit shows the
// change, the key's name and the ticket; prune keeps the trail bounded.
func TestAuditTrailFromTheCLI(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	dbPath := svc.db
	_, key, err := server.CreateNamedKey(context.Background(), svc.store, svc.team, "jane", false)
	if err != nil {
		t.Fatal(err)
	}
	sb := newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+key)
	in := writeFile(t, sb.home, "in.txt", "bob@example.com\ncarol@example.com\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--reference", "#48213").want(t, 0)
	sb.run(t, nil, "suppressions", "remove", "carol@example.com", "--yes").want(t, 0)

	doc := decode[struct {
		Data []struct {
			Type        string
			Reference   *string
			Key         struct{ Name string }
			Suppression struct{ Email string }
		}
	}](t, sb.run(t, nil, "audit", "--email", "Bob@Example.com").want(t, 0))
	if len(doc.Data) != 1 || doc.Data[0].Type != "suppression.added" || doc.Data[0].Key.Name != "jane" ||
		doc.Data[0].Reference == nil || *doc.Data[0].Reference != "#48213" {
		t.Fatalf("bob's trail: %+v", doc.Data)
	}
	r := sb.run(t, nil, "audit", "--type", "removed", "--jq", ".data[].suppression.email").want(t, 0)
	if strings.TrimSpace(r.stdout) != "carol@example.com" {
		t.Errorf("removals: %q", r.stdout)
	}
	r = sb.run(t, nil, "audit", "--reference", "#48213", "--all", "--jq", ".data | length").want(t, 0)
	if strings.TrimSpace(r.stdout) != "2" {
		t.Errorf("by reference: %q", r.stdout)
	}
	sb.run(t, nil, "audit", "--type", "deleted").want(t, 2)

	// The hosted service keeps no trail: a sentence, not a raw 404.
	hosted := hostedtest.Start(t)
	r = newSandbox(t).run(t, nil, "audit", "--base-url", hosted.URL, "--api-key", "re_test").want(t, 1)
	if !strings.Contains(r.stderr, "keeps no audit trail (only shush's own service does)") {
		t.Errorf("audit against the hosted service: %s", r)
	}
	// The local list is our service in process: it has a trail.
	newSandbox(t).run(t, nil, "audit").want(t, 0)

	// Prune: nothing is younger than an hour's cut; everything goes before tomorrow.
	r = sb.run(t, nil, "audit", "prune", "--older-than", "1h", "--yes", "--db", dbPath).want(t, 0)
	if !strings.Contains(r.stdout, `"audit_entries": 0,`) {
		t.Errorf("prune an hour back: %s", r)
	}
	tomorrow := time.Now().Add(24 * time.Hour).UTC().Format("2006-01-02")
	r = sb.run(t, nil, "audit", "prune", "--before", tomorrow, "--yes", "--db", dbPath).want(t, 0)
	if !strings.Contains(r.stdout, `"audit_entries": 3,`) {
		t.Errorf("prune before tomorrow: %s", r)
	}
	for _, bad := range [][]string{{"--older-than", "soon"}, {"--older-than", "1h", "--before", tomorrow}, {}} {
		sb.run(t, nil, append([]string{"audit", "prune", "--yes", "--db", dbPath}, bad...)...).want(t, 2)
	}
	if got := svc.emails(t); len(got) != 1 || got[0] != "bob@example.com" {
		t.Errorf("pruning the trail changed the list: %v", got)
	}
}
