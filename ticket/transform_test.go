package ticket_test

import (
	"fmt"
	"html"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
	unorm "golang.org/x/text/unicode/norm"
)

// stripAccents is s typed without accents.
func stripAccents(s string) string {
	var b strings.Builder
	for _, r := range unorm.NFD.String(s) {
		if r >= 0x300 && r <= 0x36f {
			continue
		}
		b.WriteRune(r)
	}
	return unorm.NFC.String(b.String())
}

var addrRe = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[a-z]+`)

// toHTML is a mail's text as its HTML part would give it.
func toHTML(text string) (string, bool) {
	head, body, ok := strings.Cut(text, "\n\n")
	if !ok {
		return "", false
	}
	var b strings.Builder
	b.WriteString(head + "\nContent-Type: text/html\n\n<html><body>")
	for _, para := range strings.Split(body, "\n\n") {
		b.WriteString("<p>")
		for i, l := range strings.Split(para, "\n") {
			if i > 0 {
				b.WriteString("<br>\n")
			}
			e := html.EscapeString(l)
			e = addrRe.ReplaceAllStringFunc(e, func(a string) string { return `<a href="mailto:` + a + `">` + a + `</a>` })
			b.WriteString(e)
		}
		b.WriteString("</p>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String(), true
}

// corpusTransform is one way a corpus ticket might also come: of gives
// the ticket's text that way, false when it does not apply; at most
// most of the readings may change.
type corpusTransform struct {
	name string
	most float64
	of   func(c corpusTicket) (string, bool)
}

// corpusTransforms are the ways TestCorpusTransformed reads the corpus
// again.
var corpusTransforms = []corpusTransform{
	{"without accents", 0.02, withoutAccents},
	{"as HTML", 0.02, asHTML},
	{"forwarded by our agent", 0.04, forwardedByAgent},
	{"quoted under a chase", 0.05, quotedUnderChase},
}

// withoutAccents is a ticket not in English typed without accents.
func withoutAccents(c corpusTicket) (string, bool) {
	return stripAccents(c.text), c.lang != "en" && c.lang != ""
}

// asHTML is a plain ticket as its HTML part would give it; none for one
// of HTML already, a list's or a bounce's.
func asHTML(c corpusTicket) (string, bool) {
	low := strings.ToLower(c.text)
	if inFamily(c, "html", "list", "bounce") || strings.Contains(low, "<html") || strings.Contains(low, "<p") || strings.Contains(low, "<br") {
		return "", false
	}
	return toHTML(c.text)
}

// forwardedByAgent is a mail as our agent forwards it; none for a list's,
// an HTML one, a helpdesk's or a text that is no mail.
func forwardedByAgent(c corpusTicket) (string, bool) {
	if inFamily(c, "list", "html", "helpdesk") || !strings.HasPrefix(c.text, "From:") {
		return "", false
	}
	return agentForward(c.text)
}

// quotedUnderChase is a mail quoted under its writer's chase; none for a
// list's, an HTML one, a bounce, a helpdesk's or a text that is no mail.
func quotedUnderChase(c corpusTicket) (string, bool) {
	if inFamily(c, "list", "html", "bounce", "helpdesk") || !strings.HasPrefix(c.text, "From:") {
		return "", false
	}
	return underChase(c.text)
}

// inFamily reports a ticket of one of the families.
func inFamily(c corpusTicket, families ...string) bool {
	return slices.Contains(families, c.family)
}

// TestCorpusTransformed reads every corpus ticket again as it might
// also come: without its accents (a writer on a keyboard without them),
// as HTML (a client's HTML part, a paragraph a <p>, a line a <br>, each
// address a mailto: link), or quoted under the same writer's chase ("any
// news on this?"). Each reading should stay what it was; a few differ, and
// the test fails when more than a share of them do.
func TestCorpusTransformed(t *testing.T) {
	corpus := loadCorpus(t, "tickets")
	for _, tr := range corpusTransforms {
		n, changed := changedReadings(corpus, tr)
		t.Logf("%s: %d of %d readings change", tr.name, len(changed), n)
		if float64(len(changed)) > tr.most*float64(n) {
			t.Errorf("%s: %d of %d readings change (at most %.0f %%):\n%s", tr.name, len(changed), n, tr.most*100, strings.Join(changed, "\n"))
		}
	}
}

// changedReadings reads each corpus ticket tr applies to as it is and
// transformed: n counts them, changed says each whose mode or targets
// differ.
func changedReadings(corpus []corpusTicket, tr corpusTransform) (n int, changed []string) {
	changed = []string{}
	for _, c := range corpus {
		x, ok := tr.of(c)
		if !ok {
			continue
		}
		own := ticket.NewOwn(append([]string{"@ourcompany.test"}, c.own...))
		a, b := ticket.Read(c.text).Reading(own), ticket.Read(x).Reading(own)
		n++
		if a.Mode != b.Mode || strings.Join(a.Targets, " ") != strings.Join(b.Targets, " ") {
			changed = append(changed, fmt.Sprintf("%s: %s %v, %s %s %v", c.name, a.Mode, a.Targets, tr.name, b.Mode, b.Targets))
		}
	}
	return n, changed
}

// underChase quotes a mail under its writer's chase, the subject a
// reply's.
func underChase(text string) (string, bool) {
	head, body, ok := strings.Cut(text, "\n\n")
	if !ok {
		return "", false
	}
	var hs []string
	from := ""
	for _, h := range strings.Split(head, "\n") {
		switch {
		case strings.HasPrefix(h, "From: "):
			from = strings.TrimPrefix(h, "From: ")
		case strings.HasPrefix(h, "Subject: "):
			h = "Subject: Re: " + strings.TrimPrefix(h, "Subject: ")
		}
		hs = append(hs, h)
	}
	var q strings.Builder
	for _, l := range strings.Split(strings.TrimRight(body, "\n"), "\n") {
		switch {
		case l == "":
			q.WriteString(">\n")
		case strings.HasPrefix(l, ">"):
			q.WriteString(">" + l + "\n")
		default:
			q.WriteString("> " + l + "\n")
		}
	}
	return strings.Join(hs, "\n") + "\n\nHi, any news on this? Nothing has happened yet.\n\nThanks\n\nOn Mon, 23 Nov 2026 at 10:00, " + from + " wrote:\n" + q.String(), true
}

// agentForward is a mail as our agent forwards it to the suppressions
// mailbox, Gmail's way, with a line of their own.
func agentForward(text string) (string, bool) {
	head, body, ok := strings.Cut(text, "\n\n")
	if !ok {
		return "", false
	}
	subject := ""
	hs := []string{}
	for _, h := range strings.Split(head, "\n") {
		if v, ok := strings.CutPrefix(h, "Subject: "); ok {
			subject = v
		}
		if strings.HasPrefix(h, "From: ") || strings.HasPrefix(h, "To: ") || strings.HasPrefix(h, "Subject: ") || strings.HasPrefix(h, "Cc: ") {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return "", false
	}
	hs = append(hs[:1], append([]string{"Date: Mon, Nov 23, 2026 at 9:12 AM"}, hs[1:]...)...)
	return "From: Sam Agent <sam@ourcompany.test>\nTo: suppressions@ourcompany.test\nSubject: Fwd: " + subject +
		"\n\nFYI, customer request below, please action.\n\nSam\n\n---------- Forwarded message ---------\n" + strings.Join(hs, "\n") + "\n\n" + body, true
}
