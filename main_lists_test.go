package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shushlist/shush/internal/hostedtest"
)

// Re-adding 200 addresses that are already on a hosted list of 253
// entries, at its 2 requests a second, reads the list (3 pages) rather
// than looking each address up: at most 10 requests, every address
// already_listed with the service's own ID. Checking them (a service
// without the bulk check) takes as few, and says each is listed.
func TestListedAddressesCostPagesNotLookups(t *testing.T) {
	t.Parallel()
	h := hostedtest.Start(t)
	h.SetOrder(hostedtest.Shuffled)
	var mine []string
	var body strings.Builder
	for i := range 200 {
		a := fmt.Sprintf("listed%03d@example.com", i)
		mine = append(mine, a)
		body.WriteString(a + "\n")
		if i%4 == 0 {
			h.Add(fmt.Sprintf("other%03d@example.com", i)) // another address between ours
		}
	}
	for i := 0; i < 200; i += 50 {
		h.Add(mine[i : i+50]...)
	}
	h.Add("newest1@example.com", "newest2@example.com", "newest3@example.com")
	if n := len(h.Truth()); n != 253 {
		t.Fatalf("the list holds %d entries, want 253", n)
	}
	h.SetRate(2)
	sb := newSandbox(t).with("SHUSH_BASE_URL="+h.URL, "SHUSH_API_KEY=re_test_key")
	in := writeFile(t, sb.home, "again.txt", body.String())

	before := h.Total()
	run := decode[struct {
		Data []struct{ Email, ID, Outcome string }
	}](t, sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--json").want(t, 0))
	truth := h.Truth()
	for _, x := range run.Data {
		if x.Outcome != "already_listed" || x.ID != truth[x.Email] {
			t.Fatalf("%+v; the service holds %s", x, truth[x.Email])
		}
	}
	if len(run.Data) != 200 {
		t.Fatalf("%d results", len(run.Data))
	}
	n := h.Total() - before
	t.Logf("re-adding 200 listed addresses of a list of 253 at 2 requests/s: %d requests", n)
	if n > 10 || h.Refused.Load() > 0 {
		t.Errorf("re-adding 200 listed addresses took %d requests (%d refused for the rate); want at most 10", n, h.Refused.Load())
	}

	before = h.Total()
	checked := decode[struct {
		Data []struct {
			Email, ID string
			Listed    bool
		}
	}](t, sb.run(t, nil, "suppressions", "check", "--file", in, "--json").want(t, 0))
	for _, x := range checked.Data {
		if !x.Listed || x.ID != truth[x.Email] {
			t.Fatalf("check: %+v", x)
		}
	}
	n = h.Total() - before
	t.Logf("checking them: %d requests", n)
	if n > 10 || len(checked.Data) != 200 {
		t.Errorf("checking 200 listed addresses took %d requests for %d answers; want at most 10", n, len(checked.Data))
	}
}
