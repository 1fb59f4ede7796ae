package ui

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

// "Unblock everyone at this law firm": Browse's / takes the domain (with
// or without its @) and pages its entries alone; X takes every match as a
// removal, whose review says where it came from and how many, and the run
// removes exactly them.
func TestBrowseSearchTakesADomainAsARemoval(t *testing.T) {
	svc := service(t, nil)
	ctx := context.Background()
	var firm []string
	for i := range 30 {
		firm = append(firm, fmt.Sprintf("partner%02d@firm.example", i))
	}
	if _, err := svc.BatchAdd(ctx, append(firm, "jane@example.com", "x@sub.firm.example")); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 30)
	h.keys("esc", "l")
	h.mustSee("Browse · page 1 · all origins")
	h.keys("/")
	h.typeText("firm.example")
	h.keys("enter")
	h.mustSee("Browse · everyone at firm.example (X: remove all) · page 1", "partner29@firm.example", "(X: remove all)", "more: n")
	h.mustNotSee("jane@example.com", "x@sub.firm.example")
	h.keys("n")
	h.mustSee("Browse · everyone at firm.example (X: remove all) · page 2")
	h.mustNotSee("jane@example.com", "x@sub.firm.example")

	// A search that is not one says so, once, in a sentence.
	h.keys("/")
	h.typeText("ja*")
	h.keys("enter")
	h.mustSee(`"ja*" is not a search: a prefix needs at least 3 characters before the *.`)
	h.keys("/")
	h.typeText("@firm.example")
	h.keys("enter")
	h.keys("X")
	h.mustSee("30 addresses from Browse (everyone at firm.example), to remove; r reviews.", "mode: remove by address")
	h.keys("r")
	h.mustSee("Review · remove by address", "From Browse's search: everyone at firm.example, 30 entries when read",
		"Preview: 30 on the list · 0 not on the list", "This removes 30 entries from the list.")
	h.typeText("remove")
	h.keys("enter")
	run := h.results()
	if run.Counts[batch.Removed] != 30 || len(run.Results) != 30 {
		t.Fatalf("removal counts %+v", run.Counts)
	}
	for _, left := range []string{"jane@example.com", "x@sub.firm.example"} {
		if _, err := svc.Get(ctx, left); err != nil {
			t.Errorf("%s is gone: %v", left, err)
		}
	}
}

// An agent adds with a note and an expiry: the review's note is the ticket
// until edited, the expiry an age; the results, Browse and check show what
// the service keeps; a listed entry keeps its own note and later expiry.
func TestReviewNoteAndExpiry(t *testing.T) {
	svc := service(t, nil)
	ctx := context.Background()
	later := time.Now().Add(400 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
	if _, err := svc.BatchAddEntries(ctx, []api.NewEntry{{Email: "kept@example.com", Note: new("an older reason"), ExpiresAt: &api.Timestamp{Time: later}}}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 30)
	h.paste("full@example.com kept@example.com")
	h.keys("ctrl+s", "tab")
	h.typeText("#48213")
	h.mustSee("Ticket: #48213", "Note: #48213")
	h.keys("tab")
	h.typeText(", mailbox full")
	h.keys("tab")
	h.typeText("30d")
	h.mustSee("Note: #48213, mailbox full", "Expires: 30d")
	h.keys("enter", "ctrl+s")
	run := h.results()
	if run.Counts[batch.Added] != 1 || run.Counts[batch.AlreadyListed] != 1 {
		t.Fatalf("counts %+v", run.Counts)
	}
	e, err := svc.Get(ctx, "full@example.com")
	if err != nil || e.Note == nil || *e.Note != "#48213, mailbox full" || e.ExpiresAt == nil ||
		time.Until(e.ExpiresAt.Time) < 29*24*time.Hour || time.Until(e.ExpiresAt.Time) > 30*24*time.Hour+time.Minute {
		t.Fatalf("full@ on the list: %+v, %v", e, err)
	}
	h.mustSee("Row 1: full@example.com  until " + e.ExpiresAt.UTC().Format("2006-01-02 15:04") + "  “#48213, mailbox full”")
	h.keys("down")
	h.mustSee("Row 2: kept@example.com  until " + later.Format("2006-01-02 15:04") + "  “an older reason”")

	h.keys("l")
	h.mustSee("Expires (UTC)", e.ExpiresAt.UTC().Format("2006-01-02 15:04"), "full@example.com  until")
	h.keys("b")
	h.paste("full@example.com kept@example.com")
	h.keys("esc", "c")
	h.mustSee("✓ full@example.com  manual", "ref #48213  until "+e.ExpiresAt.UTC().Format("2006-01-02 15:04")+"  “#48", "until "+later.Format("2006-01-02 15:04")+"  “an older reason")

	// An expiry that is not one is refused, nothing sent.
	h = newHarness(t, svc, 120, 30)
	h.paste("bad@example.com")
	h.keys("ctrl+s", "tab", "tab", "tab")
	h.typeText("tomorrow")
	h.keys("enter", "ctrl+s")
	h.mustSee(`Expires: "tomorrow" is not an expiry: write an age (30d, 12h), a date (2026-12-31) or never; nothing was sent.`)
	if _, err := svc.Get(ctx, "bad@example.com"); !client.IsNotFound(err) {
		t.Errorf("bad@ was sent: %v", err)
	}
}

// "Which of these 2,500 customers are suppressed?": the check takes them
// all (no cap), in three bulk requests, and pages the answer; ctrl+f
// shows the listed alone.
func TestCheckPagesAThousandsLongAnswer(t *testing.T) {
	var checks, gets atomic.Int32
	svc := service(t, func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case r.URL.Path == "/suppressions/batch/check":
				checks.Add(1)
			case r.Method == http.MethodGet && strings.Contains(r.URL.Path, "@"):
				gets.Add(1)
			}
			next.ServeHTTP(w, r)
		})
	})
	var crm []string
	for i := range 2500 {
		crm = append(crm, fmt.Sprintf("customer%04d@crm.example", i))
	}
	if _, err := svc.BatchAdd(context.Background(), []string{crm[7], crm[1500], crm[2499]}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 30)
	h.paste(strings.Join(crm, "\n"))
	h.keys("esc", "c")
	h.mustSee("Check · 2500 addresses", "3 listed · 2497 not listed", "rows 1–", "of 2500", "- customer0000@crm.example  not listed",
		"✓ customer0007@crm.example")
	if checks.Load() != 3 || gets.Load() != 0 {
		t.Errorf("%d bulk checks and %d look-ups for 2,500 addresses; want 3 and none", checks.Load(), gets.Load())
	}
	h.keys("pgdown")
	h.mustNotSee("customer0000@crm.example")
	h.keys("ctrl+f")
	h.mustSee("showing those on the list", "✓ customer0007@crm.example", "✓ customer1500@crm.example", "✓ customer2499@crm.example")
	h.mustNotSee("not listed  ")
}

// Against the hosted service (no q, no bulk check): Browse says it does
// not search rather than page the whole list as the search's, and the
// check looks each address up, saying so while it runs.
func TestAnswersAgainstTheHostedService(t *testing.T) {
	hosted := hostedtest.Start(t)
	hosted.Add("a@firm.example", "b@example.com")
	svc := client.New(hosted.URL, "re_test", client.WithRetry(1, time.Millisecond, time.Millisecond))
	h := newHarness(t, svc, 120, 30)
	h.keys("esc", "l")
	h.mustSee("b@example.com")
	h.keys("/")
	h.typeText("@firm.example")
	h.keys("enter")
	h.mustSee("This service does not search its list (only shush's own does): look up a whole address instead.")
	h.mustNotSee("b@example.com")
	h.keys("b")
	h.paste("a@firm.example nobody@example.com b@example.com")
	h.keys("esc", "c")
	h.mustSee("2 listed · 1 not listed", "✓ a@firm.example", "- nobody@example.com  not listed")
	n, _ := hosted.Requests.Load("POST /suppressions/batch/check")
	if n == nil || n.(*atomic.Int64).Load() != 1 {
		t.Errorf("the bulk check was tried %v times; want once, then look-ups", n)
	}
}

// A paste on Browse, outside the look-up, opens the look-up holding it:
// it is never dropped, nor run as keys.
func TestBrowsePasteLooksUp(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAdd(context.Background(), []string{"gone@example.com", "kept@example.com"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 30)
	h.keys("esc", "l")
	h.mustSee("Browse · page 1 · all origins")
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("Gone <gone@example.com>"), Paste: true})
	h.mustSee("Look up: Gone <gone@example.com>")
	h.keys("enter")
	h.mustSee("gone@example.com")
	h.mustNotSee("kept@example.com")
}
