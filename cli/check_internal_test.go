package cli

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

func TestHumanCheck(t *testing.T) {
	a, out, _ := humanApp()
	p := batch.ReadPaste("From: jane@customer.example\n\nAm I blocked? Is a@lists.example listed? Or b@lists.example?\nAnd c@@x\n")
	items := p.Items(batch.RemoveEmails)
	plan := batch.NewInput(batch.RemoveEmails, items)
	jane := p.Roles(items, ticket.NewOwn(nil))[0]
	a.printCheck(checkJSON{
		Data: []checkItem{
			{Email: "jane@customer.example", Listed: true, ID: "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7c", Origin: "bounce", CreatedAt: "2026-11-01T10:04:05.123Z", Requester: true, Rule: &jane,
				ExpiresAt: "2026-12-01T00:00:00.000Z", Note: new("mailbox full\x1b[2J, #48213")},
			{Email: "a@lists.example", Listed: true, ID: "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b", Origin: "complaint", CreatedAt: "2026-11-02T10:04:05.123Z"},
			{Email: "b@lists.example"},
			{Email: "x\x1b]52;c;aGk=\x07@lists.example", Error: "the service answered 503"},
		},
		Invalid: plan.Invalid,
	})
	for _, want := range []string{
		"jane@customer.example yes bounce 2026-11-01 10:04 UTC 2026-12-01 00:00 UTC 0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7c requester; asks for themselves (line 3) mailbox full\\x1b[2J, #48213",
		"a@lists.example yes complaint 2026-11-02 10:04 UTC 0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b",
		"b@lists.example no",
		"look-up failed: the service answered 503",
		"2 of 4 addresses on the list.",
		`Invalid, not looked up: line 4 "c@@x"`,
	} {
		if !strings.Contains(squeeze(out.String()), want) {
			t.Errorf("check does not say %q:\n%s", want, out)
		}
	}
	if strings.ContainsRune(out.String(), 0x1b) {
		t.Errorf("an escape from outside text reached the terminal:\n%q", out)
	}
}

// squeeze collapses the runs of spaces a table aligns columns with.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}
