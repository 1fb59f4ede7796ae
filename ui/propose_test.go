package ui

import (
	"strings"
	"testing"
)

// putMeBack is a ticket whose requester asks to get mail again.
const putMeBack = "From: Omar Haddad <omar@customer.test>\nTo: support@ourcompany.test\nSubject: Re: [#7001] no mail\n\n" +
	"Hi again, I unsubscribed by mistake last week. Please put me back.\n\nThanks,\nOmar\n"

// A paste proposes its mode and says why: a ticket that asks to get mail
// again opens in remove by address, the header and the status line naming
// the ticket's words and line; the review then asks nothing more.
func TestPasteProposesTheMode(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.paste(putMeBack)
	h.mustSee("mode: remove by address · ticket line 5",
		`Mode: remove by address, as the ticket asks to get mail again (line 5: "I unsubscribed by mistake"); m changes it.`,
		"omar@customer.test")
	h.keys("ctrl+s")
	h.mustSee("Review · remove by address", "1 address in 1 batch", `Type "remove" and press Enter to send`)
	h.mustNotSee("Which mode?")
}

// A ticket that only asks whether its writer is blocked changes nothing
// by default: ctrl+s ctrl+s reaches the review, which asks for the mode,
// and sends nothing; 4 answers with a check.
func TestCheckTicketSendsNothingByDefault(t *testing.T) {
	svc, sent := countingService(t)
	h := newHarness(t, svc, 140, 30)
	h.paste("From: lena@customer.test\nTo: support@ourcompany.test\n\nAm I on your block list? Your invoices stopped arriving.\n")
	h.mustSee("mode: add · ticket: check only", "The ticket only asks whether they are blocked")
	h.keys("ctrl+s", "ctrl+s", "enter")
	h.mustSee("Which mode? The ticket only asks whether they are blocked", "Choose the mode first", "nothing was sent")
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d batches went out for a ticket that only asks to check", n)
	}
	h.keys("4")
	h.mustSee("mode: check (sends nothing)")
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d batches went out", n)
	}
}

// The agent's mode against the ticket's words: the review asks; the
// answer holds for that mode, and the list is read anew for it.
func TestContradictedModeAsks(t *testing.T) {
	svc, sent := countingService(t)
	h := newHarness(t, svc, 140, 30)
	h.paste("From: jo@customer.test\n\nPlease unsubscribe me from the newsletter.\n")
	h.mustSee("mode: add · ticket line 3")
	h.keys("esc", "m")
	h.mustSee("Read the ticket again as remove by address?")
	h.keys("y")
	h.mustSee("mode: remove by address · ticket asks add")
	h.keys("ctrl+s")
	h.mustSee(`Which mode? The ticket asks to get no more mail (line 3: "unsubscribe me"), but the list is in remove by address.`)
	// The habit of a removal answers nothing.
	h.typeText("remove")
	h.keys("enter")
	h.typeText("remove")
	h.keys("enter", "ctrl+s", "ctrl+s")
	h.mustSee("Which mode?", "Choose the mode first")
	if n := sent.Load(); n != 0 {
		t.Fatalf("%d batches went out before the mode was chosen", n)
	}
	h.keys("1")
	h.mustSee("Review · add", "mode: add · chosen")
	h.mustNotSee("Which mode?")
	h.keys("ctrl+s")
	h.results()
	if n := sent.Load(); n != 1 {
		t.Fatalf("%d batches went out; want the one the agent chose", n)
	}
}

// A ticket that says nothing clear asks for the mode; one the agent chose
// by hand before pasting holds without asking.
func TestUnsureTicketAsksUnlessChosen(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.paste("From: kay@customer.test\n\nSomething is off with the mails to kay.work@customer.test, can someone look?\n")
	h.mustSee("mode: add · ticket unsure", "The review asks for the mode before anything is sent.")
	h.keys("ctrl+s")
	h.mustSee("Which mode? The ticket is unsure")

	h2 := newHarness(t, service(t, nil), 140, 30)
	h2.keys("esc", "m")
	h2.mustSee("mode: remove by address")
	h2.paste("Something is off with the mails to kay.work@customer.test, can someone look?\n")
	h2.keys("ctrl+s")
	h2.mustSee("Review · remove by address")
	h2.mustNotSee("Which mode?")
}

// A mode switch reads the ticket again, not the rows: the suppression IDs
// of a ticket pasted in add (where they are no entries) become the rows of
// a removal by ID, and come back as rows of the ticket, not of the IDs'
// text, when the mode goes back.
func TestModeSwitchRereadsTheTicket(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.paste("From: ops@customer.test\n\nThese two entries look wrong to us: 0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a and " +
		"0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b (jane@customer.test). What are they?\n")
	h.mustSee("mode: add")
	h.mustNotSee("0195f3c2")
	h.keys("esc", "m", "y", "m")
	h.mustSee("Read the ticket again as remove by ID?")
	h.keys("y")
	h.mustSee("mode: remove by ID", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b",
		"jane@customer.test  ✗ it is an email address, not a suppression ID")
	h.keys("m", "y")
	h.mustSee("mode: add", "jane@customer.test")
	h.mustNotSee("0195f3c2")
}

// An internationalized domain shows in Unicode beside what is sent; a
// likely typo of a provider's domain gets a "did you mean" and is sent as
// written; an address written out in words is left out to be checked, and
// t takes it in.
func TestAddressesAsPeopleWriteThem(t *testing.T) {
	h := newHarness(t, service(t, nil), 140, 30)
	h.paste("Please block info@bäckerei-süß.example and kim.tran@gmial.com, and also ana dot silva at mailbox dot example.\n")
	h.mustSee("info@bäckerei-süß.example (info@xn--bckerei-s-o1a0c4t.example)",
		"kim.tran@gmial.com  ? did you mean @gmail.com",
		"ana.silva@mailbox.example  ↷ left out: written out in words — check it, t takes it in")
	h.keys("ctrl+s")
	h.mustSee("Which mode?", "written out in words")
	h.keys("1")
	h.mustSee("Review · add", "2 addresses in 1 batch")
}

// The question that stops a send is read whole on a narrow terminal: it
// wraps at its spaces instead of ending in an ellipsis.
func TestModeQuestionWrapsOnANarrowTerminal(t *testing.T) {
	h := newHarness(t, service(t, nil), 80, 30)
	h.paste("From: kay@customer.test\n\nSomething is off with the mails to kay.work@customer.test, can someone look?\n")
	h.keys("ctrl+s")
	view := h.view()
	for _, want := range []string{"Which mode? The ticket is unsure", "erase · esc: back", "Nothing is sent until you choose."} {
		if !strings.Contains(view, want) {
			t.Fatalf("the review at 80 columns does not show %q:\n%s", want, view)
		}
	}
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "Which mode?") && strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Fatalf("the question is cut: %q", l)
		}
	}
}
