package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// A proposal whose targets stand apart in the ticket (a second paragraph,
// a quoted mail, the lines under a closing) asks before it is sent, and
// names the lines; one whose targets stand together (the line that asks,
// the list it announces, even with empty lines between its entries, a
// bounce report's recipients) does not.
func TestTargetsApartAsk(t *testing.T) {
	cases := []struct {
		name, text string
		ask        string // "" for none
	}{
		{"a request and another paragraph", `From: Lea Keller <lea@keller.example>
To: support@ourcompany.test

Hello, please stop all mail to shop@keller.example, the shop has closed.

The warehouse team also wrote to me, store2@keller.example gets too much.

Kind regards
Lea Keller
`, "lines 4, 6"},
		{"a correction over an older request", `From: Ana Ruiz <ana@correo.example>
To: support@ourcompany.test

Sorry, I gave you the wrong one. The right address is ana.r2@correo.example.

On Mon, 23 Nov 2026, Ana Ruiz <ana@correo.example> wrote:
> Please unsubscribe ana.r@correo.example from your newsletter.
`, "check each is meant"},
		{"the sender and the recipient of a forwarded mail", `From: Rick Alden <rick@agency.example>
To: support@ourcompany.test
Subject: FW: Newsletter

Hi team,

We run the campaigns of Star Bakery on your platform. We got the request below from one of their customers, who asked before. Could you please block his address so he gets nothing more from the bakery?

Thanks,
Rick

________________________________
From: Joe Fern <joe.fern@mail.example>
Sent: Tuesday, November 24, 2026 6:12 PM
To: hello@starbakery.example
Subject: Newsletter

Please stop sending me the weekly newsletter.

Joe
`, "check each is meant"},
		{"a list announced, its entries apart", `From: HR <hr@lind.example>
To: support@ourcompany.test

Please unsubscribe the following people, they have left:

Anna Berg
anna.berg@lind.example

Tom Lind
tom.lind@lind.example

Thanks
`, ""},
		{"the request's own line", `From: Jo <jo@mail.example>
To: support@ourcompany.test

Please unsubscribe a@mail.example and b@mail.example.
`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn(nil))
			if p.Mode != ticket.ModeAdd {
				t.Fatalf("proposes %s, want add", p.Mode)
			}
			got := strings.Join(p.Ask, "; ")
			switch {
			case c.ask == "" && got != "":
				t.Errorf("asks %q, want no question", got)
			case c.ask != "" && !strings.Contains(got, "stand apart") || !strings.Contains(got, c.ask):
				t.Errorf("asks %q, want the targets apart (%q)", got, c.ask)
			}
		})
	}
}

// A mail that asks whether an address is blocked and, on another line,
// says a word of stopping mail ("spam", "stop") is not a request to block
// it: the proposal is unsure. "Don't block anything else" beside a stop
// is a narrowing, not a question, and the stop stands.
func TestQuestionBesideAStopIsUnsure(t *testing.T) {
	cases := []struct {
		name, text string
		want       ticket.Mode
	}{
		{"a question beside a stop", `From: Sanne <sanne@dewit.example>
To: support@ourcompany.test

Please unsubscribe administratie@dewit.example from the newsletter.
Can you check whether that address is on a block list on your side?
`, ticket.ModeUnsure},
		{"a stop narrowed", `From: Clinic <manager@clinic.example>
To: support@ourcompany.test

Please stop the promotional emails to frontdesk@clinic.example. Please don't block anything else.
`, ticket.ModeAdd},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn(nil))
			if p.Mode != c.want {
				t.Errorf("proposes %s (%s), want %s", p.Mode, p.Why, c.want)
			}
		})
	}
}

// A bounce report forwarded under a request that names another address
// (where mail may still go) asks: the request may be about the address
// the report failed for, which the proposal leaves out.
func TestBounceRecipientLeftOutAsks(t *testing.T) {
	text := `From: IT <it@firm.example>
To: support@ourcompany.test
Subject: Fwd: Undelivered Mail Returned to Sender

Hello, our colleague Marta has left and her mailbox is closed. Please stop sending to her.
Mail for the firm can go on reaching office@firm.example as before.

---------- Forwarded message ---------
From: Mail Delivery System <MAILER-DAEMON@mx.firm.example>
Subject: Undelivered Mail Returned to Sender
To: bounces@ourcompany.test

This is the mail system at host mx.firm.example.

I'm sorry to have to inform you that your message could not
be delivered to one or more recipients.

<m.ross@firm.example>: host mx.firm.example[local]
    said: 550 5.1.1 <m.ross@firm.example>: Recipient address
    rejected: User unknown in virtual mailbox table
`
	p := ticket.Read(text).Propose(ticket.NewOwn([]string{"@ourcompany.test"}))
	got := strings.Join(p.Ask, "; ")
	if p.Mode.Changes() && !strings.Contains(got, "failed for m.ross@firm.example") {
		t.Errorf("proposes add, asks %q; want it to ask about m.ross@firm.example", got)
	}
}

// A removal by ID asks when a later line names one of its IDs again by its
// first characters ("the 3c1f… one stays"), or names it again in another
// block (a later comment that may keep it in words the rule does not
// read); an ID previewed by its start in the subject, before the request
// names it in full, is no question.
func TestIDsNamedAgainAsk(t *testing.T) {
	cases := []struct {
		name, text, ask string
	}{
		{"by its first characters", `Conversation with Ana Lopes
Email: ana@lopes-tiles.example

[10:02] Ana Lopes: hi, two of our addresses are blocked, the dashboard shows these suppression IDs:
[10:03] Ana Lopes: 3c1f9a2e-7b4d-4e8a-9c61-2d5b8f0e4a17
[10:05] Ana Lopes: and 7d2e6b10-45c3-4f9b-a7e2-91c0d4f6e385
[10:06] Ana Lopes: can you release both?
[10:20] Ana Lopes: sorry, my colleague says the 3c1f... one has to stay, that mailbox is gone. only the other.
`, "line 8 names an ID by its first characters"},
		{"again in a later comment", `SD-88 Release suppressions
Reporter: Ana Lopes (ana@lopes-tiles.example)

Description
Please release these suppressions:

3c1f9a2e-7b4d-4e8a-9c61-2d5b8f0e4a17
7d2e6b10-45c3-4f9b-a7e2-91c0d4f6e385

Activity
Ana Lopes  24/nov/26 9:47 AM
Correção: o 7d2e6b10-45c3-4f9b-a7e2-91c0d4f6e385 não, esse cliente pediu para sair.
`, "names an ID again"},
		{"previewed in the subject", `From: Sam Obi <sam@fernway.example>
To: help@ourcompany.test
Subject: suppression 9a4e7c10

Please release 9a4e7c10-2b5f-4d83-a6c1-0e8f3b7d2a95, it was added by our test script.
`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn(nil))
			got := strings.Join(p.Ask, "; ")
			switch {
			case p.Mode == ticket.ModeUnsure:
			case p.Mode != ticket.ModeRemoveIDs:
				t.Fatalf("proposes %s, want remove_ids", p.Mode)
			case c.ask == "" && got != "":
				t.Errorf("asks %q, want no question", got)
			case c.ask != "" && !strings.Contains(got, c.ask):
				t.Errorf("asks %q, want %q", got, c.ask)
			}
		})
	}
}

// An agent's internal note that keeps one of the customer's targets ("It
// stays, she agreed") is evidence the rule does not read as the request:
// the review asks before it sends, naming the note's line; a note that
// keeps nothing asks nothing.
func TestAgentNoteKeepingATargetAsks(t *testing.T) {
	head := "Ticket #51207 · Remove leavers\nStatus: Open | Priority: Normal\nContact: Ruth Corrie (ruth@corrie-legal.example)\n\n" +
		"------------------------------------------------------------\nRuth Corrie wrote · 9 Mar 2026, 08:41\n\n" +
		"Please stop all mail to these, they have left:\n\nm.hale@corrie-legal.example\nt.pike@corrie-legal.example\naccounts@corrie-legal.example\n\nRuth\n\n" +
		"------------------------------------------------------------\nPrivate note · Sam Lowe · 9 Mar 2026, 09:05\n\n"
	own := ticket.NewOwn([]string{"@ourcompany.test"})
	p := ticket.Read(head + "Called Ruth: accounts@ is the billing address of their account with us. It stays, she agreed. Only the two leavers.\n").Propose(own)
	if got := strings.Join(p.Ask, "; "); !strings.Contains(got, "an agent's note on line 19 speaks of accounts@corrie-legal.example") {
		t.Errorf("a note that keeps accounts@: asks %q; want the note's line and the address", got)
	}
	p = ticket.Read(head + "Checked: accounts@ is on our side of the billing, nothing odd there.\n").Propose(own)
	if got := strings.Join(p.Ask, "; "); strings.Contains(got, "agent's note") {
		t.Errorf("a note that keeps nothing: asks %q; want no question about the note", got)
	}
}
