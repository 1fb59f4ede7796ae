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
	for _, closing := range []string{"Vielen Dank und freundliche Grüße", "Thanks and best regards", "Gracias y saludos", "Merci et bonne journée", "Grazie e buon lavoro", "Bedankt en een fijne dag"} {
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
	wantRead(t, text, []string{"support@ourcompany.test"}, ticket.ModeAdd, "j.boehm@firm.example")
}

// A verb alone at the end of a line is asked, not said in passing, when
// the next line ends its sentence with a question mark; and a colleague
// of ours who forwards a bounce report asks as a customer would, the
// forward marker's empty part no customer's mail.
func TestColleagueAsksOverABounceAcrossAWrap(t *testing.T) {
	text := "From: Camille Roux <camille.roux@ourcompany.test>\nTo: support@ourcompany.test\nSubject: TR: Undelivered Mail Returned to Sender\n\nSalut l'équipe,\n\n" +
		"Celle-ci revient à chaque campagne depuis septembre, vous pouvez la bloquer\npour de bon ?\n\nMerci !\nCamille\n\n" +
		"-------- Message transféré --------\nSujet : Undelivered Mail Returned to Sender\nDe : MAILER-DAEMON@mx2.ourcompany.test\nPour : newsletter@ourcompany.test\n\n" +
		"This is the mail system at host mx2.ourcompany.test.\n\nI'm sorry to have to inform you that your message could not\nbe delivered to one or more recipients.\n\n" +
		"<compta@atelier.example>: host mx.atelier.example[203.0.113.40]\n    said: 550 5.1.1 <compta@atelier.example>: Recipient address\n    rejected: User unknown in virtual mailbox table\n"
	wantRead(t, text, []string{"@ourcompany.test"}, ticket.ModeAdd, "compta@atelier.example")
}

// "Their contact is now compta@…, that one works" beside a request about
// the bounced address keeps compta@… and leaves no doubt whose address
// is meant, in the books' languages.
func TestAddressThatWorksIsKept(t *testing.T) {
	bounce := "\n\n-----Original Message-----\nFrom: Microsoft Outlook <postmaster@gaudin.example>\nTo: statements@ourcompany.test\nSubject: Undeliverable: Your statement\n\n" +
		"Delivery has failed to these recipients or groups:\n\nj.perrin@gaudin.example\nThe email address you entered couldn't be found.\n"
	for _, words := range []string{
		"Another bounce for Gaudin. Mr Perrin left in September and his mailbox is gone. Please block the address so we stop sending there. Their contact is now compta@gaudin.example, that one works.",
		"Encore un retour en erreur. M. Perrin a quitté la société et sa boîte a été supprimée. Merci de bloquer l'adresse. Leur contact est désormais compta@gaudin.example, celle-là fonctionne.",
		"Wieder ein Rückläufer. Herr Perrin hat die Firma verlassen. Bitte sperren Sie die Adresse. Ihr Kontakt ist jetzt compta@gaudin.example, die funktioniert.",
	} {
		text := "From: Camille <camille@agency.example>\nTo: support@ourcompany.test\nSubject: FW: Undeliverable: Your statement\n\n" + words + "\n\nCamille" + bounce
		r := ticket.Read(text).Reading(ticket.NewOwn([]string{"@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "j.perrin@gaudin.example" {
			t.Errorf("proposes %s %v (%q); want add j.perrin@gaudin.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, words)
		}
	}
}

// A form's notification pasted with its head ("[Web form submission]",
// "Form: …", "Submitted: …", "Reply-to: noreply@…") is one message: the
// address its form names is the writer's, and what they ask decides.
func TestFormNotificationWithItsHead(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"[Web form submission] Privacy request\nForm: Contact us / Privacy\nSubmitted: 26 Nov 2026, 21:48\nReply-to: noreply@shop.test\n\nName: Hannah Cole\nEmail: hannah.cole@greenpost.example\nRequest type: Delete my data (GDPR)\nMessage:\nplease delete my account and everything you have on me. I asked on the\nphone last month and still got mail. I want it all gone not just unsubscribed.\n", "hannah.cole@greenpost.example"},
		{"[Formular] Datenschutzanfrage\nFormular: Kontakt\nEingegangen: 26.11.2026, 21:48\nReply-to: no-reply@shop.test\n\nName: Jonas Weber\nE-Mail: jonas.weber@posteo-mail.example\nNachricht:\nBitte löschen Sie alle meine Daten und schicken Sie mir keine Mails mehr.\n", "jonas.weber@posteo-mail.example"},
	} {
		r := ticket.Read(c.text).Reading(ticket.NewOwn([]string{"@shop.test"}))
		if !r.Mode.Changes() || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v (%q); want %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.want, c.text[:30])
		}
	}
}

// A cover note that asks about "his address" over a forwarded mail from
// him names him, though the forwarded mail decides the mode.
func TestCoverAsksAboutTheForwardedSender(t *testing.T) {
	for _, cover := range []string{
		"See below from our accountant. Could you check whether his address is on\nsome kind of block list on your end? Please don't change anything yet.",
		"Siehe unten von unserem Steuerberater. Können Sie prüfen, ob seine Adresse bei Ihnen gesperrt ist? Bitte noch nichts ändern.",
		"Voir ci-dessous, de notre comptable. Pouvez-vous vérifier si son adresse est bloquée chez vous ? Ne changez rien pour l'instant.",
	} {
		text := "From: Karen Holloway <karen@joinery.example>\nTo: support@ourcompany.test\nSubject: Fwd: invoices not arriving\n\nHi team,\n\n" + cover + "\n\nThanks\nKaren\n\n" +
			"---------- Forwarded message ---------\nFrom: Bob Fenwick <bob@books.example>\nDate: Tue, Nov 24, 2026 at 4:51 PM\nSubject: invoices not arriving\nTo: Karen Holloway <karen@joinery.example>\n\n" +
			"Karen - I haven't had a single invoice copy from your system since last\nTuesday. Nothing in spam either. Can you chase it?\nBob\n"
		r := ticket.Read(text).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeCheck || strings.Join(r.Targets, " ") != "bob@books.example" {
			t.Errorf("proposes %s %v (%q); want check bob@books.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, cover)
		}
	}
}

// Words that leave out the address before them, on the line after it
// when the client wrapped the sentence, leave it out, in the books'
// languages.
func TestLeaveOutAcrossAWrap(t *testing.T) {
	for _, words := range []string{
		"Por favor dad de baja la dirección compras@tienda.example de vuestros correos.\n\nOJO la principal (lucia@tienda.example) la quiero seguir\nrecibiendo porque ahí me llegan las facturas, esa no la toquéis.",
		"Please unsubscribe compras@tienda.example from the offers.\n\nMy main one (lucia@tienda.example) gets the invoices, so please\ndon't touch that one.",
		"Bitte tragen Sie compras@tienda.example aus dem Newsletter aus.\n\nÜber die Hauptadresse (lucia@tienda.example) kommen die Rechnungen,\ndie bitte nicht anfassen.",
		"Merci de désinscrire compras@tienda.example des offres.\n\nL'adresse principale (lucia@tienda.example) reçoit les factures,\nn'y touchez pas.",
	} {
		r := ticket.Read("From: Lucía <l.ferrer@tienda.example>\nTo: support@ourcompany.test\n\n" + words + "\n\nLucía\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "compras@tienda.example" {
			t.Errorf("proposes %s %v (%q); want add compras@tienda.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, words)
		}
	}
}

// A wrapped sentence is read as one line, the last of its lines, while
// each address it names keeps the line it stands on, and the line it
// goes on from cites the whole sentence.
func TestWrappedSentenceKeepsEachAddressLine(t *testing.T) {
	text := "From: Petra <petra@firm.example>\nTo: support@ourcompany.test\n\n" +
		"Bitte keine Newsletter mehr an vertrieb@firm.example und\nmarketing@firm.example senden, außer\nbuchhaltung@firm.example, die soll weiter Rechnungen bekommen.\n\nPetra\n"
	tk := ticket.Read(text)
	lines := map[string]int{}
	for _, f := range tk.Found {
		lines[f.Value] = f.Line
	}
	if lines["vertrieb@firm.example"] != 4 || lines["marketing@firm.example"] != 5 || lines["buchhaltung@firm.example"] != 6 {
		t.Errorf("the addresses stand on lines %v; want vertrieb 4, marketing 5, buchhaltung 6", lines)
	}
	r := tk.Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "vertrieb@firm.example marketing@firm.example" {
		t.Errorf("proposes %s %v (%q); want add vertrieb and marketing", r.Mode, r.Targets, r.Proposal.Ask)
	}
	if got := tk.Text(4); !strings.HasPrefix(got, "Bitte keine") || !strings.HasSuffix(got, "Rechnungen bekommen.") {
		t.Errorf("line 4 cites %q; want the whole sentence", got)
	}
}

// A colleague of ours who forwards a bounce report Gmail's way ("can we
// suppress it so billing stops retrying?") asks as a customer would,
// though the report's parts carry no sender.
func TestColleagueForwardsABounceGmailWay(t *testing.T) {
	text := "From: Priya Nair <priya@ourcompany.test>\nTo: support@ourcompany.test\nSubject: Fwd: Undelivered Mail Returned to Sender\n\n" +
		"Hi team — this one hard-bounces on every monthly invoice run. The customer told me on the phone that he left the company. Can we suppress it so billing stops retrying?\n\nPriya\n\n" +
		"---------- Forwarded message ---------\nFrom: Mail Delivery System <MAILER-DAEMON@mx2.ourcompany.test>\nDate: Tue, Nov 24, 2026 at 3:12 AM\nSubject: Undelivered Mail Returned to Sender\nTo: billing@ourcompany.test\n\n" +
		"This is the mail system at host mx2.ourcompany.test.\n\nI'm sorry to have to inform you that your message could not\nbe delivered to one or more recipients.\n\n" +
		"<m.haugen@fjordline.example>: host mail.fjordline.example[203.0.113.40]\n    said: 550 5.1.1 <m.haugen@fjordline.example>: Recipient address\n    rejected: User unknown in virtual mailbox table\n\n" +
		"Reporting-MTA: dns; mx2.ourcompany.test\nArrival-Date: Tue, 24 Nov 2026 03:11:58 +0000\n\nFinal-Recipient: rfc822; m.haugen@fjordline.example\nAction: failed\nStatus: 5.1.1\nRemote-MTA: dns; mail.fjordline.example\nDiagnostic-Code: smtp; 550 5.1.1 User unknown\n\n" +
		"--- Original message headers ---\nFrom: Billing <billing@ourcompany.test>\nTo: m.haugen@fjordline.example\nReply-To: accounts@fjordline.example\nSubject: Your invoice\n"
	wantRead(t, text, []string{"@ourcompany.test"}, ticket.ModeAdd, "m.haugen@fjordline.example")
}

// wantRead reads text for our own addresses own and fails unless it
// proposes mode with exactly targets (space-separated, in order).
func wantRead(t *testing.T, text string, own []string, mode ticket.Mode, targets string) {
	t.Helper()
	r := ticket.Read(text).Reading(ticket.NewOwn(own))
	if r.Mode != mode || strings.Join(r.Targets, " ") != targets {
		t.Errorf("proposes %s %v (%q); want %s %s, for\n%s", r.Mode, r.Targets, r.Proposal.Ask, mode, targets, text)
	}
}
