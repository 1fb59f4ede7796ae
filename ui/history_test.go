package ui

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// The history file of an earlier version is imported into the recorded
// runs once: addresses, IDs, deleted flags and messages as they were.
func TestHistoryOfEarlierVersionsOpens(t *testing.T) {
	h := newHarness(t, service(t, nil), 120, 40)
	lines := `{"started":"2026-11-01T09:00:00Z","target":"local list","mode":"remove by ID","ticket":"T-1","counts":{"removed":1,"not_listed":1},"results":[{"address":"a@example.com","id":"0190a000-0000-7000-8000-00000000000a","outcome":"removed","deleted":true},{"id":"0190a000-0000-7000-8000-00000000000b","outcome":"not on the list","deleted":false}]}
{"started":"2026-11-02T09:00:00Z","target":"local list","mode":"remove by address","counts":{"removed":2},"results":[{"address":"x@example.com","outcome":"removed","deleted":false,"error":"the batch removed 1 of 2; without lookups the rest is not known"},{"address":"y@example.com","outcome":"removed","deleted":false,"error":"the batch removed 1 of 2; without lookups the rest is not known"}]}
not json
{"started":"2026-11-03T09:00:00Z","target":"https://list.example.com","mode":"add","ticket":"T-3","counts":{"added":1,"already_listed":1,"failed":1},"results":[{"address":"n@example.com","id":"0190a000-0000-7000-8000-00000000000c","outcome":"added","deleted":false},{"address":"o@example.com","id":"0190a000-0000-7000-8000-00000000000d","outcome":"already listed","deleted":false},{"address":"f@example.com","outcome":"failed","deleted":false,"error":"503 service_unavailable: busy"}]}
`
	os.MkdirAll(h.state, 0o700)
	if err := os.WriteFile(filepath.Join(h.state, historyFile), []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	h.keys("esc", "f3")
	h.mustSee("History · 3 runs", "1 lines of the earlier history could not be read.",
		"1 added · 1 already", "2 unverified", "1 removed · 1 not on")

	h.keys("enter") // the newest: the addition
	h.mustSee("Results · add → https://list.example.com", "3 entries: 1 added · 1 already listed · 1 failed",
		"n@example.com", "already listed", "failed: 503 service_unavailable: busy")
	h.mustNotSee("R retry", "U undo") // sent to another service: not from here

	h.keys("f3", "down", "enter")
	h.mustSee("2 entries: 2 unverified", "x@example.com", "Row 1: the batch removed 1 of 2")

	h.keys("f3", "down", "down", "enter")
	h.mustSee("2 entries: 1 removed · 1 not on the list", "a@example.com", "0190a000-0000-7000-8000-00000000000a", "deleted: true", "not on the list")

	// Imported once: the file is set aside, the runs stay.
	if _, err := os.Stat(filepath.Join(h.state, historyFile+importedExt)); err != nil {
		t.Errorf("the earlier history was not set aside: %v", err)
	}
	h.keys("f3", "ctrl+r")
	h.mustSee("History · 3 runs")
	h.mustNotSee("could not be read")
}

// One history holds the UI's runs and the command line's: a run the CLI
// made on this service is listed, opens, and can be undone from here.
func TestHistoryHoldsTheCLIsRuns(t *testing.T) {
	svc := service(t, nil)
	h := newHarness(t, svc, 110, 30)
	h.paste("k1@example.com k2@example.com")
	h.keys("ctrl+s", "tab")
	h.typeText("T-9")
	h.keys("enter", "ctrl+s")
	h.results()

	cli := &batch.Runs{Client: svc, Dir: filepath.Join(h.state, "journal"), Source: "cli"}
	items := []batch.Item{batch.NewItem(batch.Add, 1, "c1@example.com"), batch.NewItem(batch.Add, 2, "k1@example.com")}
	if _, err := cli.Start(context.Background(), batch.NewInput(batch.Add, items), batch.RunMeta{Reference: "T-10"}, batch.Observer{}); err != nil {
		t.Fatal(err)
	}
	h.keys("f3")
	h.mustSee("History · 2 runs", "T-9", "T-10", "1 added · 1 already", "2 added", "local list")
	h.keys("enter")
	h.mustSee("c1@example.com", "U undo")
	h.keys("U")
	h.mustSee("Undo: remove the 1 entry this run added (by ID)? [y/N]", "1 entry was already listed before the run stays.")
	h.keys("y")
	if c := h.results().Counts; c[batch.Removed] != 1 {
		t.Fatalf("undo of the CLI's run: %+v", c)
	}
	if _, err := svc.Get(context.Background(), "c1@example.com"); !client.IsNotFound(err) {
		t.Errorf("c1 is still listed: %v", err)
	}
	if _, err := svc.Get(context.Background(), "k1@example.com"); err != nil {
		t.Errorf("k1, added by the UI's run, is gone: %v", err)
	}
}

// / finds last week's run by its ticket, an address in it, its target or
// its mode; Esc shows all runs again.
func TestHistorySearch(t *testing.T) {
	svc := service(t, nil)
	h := newHarness(t, svc, 110, 30)
	send := func(ticket, text string) {
		h.paste(text)
		h.keys("ctrl+s", "tab")
		h.typeText(ticket)
		h.keys("enter", "ctrl+s")
		h.results()
		h.keys("n")
	}
	send("T-100", "ann@example.com bo@example.com")
	send("T-200", "cy@example.com")
	send("T-300", "dee@example.com ann2@example.com")
	h.keys("esc", "h")
	h.mustSee("History · 3 runs")
	h.keys("/")
	h.typeText("t-200")
	h.keys("enter")
	h.mustSee(`History · 1 of 3 runs match "t-200"`, "T-200")
	h.mustNotSee("T-100", "T-300")
	h.keys("enter")
	if r := h.results(); r.Ticket != "T-200" {
		t.Fatalf("opened %+v", r.Ticket)
	}
	h.keys("h", "/")
	h.key(tea.KeyCtrlU)
	h.typeText("ann")
	h.keys("enter")
	h.mustSee(`History · 2 of 3 runs match "ann"`, "T-100", "T-300")
	h.mustNotSee("T-200")
	h.keys("/")
	h.key(tea.KeyCtrlU)
	h.typeText("bo@example.com")
	h.keys("enter")
	h.mustSee(`1 of 3 runs match "bo@example.com"`, "T-100")
	h.keys("/", "esc")
	h.mustSee("History · 3 runs", "T-100", "T-200", "T-300")
}
