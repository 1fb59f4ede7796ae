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

// Our agent forwarding a customer's mail to our support mailbox, which
// asks for its writer without naming them ("möchte wieder Ihren
// Newsletter bekommen"), passes on a request about that customer: the
// forwarded mail's To: is ours, no one the request may be about.
func TestAgentForwardsASelfRequest(t *testing.T) {
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"Hallo,\n\nich hatte mich im Sommer abgemeldet, möchte jetzt aber wieder Ihren Newsletter bekommen.\n\nViele Grüße\nLena Hoff", ticket.ModeRemove},
		{"Bonjour,\n\nje ne reçois plus vos factures depuis une semaine, pouvez-vous vérifier ?\n\nLena", ticket.ModeCheck},
		{"Hola,\n\nme di de baja por error, ¿podéis volver a enviarme el boletín?\n\nLena", ticket.ModeRemove},
	} {
		text := "From: Sam Agent <sam@ourcompany.test>\nTo: suppressions@ourcompany.test\nSubject: Fwd: Newsletter\n\nFYI, customer request below, please action.\n\nSam\n\n" +
			"---------- Forwarded message ---------\nFrom: Lena Hoff <lena.hoff@mailpost.example>\nDate: Mon, Nov 23, 2026 at 9:12 AM\nTo: support@ourcompany.test\nSubject: Newsletter\n\n" + c.words + "\n"
		r := ticket.Read(text).Reading(ticket.NewOwn([]string{"@ourcompany.test"}))
		if r.Mode != c.mode || strings.Join(r.Targets, " ") != "lena.hoff@mailpost.example" {
			t.Errorf("proposes %s %v (%q); want %s lena.hoff@mailpost.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.mode, c.words)
		}
	}
}

// A chat's turns name their speaker: "[10:04] Ana Ruiz: no, gracias"
// answers "anything else?", it leaves no person out.
func TestChatSpeakerIsNoPersonLeftOut(t *testing.T) {
	text := "[10:02] Ana Ruiz: hola, quiero darme de baja de la newsletter\n[10:03] Leo (Soporte): ¿Con qué dirección?\n[10:03] Ana Ruiz: ana.ruiz@correo.example\n[10:04] Leo (Soporte): Hecho, ¿algo más?\n[10:04] Ana Ruiz: no, gracias\n"
	wantRead(t, text, []string{"@ourcompany.test"}, ticket.ModeAdd, "ana.ruiz@correo.example")
}
