package cli

import (
	"context"
	"strings"
	"testing"
)

// TestTicketReadForAPerson: what a ticket asks, for whom, under which
// reference, and whom it leaves out with the line that decided, its own
// text made safe for the terminal.
func TestTicketReadForAPerson(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil).human()
	file := writeFile(t, "CASE-4711.txt", "From: Jane <jane@customer.example>\nTo: support@shush.example\nSubject: stop \x1b]0;owned\x07 mailing me\n\nPlease unsubscribe me and bob@bücher.example from everything.\nJane\n")
	if err := runTicketRead(ctx, &ticketReadOptions{app: ta.app, File: file}); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	if miss := lacks(out, "Mode: add — the ticket ", "Requester: jane@customer.example", "bob@bücher.example (bob@xn--bcher-kva.example)",
		"Reference: #4711 (the file name CASE-4711.txt)", `(line 5: "unsubscribe me")`, "Left out:\n  support@shush.example — the address the ticket was sent to (line 2)", "Evidence:\n  line "); len(miss) > 0 {
		t.Errorf("the reading lacks %q:\n%s", miss, out)
	}
	if strings.ContainsRune(out, 0x1b) || strings.ContainsRune(out, 0x07) {
		t.Errorf("the reading passes the ticket's control characters to the terminal:\n%q", out)
	}
	targets := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "Targets (") {
			targets = l
		}
	}
	if !strings.HasPrefix(targets, "Targets (2):") || !strings.Contains(targets, "jane@customer.example") {
		t.Errorf("targets line %q", targets)
	}
}

func TestTicketReadRefusesWhatIsNoText(t *testing.T) {
	ctx := context.Background()
	ta := newTestApp(t, nil)
	for _, c := range []struct{ text, want string }{
		{"", "it is empty"},
		{"  \n\t\n", "it is empty"},
		{"caf\xe9 au lait, bob@example.com\n", "it is not UTF-8 text; save it as UTF-8"},
	} {
		f := writeFile(t, "t.txt", c.text)
		wantErr(t, runTicketRead(ctx, &ticketReadOptions{app: ta.app, File: f}), ExitUsage, f+": "+c.want)
	}
	// From stdin it reads the command's stream.
	ta.stdin("From: ann@example.com\nTo: support@shush.example\n\nPlease put me back on your list.\n")
	if err := runTicketRead(ctx, &ticketReadOptions{app: ta.app, File: "-"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.out.String(), `"mode": "remove"`) || !strings.Contains(ta.out.String(), "ann@example.com") {
		t.Errorf("ticket read of stdin:\n%s", ta.out.String())
	}
}
