package ui

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/internal/hostedtest"
)

// Against a service like the hosted one (bare UUIDv4 IDs in no order, a
// clock minutes off), the pairs the Results screen, its CSV export and
// the history show are the service's own.
func TestUIPairsAreTheServicesTruth(t *testing.T) {
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.NewestFirst)
	h.SetClockOffset(8 * time.Minute)
	before := h.Add("ui005@example.com")
	svc := client.New(h.URL, "re_test_key", client.WithRetry(2, time.Millisecond, 5*time.Millisecond))
	hs := newHarness(t, svc, 120, 30)
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "ui%03d@example.com\n", i)
	}
	hs.paste(b.String())
	hs.keys("ctrl+s", "ctrl+s")
	run := hs.results()
	truth := h.Truth()
	check := func(what, email, id, outcome string) {
		t.Helper()
		want := "added"
		if _, ok := before[email]; ok {
			want = "already_listed"
		}
		if id != truth[email] || outcome != want {
			t.Fatalf("%s: %s %s %s; the service holds %s, want %s", what, email, id, outcome, truth[email], want)
		}
	}
	for _, x := range run.Results {
		check("results", run.address(x), x.ID, string(x.Outcome))
	}

	out := filepath.Join(hs.dir, "out.csv")
	hs.keys("w")
	hs.send(tea.KeyMsg{Type: tea.KeyCtrlU})
	hs.typeText(out)
	hs.keys("enter")
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 151 {
		t.Fatalf("csv: %d rows, %v", len(rows), err)
	}
	for _, r := range rows[1:] {
		check("csv", r[0], r[1], r[2])
	}

	hs.keys("f3", "enter")
	again := hs.results()
	for _, x := range again.Results {
		check("history", again.address(x), x.ID, string(x.Outcome))
	}
}
