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
		"Questa soppressione è stata aggiunta per errore durante un'importazione: " + id + ". Potete eliminarla?",
		"Esta supressão foi adicionada por engano: " + id + ". Podem apagá-la?",
	} {
		r := ticket.Read("From: Nadia <nadia@jardins.example>\nTo: support@ourcompany.test\n\nBonjour,\n\n" + words + "\n\nNadia\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeRemoveIDs || strings.Join(r.Targets, " ") != id {
			t.Errorf("proposes %s %v (%q); want remove_ids %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, id, words)
		}
	}
}

// "Diese beiden Sperren" names the blocks, a German noun; it does not ask
// to block: the IDs it names are to be released.
func TestGermanNounIsNoRequest(t *testing.T) {
	words := "im Dashboard sehe ich diese beiden Sperren: 3f2a9c1e-7b4d-4e8a-9c2f-1d6b5e8a7f30 und b81e0d47-2c93-4f5a-a6e1-09c4d7f2e385. Bitte heben Sie sie auf, das war ein Fehler beim Import."
	r := ticket.Read("From: Jonas <jonas@firma.example>\nTo: support@ourcompany.test\n\nHallo,\n\n" + words + "\n\nDanke\nJonas\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if r.Mode != ticket.ModeRemoveIDs || len(r.Targets) != 2 {
		t.Errorf("proposes %s %v (%q); want remove_ids of the two IDs", r.Mode, r.Targets, r.Proposal.Ask)
	}
	stop := ticket.Read("From: Jonas <jonas@firma.example>\nTo: support@ourcompany.test\n\nHallo,\n\nbitte Sperren Sie lager@firma.example.\n\nDanke\nJonas\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if stop.Mode != ticket.ModeAdd {
		t.Errorf("\"bitte Sperren Sie\" proposes %s; want add", stop.Mode)
	}
}
