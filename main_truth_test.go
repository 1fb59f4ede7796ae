package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/internal/hostedtest"
)

// Against a service like the hosted one (bare UUIDv4 IDs, answers
// shuffled, a clock minutes off), every address↔ID pair the CLI prints,
// records in its journal and shows from the history is the service's own,
// and what was listed before reads "already_listed"; the undo removes only
// what the run created.
func TestCLIPairsAreTheServicesTruth(t *testing.T) {
	t.Parallel()
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	h.SetClockOffset(-6 * time.Minute)
	var body strings.Builder
	for i := range 250 {
		fmt.Fprintf(&body, "truth%03d@example.com\n", i)
	}
	before := h.Add("truth007@example.com", "truth200@example.com")
	sb := newSandbox(t).with("SHUSH_BASE_URL="+h.URL, "SHUSH_API_KEY=re_test_key")
	in := writeFile(t, sb.home, "in.txt", body.String())

	type item struct{ Email, ID, Outcome string }
	check := func(what string, items []item) {
		t.Helper()
		truth := h.Truth()
		if len(items) != 250 {
			t.Fatalf("%s: %d items", what, len(items))
		}
		for _, x := range items {
			want := "added"
			if _, ok := before[x.Email]; ok {
				want = "already_listed"
			}
			if x.ID != truth[x.Email] || x.Outcome != want {
				t.Fatalf("%s: %+v; the service holds %s for it, want %s", what, x, truth[x.Email], want)
			}
		}
	}
	run := decode[struct{ Data []item }](t, sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--json").want(t, 0))
	check("batch add --json", run.Data)

	runs := decode[struct{ Data []struct{ ID string } }](t, sb.run(t, nil, "runs", "list", "--json").want(t, 0))
	if len(runs.Data) != 1 {
		t.Fatalf("runs: %+v", runs.Data)
	}
	shown := decode[struct{ Data []item }](t, sb.run(t, nil, "runs", "show", runs.Data[0].ID, "--json").want(t, 0))
	check("runs show --json (the journal)", shown.Data)

	sb.run(t, nil, "runs", "undo", runs.Data[0].ID, "--yes").want(t, 0)
	truth := h.Truth()
	if len(truth) != 2 || truth["truth007@example.com"] == "" || truth["truth200@example.com"] == "" {
		t.Errorf("after the undo the service holds %d entries: %v", len(truth), truth)
	}
}
