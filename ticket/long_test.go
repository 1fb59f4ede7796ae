package ticket_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// TestLongWordsInAHeader: a header line whose words outgrow the phrase
// lookup's buffer is read like any other line, not a panic.
func TestLongWordsInAHeader(t *testing.T) {
	long := strings.Repeat("x", 60)
	for _, text := range []string{
		"Ana " + long + " " + long + " " + long + " wrote on 2 Nov 2026\nPlease unsubscribe ana@x.example.\n",
		"Ticket #9\n\nAna " + strings.Repeat("ü", 50) + " " + long + " " + long + ", Nov 2, 2026\nPlease unsubscribe ana@x.example.\n",
	} {
		r := ticket.Read(text).Reading(ticket.NewOwn(nil))
		if r.Mode != ticket.ModeAdd || !slices.Contains(r.Targets, "ana@x.example") {
			t.Errorf("%q: mode %q, targets %q; want add of ana@x.example", text, r.Mode, r.Targets)
		}
	}
}
