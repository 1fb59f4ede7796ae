package batch_test

import (
	"reflect"
	"testing"

	"github.com/shushlist/shush/batch"
)

// A ticket as support receives it: forwarded headers, a request in the
// body, a signature, and a quoted earlier mail with its attribution.
const ticket = `From: Jane Doe <jane@customer.example>
To: support@ourcompany.test
Cc: ops@customer.example
Subject: please stop mailing these

Hi team,

Please suppress bounce1@lists.example and Bounce2@Lists.Example, and
also my colleague ops@customer.example who asked to be left alone.

Thanks,
Jane Doe
Head of Email, Customer Inc.
jane@customer.example | +1 555 0100

On Mon, 2 Nov 2026 at 10:00, Sam <sam@ourcompany.test> wrote:
> Could you send the addresses? Reply to help@ourcompany.test.
> Also complained@lists.example was mentioned.
`

// requesters runs the rule on text and returns what it leaves out as a
// requester, with the reason.
func requesters(text string) map[string]string {
	_, out := batch.LeaveOut(batch.ParseText(text, batch.Add), batch.NewOwn(nil), false)
	got := map[string]string{}
	for _, l := range out {
		if _, dup := got[l.Value]; !dup {
			got[l.Value] = l.Reason
		}
	}
	return got
}

func TestRequestersAreOnlyOutsideTheBody(t *testing.T) {
	got := requesters(ticket)
	want := map[string]string{
		"jane@customer.example":   batch.ReasonHeader,
		"support@ourcompany.test": batch.ReasonHeader,
		"sam@ourcompany.test":     batch.ReasonAttribute,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("requesters:\n got %v\nwant %v", got, want)
	}
}

func TestLeaveOutKeepsBodyDropsOwnAndRequesters(t *testing.T) {
	items := batch.ParseText(ticket, batch.Add)
	own := batch.NewOwn([]string{"@ourcompany.test"})
	keep, out := batch.LeaveOut(items, own, false)
	plan := batch.NewPlan(batch.Add, keep)
	// ops@ is first seen in the Cc line; it is kept because the body names it too.
	wantSent := []string{"ops@customer.example", "bounce1@lists.example", "bounce2@lists.example", "complained@lists.example"}
	if !reflect.DeepEqual(plan.Values, wantSent) {
		t.Errorf("sent %v; want %v", plan.Values, wantSent)
	}
	reasons := map[string]string{}
	for _, l := range out {
		if _, dup := reasons[l.Value]; !dup {
			reasons[l.Value] = l.Reason
		}
	}
	wantOut := map[string]string{
		"jane@customer.example":   batch.ReasonHeader,
		"support@ourcompany.test": batch.ReasonOwn,
		"sam@ourcompany.test":     batch.ReasonOwn,
		"help@ourcompany.test":    batch.ReasonOwn,
	}
	if !reflect.DeepEqual(reasons, wantOut) {
		t.Errorf("left out:\n got %v\nwant %v", reasons, wantOut)
	}
	for _, l := range out {
		if l.Line == 0 || l.Raw == "" {
			t.Errorf("left-out entry lost its place: %+v", l)
		}
	}

	// Taking the requester in keeps our own addresses out all the same.
	keep, out = batch.LeaveOut(items, own, true)
	plan = batch.NewPlan(batch.Add, keep)
	if !contains(plan.Values, "jane@customer.example") {
		t.Errorf("--include-requester: jane not sent: %v", plan.Values)
	}
	for _, l := range out {
		if l.Reason != batch.ReasonOwn {
			t.Errorf("--include-requester still leaves out %+v", l)
		}
	}
}

func TestRequestersEdgeShapes(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       map[string]string
	}{
		{"plain list has no requester", "a@x.example\nb@x.example\n", nil},
		{"a signature in a plain list is not a thing", "thanks\na@x.example\n", nil},
		{"address in header and body is kept",
			"From: a@x.example\n\nPlease remove a@x.example from the list.\n", map[string]string{}},
		{"attribution over two lines",
			"please remove c@y.example\n\nOn Tue, 3 Nov 2026, Bob Roe <bob@x.example>\nwrote:\n> hello\n",
			map[string]string{"bob@x.example": batch.ReasonAttribute}},
		{"sig delimiter",
			"block c@y.example please\n-- \nBob Roe\nbob@x.example\n",
			map[string]string{"bob@x.example": batch.ReasonSignature}},
		{"blank line ends a signature",
			"Thanks\nBob\n\nd@y.example e@y.example\n", map[string]string{}},
		{"quoted header lines count as headers",
			"remove c@y.example\n> From: Bob <bob@x.example>\n> Sent: today\n",
			map[string]string{"bob@x.example": batch.ReasonHeader}},
		{"a closing word inside a sentence is body",
			"Thanks, please block d@y.example\n", map[string]string{}},
	} {
		got := requesters(tc.text)
		if len(got) == 0 && len(tc.want) == 0 {
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %v; want %v", tc.name, got, tc.want)
		}
	}
}

func TestOwnMatchesAddressesAndDomains(t *testing.T) {
	own := batch.NewOwn([]string{"@OurCompany.test", "x@y.z", "partner.example", " "})
	for addr, want := range map[string]bool{
		"a@ourcompany.test":      true,
		"a@eu.ourcompany.test":   true,
		"a@notourcompany.test":   false,
		"x@y.z":                  true,
		"w@y.z":                  false,
		"p@partner.example":      true,
		"p@partner.example.evil": false,
	} {
		if got := own.Has(addr); got != want {
			t.Errorf("Has(%q) = %v; want %v", addr, got, want)
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
