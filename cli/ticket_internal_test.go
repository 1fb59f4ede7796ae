package cli

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// What `ticket read` prints for people passes the sanitizer: a ticket's
// escape sequences and bidi overrides never reach the terminal, an IDN
// shows in Unicode beside what is sent.
func TestHumanReadingIsSanitized(t *testing.T) {
	tk := ticket.Read("From: Eve <eve@customer.test>\n\nPlease put me back\x1b]52;c;aGk=\x07 now \u202e.\n\n" +
		"Also unsubscribe jörg@bücher.example? no: x@bücher.example\n")
	out := humanReading(tk.Reading(ticket.Own{}))
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Fatalf("outside text reached the terminal: %q", out)
	}
	for _, want := range []string{"Mode: ", "Requester: eve@customer.test", "x@bücher.example (x@xn--bcher-kva.example)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the reading does not say %q:\n%s", want, out)
		}
	}
}
