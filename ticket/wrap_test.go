package ticket_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// A request its writer's client wrapped in the middle of a phrase is read
// as one sentence, in any book's language.
func TestRequestWrappedMidPhrase(t *testing.T) {
	own := ticket.NewOwn([]string{"support@ourcompany.test"})
	for _, c := range []struct {
		words string
		mode  ticket.Mode
		want  string
	}{
		{"Herr Böhm ist seit November nicht mehr bei uns. Bitte senden Sie an boehm@firm.example keine Mails\nmehr, das Postfach wird nur noch weitergeleitet.", ticket.ModeAdd, "boehm@firm.example"},
		{"Le service compta a fermé. Merci de ne plus envoyer de\nnewsletters à compta@firm.example, personne ne la lit.", ticket.ModeAdd, "compta@firm.example"},
		{"La oficina de Valencia ha cerrado, así que por favor dejad de\nenviar correos a valencia@firm.example a partir de hoy.", ticket.ModeAdd, "valencia@firm.example"},
	} {
		r := ticket.Read("From: Petra <petra@firm.example>\nTo: support@ourcompany.test\n\nHallo,\n\n" + c.words + "\n\nPetra\n").Reading(own)
		if r.Mode != c.mode || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v (%q); want %s %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.mode, c.want, c.words)
		}
	}
}

// Two closings on one line ("Vielen Dank und freundliche Grüße") open the
// signature: the addresses under it are the writer's, not targets.
func TestTwoClosingsOnOneLine(t *testing.T) {
	own := ticket.NewOwn([]string{"support@ourcompany.test"})
	for _, closing := range []string{"Vielen Dank und freundliche Grüße", "Thanks and best regards", "Gracias y saludos", "Merci et bonne journée"} {
		text := "From: Petra Lang <p.lang@firm.example>\nTo: support@ourcompany.test\n\nPlease unsubscribe old.boss@firm.example from the newsletter.\n\n" +
			closing + "\n\nPetra Lang\nSekretariat\nFirm GmbH\nLindenstraße 4, 79098 Freiburg\np.lang@firm.example | info@firm.example\n"
		r := ticket.Read(text).Reading(own)
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "old.boss@firm.example" {
			t.Errorf("under %q: proposes %s %v; want add old.boss@firm.example", closing, r.Mode, r.Targets)
		}
	}
}

// "Please stop sending to his address (see below)" over a forwarded
// newsletter names its recipient, though the newsletter's words give our
// own support address.
func TestRecipientBelowWhoseMailNamesOurSupport(t *testing.T) {
	text := "From: Petra Lang <p.lang@firm.example>\nTo: support@ourcompany.test\nSubject: FW: Your November summary\n\n" +
		"Mr Böhm left us on 1 November. Please stop sending to his address (see below).\n\nThanks\nPetra\n\n" +
		"-----Original Message-----\nFrom: Newsletter <news@ourcompany.test>\nSent: Monday, 23 November 2026 07:30\nTo: j.boehm@firm.example\nSubject: Your November summary\n\n" +
		"Dear Mr Böhm,\n\nyour summary is attached. Questions? Write to support@ourcompany.test.\n"
	r := ticket.Read(text).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "j.boehm@firm.example" {
		t.Errorf("proposes %s %v (%q); want add j.boehm@firm.example", r.Mode, r.Targets, r.Proposal.Ask)
	}
}
