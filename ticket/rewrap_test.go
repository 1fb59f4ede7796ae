package ticket_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/shushlist/shush/ticket"
)

// rewrap wraps the lines of text's body longer than w at its spaces, as
// a mail client does (in characters, not bytes), keeping their quote marks; the head block (up to
// the first empty line) stays as it is.
func rewrap(text string, w int) string {
	var out []string
	inHead := true
	for _, l := range strings.Split(text, "\n") {
		if strings.TrimSpace(l) == "" {
			inHead = false
			out = append(out, l)
			continue
		}
		if inHead || utf8.RuneCountInString(l) <= w {
			out = append(out, l)
			continue
		}
		prefix := ""
		for strings.HasPrefix(l[len(prefix):], ">") || strings.HasPrefix(l[len(prefix):], " ") && len(prefix) > 0 {
			prefix = l[:len(prefix)+1]
		}
		words := strings.Fields(l[len(prefix):])
		cur := prefix
		for _, wd := range words {
			if utf8.RuneCountInString(cur)+utf8.RuneCountInString(wd)+1 > w && strings.TrimSpace(cur) != strings.TrimSpace(prefix) {
				out = append(out, strings.TrimRight(cur, " "))
				cur = prefix
			}
			if cur != prefix && !strings.HasSuffix(cur, " ") {
				cur += " "
			}
			cur += wd
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// TestCorpusRewrapped reads every corpus ticket of words again as a
// mail client would send it, its lines wrapped at 56 and at 72 columns,
// and counts the readings that change (mode or targets). A wrapped
// sentence must read as the sentence: before lines were joined, one read
// in eight changed.
func TestCorpusRewrapped(t *testing.T) {
	const most = 0.03
	n, changed := 0, []string{}
	for _, c := range loadCorpus(t, "tickets") {
		if c.family == "list" || c.family == "html" || c.family == "bounce" || strings.Contains(c.text, "Final-Recipient") {
			continue // a table's rows and a bounce report's lines are not wrapped by a person's client
		}
		own := ticket.NewOwn(c.own)
		a := ticket.Read(c.text).Reading(own)
		for _, w := range []int{56, 72} {
			b := ticket.Read(rewrap(c.text, w)).Reading(own)
			n++
			if a.Mode != b.Mode || strings.Join(a.Targets, " ") != strings.Join(b.Targets, " ") {
				changed = append(changed, fmt.Sprintf("%s at %d: %s %v, wrapped %s %v", c.name, w, a.Mode, a.Targets, b.Mode, b.Targets))
			}
		}
	}
	t.Logf("%d of %d readings change when the ticket is wrapped", len(changed), n)
	if float64(len(changed)) > most*float64(n) {
		t.Errorf("%d of %d readings change when the ticket is wrapped (at most %.0f %%):\n%s", len(changed), n, most*100, strings.Join(changed, "\n"))
	}
}
