package ticket_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// "Change nothing" beside a stop is no question whether someone is
// blocked: the stop is proposed, and an address in the sentence that says
// to change nothing is asked about. A question whether someone is
// blocked beside a stop still leaves the mode to the agent.
func TestChangeNothingBesideAStop(t *testing.T) {
	cases := []struct {
		name, text string
		mode       ticket.Mode
		ask        string // "" for none
	}{
		{"an address to change nothing for", `From: Kerstin Albrecht <k.albrecht@holzbau.example>
To: support@ourcompany.test

Guten Morgen,

bitte schicken Sie ab sofort nichts mehr an info-alt@holzbau.example, das Postfach wird abgeschaltet.
Rechnungen bitte wie gehabt an buchhaltung@holzbau.example, da soll sich nichts ändern.

Kerstin
`, ticket.ModeAdd, "line 7 says to change nothing for buchhaltung@holzbau.example"},
		{"a colleague to change nothing for, unnamed", `From: Claire Lefebvre <c.lefebvre@lumen.example>
To: support@ourcompany.test

Bonjour,

Merci de me désinscrire de toutes vos communications.

Mon collègue Hugo gère les commandes, ne changez rien pour lui svp.

Claire
`, ticket.ModeAdd, ""},
		{"a check that changes nothing", `From: Sam Lee <sam@lee.example>
To: support@ourcompany.test

Hi, is sam@lee.example on your block list? Please don't change anything, I only want to know.

Sam
`, ticket.ModeCheck, ""},
		{"a question beside a stop", `From: Sam Lee <sam@lee.example>
To: support@ourcompany.test

Hi, is sam@lee.example on your block list?

And please stop sending to old@lee.example.

Sam
`, ticket.ModeUnsure, "asks whether they are blocked and to get no more mail"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := ticket.Read(c.text).Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
			asks := strings.Join(p.Ask, "; ")
			if p.Mode != c.mode {
				t.Errorf("proposes %s (%s); want %s", p.Mode, asks, c.mode)
			}
			switch {
			case c.ask == "" && asks != "":
				t.Errorf("asks %q; want no question", asks)
			case c.ask != "" && !strings.Contains(asks, c.ask):
				t.Errorf("asks %q; want %q", asks, c.ask)
			}
		})
	}
}

// The spam folder, where missing mail is looked for, is no complaint: a
// ticket that says nothing is in it asks only why mail does not arrive.
func TestSpamFolderIsNoComplaint(t *testing.T) {
	for _, text := range []string{
		"Hello,\n\nsince last week no invoices arrive at ap@shop.example. Nothing in the spam folder either. Can you check whether it is blocked?\n\nAna\n",
		"Buongiorno,\n\nall'indirizzo ordini@studio.example non arrivano più le conferme. Nello spam non c'è niente. Potete controllare se risulta bloccato?\n\nGiorgia\n",
		"Hallo,\n\nan info@firma.example kommen keine Rechnungen mehr an, im Spam-Ordner ist auch nichts. Können Sie prüfen, ob die Adresse gesperrt ist?\n\nJan\n",
	} {
		p := ticket.Read(text).Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if p.Mode != ticket.ModeCheck {
			t.Errorf("proposes %s (%s); want check, for %q", p.Mode, strings.Join(p.Ask, "; "), text)
		}
	}
}

// A listed address followed by words in brackets that say not, or skip
// it ("(esa no, Lin ha vuelto)", "(die bitte auslassen)"), is asked
// about; brackets that say it is no longer so ("(no longer with us)"),
// or that name another address, are not.
func TestBracketsThatSayNot(t *testing.T) {
	list := func(intro, remark string) string {
		return "From: Ops <ops@fleet.example>\nTo: support@ourcompany.test\n\n" + intro + "\n- d.khan@fleet.example\n- p.ross@fleet.example\n- l.chen@fleet.example " + remark + "\n\nOps\n"
	}
	cases := []struct {
		text string
		ask  bool
	}{
		{list("Please block these addresses:", "(wait, Lin came back last week, skip her)"), false}, // the books' wave-off leaves her out
		{list("Por favor, dad de baja estas direcciones:", "(esa no, Lin ha vuelto)"), true},
		{list("Bitte sperren Sie diese Adressen:", "(die bitte auslassen, Lin ist zurück)"), true},
		{list("Merci de bloquer ces adresses :", "(pas celle-là, Lin est revenue)"), true},
		{list("Graag deze adressen blokkeren:", "(deze niet, Lin is terug)"), true},
		{list("Please block these addresses:", "(no longer with us)"), false},
		{list("Please block these addresses:", "(not l.chen@fleet.example's old alias)"), false},
	}
	for _, c := range cases {
		p := ticket.Read(c.text).Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
		asks := strings.Contains(strings.Join(p.Ask, "; "), "says not in brackets beside l.chen@fleet.example")
		if asks != c.ask {
			t.Errorf("asks %q; want the question about l.chen@… %v, for %q", p.Ask, c.ask, c.text)
		}
	}
}

// A colleague named in a sentence of their own beside the writer's
// request for themselves is no target, in every book's language ("Please
// unsubscribe me. My colleague Kate (kate@…) would like to keep
// receiving it").
func TestColleagueBesideTheWritersRequest(t *testing.T) {
	for _, c := range []struct{ lang, words string }{
		{"cs", "Dobrý den, prosím odhlaste mě z newsletteru. Moje kolegyně Jana (jana@firm.example) ho chce dál dostávat."},
		{"da", "Hej, afmeld mig venligst nyhedsbrevet. Min kollega Mette (mette@firm.example) vil gerne blive ved med at modtage det."},
		{"en", "Hi, please unsubscribe me from the newsletter. My colleague Kate (kate@firm.example) would like to keep receiving it."},
		{"es", "Hola, por favor dadme de baja del boletín. Mi compañera Ana (ana@firm.example) quiere seguir recibiéndolo."},
		{"fr", "Bonjour, merci de me désinscrire de votre newsletter. Ma collègue Claire (claire@firm.example) souhaite continuer à la recevoir."},
		{"it", "Buongiorno, vi prego di cancellarmi dalla newsletter. La mia collega Giulia (giulia@firm.example) vuole continuare a riceverla."},
		{"nl", "Hallo, graag wil ik me afmelden voor de nieuwsbrief. Mijn collega Eva (eva@firm.example) wil hem wel blijven ontvangen."},
		{"pl", "Dzień dobry, proszę mnie wypisać z newslettera. Moja koleżanka Anna (anna@firm.example) chce go dalej otrzymywać."},
		{"pt", "Olá, por favor retirem-me da newsletter. A minha colega Rita (rita@firm.example) quer continuar a recebê-la."},
		{"sv", "Hej, avregistrera mig från nyhetsbrevet. Min kollega Eva (eva@firm.example) vill fortsätta få det."},
	} {
		r := readFromA(c.words)
		if r.Mode != ticket.ModeAdd && r.Mode != ticket.ModeUnsure || strings.Join(r.Targets, " ") != "a@firm.example" {
			t.Errorf("%s: proposes %s %v; want a@firm.example alone", c.lang, r.Mode, r.Targets)
		}
	}
}

// A writer who asks to be put back beside a colleague who is to stay off
// the mailings is put back alone, in every book's language.
func TestPutBackBesideAColleagueWhoStaysOff(t *testing.T) {
	for _, c := range []struct{ lang, words string }{
		{"de", "Hallo, ich habe mich versehentlich abgemeldet, bitte tragen Sie mich wieder ein. Meine Kollegin Jana (jana@firm.example) soll abgemeldet bleiben."},
		{"en", "Hi, I unsubscribed by mistake, please put me back on the newsletter. My colleague Kate (kate@firm.example) should stay unsubscribed."},
		{"es", "Hola, me di de baja por error, ¿podéis volver a darme de alta? Mi compañera Ana (ana@firm.example) debe seguir dada de baja."},
		{"fr", "Bonjour, je me suis désinscrit par erreur, pouvez-vous me réinscrire ? Ma collègue Claire (claire@firm.example) doit rester désinscrite."},
		{"it", "Buongiorno, mi sono disiscritto per errore, potete riattivarmi? La mia collega Giulia (giulia@firm.example) deve restare disiscritta."},
		{"nl", "Hallo, ik heb me per ongeluk afgemeld, kunnen jullie me weer aanmelden? Mijn collega Eva (eva@firm.example) moet afgemeld blijven."},
		{"pt", "Olá, cancelei a inscrição por engano, podem reativar-me? A minha colega Rita (rita@firm.example) deve continuar descadastrada."},
		{"sv", "Hej, jag avregistrerade mig av misstag, kan ni lägga till mig igen? Min kollega Eva (eva@firm.example) ska förbli avregistrerad."},
	} {
		r := readFromA(c.words)
		if r.Mode != ticket.ModeRemove || strings.Join(r.Targets, " ") != "a@firm.example" {
			t.Errorf("%s: proposes %s %v; want remove a@firm.example alone", c.lang, r.Mode, r.Targets)
		}
	}
}

// Words that quote a value some rows of a pasted table hold, and others
// not ("anyone marked \"left\""), pick those rows, clause by clause of a
// sentence that names two values: the rows of the other value are left
// out by the line that picks.
func TestQuotedTableValuePicksRows(t *testing.T) {
	table := "\n\nname,email,site,status\nRita Bello,r.bello@green.example,Leeds,left\nAdam Kay,a.kay@green.example,Leeds,left\nJo Marsh,jo.marsh@green.example,York,active\n\nNadia\n"
	r := ticket.Read("From: Nadia <nadia@green.example>\nTo: support@ourcompany.test\n\nHi, pasting our leavers export below. Anyone marked \"left\" please suppress, the \"active\" ones are transfers, keep them." + table).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "r.bello@green.example a.kay@green.example" {
		t.Errorf("proposes %s %v, asks %q; want add the two rows marked left", r.Mode, r.Targets, r.Proposal.Ask)
	}
	i := slices.IndexFunc(r.LeftOut, func(l ticket.Left) bool { return l.Value == "jo.marsh@green.example" })
	if i < 0 || !strings.Contains(r.LeftOut[i].Reason, "not among those the ticket asks for") || r.LeftOut[i].Line != 4 {
		t.Errorf("the active row is left out as %+v; want its row not asked for, by line 4", r.LeftOut)
	}
}

// A writer who keeps getting mail at an address they name asks for that
// address, not for the one they write from.
func TestReceivedAtTheNamedAddress(t *testing.T) {
	for _, c := range []struct{ words, want string }{
		{"We keep getting the daily reminders at dispatch@lowe.example even though we collect in person. Could you stop them going to that address please?", "dispatch@lowe.example"},
		{"I keep getting your newsletter at my old address old@lowe.example, please stop it.", "old@lowe.example"},
		{"We keep receiving your promos on info@lowe.example. Please stop.", "info@lowe.example"},
		{"Please unsubscribe me and jane@lowe.example.", "gareth@lowe.example jane@lowe.example"},
	} {
		r := ticket.Read("From: Gareth <gareth@lowe.example>\nTo: support@ourcompany.test\n\n" + c.words + "\n\nGareth\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v; want add %s, for %q", r.Mode, r.Targets, c.want, c.words)
		}
	}
}

// "Block the old one" over two addresses, neither said to be old, leaves
// the choice to the agent, in any book's language.
func TestTheOldOneOfTwo(t *testing.T) {
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"Hi, I get your mails at two addresses, ops@studio.example and m.rossi@studio.example. One of them closes at the end of the month but IT has not told me which.\n\nCould you block the old one in the meantime?", ticket.ModeUnsure},
		{"Buongiorno, ricevo le vostre comunicazioni su due indirizzi, mario@studio.example e m.rossi@studio.example. Uno dei due lo chiudiamo, ma il tecnico non mi ha detto quale.\n\nIntanto potete bloccare quello vecchio?", ticket.ModeUnsure},
	} {
		p := ticket.Read("From: Mario <mario@studio.example>\nTo: support@ourcompany.test\n\n" + c.words + "\n\nMario\n").Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if p.Mode != c.mode {
			t.Errorf("proposes %s (%q); want %s, for %q", p.Mode, p.Ask, c.mode, c.words)
		}
	}
}

// A writer who names no From: line, signs with their address and says
// mail may keep coming to "my address" is left out of a stop for another
// address; one who asks to unsubscribe "my address" is not.
func TestKeepSendingToMyAddress(t *testing.T) {
	sig := "\n\nKind regards\n\nAnna Smith\nShop Ltd\nanna@shop.example\n"
	for _, c := range []struct{ words, want string }{
		{"Hello,\n\nplease unsubscribe office@shop.example from your newsletter.\n\nYou can keep sending invoices to my address.", "office@shop.example"},
		{"Dzień dobry,\n\nproszę o wypisanie adresu office@shop.example z Państwa newslettera.\n\nNa mój adres mogą Państwo nadal wysyłać faktury.", "office@shop.example"},
		{"Hello,\n\nplease unsubscribe my address and office@shop.example from your newsletter.", "office@shop.example anna@shop.example"},
	} {
		r := ticket.Read(c.words + sig).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v; want add %s, for %q", r.Mode, r.Targets, c.want, c.words)
		}
	}
}

// readFromA reads words written by a@firm.example to our support
// mailbox, signed "A".
func readFromA(words string) ticket.Reading {
	text := "From: A <a@firm.example>\nTo: support@ourcompany.test\n\n" + words + "\n\nA\n"
	return ticket.Read(text).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
}

// "Stop sending to this address" under several addresses the mail names
// does not say which: the agent chooses, in any book's language. Under
// one address, or pointing at the next line, it says which.
func TestThisAddressAmongSeveral(t *testing.T) {
	own := ticket.NewOwn([]string{"support@ourcompany.test"})
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"We have three addresses with you I think - mario@studio.example, accounts@studio.example and site@studio.example.\n\nCan you stop sending to this address please, it's just filling up.", ticket.ModeUnsure},
		{"Wir haben bei Ihnen buero@studio.example und lager@studio.example hinterlegt.\n\nBitte schicken Sie an diese Adresse keine Mails mehr.", ticket.ModeUnsure},
		{"Tenemos dos cuentas con ustedes: ventas@studio.example y admin@studio.example.\n\nPor favor, dejad de enviar correos a esta dirección.", ticket.ModeUnsure},
		{"Nous avons compta@studio.example et direction@studio.example chez vous.\n\nMerci de ne plus écrire à cette adresse.", ticket.ModeUnsure},
		{"Wij hebben info@studio.example en inkoop@studio.example bij jullie staan.\n\nKunnen jullie dit adres uitschrijven?", ticket.ModeUnsure},
		{"Mamy u Państwa biuro@studio.example i kadry@studio.example.\n\nProszę zablokować ten adres.", ticket.ModeUnsure},
		{"Our old mailbox accounts@studio.example was closed in October.\n\nCan you stop sending to this address please?", ticket.ModeAdd},
		{"Hi, accounts@studio.example and site@studio.example are both gone. Please block this address:\nsite@studio.example", ticket.ModeAdd},
	} {
		p := ticket.Read("From: Mario <mario@studio.example>\nTo: support@ourcompany.test\n\n" + c.words + "\n\nMario\n").Propose(own)
		if p.Mode != c.mode {
			t.Errorf("proposes %s (%q); want %s, for %q", p.Mode, p.Ask, c.mode, c.words)
		}
	}
}

// "Our accounts team is now billing@…; accounts@… no longer exists,
// please stop sending there": the new address is where mail goes, not a
// target, in the books' languages.
func TestTeamIsNowAnotherAddress(t *testing.T) {
	for _, words := range []string{
		"Our accounts team is now billing@firm.example; accounts@firm.example no longer exists, please stop sending there.",
		"Unsere Buchhaltung ist jetzt billing@firm.example. Bitte schicken Sie an accounts@firm.example keine Mails mehr.",
		"Notre comptabilité est désormais billing@firm.example. Merci de ne plus écrire à accounts@firm.example.",
		"Onze administratie is nu billing@firm.example. Willen jullie accounts@firm.example uitschrijven?",
	} {
		r := readFromA(words)
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "accounts@firm.example" {
			t.Errorf("proposes %s %v (%q); want add accounts@firm.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, words)
		}
	}
}

// A colleague who takes over, named after the words that say so in the
// clause beside the writer's own request ("bitte tragen Sie mich aus, ab
// sofort übernimmt mein Kollege Luis (luis@…)"), is where mail is to go,
// not a target, in the books' languages.
func TestSuccessorNamedAfterTheWords(t *testing.T) {
	for _, c := range []struct{ words, sig string }{
		{"por favor dadme de baja, a partir de ahora se encarga mi compañero Luis (luis@cliente.example).", "Saludos\nAna Ruiz\nDpto. Compras\nTel. 912 345 678 | compras@cliente.example"},
		{"bitte tragen Sie mich aus, ab sofort übernimmt mein Kollege Luis (luis@cliente.example).", "Gruß\nAna Ruiz\nEinkauf\nTel. 0711 123 | E-Mail: einkauf@cliente.example"},
		{"merci de me désinscrire, c'est désormais mon collègue Luis (luis@cliente.example) qui s'en occupe.", "Cordialement\nAna Ruiz"},
		{"vi chiedo di cancellarmi, da lunedì se ne occupa il collega Luis (luis@cliente.example).", "Saluti\nAna Ruiz"},
		{"por favor removam-me da lista, o meu colega Luis (luis@cliente.example) passa a tratar disto.", "Cumprimentos\nAna Ruiz"},
		{"proszę mnie wypisać, od teraz sprawami zajmuje się kolega Luis (luis@cliente.example).", "Pozdrawiam\nAna Ruiz"},
		{"please unsubscribe me, from now on my work is handled by Luis (luis@cliente.example).", "Best\nAna Ruiz"},
	} {
		text := "From: Ana Ruiz <ana@cliente.example>\nTo: support@ourcompany.test\n\nHola,\n\n" + c.words + "\n\n" + c.sig + "\n"
		r := ticket.Read(text).Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != "ana@cliente.example" {
			t.Errorf("proposes %s %v (%q); want add ana@cliente.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.words)
		}
	}
}

// An address in a sentence that only says what might happen ("If
// carl@… complains too I'll let you know") or tells what the writer
// asked someone is beside the request, not a target; "carl@… too" alone
// adds to it.
func TestConditionBesideTheRequest(t *testing.T) {
	for _, c := range []struct{ words, want string }{
		{"Please stop emailing bob@cliente.example. If carl@cliente.example complains too I'll let you know.", "bob@cliente.example"},
		{"Bitte bob@cliente.example abmelden. Wenn carl@cliente.example sich auch beschwert, melde ich mich.", "bob@cliente.example"},
		{"Merci de désinscrire bob@cliente.example. Si carl@cliente.example se plaint aussi, je vous préviens.", "bob@cliente.example"},
		{"Graag bob@cliente.example afmelden. Als carl@cliente.example ook klaagt, laat ik het weten.", "bob@cliente.example"},
		{"You can unsubscribe bob@cliente.example. I asked carl@cliente.example whether he still wants them and will let you know.", "bob@cliente.example"},
		{"Please block bob@cliente.example. carl@cliente.example too.", "bob@cliente.example carl@cliente.example"},
	} {
		r := ticket.Read("From: Ana Ruiz <ana@cliente.example>\nTo: support@ourcompany.test\n\nHi,\n\n" + c.words + "\n\nAna\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v (%q); want add %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.want, c.words)
		}
	}
}

// "Stop the newsletters, but I still need the invoices": a block would
// stop the invoices too, so the review asks, in the books' languages; a
// kept mail that goes to another address ("die Rechnungen brauchen wir
// weiter auf info@") asks nothing.
func TestStopButKeepSomeMail(t *testing.T) {
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"I don't want your emails anymore... well, the invoices yes, but not all the rest.", ticket.ModeUnsure},
		{"Please stop sending me newsletters, but I still need the invoices.", ticket.ModeUnsure},
		{"Ich möchte keine Mails mehr von Ihnen... also die Rechnungen schon, aber nicht den Rest.", ticket.ModeUnsure},
		{"No quiero recibir más correos... bueno, las facturas sí, pero lo demás no.", ticket.ModeUnsure},
		{"Je ne veux plus recevoir vos mails... enfin si, les factures oui, mais pas tout le reste.", ticket.ModeUnsure},
		{"Non voglio più ricevere le vostre email... cioè, le fatture sì, ma il resto no.", ticket.ModeUnsure},
		{"Ik wil geen mails meer ontvangen... nou ja, de facturen wel, maar de rest niet.", ticket.ModeUnsure},
		{"Die Rechnungen brauchen wir weiter auf info@firma.example. Bitte nur einkauf@firma.example sperren.", ticket.ModeAdd},
	} {
		r := ticket.Read("From: Ana Ruiz <ana@cliente.example>\nTo: support@ourcompany.test\n\nHi,\n\n" + c.words + "\n\nAna\n").Reading(ticket.NewOwn([]string{"support@ourcompany.test"}))
		if r.Mode != c.mode {
			t.Errorf("proposes %s %v (%q); want %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.mode, c.words)
		}
	}
}

// A question whether someone is blocked, with "change nothing" and an
// unsubscribe told in passing, only checks; "I must have clicked
// unsubscribe … can you put me back?" puts back; "fjerne blokeringen af"
// unblocks in Danish.
func TestToldInPassingBesideAQuestion(t *testing.T) {
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"Our accountant jo@tax.example says she hasn't got the last two invoices from you. Can you see if she's on some kind of block list on your end?\n\nPlease don't change anything yet, I want to understand what happened first - she thinks someone in her office may have hit unsubscribe.", ticket.ModeCheck},
		{"Oh no - that was a mistake, I was clearing my inbox and must have clicked unsubscribe on yours too. Can you put jo@tax.example back please?", ticket.ModeRemove},
		{"Kan I fjerne blokeringen af jo@tax.example, så hun får bekræftelserne igen?", ticket.ModeRemove},
	} {
		r := readFromA(c.words)
		if r.Mode != c.mode || strings.Join(r.Targets, " ") != "jo@tax.example" {
			t.Errorf("proposes %s %v (%q); want %s jo@tax.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.mode, c.words)
		}
	}
}

// "My husband tom@… and I both want to unsubscribe" asks for both, in
// English and German; "my husband, not me" for him alone.
func TestTheWriterAndAnother(t *testing.T) {
	for _, c := range []struct{ words, want string }{
		{"Hello, my husband tom@cliente.example and I both want to unsubscribe.", "a@firm.example tom@cliente.example"},
		{"Hallo, mein Mann tom@cliente.example und ich möchten beide keine Mails mehr.", "a@firm.example tom@cliente.example"},
		{"Please unsubscribe my husband tom@cliente.example, not me.", "tom@cliente.example"},
	} {
		r := readFromA(c.words)
		if r.Mode != ticket.ModeAdd || strings.Join(r.Targets, " ") != c.want {
			t.Errorf("proposes %s %v (%q); want add %s, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.want, c.words)
		}
	}
}

// "x@… doesn't exist anymore, please remove it" stops mail to it; "it
// works again now, could you remove it?" takes it off the list, in the
// books' languages.
func TestRemoveAGoneOrABackAddress(t *testing.T) {
	for _, c := range []struct {
		words string
		mode  ticket.Mode
	}{
		{"Hi, info@cliente.example is no longer monitored, please remove it.", ticket.ModeAdd},
		{"Hallo, info@cliente.example gibt es nicht mehr. Bitte entfernen.", ticket.ModeAdd},
		{"Hola, info@cliente.example ya no existe, por favor eliminadla.", ticket.ModeAdd},
		{"Bonjour, info@cliente.example n'existe plus, merci de la supprimer.", ticket.ModeAdd},
		{"Hoi, info@cliente.example bestaat niet meer, kunnen jullie het verwijderen?", ticket.ModeAdd},
		{"Hi, info@cliente.example was deactivated during our server migration last month. It works again now, could you remove it?", ticket.ModeRemove},
		{"Hallo, info@cliente.example wurde bei der Umstellung deaktiviert. Jetzt funktioniert sie wieder, können Sie sie entfernen?", ticket.ModeRemove},
	} {
		r := readFromA(c.words)
		if r.Mode != c.mode || strings.Join(r.Targets, " ") != "info@cliente.example" {
			t.Errorf("proposes %s %v (%q); want %s info@cliente.example, for %q", r.Mode, r.Targets, r.Proposal.Ask, c.mode, c.words)
		}
	}
}

// "(on maternity leave, keep her)" after a listed address says to keep
// it: the review asks before it is sent.
func TestBracketSaysKeep(t *testing.T) {
	p := ticket.Read("From: A <a@firm.example>\nTo: support@ourcompany.test\n\nPlease unsubscribe the following, they have all left:\n- x@firm.example\n- y@firm.example (on maternity leave, keep her)\n- z@firm.example\n\nA\n").Propose(ticket.NewOwn([]string{"support@ourcompany.test"}))
	if len(p.Ask) == 0 || !strings.Contains(strings.Join(p.Ask, " "), "y@firm.example") {
		t.Errorf("asks %q; want a question about y@firm.example", p.Ask)
	}
}
