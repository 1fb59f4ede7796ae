package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// "Can you lift it?" of a suppression ID, with the pronoun the language
// puts on or before its verb, releases that ID.
func TestLiftItReleasesTheID(t *testing.T) {
	const id = "e4c7b2a0-93f1-4d2e-8b6a-5f0c1e9d7a42"
	for _, words := range []string{
		"Dans mon tableau de bord je vois un identifiant de suppression\n" + id + " à côté de mon adresse de facturation.\nPouvez-vous le lever svp ? Je n'ai jamais demandé à être désinscrite.",
		"En el panel veo un identificador de supresión " + id + " junto a mi dirección de facturación. ¿Podéis levantarlo? Nunca pedí la baja.",
		"No painel vejo um identificador de supressão " + id + " ao lado do meu endereço de faturação. Podem levantá-lo? Nunca pedi para sair.",
		"Nel pannello vedo un ID di soppressione " + id + " accanto al mio indirizzo di fatturazione. Potete toglierlo per favore? Grazie.",
	} {
		r := ticket.Read("From: Nadia <nadia@jardins.example>\nTo: support@ourcompany.test\n\nBonjour,\n\n" + words + "\n\nNadia\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeRemoveIDs || strings.Join(r.Targets, " ") != id {
			t.Errorf("proposes %s %v (%q); want remove_ids %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, id, words)
		}
	}
}
