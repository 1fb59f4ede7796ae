package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// A button's name a word or two inside quotation marks ("clicked « se
// désinscrire » by mistake") is no request, and an internal note headed
// by its author and time ("Note privée — Élodie (Support) — 25 nov.") is
// ours: neither makes a put-back ask both ways.
func TestButtonNameAndNoteHeader(t *testing.T) {
	cases := []struct{ name, text string }{
		{"a button's name in guillemets", `Bonjour,

Le mois dernier j'ai cliqué par erreur sur « se désinscrire » en bas d'une newsletter. Pourriez-vous réactiver mon adresse paul@lumen.example ?

Paul
`},
		{"a button's name in straight quotes", `Hi,

I hit "yes, unsubscribe me" on your page by accident. Could you put paul@lumen.example back on please?

Paul
`},
		{"a note headed by its author and time", `Ticket #90125 - Je ne reçois plus vos e-mails
Statut : Ouvert | Priorité : Moyenne
Demandeur : Paul Roy (paul@lumen.example)

Description
Bonjour,

Pourriez-vous réactiver mon adresse paul@lumen.example s'il vous plaît ?

Merci d'avance,
Paul

Note privée — Élodie (Support) — 25 nov. 2026 à 09:20
Vérifié : paul@ bloqué depuis le 14/10 (désinscription via le lien). compta@ n'apparaît pas dans la liste.
`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
			if p.Mode != ticket.ModeRemove || len(p.Ask) > 0 {
				t.Errorf("proposes %s, asks %q; want remove, no question", p.Mode, strings.Join(p.Ask, "; "))
			}
		})
	}
}

// An export whose comments are parted by rules of dashes, each headed by
// its author's name and a date line, is read comment by comment: the
// author named in the ticket's fields is the requester, an author whose
// team is a support team is ours, and a short yes under our question
// confirms the request.
func TestRuledCommentsOfAnExport(t *testing.T) {
	const head = `Ticket #48213 – Newsletter abbestellen
Status: Offen | Kanal: E-Mail
Anfragender: Katrin Vogel <k.vogel@bergmann.example>

--------------------------------------------------
Katrin Vogel
24. Nov. 2026, 09:14

Guten Morgen,

bitte nehmen Sie info@bergmann.example und einkauf@bergmann.example aus Ihrem Verteiler.

Katrin Vogel

--------------------------------------------------
Jonas Reiter (Frachtpost Support)
24. Nov. 2026, 10:02

Hallo Frau Vogel,

an info@bergmann.example schicken wir auch Ihre Rechnungen. Wenn wir die Adresse sperren, kommen die auch nicht mehr an. Sollen wirklich beide gesperrt werden?

Jonas Reiter

--------------------------------------------------
Katrin Vogel
24. Nov. 2026, 11:37

`
	cases := []struct {
		name, last string
		targets    []string
	}{
		{"a short yes", "Ja, genau diese beiden. Danke!\n", []string{"info@bergmann.example", "einkauf@bergmann.example"}},
		{"a narrowing", "Dann bitte nur die einkauf@bergmann.example sperren, die andere lassen wir so.\n", []string{"einkauf@bergmann.example"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := ticket.Read(head + c.last).Reading(ticket.NewOwn([]string{"support@frachtpost.test"}))
			if r.Proposal.Mode != ticket.ModeAdd || len(r.Proposal.Ask) > 0 {
				t.Fatalf("proposes %s %v, asks %q; want add, no question", r.Proposal.Mode, r.Targets, strings.Join(r.Proposal.Ask, "; "))
			}
			if strings.Join(r.Targets, " ") != strings.Join(c.targets, " ") {
				t.Errorf("targets %v; want %v", r.Targets, c.targets)
			}
		})
	}
}

// A request whose sentence a mail client wrapped after the address ("…
// our address billing@…" over "unsubscribe from the newsletter?") asks
// outright: the verb on the next line is not said in passing.
func TestWrappedSentenceAsksOutright(t *testing.T) {
	const text = `From: Sanne de Vries <sanne@bakery.example>
To: support@ourcompany.test

Good afternoon,

Would you be so kind as to take our address billing@bakery.example
and unsubscribe it from the newsletter and the offers? That address only takes invoices.

Sanne
`
	p := ticket.Read(text).Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if p.Mode != ticket.ModeAdd || len(p.Ask) > 0 {
		t.Errorf("proposes %s, asks %q; want add, no question", p.Mode, strings.Join(p.Ask, "; "))
	}
}

// The author of a comment parted by a rule of dashes, named in the
// export's fields with an address, is who "me" is.
func TestRuledCommentAuthorFromTheFields(t *testing.T) {
	const text = `Ticket #48213 — Désinscription newsletters
Statut : Ouvert   Priorité : Normale
Demandeur : Claire Lefebvre <c.lefebvre@lumen.example>

----------------------------------------------
Claire Lefebvre
25 nov. 2026 14:37

Bonjour,

Merci de me désinscrire de toutes vos communications.

Claire
`
	r := ticket.Read(text).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "c.lefebvre@lumen.example" {
		t.Errorf("proposes %s %v; want add c.lefebvre@lumen.example", r.Mode, r.Targets)
	}
}
