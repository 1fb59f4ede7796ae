package ticket_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

// corpusTicket is one ticket of testdata/tickets (or testdata/heldout): a
// head of "key: value" lines, a line "====", then the ticket's text. The
// head says:
//
//	family:    the shape of ticket it is (docs/tickets.md)
//	lang:      its language (en when absent)
//	intent:    the mode the ticket must propose: add, erase, remove, remove_ids, check, unsure
//	targets:   exactly the targets of that proposal, comma-separated
//	own:       the config's own list, comma-separated
//	requester: the address the rule takes for the requester, or "none"
//	left:      ADDRESS = words its left-out reason holds (repeatable)
//	written:   an address the ticket writes out in words (repeatable)
//	asks:      yes when the proposal rightly asks the agent something
//	           first (an address written out to check)
//	hint:      ADDRESS = the domain of its "did you mean" (repeatable)
//	reference: the reference offered, or "none"
//	evidence:  the line that decided the mode
//	mode:      add or remove: the rule in a batch of that mode, whatever
//	           the ticket proposes; send and leave then say exactly what
//	           it sends and leaves out, reason and line why
//	reason:    ADDRESS = words the reason for it holds (repeatable)
//	line:      ADDRESS = the ticket line that decided it (repeatable)
//	right:     for a ticket the rule gets wrong in a batch: what it should
//	           send; send and leave say what it does now
//	wrong:     why the rule gets the ticket wrong (a known miss: its
//	           outcome is counted, not failed)
type corpusTicket struct {
	name, family, lang, text    string
	intent                      ticket.Mode
	targets                     []string
	hasTargets                  bool
	own                         []string
	requester, reference        string
	left, hints, reasons, lines [][2]string
	written                     []string
	asks                        bool
	evidence                    int
	mode                        string
	send, leave, right          []string
	hasSend, hasLeave, hasRight bool
	wrong                       string
}

// loadCorpus reads the tickets of testdata/<dir>.
func loadCorpus(t testing.TB, dir string) []corpusTicket {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tickets in testdata/%s: %v", dir, err)
	}
	var out []corpusTicket
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		c, err := parseTicket(filepath.Base(f), string(b))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, c)
	}
	return out
}

func parseTicket(name, file string) (corpusTicket, error) {
	head, text, ok := strings.Cut(file, "\n====\n")
	if !ok {
		return corpusTicket{}, fmt.Errorf("no line ==== between the head and the ticket")
	}
	c := corpusTicket{name: strings.TrimSuffix(name, ".txt"), text: text, lang: "en", requester: "?", reference: "?"}
	for i, l := range strings.Split(head, "\n") {
		key, val, ok := strings.Cut(l, ":")
		if !ok {
			return c, fmt.Errorf("line %d: not a key: value line: %q", i+1, l)
		}
		if err := c.set(key, strings.TrimSpace(val)); err != nil {
			return c, fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	switch {
	case c.family == "" || c.intent == "":
		return c, fmt.Errorf("a ticket needs family and intent")
	case c.intent != ticket.ModeUnsure && !c.hasTargets:
		return c, fmt.Errorf("a ticket that proposes %s needs targets", c.intent)
	case c.mode != "" && (!c.hasSend || !c.hasLeave), c.hasRight && c.wrong == "":
		return c, fmt.Errorf("mode needs send and leave, right needs wrong")
	}
	return c, nil
}

func (c *corpusTicket) set(key, val string) error {
	if set, ok := headSetters[key]; ok {
		set(c, val)
		return nil
	}
	switch key {
	case "evidence":
		n, err := strconv.Atoi(val)
		c.evidence = n
		return err
	case "left", "hint", "reason", "line":
		a, w, ok := strings.Cut(val, "=")
		if !ok {
			return fmt.Errorf("%s needs ADDRESS = TEXT", key)
		}
		p := [2]string{norm(strings.TrimSpace(a)), strings.TrimSpace(w)}
		*c.pairs(key) = append(*c.pairs(key), p)
		return nil
	}
	return fmt.Errorf("unknown key %q", key)
}

// pairs is the list of ADDRESS = TEXT pairs of key.
func (c *corpusTicket) pairs(key string) *[][2]string {
	switch key {
	case "left":
		return &c.left
	case "hint":
		return &c.hints
	case "reason":
		return &c.reasons
	}
	return &c.lines
}

// headSetters read the head's plain keys.
var headSetters = map[string]func(c *corpusTicket, val string){
	"family":    func(c *corpusTicket, v string) { c.family = v },
	"class":     func(c *corpusTicket, v string) { c.family = v },
	"lang":      func(c *corpusTicket, v string) { c.lang = v },
	"intent":    func(c *corpusTicket, v string) { c.intent = ticket.Mode(v) },
	"targets":   func(c *corpusTicket, v string) { c.targets, c.hasTargets = list(v), true },
	"own":       func(c *corpusTicket, v string) { c.own = strings.Split(v, ",") },
	"requester": func(c *corpusTicket, v string) { c.requester = norm(v) },
	"reference": func(c *corpusTicket, v string) { c.reference = v },
	"written":   func(c *corpusTicket, v string) { c.written = append(c.written, norm(v)) },
	"asks":      func(c *corpusTicket, v string) { c.asks = v == "yes" },
	"mode":      func(c *corpusTicket, v string) { c.mode = v },
	"send":      func(c *corpusTicket, v string) { c.send, c.hasSend = list(v), true },
	"leave":     func(c *corpusTicket, v string) { c.leave, c.hasLeave = list(v), true },
	"right":     func(c *corpusTicket, v string) { c.right, c.hasRight = list(v), true },
	"wrong":     func(c *corpusTicket, v string) { c.wrong = v },
}

// norm is an address or ID as the service stores it (an IDN in ASCII).
func norm(s string) string {
	if v, err := api.NormalizeEmail(s); err == nil {
		return v
	}
	if v, err := api.NormalizeID(s); err == nil {
		return v
	}
	return s
}

func list(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, norm(v))
		}
	}
	slices.Sort(out)
	return out
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return slices.Compact(s)
}

// outcome is how the rule did on a ticket, as an agent with the default
// keys would meet it.
type outcome int

const (
	right outcome = iota // the proposal's mode and targets are the ticket's
	asks                 // safe: not right, but the review asks first, or nothing is sent
	wrong                // the default keys would send a wrong list
)

// score weighs the rule's reading of c.
func score(c corpusTicket, r ticket.Reading) (outcome, string) {
	mode, targets := r.Mode, sorted(r.Targets)
	okMode := mode == c.intent
	okTargets := c.intent == ticket.ModeUnsure || slices.Equal(targets, c.targets) ||
		c.asks && slices.Equal(withWritten(targets, r), c.targets)
	why := fmt.Sprintf("proposes %s %v (want %s %v)", mode, targets, c.intent, c.targets)
	switch {
	case okMode && okTargets && (len(r.Proposal.Ask) > 0 == c.asks || mode == ticket.ModeUnsure):
		return right, why
	case mode == ticket.ModeUnsure || len(r.Proposal.Ask) > 0:
		return asks, why + "; asks: " + strings.Join(r.Proposal.Ask, "; ")
	case !mode.Changes():
		return asks, why + "; changes nothing"
	case len(targets) == 0:
		return asks, why + "; sends nothing"
	}
	return wrong, why
}

// withWritten is targets with the addresses the reading leaves out as
// written out in words, which the review asks the agent to check and
// take in: a head that says the proposal rightly asks first may list
// them among its targets (what is sent once the agent has checked them).
func withWritten(targets []string, r ticket.Reading) []string {
	out := slices.Clone(targets)
	for _, l := range r.LeftOut {
		if strings.Contains(l.Reason, "written out") && !slices.Contains(out, l.Value) {
			out = append(out, l.Value)
		}
	}
	return sorted(out)
}

// tally counts outcomes by family and by language.
type tally map[string]*[3]int

func (t tally) add(key string, o outcome) {
	if t[key] == nil {
		t[key] = &[3]int{}
	}
	t[key][o]++
}

func (t tally) table(title string) string {
	var keys []string
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	fmt.Fprintf(&b, "| %s | tickets | right | safe: asks or sends nothing | wrong list |\n|---|---|---|---|---|\n", title)
	var all [3]int
	for _, k := range keys {
		n := t[k]
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d |\n", k, n[0]+n[1]+n[2], n[0], n[1], n[2])
		for i := range all {
			all[i] += n[i]
		}
	}
	fmt.Fprintf(&b, "| all | %d | %d | %d | %d |\n", all[0]+all[1]+all[2], all[0], all[1], all[2])
	return b.String()
}

// The corpus: every ticket proposes its mode with its targets, names its
// requester, reference, written-out addresses, hints and what it leaves
// out; a ticket with mode: is also read as a batch of that mode. The
// score by family and language is printed (go test -v -run
// TestTicketCorpus ./ticket) and kept in docs/benchmarks.md.
func TestTicketCorpus(t *testing.T) {
	corpus := loadCorpus(t, "tickets")
	byFamily, byLang := tally{}, tally{}
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			tk := ticket.Read(c.text)
			r := tk.Reading(ticket.NewOwn(c.own))
			o, why := score(c, r)
			byFamily.add(c.family, o)
			byLang.add(c.lang, o)
			if o != right && c.wrong == "" {
				t.Errorf("%s: %s%s", []string{"right", "safe", "WRONG LIST"}[o], why, explain(tk, c))
			}
			checkDetails(t, c, tk, r)
			if c.mode != "" {
				checkBatch(t, c, tk)
			}
		})
	}
	t.Logf("corpus: %d tickets\n\n%s\n%s", len(corpus), byFamily.table("family"), byLang.table("language"))
	checkCoverage(t, corpus)
}

// checkCoverage: at least 120 tickets, 12 a family, 10 a language other
// than English.
func checkCoverage(t *testing.T, corpus []corpusTicket) {
	families, langs := map[string]int{}, map[string]int{}
	for _, c := range corpus {
		families[c.family]++
		langs[c.lang]++
	}
	if len(corpus) < 120 {
		t.Errorf("the corpus has %d tickets; it is to have at least 120", len(corpus))
	}
	for f, n := range families {
		if n < 12 {
			t.Errorf("family %q has %d tickets; each is to have at least 12", f, n)
		}
	}
	for _, l := range []string{"de", "es", "fr", "pt", "it", "nl"} {
		if langs[l] < 10 {
			t.Errorf("language %s has %d tickets; each is to have at least 10", l, langs[l])
		}
	}
}

// checkDetails checks what the head says besides the mode and targets.
func checkDetails(t *testing.T, c corpusTicket, tk *ticket.Ticket, r ticket.Reading) {
	t.Helper()
	req := "none"
	if r.Requester != nil {
		req = *r.Requester
	}
	if c.requester != "?" && req != c.requester {
		t.Errorf("requester %s; want %s%s", req, c.requester, explain(tk, c))
	}
	if c.reference != "?" {
		got := "none"
		if r.Reference != nil {
			got = r.Reference.Value
		}
		if got != c.reference {
			t.Errorf("reference %s; want %s", got, c.reference)
		}
	}
	if c.evidence > 0 && r.Proposal.By.Line != c.evidence {
		t.Errorf("decided by line %d (%q); want line %d", r.Proposal.By.Line, r.Proposal.Words, c.evidence)
	}
	checkLeftOut(t, c, r)
}

// checkLeftOut checks what the head says is left out, written out and
// hinted at.
func checkLeftOut(t *testing.T, c corpusTicket, r ticket.Reading) {
	t.Helper()
	left := map[string]string{}
	for _, l := range r.LeftOut {
		left[l.Value] = l.Reason
	}
	for _, l := range c.left {
		if reason, ok := left[l[0]]; !ok || !strings.Contains(reason, l[1]) {
			t.Errorf("%s: left out %v, %q; want it left out saying %q", l[0], ok, reason, l[1])
		}
	}
	for _, w := range c.written {
		if !strings.Contains(left[w], "written out") {
			t.Errorf("%s: not left out as written out (%q)", w, left[w])
		}
	}
	for v, reason := range left {
		if strings.Contains(reason, "written out") && !slices.Contains(c.written, v) {
			t.Errorf("%s: left out as written out, but the ticket writes out no such address", v)
		}
	}
	for _, h := range c.hints {
		if got, ok := ticket.Hint(h[0]); !ok || !strings.HasSuffix(got, "@"+h[1]) {
			t.Errorf("%s: hint %q, %v; want @%s", h[0], got, ok, h[1])
		}
	}
}

// checkBatch reads the ticket as a batch of its mode: what it sends and
// leaves out, with the reasons and lines the head states.
func checkBatch(t *testing.T, c corpusTicket, tk *ticket.Ticket) {
	t.Helper()
	dir := ticket.Suppress
	if c.mode == "remove" {
		dir = ticket.Release
	}
	roles := tk.Roles(ticket.NewOwn(c.own))
	var sent, out []string
	byValue := map[string]ticket.Decision{}
	for _, v := range tk.Addresses() {
		d := roles[v].For(dir)
		byValue[v] = d
		if d.Leave {
			out = append(out, v)
		} else {
			sent = append(sent, v)
		}
	}
	if got := sorted(sent); !slices.Equal(got, c.send) {
		t.Errorf("a batch %s sends %v; want %v%s", c.mode, got, c.send, explain(tk, c))
	}
	if got := sorted(out); !slices.Equal(got, c.leave) {
		t.Errorf("a batch %s leaves out %v; want %v%s", c.mode, got, c.leave, explain(tk, c))
	}
	if c.hasRight && slices.Equal(sorted(sent), c.right) {
		t.Errorf("the rule now gets this ticket right (%s): make right: its send: and drop wrong:", c.wrong)
	}
	for _, r := range c.reasons {
		if d := byValue[r[0]]; !strings.Contains(d.Reason, r[1]) {
			t.Errorf("%s: reason %q; want it to say %q", r[0], d.Reason, r[1])
		}
	}
	for _, l := range c.lines {
		d := byValue[l[0]]
		want, err := strconv.Atoi(l[1])
		if err != nil {
			t.Fatalf("line: %s = %q is not a number", l[0], l[1])
		}
		if d.By.Line != want {
			t.Errorf("%s: decided by line %d (%q); want line %d", l[0], d.By.Line, d.By.Text, want)
		}
	}
}

// explain lists the rule's decisions and proposal, for a failure.
func explain(tk *ticket.Ticket, c corpusTicket) string {
	var b strings.Builder
	own := ticket.NewOwn(c.own)
	p := tk.Propose(own)
	fmt.Fprintf(&b, "\n  proposal: %s (%s) by line %d %q; ask %v", p.Mode, p.Why, p.By.Line, p.Words, p.Ask)
	roles := tk.Roles(own)
	for _, v := range tk.Addresses() {
		d := roles[v]
		fmt.Fprintf(&b, "\n  %s: leave %v, requester %v, %s (line %d)", v, d.Leave, d.Requester, d.Reason, d.By.Line)
	}
	return b.String()
}

// The held-out sets, written before the rule was tuned on them: heldout
// before the rule was tuned at all, heldout2 after the first was scored
// and before the rule was changed for it, heldout3 after the rule's last
// change, heldout4 in a later stop before the rule was changed for it (a
// helpdesk agent's note asking for "her address"), and so on to heldout15;
// heldout7 to heldout15 by writers who had read none of the rule. Their score is printed, not required (the goals are in the
// README).
func TestHeldOutScore(t *testing.T) {
	for _, dir := range []string{"heldout", "heldout2", "heldout3", "heldout4", "heldout5", "heldout6", "heldout7", "heldout8", "heldout9", "heldout10", "heldout11", "heldout12", "heldout13", "heldout14", "heldout15", "heldout16", "heldout17", "heldout18", "heldout19", "heldout20", "heldout21", "heldout22", "heldout23", "heldout24", "heldout25", "heldout26", "heldout27", "heldout28", "heldout29", "heldout30", "heldout31", "heldout32", "heldout33", "heldout34", "heldout35", "heldout36", "heldout37", "heldout38", "heldout39", "heldout41", "heldout42", "heldout43", "heldout44", "heldout45", "heldout46", "heldout47", "heldout48", "heldout49", "heldout50", "heldout51", "heldout52", "heldout53", "heldout54", "heldout55", "heldout56", "heldout57", "heldout58", "heldout59", "heldout60", "heldout61", "heldout62", "heldout63", "heldout64", "heldout65", "heldout66", "heldout67", "heldout68", "heldout69", "heldout70", "heldout71", "heldout72", "heldout73", "heldout74", "heldout75", "heldout76", "heldout77", "heldout78", "heldout79", "heldout80", "heldout81", "heldout82", "heldout83", "heldout84", "heldout85", "heldout86", "heldout87", "heldout88", "heldout89", "heldout90", "heldout91", "heldout92", "heldout93", "heldout94", "heldout95", "heldout96", "heldout97", "heldout98", "heldout99", "heldout100", "heldout101", "heldout102"} {
		corpus := loadCorpus(t, dir)
		byFamily, byLang := tally{}, tally{}
		var lines []string
		for _, c := range corpus {
			r := ticket.Read(c.text).Reading(ticket.NewOwn(c.own))
			o, why := score(c, r)
			byFamily.add(c.family, o)
			byLang.add(c.lang, o)
			lines = append(lines, fmt.Sprintf("%-5s %s: %s", []string{"right", "safe", "WRONG"}[o], c.name, why))
		}
		t.Logf("%s: %d tickets\n%s\n\n%s\n%s", dir, len(corpus), strings.Join(lines, "\n"), byFamily.table("family"), byLang.table("language"))
	}
}
