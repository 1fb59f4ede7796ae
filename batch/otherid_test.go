package batch_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// A UUID labelled as another thing's ID ("Trace ID: …") in a ticket that
// releases suppression IDs is left out with its reason and line; the
// suppression IDs go.
func TestTraceIDIsNotReleased(t *testing.T) {
	const (
		a     = "7f3c2a91-5d4e-4b8a-9c61-2e0f8d3b4a17"
		b     = "c0e9b6d2-1a7f-4e35-8b90-6d4c3f2a1e58"
		trace = "e2a4c6f8-1b3d-4e5f-8a7b-9c0d2e4f6a81"
	)
	text := "From: Tom <tom@customer.example>\nTo: support@ourcompany.test\n\nPlease release these suppressions:\n" + a + "\n" + b +
		"\n\nI tried in the dashboard first and got: \"Release failed (403). Trace ID: " + trace + "\"\n"
	in, err := batch.ReadPlan(strings.NewReader(text), "ticket.txt", batch.RemoveIDs, ticket.NewOwn([]string{"@ourcompany.test"}), ticket.ByRule)
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Collect(in.Values()); !slices.Equal(got, []string{a, b}) {
		t.Fatalf("sends %q; want the two suppression IDs", got)
	}
	var left []string
	for _, l := range in.LeftOut {
		left = append(left, fmt.Sprintf("%s = %s (line %d)", l.Item.Value, l.Decision.Reason, l.Decision.By.Line))
	}
	if !slices.Contains(left, trace+" = "+ticket.ReasonOtherID+" (line 8)") {
		t.Fatalf("left out %q; want the trace ID with its reason, line 8", left)
	}
}
