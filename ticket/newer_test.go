package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// What a mail newer than the request says can undo it: a reply in words
// the books do not read, one that asks the other way, one that speaks of
// some of the targets by name. Each leaves the proposal asking; a chase,
// or a reply that names every target in one sentence, does not.
func TestNewerMailLeavesRequestInDoubt(t *testing.T) {
	cases := []struct {
		name, text string
		ask        string // "" for none
	}{
		{"a reply in words no book reads", `From: Nina Albers <nina.albers@koppel-events.example>
To: support@ourcompany.test
Subject: Re: Re: booking confirmations

Hi again,

Our finance lead reminded me this morning that the Leeds invoices still come through that mailbox, so we would rather sort it out internally first and come back to you next week.

Nina

On Tue, 24 Nov 2026 at 09:12, Nina Albers <nina.albers@koppel-events.example> wrote:
> Hello,
>
> Please stop all emails to leeds@koppel-events.example, nobody reads it any more.
>
> Thanks,
> Nina
`, "a newer mail than the request says something the rule does not read"},
		{"a note over the quoted stop asks the other way", `From: Priya Shah <priya@shah-bakes.example>
To: support@ourcompany.test
Subject: Re: no more mails to orders@

Hi,

Following up on the mail below: we hired someone to run the orders inbox again, so please
unblock orders@shah-bakes.example, see below for the old request.

Thanks,
Priya

On Mon, 2 Mar 2026 at 11:20, Priya Shah <priya@shah-bakes.example> wrote:
> Hello, please stop sending anything to orders@shah-bakes.example, nobody reads it.
> Priya
`, "a newer mail than the request asks the other way"},
		{"some of the targets by name, in two sentences", `Von: Monika Keller <m.keller@keller-druck.example>
Gesendet: Freitag, 27. November 2026 09:14
An: service@ourcompany.test
Betreff: AW: Ausgeschiedene Mitarbeiter

Guten Morgen,

kleine Korrektur zu meiner Mail von gestern: Jonas und Petra sind wirklich weg, mit Karl ist es anders, er braucht die Rundschreiben weiterhin.

Viele Grüße
Monika Keller

-----Ursprüngliche Nachricht-----
Von: Monika Keller <m.keller@keller-druck.example>
Gesendet: Donnerstag, 26. November 2026 16:40
An: service@ourcompany.test
Betreff: Ausgeschiedene Mitarbeiter

Hallo,

bitte keine Mails mehr an jonas.keller@keller-druck.example, petra.lang@keller-druck.example und karl.wendt@keller-druck.example, die drei haben uns verlassen.

Monika Keller
`, "a newer mail than the request says something the rule does not read"},
		{"a chase", `From: Omar Reyes <omar@reyes-tiles.example>
To: support@ourcompany.test
Subject: Re: stop the promo mails

Any news on this one? The promo went out again today.

Omar

On Mon, 23 Nov 2026 at 16:40, Omar Reyes <omar@reyes-tiles.example> wrote:
> Hi, please stop sending promotions to sales@reyes-tiles.example.
> Omar
`, ""},
		{"every target by name in one sentence", `From: Monika Keller <m.keller@keller-druck.example>
To: support@ourcompany.test
Subject: Re: leavers

Yes, please unsubscribe Jonas, Petra and Karl, all three.

Monika

On Thu, 26 Nov 2026 at 16:40, Support <support@ourcompany.test> wrote:
> Hi Monika, just to confirm: jonas.keller@keller-druck.example,
> petra.lang@keller-druck.example and karl.wendt@keller-druck.example?
`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn([]string{"support@ourcompany.test", "service@ourcompany.test"}))
			asks := strings.Join(p.Ask, "; ")
			switch {
			case c.ask == "" && asks != "":
				t.Errorf("%s asks %q; want no question", p.Mode, asks)
			case c.ask != "" && !strings.Contains(asks, c.ask):
				t.Errorf("%s asks %q; want %q", p.Mode, asks, c.ask)
			}
		})
	}
}
