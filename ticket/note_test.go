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
