package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// A writer who chases their own forward ("any news on this?") over it
// quoted still asks about the forwarded mail's recipient, as the forward
// alone did.
func TestChaseOverAQuotedForward(t *testing.T) {
	forward := "Hallo,\n\nHerr Vogel ist in Rente gegangen. Bitte senden Sie an seine Adresse unten keine Mails mehr, das Postfach wird gelöscht.\n\nGruß\nJens Adler\n\n" +
		"Von: Ourcompany <noreply@ourcompany.test>\nGesendet: Freitag, 20. November 2026 07:30\nAn: Vogel, Thomas <t.vogel@druckerei-adler.example>\nBetreff: Ihre Wochenübersicht\n\nGuten Morgen Thomas, hier ist Ihre Übersicht.\n"
	var quoted strings.Builder
	for _, l := range strings.Split(strings.TrimRight(forward, "\n"), "\n") {
		quoted.WriteString(strings.TrimRight("> "+l, " ") + "\n")
	}
	for _, text := range []string{
		"From: Jens Adler <chef@druckerei-adler.example>\nTo: support@ourcompany.test\nSubject: WG: Ihre Wochenübersicht\n\n" + forward,
		"From: Jens Adler <chef@druckerei-adler.example>\nTo: support@ourcompany.test\nSubject: Re: WG: Ihre Wochenübersicht\n\nHallo, gibt es hierzu schon etwas Neues?\n\nGruß\n\nAm 23.11.2026 um 10:00 schrieb Jens Adler <chef@druckerei-adler.example>:\n" + quoted.String(),
	} {
		r := ticket.Read(text).Reading(ticket.NewOwn([]string{"@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "t.vogel@druckerei-adler.example" {
			t.Errorf("proposes %s %v (%q); want add t.vogel@druckerei-adler.example, for\n%s", r.Mode, r.Targets, r.Proposal.Ask, text)
		}
	}
}
