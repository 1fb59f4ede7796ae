package batch_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// corpusTicket is one ticket of testdata/tickets: a head of "key: value"
// lines, a line "====", then the ticket's text. The head says:
//
//	class:     what kind of ticket it is (the README lists the classes)
//	mode:      add or remove (remove by address)
//	own:       the config's own list, comma-separated
//	send:      exactly the addresses a batch sends, comma-separated ("" for none)
//	leave:     exactly the addresses it leaves out
//	requester: the address the rule takes for the requester, or "none"
//	reason:    ADDRESS = words the reason for it holds (repeatable)
//	line:      ADDRESS = the ticket line that decided it (repeatable)
//	right:     for a ticket the rule gets wrong: what it should send,
//	           comma-separated; send and leave say what it does now
//	wrong:     why (a ticket with right: needs it)
type corpusTicket struct {
	name, class, text  string
	mode               batch.Mode
	own                []string
	send, leave, right []string
	requester          string
	hasRight           bool
	reasons            [][2]string
	lines              [][2]string
	wrong              string
}

func loadCorpus(t *testing.T) []corpusTicket {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "tickets", "*.txt"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tickets in testdata/tickets: %v", err)
	}
	var out []corpusTicket
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, text, ok := strings.Cut(string(b), "\n====\n")
		if !ok {
			t.Fatalf("%s: no line ==== between the head and the ticket", f)
		}
		c := corpusTicket{name: filepath.Base(f), text: text, requester: "?"}
		sawSend, sawLeave := false, false
		for i, l := range strings.Split(head, "\n") {
			key, val, ok := strings.Cut(l, ":")
			val = strings.TrimSpace(val)
			if !ok {
				t.Fatalf("%s:%d: not a key: value line: %q", f, i+1, l)
			}
			switch key {
			case "class":
				c.class = val
			case "mode":
				switch val {
				case "add":
					c.mode = batch.Add
				case "remove":
					c.mode = batch.RemoveEmails
				default:
					t.Fatalf("%s: mode %q", f, val)
				}
			case "own":
				c.own = list(val)
			case "send":
				c.send, sawSend = list(val), true
			case "leave":
				c.leave, sawLeave = list(val), true
			case "right":
				c.right, c.hasRight = list(val), true
			case "requester":
				c.requester = val
			case "reason", "line":
				a, w, ok := strings.Cut(val, "=")
				if !ok {
					t.Fatalf("%s: %s needs ADDRESS = TEXT", f, key)
				}
				p := [2]string{strings.TrimSpace(a), strings.TrimSpace(w)}
				if key == "reason" {
					c.reasons = append(c.reasons, p)
				} else {
					c.lines = append(c.lines, p)
				}
			case "wrong":
				c.wrong = val
			default:
				t.Fatalf("%s:%d: unknown key %q", f, i+1, key)
			}
		}
		if c.class == "" || !sawSend || !sawLeave || c.hasRight != (c.wrong != "") {
			t.Fatalf("%s: a ticket needs class, send and leave (and right with wrong)", f)
		}
		out = append(out, c)
	}
	return out
}

func list(s string) []string {
	var out []string
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
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

// The rule over the corpus: each ticket sends exactly its targets and
// leaves out exactly its left-out set, the same from a paste (ParseText,
// Decide) and from a file read in one pass (ReadPlan), with the reason and
// the deciding line the ticket states.
func TestTicketCorpus(t *testing.T) {
	corpus := loadCorpus(t)
	if len(corpus) < 40 {
		t.Errorf("the corpus has %d tickets; it is to have at least 40", len(corpus))
	}
	classes := map[string]int{}
	for _, c := range corpus {
		classes[c.class]++
		t.Run(strings.TrimSuffix(c.name, ".txt"), func(t *testing.T) {
			own := batch.NewOwn(c.own)
			items := batch.ParseText(c.text, c.mode)
			decisions := batch.Decide(items, own, c.mode)
			keep, left := batch.LeaveOut(items, own, c.mode, batch.ByRule)
			sent := batch.NewPlan(c.mode, keep).Values
			var out []string
			for _, l := range left {
				out = append(out, l.Value)
			}
			explain := func() string {
				var b strings.Builder
				seen := map[string]bool{}
				for i, d := range decisions {
					if v := items[i].Value; d.Decided() && !seen[v] {
						seen[v] = true
						fmt.Fprintf(&b, "\n  %s: leave %v, requester %v, %s (line %d: %q)", v, d.Leave, d.Requester, d.Reason, d.By.Line, d.By.Text)
					}
				}
				return b.String()
			}
			if got := sorted(sent); !slices.Equal(got, c.send) {
				t.Errorf("sends %v; want %v%s", got, c.send, explain())
			}
			if got := sorted(out); !slices.Equal(got, c.leave) {
				t.Errorf("leaves out %v; want %v%s", got, c.leave, explain())
			}
			if c.hasRight && slices.Equal(sorted(sent), c.right) {
				t.Errorf("the rule now gets this ticket right (%s): make right: its send: and drop wrong:", c.wrong)
			}
			byValue := map[string]batch.Decision{}
			requester := "none"
			for i, d := range decisions {
				if _, ok := byValue[items[i].Value]; !ok {
					byValue[items[i].Value] = d
				}
				if d.Requester {
					requester = items[i].Value
				}
			}
			if c.requester != "?" && requester != c.requester {
				t.Errorf("requester %s; want %s%s", requester, c.requester, explain())
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
				} else if lines := strings.Split(c.text, "\n"); d.By.Text == "" || !strings.Contains(strings.ToLower(lines[want-1]), strings.Fields(strings.ToLower(d.By.Text))[0]) {
					t.Errorf("%s: the evidence %q is not line %d, %q", l[0], d.By.Text, want, lines[want-1])
				}
			}
			// The command line reads the ticket as a file, in one pass.
			in, err := batch.ReadPlan(strings.NewReader(c.text), c.name, c.mode, own, batch.ByRule)
			if err != nil {
				t.Fatal(err)
			}
			if got := sorted(slices.Collect(in.Values())); !slices.Equal(got, sorted(sent)) {
				t.Errorf("ReadPlan sends %v; the paste %v", got, sorted(sent))
			}
		})
	}
	if testing.Verbose() {
		for k, n := range classes {
			t.Logf("class %q: %d tickets", k, n)
		}
	}
}

// The overrides turn the rule's decisions around for a whole input, never
// for our own addresses; a flip by hand turns one around and back.
func TestOverridesAndFlips(t *testing.T) {
	text := "From: jane@customer.example\nTo: support@ourcompany.test\nCc: tom@customer.example\n\n" +
		"Please unsubscribe me and my colleague (cc'd), and bob@lists.example.\n\nThanks,\nJane\njane.private@mail.example\n"
	own := batch.NewOwn([]string{"@ourcompany.test"})
	items := batch.ParseText(text, batch.Add)
	for _, tc := range []struct {
		ov         batch.Override
		send, left []string
	}{
		{batch.ByRule, []string{"bob@lists.example", "jane@customer.example", "tom@customer.example"}, []string{"jane.private@mail.example", "support@ourcompany.test"}},
		{batch.TakeInAll, []string{"bob@lists.example", "jane.private@mail.example", "jane@customer.example", "tom@customer.example"}, []string{"support@ourcompany.test"}},
		{batch.LeaveOutPeople, []string{"bob@lists.example"}, []string{"jane.private@mail.example", "jane@customer.example", "support@ourcompany.test", "tom@customer.example"}},
	} {
		keep, left := batch.LeaveOut(items, own, batch.Add, tc.ov)
		var out []string
		for _, l := range left {
			out = append(out, l.Value)
			if tc.ov != batch.ByRule && !l.Fixed() && l.Overridden == "" && l.Reason != batch.ReasonSignature {
				t.Errorf("override %d: %s left out without saying who overrode: %+v", tc.ov, l.Value, l.Decision)
			}
		}
		if got := sorted(batch.NewPlan(batch.Add, keep).Values); !slices.Equal(got, tc.send) {
			t.Errorf("override %d sends %v; want %v", tc.ov, got, tc.send)
		}
		if got := sorted(out); !slices.Equal(got, tc.left) {
			t.Errorf("override %d leaves out %v; want %v", tc.ov, got, tc.left)
		}
	}

	// The address the ticket was sent to is ours without a config: it
	// stays out whatever the override.
	bare := batch.ParseText("From: kim@customer.example\nTo: help@support.example\n\nunsubscribe me\n", batch.Add)
	if keep, left := batch.LeaveOut(bare, batch.Own{}, batch.Add, batch.TakeInAll); len(left) != 1 || left[0].Value != "help@support.example" ||
		len(keep) != 1 || !left[0].Fixed() || left[0].Flip().Leave != true {
		t.Errorf("the address the ticket was sent to, taken in: keep %v, left %+v", keep, left)
	}

	ds := batch.Decide(items, own, batch.Add)
	for i, d := range ds {
		switch items[i].Value {
		case "support@ourcompany.test":
			if f := d.Flip(); !f.Leave || f.Overridden != "" {
				t.Errorf("our own address flipped: %+v", f)
			}
		case "jane@customer.example":
			f := d.Flip()
			if !f.Leave || f.Overridden != "left out by hand" || f.Reason != d.Reason || f.By != d.By {
				t.Errorf("the requester flipped: %+v", f)
			}
			if back := f.Flip(); back != d {
				t.Errorf("flipped twice: %+v; want %+v", back, d)
			}
		case "bob@lists.example":
			if d.Decided() || d.Flip() != d {
				t.Errorf("an address the words name has a decision: %+v", d)
			}
		}
	}
}

// For weighs which way the requester asks against the batch's mode: the
// same ticket sends them in one mode and leaves them out in the other,
// with the line that says so.
func TestDecisionForMode(t *testing.T) {
	text := "From: omar@customer.example\n\nI unsubscribed by mistake. Please put me back.\n"
	roles := batch.Roles(batch.ParseText(text, batch.Add), batch.Own{})
	r := roles[0]
	if r.Leave || !r.Requester || r.By.Line != 3 {
		t.Fatalf("the role: %+v", r)
	}
	if d := r.For(batch.RemoveEmails); d.Leave || d.Reason != batch.ReasonRequesterAsks {
		t.Errorf("remove: %+v", d)
	}
	if d := r.For(batch.Add); !d.Leave || d.Reason != "the requester "+batch.ReasonWantsMail || d.By.Line != 3 {
		t.Errorf("add: %+v", d)
	}
}

// BenchmarkTicketCorpus reads every ticket of the corpus as a paste is read
// (ParseText, then the rule) and reports the time per ticket.
func BenchmarkTicketCorpus(b *testing.B) {
	files, _ := filepath.Glob(filepath.Join("testdata", "tickets", "*.txt"))
	var texts []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			b.Fatal(err)
		}
		_, text, _ := strings.Cut(string(data), "\n====\n")
		texts = append(texts, text)
	}
	own := batch.NewOwn([]string{"@ourcompany.test"})
	for b.Loop() {
		for _, text := range texts {
			items := batch.ParseText(text, batch.Add)
			_ = batch.Decide(items, own, batch.Add)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/ticket")
}
