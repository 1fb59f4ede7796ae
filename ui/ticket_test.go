package ui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// A list not sent survives the session: it is kept as a draft (0600, per
// profile) and offered back at the next start, as it was (mode, ticket,
// what it left out); once it goes out in a run the draft goes.
func TestUnsentListIsOfferedBack(t *testing.T) {
	svc := service(t, nil)
	dir, state := t.TempDir(), filepath.Join(t.TempDir(), "state")
	h := harnessAt(t, svc, dir, state, 120, 30)
	h.paste("From: Jane <jane@customer.test>\nSubject: case AB-2026-7\n\nPlease stop mailing bob@example.com and carl@example.com.\n")
	h.mustSee("List · 3 entries", "jane@customer.test")
	path := filepath.Join(state, "drafts", "default.json")
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("the draft: %v, %v", info, err)
	}
	// Another service under the same profile is not offered the list.
	h = harnessAt(t, service(t, nil), dir, state, 120, 30)
	h.mustNotSee("Bring back")
	// The terminal closes: a new session on the same state.
	h = harnessAt(t, svc, dir, state, 120, 30)
	h.mustSee("Bring back the list not sent at ", "(3 entries, ticket AB-2026-7, add) [y/N]")
	h.keys("y")
	h.mustSee("List · 3 entries · 3 valid · 0 invalid · 1 left out", "Brought back the unsent list", "jane@customer.test  ↷ left out")
	h.keys("ctrl+s")
	h.mustSee("2 addresses in 1 batch", "Ticket: AB-2026-7")
	h.keys("ctrl+s")
	if c := h.results().Counts; c[batch.Added] != 2 {
		t.Fatalf("sent: %v", c)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the draft of a list that went out is still there: %v", err)
	}
	// Nothing is offered any more.
	h = harnessAt(t, svc, dir, state, 120, 30)
	h.mustNotSee("was not sent")
}

// A paste onto an unsent list of another ticket asks first, and says
// what each key does: Enter (or y, or any key it does not name) starts a
// new list with it, n adds it to the list, Esc drops it. The same
// ticket's reference does not ask; u brings the list before a new one
// back, with its ticket.
func TestPasteOfAnotherTicketAsks(t *testing.T) {
	h := newHarness(t, service(t, nil), 120, 30)
	h.paste("Subject: #5521\n\nPlease stop a1@example.com and a2@example.com.")
	h.paste("Subject: #5521 (second mail)\n\nand a3@example.com too")
	h.mustSee("List · 3 entries")
	h.mustNotSee("New list for this paste?")
	h.paste("Subject: #6000\n\nPlease put b1@example.com back.")
	h.mustSee("New list for this paste? enter/y: new list · n: add it to the 3 unsent entries of ticket #5521 · esc: drop the paste",
		"enter/y new list • n add it to the list • esc drop the paste")
	h.keys("enter")
	h.mustSee("List · 1 entry", "b1@example.com", "A new list for this paste (u brings back the 3 unsent entries of ticket #5521).")
	h.mustNotSee("a1@example.com")
	h.keys("ctrl+s")
	h.mustSee("1 address in 1 batch", "Ticket: #6000")
	h.keys("esc")
	// One u brings the list of #5521 back, under its own reference.
	h.keys("esc", "u")
	h.mustSee("List · 3 entries", "a1@example.com")
	h.mustNotSee("b1@example.com")
	h.keys("ctrl+s")
	h.mustSee("3 addresses in 1 batch", "Ticket: #5521")
	h.mustNotSee("#6000")
	h.keys("esc")
	// n adds it to the list; Esc drops the paste.
	h.paste("c1@example.com")
	h.mustSee("New list for this paste? enter/y: new list · n: add it to the 3 unsent entries of ticket #5521")
	h.keys("n")
	h.mustSee("List · 4 entries", "a1@example.com", "c1@example.com")
	h.paste("d1@example.com")
	h.keys("esc")
	h.mustSee("List · 4 entries", "The paste was not taken: the list is as it was.")
	h.mustNotSee("d1@example.com")
	// A paste while the question waits, or a key it does not name, is
	// its default: never the merge.
	h.paste("Subject: #7000\n\ne1@example.com")
	h.keys("x")
	h.mustSee("List · 1 entry", "e1@example.com")
	h.mustNotSee("a1@example.com")
	// A paste with nothing for the list (keys a slow link sent together,
	// read as a paste) replaces nothing.
	h.paste("jjjjjjjjjjjjjjjjjjjjjjjj")
	h.keys("enter")
	h.mustSee("List · 1 entry", "e1@example.com", "The paste holds no valid address: the list is as it was")
}

// A mode switch of a list with rows, and x in Browse onto an unsent list,
// ask first; no leaves the list as it was.
func TestReplacingAnUnsentListAsks(t *testing.T) {
	svc := service(t, nil)
	if _, err := svc.BatchAdd(context.Background(), []string{"old1@example.com", "old2@example.com"}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, svc, 120, 30)
	h.paste("keep1@example.com keep2@example.com")
	h.keys("esc", "m")
	h.mustSee("Read the 2 rows again as remove by address? (u switches back) [y/N]")
	h.keys("n")
	h.mustSee("mode: add", "List · 2 entries")

	h.keys("f2")
	h.mustSee("Browse · page 1", "old1@example.com")
	h.keys("space", "x")
	h.mustSee("Replace the 2 unsent entries with the 1 marked? (u brings them back) [y/N]")
	h.keys("n")
	h.keys("f1")
	h.mustSee("mode: add", "keep1@example.com", "List · 2 entries")
	h.keys("f2", "x")
	h.mustSee("Replace the 2 unsent entries with the 1 marked?")
	h.keys("y")
	h.mustSee("mode: remove by ID", "List · 1 entry", "from Browse, to remove by ID")
	h.keys("u")
	h.mustSee("keep1@example.com", "mode: add")
}

// Addresses pasted in remove-by-ID mode are rows with their problem, each
// of them: none is dropped without a word.
func TestPasteThatDoesNotFitTheModeShowsEveryRow(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.keys("esc", "m")
	h.keys("m")
	h.mustSee("mode: remove by ID")
	h.paste("Please remove bob@example.com, carl@example.com and 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a.")
	h.mustSee("List · 3 entries · 1 valid · 2 invalid", "bob@example.com  ✗ it is an email address, not a suppression ID",
		"carl@example.com  ✗ it is an email address")
}

// Two tickets in a row: the second review holds only its own address,
// under its own reference, in the mode it asked for; the first ticket's
// list is not sent again.
func TestTwoTicketsInARow(t *testing.T) {
	svc, sent := countingService(t)
	h := newHarness(t, svc, 120, 30)
	var first []string
	for i := range 8 {
		first = append(first, "t1-"+string(rune('a'+i))+"@example.com")
	}
	h.paste("Subject: #1001\n\nPlease stop mailing " + strings.Join(first, ", ") + ".")
	h.keys("ctrl+s", "ctrl+s")
	if c := h.results().Counts; c[batch.Added] != 8 {
		t.Fatalf("first ticket: %v", c)
	}
	// The second ticket asks to put one of them back.
	h.keys("n")
	h.mustSee("mode: add", "List · 0 entries")
	h.keys("esc", "m")
	h.paste("Subject: #1002\n\nPlease put t1-c@example.com back on.")
	h.keys("ctrl+s")
	h.mustSee("Review · remove by address", "1 address in 1 batch", "Ticket: #1002", "This removes 1 entry from the list.")
	h.mustNotSee("t1-a@example.com", "#1001")
	h.typeText("remove")
	h.keys("enter")
	run := h.results()
	if run.Ticket != "#1002" || len(run.Results) != 1 || run.Results[0].Input != "t1-c@example.com" || run.Counts[batch.Removed] != 1 {
		t.Fatalf("second ticket: %+v", run)
	}
	if n := sent.Load(); n != 2 {
		t.Errorf("%d batches; want one per ticket", n)
	}
}
