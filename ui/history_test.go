package ui

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// History written by earlier versions (their own result rows) still
// opens: addresses, IDs, deleted flags and messages as they were.
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
	h.mustSee("History · 3 runs", "1 lines of the history could not be read.",
		"1 added · 1 already", "2 unverified", "1 removed · 1 not on")

	h.keys("enter") // the newest: the addition
	h.mustSee("Results · add → https://list.example.com", "3 entries: 1 added · 1 already listed · 1 failed",
		"n@example.com", "already listed", "failed: 503 service_unavailable: busy")
	h.mustNotSee("R retry") // a run of the history is read-only

	h.keys("f3", "down", "enter")
	h.mustSee("2 entries: 2 unverified", "x@example.com", "Row 1: the batch removed 1 of 2")

	h.keys("f3", "down", "down", "enter")
	h.mustSee("2 entries: 1 removed · 1 not on the list", "a@example.com", "0190a000-0000-7000-8000-00000000000a", "deleted: true", "not on the list")
}

// A run the UI sends goes to the history in the format earlier versions
// wrote, so that they read it too.
func TestHistoryKeepsItsFormat(t *testing.T) {
	h := newHarness(t, service(t, nil), 100, 30)
	h.paste("k1@example.com k2@example.com")
	h.keys("ctrl+s", "ctrl+s")
	h.keys("n", "esc", "m")
	h.paste("k1@example.com nobody@example.com")
	h.keys("r")
	h.typeText("remove")
	h.keys("enter")
	h.results()

	type row struct {
		Address, ID, Outcome, Error string
		Deleted                     bool
	}
	type record struct {
		Started time.Time
		Target  string
		Mode    string
		Counts  struct {
			Added     int `json:"added"`
			Already   int `json:"already_listed"`
			Removed   int `json:"removed"`
			NotListed int `json:"not_listed"`
		}
		Results []row
	}
	f, err := os.Open(filepath.Join(h.state, historyFile))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []record
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		recs = append(recs, r)
	}
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	add, rm := recs[0], recs[1]
	if add.Mode != "add" || add.Target != "local list" || add.Counts.Added != 2 || len(add.Results) != 2 ||
		add.Results[0].Address != "k1@example.com" || add.Results[0].ID == "" || add.Results[0].Outcome != "added" {
		t.Fatalf("the addition was kept as %+v", add)
	}
	if rm.Mode != "remove by address" || rm.Counts.Removed != 1 || rm.Counts.NotListed != 1 ||
		!rm.Results[0].Deleted || rm.Results[0].ID != add.Results[0].ID || rm.Results[1].Outcome != "not_listed" || rm.Results[1].Deleted {
		t.Fatalf("the removal was kept as %+v", rm)
	}
}
