package ui

import (
	"context"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// The review's Requester section is a list: ctrl+s sends an addition from
// it, Enter goes to the confirmation, a paste is no one's text, and the
// keys of a screen without a text field (q, ?) work there.
func TestRequesterSectionKeys(t *testing.T) {
	svc, sent := countingService(t)
	h := newHarness(t, svc, 110, 32)
	h.paste("From: Jane Doe <jane@customer.test>\nCc: Tom Berg <tom@customer.test>\nSubject: [#5521] updates\n\n" +
		"Please unsubscribe me and my colleague (cc'd).\n")
	h.keys("ctrl+s", "tab", "tab", "tab", "tab")
	h.mustSee("↑/↓ choose, t: take in / leave out", "ctrl+s send")
	h.paste("add")
	if v := h.m.review.confirm.Value(); v != "" {
		t.Fatalf("a paste in the Requester section went to the confirmation: %q", v)
	}
	h.keys("q")
	h.mustSee("Quit? The 2 unsent entries are kept")
	h.keys("enter") // not a yes
	if h.quit || h.m.screen != scrReview {
		t.Fatalf("Enter on the quit question left the review:\n%s", h.view())
	}
	h.keys("enter")
	if h.m.review.focus != focusConfirm {
		t.Fatalf("Enter in the Requester section did not go to the confirmation (focus %d)", h.m.review.focus)
	}
	h.keys("tab", "tab", "tab", "tab") // back to the section
	if h.m.review.focus != focusPeople {
		t.Fatalf("focus %d, want the Requester section", h.m.review.focus)
	}
	h.keys("ctrl+s")
	if run := h.results(); run.Counts[batch.Added] != 2 || sent.Load() != 1 {
		t.Fatalf("ctrl+s in the Requester section: %v, %d batches", run.Counts, sent.Load())
	}
}

// A removal by address of a ticket that gives the address and its ID: the
// ID, not an address, is the same entry; it is named once in the review
// and not listed again in the results, the run's record or History.
func TestAnEntryNamedTwiceShowsOnce(t *testing.T) {
	svc := service(t, nil)
	added, err := svc.BatchAdd(context.Background(), []string{"jane@example.com", "kim@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	id := added[0].ID
	h := newHarness(t, svc, 120, 30)
	h.keys("esc", "m", "i")
	for _, line := range []string{"jane@example.com", id, "kim@example.com", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a"} {
		h.typeText(line)
		h.keys("enter")
	}
	h.mustSee("List · 4 entries · 2 valid · 2 invalid")
	h.keys("ctrl+s")
	h.mustSee("Preview: 2 on the list", "Excluded: 1 invalid entry, never sent:", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a — ",
		"Named twice: "+id+" (line 1), the same entry as another row; it goes once, by that row.")
	h.typeText("remove")
	h.keys("enter")
	run := h.results()
	h.mustSee("2 entries: 2 removed · 1 invalid")
	if strings.Count(h.view(), id) != 1 || len(run.Invalid) != 1 || run.Invalid[0].Raw != "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a" {
		t.Fatalf("the ID named beside its address shows apart (invalid %+v):\n%s", run.Invalid, h.view())
	}
	h.keys("f3")
	h.mustSee("2 removed · 1 invalid")
}

// A run's results fold an invalid entry that names an entry the run
// reached (a service that names the addresses of a removal by ID): each
// entry shows once, and the counts say so.
func TestResultsShowEachEntryOnce(t *testing.T) {
	const id = "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a"
	run := &Run{Mode: batch.RemoveIDs, Counts: map[batch.Outcome]int{batch.Removed: 1},
		Results: []batch.Result{{Input: id, ID: id, Email: "jane@example.com", Outcome: batch.Removed}},
		Invalid: []batch.Item{
			batch.NewItem(batch.RemoveIDs, 2, "Jane@Example.com"),
			batch.NewItem(batch.RemoveIDs, 3, "other@example.com"),
		}}
	rows := run.rows()
	var got []string
	for _, x := range rows {
		got = append(got, x.Address+" "+string(x.Outcome))
	}
	if strings.Join(got, ", ") != "jane@example.com removed, other@example.com invalid" {
		t.Fatalf("rows: %q", got)
	}
	h := newHarness(t, service(t, nil), 120, 30)
	h.m.results.show(run, "")
	h.m.goTo(scrResults)
	h.mustSee("1 entry: 1 removed · 1 invalid")
}

// Esc clears the list's filter once it is kept (Enter), and the footer
// says so while one is set.
func TestEscClearsTheListFilter(t *testing.T) {
	h := newHarness(t, service(t, nil), 120, 30)
	h.paste("a@example.com b@example.com c@example.com")
	h.keys("esc", "/")
	h.typeText("b@")
	h.keys("enter")
	h.mustSee(`filter "b@": 1 shown`, "esc clear filter")
	h.mustNotSee("a@example.com")
	h.keys("esc")
	h.mustSee("a@example.com", "b@example.com", "c@example.com")
	h.mustNotSee("filter \"", "esc clear filter")
}

// The entry field offers ? only while it is empty: in a field that holds
// text, ? is text.
func TestEntryFieldHelpOffersOnlyWhatWorks(t *testing.T) {
	h := newHarness(t, service(t, nil), 120, 30)
	h.mustSee("ctrl+s review & send • ? all keys")
	h.typeText("who?")
	h.mustNotSee("? all keys")
	if v := h.m.build.input.Value(); v != "who?" {
		t.Fatalf("the field holds %q", v)
	}
}
