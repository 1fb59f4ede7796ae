package ticket_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
)

// leaveOut is what a batch going dir makes of a ticket: the addresses it
// sends and the decisions about those it leaves out, ov turning the
// rule's around.
func leaveOut(tk *ticket.Ticket, own ticket.Own, dir ticket.Direction, ov ticket.Override) (send []string, left map[string]ticket.Decision) {
	roles := tk.Roles(own)
	left = map[string]ticket.Decision{}
	for _, v := range tk.Addresses() {
		d := ov.Apply(roles[v].For(dir))
		if d.Leave {
			left[v] = d
		} else {
			send = append(send, v)
		}
	}
	slices.Sort(send)
	return send, left
}

func keys(m map[string]ticket.Decision) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// The overrides turn the rule's decisions around for a whole input, never
// for our own addresses; a flip by hand turns one around and back.
func TestOverridesAndFlips(t *testing.T) {
	own := ticket.NewOwn([]string{"@ourcompany.test"})
	tk := ticket.Read(overrideTicket)
	for _, tc := range []struct {
		ov         ticket.Override
		send, left []string
	}{
		{ticket.ByRule, []string{"bob@lists.example", "jane@customer.example", "tom@customer.example"}, []string{"jane.private@mail.example", "support@ourcompany.test"}},
		{ticket.TakeInAll, []string{"bob@lists.example", "jane.private@mail.example", "jane@customer.example", "tom@customer.example"}, []string{"support@ourcompany.test"}},
		{ticket.LeaveOutPeople, []string{"bob@lists.example"}, []string{"jane.private@mail.example", "jane@customer.example", "support@ourcompany.test", "tom@customer.example"}},
	} {
		send, left := leaveOut(tk, own, ticket.Suppress, tc.ov)
		for v, d := range left {
			if tc.ov != ticket.ByRule && !d.Fixed() && d.Overridden == "" && d.Reason != ticket.ReasonSignature {
				t.Errorf("override %d: %s left out without saying who overrode: %+v", tc.ov, v, d)
			}
		}
		if !slices.Equal(send, tc.send) || !slices.Equal(keys(left), tc.left) {
			t.Errorf("override %d sends %v and leaves out %v; want %v and %v", tc.ov, send, keys(left), tc.send, tc.left)
		}
	}
}

// overrideTicket names a requester who asks for themselves and their
// colleague, an address in the words, one in the signature and our own.
const overrideTicket = "From: jane@customer.example\nTo: support@ourcompany.test\nCc: tom@customer.example\n\n" +
	"Please unsubscribe me and my colleague (cc'd), and bob@lists.example.\n\nThanks,\nJane\njane.private@mail.example\n"

// The address the ticket was sent to is ours without a config: it stays
// out whatever the override.
func TestSentToStaysOut(t *testing.T) {
	bare := ticket.Read("From: kim@customer.example\nTo: help@support.example\n\nunsubscribe me\n")
	send, left := leaveOut(bare, ticket.Own{}, ticket.Suppress, ticket.TakeInAll)
	if d, ok := left["help@support.example"]; len(left) != 1 || !ok || len(send) != 1 || !d.Fixed() || !d.Flip().Leave {
		t.Errorf("the address the ticket was sent to, taken in: send %v, left %+v", send, left)
	}
}

// A flip by hand turns a decision around and back; our own address and
// one the words name do not flip.
func TestFlips(t *testing.T) {
	roles := ticket.Read(overrideTicket).Roles(ticket.NewOwn([]string{"@ourcompany.test"}))
	if f := roles["support@ourcompany.test"].Flip(); !f.Leave || f.Overridden != "" {
		t.Errorf("our own address flipped: %+v", f)
	}
	d := roles["jane@customer.example"].For(ticket.Suppress)
	f := d.Flip()
	if !f.Leave || f.Overridden != "left out by hand" || f.Reason != d.Reason || f.By != d.By {
		t.Errorf("the requester flipped: %+v", f)
	}
	if back := f.Flip(); back != d {
		t.Errorf("flipped twice: %+v; want %+v", back, d)
	}
	if d, ok := roles["bob@lists.example"]; ok || d.Flip() != d {
		t.Errorf("an address the words name has a decision: %+v", d)
	}
}

// For weighs which way the requester asks against the batch's direction:
// the same ticket sends them in one and leaves them out in the other,
// with the line that says so.
func TestDecisionForDirection(t *testing.T) {
	text := "From: omar@customer.example\n\nI unsubscribed by mistake. Please put me back.\n"
	r := ticket.Read(text).Roles(ticket.Own{})["omar@customer.example"]
	if r.Leave || !r.Requester || r.By.Line != 3 {
		t.Fatalf("the role: %+v", r)
	}
	if d := r.For(ticket.Release); d.Leave || d.Reason != ticket.ReasonRequesterAsks {
		t.Errorf("remove: %+v", d)
	}
	if d := r.For(ticket.Suppress); !d.Leave || d.Reason != "the requester "+ticket.ReasonWantsMail || d.By.Line != 3 {
		t.Errorf("add: %+v", d)
	}
}

// BenchmarkTicketCorpus reads every ticket of the corpus as a paste is read
// (Read, then the proposal and the rule) and reports the time per ticket.
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
	own := ticket.NewOwn([]string{"@ourcompany.test"})
	for b.Loop() {
		for _, text := range texts {
			tk := ticket.Read(text)
			_ = tk.Propose(own)
			_ = tk.Roles(own)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*len(texts)), "µs/ticket")
}
