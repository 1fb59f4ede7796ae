package batch_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// The plan ReadPlan makes in one pass must be the plan of all the items:
// the rule's decisions (ticket.Ticket.Roles, for a free text) applied to
// each, then NewPlan.
func wantPlan(t testing.TB, in, name string, mode batch.Mode, own ticket.Own, ov ticket.Override) (batch.Plan, []batch.LeftOut, []ticket.Decided, int, batch.Format, error) {
	t.Helper()
	items, f, err := batch.ReadFormat(strings.NewReader(in), name, mode)
	if err != nil {
		return batch.Plan{}, nil, nil, 0, f, err
	}
	var tk *ticket.Ticket
	if f == batch.Text {
		tk = ticket.Read(strings.TrimPrefix(in, "\uFEFF"))
	}
	keep, left, decided := leaveOut(items, tk, own, mode, ov)
	return batch.NewPlan(mode, keep), left, decided, len(items), f, nil
}

// leaveOut sets aside the valid items the rule leaves out: our own
// addresses, and whom the ticket (nil for a list) is not about; ov turns
// its decisions around. It returns the items to plan, those left out and
// the decisions, in order of first occurrence.
func leaveOut(items []batch.Item, tk *ticket.Ticket, own ticket.Own, mode batch.Mode, ov ticket.Override) ([]batch.Item, []batch.LeftOut, []ticket.Decided) {
	var roles map[string]ticket.Decision
	if tk != nil {
		roles = tk.Roles(own)
	}
	var keep []batch.Item
	var left []batch.LeftOut
	var decided []ticket.Decided
	seen := map[string]bool{}
	ours := map[string]ticket.Decision{}
	for _, it := range items {
		var d ticket.Decision
		switch {
		case !it.Valid() || !strings.Contains(it.Value, "@"):
		case own.Has(it.Value):
			if _, ok := ours[it.Value]; !ok {
				ours[it.Value] = tk.OwnDecision(it.Line) // all its occurrences get the first's
			}
			d = ours[it.Value]
		default:
			d = ov.Apply(roles[it.Value].For(mode.Direction()))
		}
		if d.Decided() && !seen[it.Value] {
			seen[it.Value] = true
			decided = append(decided, ticket.NewDecided(it.Value, d))
		}
		if !d.Leave {
			keep = append(keep, it)
			continue
		}
		left = append(left, batch.LeftOut{Item: it, Decision: d})
	}
	return keep, left, decided
}

func samePlan(t testing.TB, label, in, name string, mode batch.Mode, own ticket.Own, ov ticket.Override) {
	t.Helper()
	plan, left, decisions, entries, format, werr := wantPlan(t, in, name, mode, own, ov)
	got, err := batch.ReadPlan(strings.NewReader(in), name, mode, own, ov)
	if (err == nil) != (werr == nil) || err != nil && err.Error() != werr.Error() {
		t.Fatalf("%s: error %v; want %v", label, err, werr)
	}
	if err != nil {
		return
	}
	values := slices.Collect(got.Values())
	if !slices.Equal(values, plan.Values) || got.Len() != len(plan.Values) {
		t.Fatalf("%s: values %q (len %d); want %q", label, values, got.Len(), plan.Values)
	}
	if got.Duplicates != plan.Duplicates || got.Entries != entries || got.Format != format || got.Mode != mode {
		t.Fatalf("%s: duplicates %d, entries %d, format %v; want %d, %d, %v", label, got.Duplicates, got.Entries, got.Format,
			plan.Duplicates, entries, format)
	}
	if len(got.Invalid) != len(plan.Invalid) || len(got.Invalid) > 0 && !reflect.DeepEqual(got.Invalid, plan.Invalid) {
		t.Fatalf("%s: invalid %+v; want %+v", label, got.Invalid, plan.Invalid)
	}
	if len(got.LeftOut) != len(left) || len(left) > 0 && !reflect.DeepEqual(got.LeftOut, left) {
		t.Fatalf("%s: left out %+v; want %+v", label, got.LeftOut, left)
	}
	if len(got.Decisions) != len(decisions) || len(decisions) > 0 && !reflect.DeepEqual(got.Decisions, decisions) {
		t.Fatalf("%s: decisions %+v; want %+v", label, got.Decisions, decisions)
	}
	if got.Sum() != batch.Sum(plan.Values) {
		t.Fatalf("%s: sum differs from the plan's", label)
	}
	p := got.Plan()
	if !slices.Equal(p.Values, plan.Values) || p.Duplicates != plan.Duplicates || len(p.Invalid) != len(plan.Invalid) {
		t.Fatalf("%s: Plan() %+v; want %+v", label, p, plan)
	}
}

func TestReadPlanIsThePlanOfAllItems(t *testing.T) {
	text := "From: Jane Requester <jane@customer.example>\n" +
		"To: support@ourco.example\n\n" +
		"Please remove bob@example.org, Bob@Example.org and carol@example.net.\n" +
		"Also x@@bad and support@ourco.example.\n" +
		"On Mon, Dave <dave@example.com>\nwrote:\n" +
		"> jane@customer.example asked too? no: erin@example.com\n" +
		"Thanks,\nFrank frank@sig.example\nfrank@sig.example\n" +
		"Later in the body: dave@example.com\n"
	for _, tc := range []struct{ name, file, in string }{
		{"list with duplicates and invalid lines", "list.txt", "email\nA@example.com\na@example.com \n\nnope\nb@example.com\r\nA@EXAMPLE.COM\n"},
		{"ticket", "ticket.txt", text},
		{"ticket twice", "ticket.txt", text + text},
		{"CSV", "x.csv", "name,email\nJane,jane@example.com\nBob,\nOwn,help@ourco.example\nJane,JANE@example.com\n"},
		{"JSON", "x.json", `["a@example.com", null, "A@example.com", "help@sub.ourco.example", 7]`},
		{"JSON body", "b.json", `{"emails": ["a@example.com", "b@example.com", "a@example.com"]}`},
		{"nothing valid", "x.txt", "nope\nnada\n"},
		{"broken JSON", "x.json", "[\"a@example.com\",\n}"},
	} {
		for _, own := range [][]string{nil, {"@ourco.example", "frank@sig.example"}} {
			for _, ov := range []ticket.Override{ticket.ByRule, ticket.TakeInAll, ticket.LeaveOutPeople} {
				for _, mode := range []batch.Mode{batch.Add, batch.RemoveEmails} {
					label := fmt.Sprintf("%s (own %v, override %v, %v)", tc.name, own, ov, mode)
					samePlan(t, label, tc.in, tc.file, mode, ticket.NewOwn(own), ov)
				}
			}
		}
	}
	samePlan(t, "IDs", id1+"\n"+strings.ToUpper(id1)+"\nxyz\n"+id2+"\n", "ids.txt", batch.RemoveIDs, ticket.NewOwn(nil), ticket.ByRule)
}

func FuzzReadPlan(f *testing.F) {
	for _, seed := range []string{
		"a@example.com\nb@example.com\r\nA@example.com\n",
		`["a@example.com", null, 1, "a@example.com"]`,
		"name,email\nJane,jane@example.com\n",
		"From: j@x.org\n\nplease remove j@x.org and k@y.org\n-- \nk@y.org\n",
		"On Mon, Jane <j@x.org>\nwrote:\n> remove a@b.co\n",
		"Thanks\nme@ourco.example\nBob bob@x.org\n\nbob@x.org",
	} {
		f.Add([]byte(seed), "in.txt", uint8(0), uint8(0))
	}
	own := ticket.NewOwn([]string{"@ourco.example"})
	f.Fuzz(func(t *testing.T, data []byte, name string, m, ov uint8) {
		samePlan(t, "fuzz", string(data), name, batch.Mode(m%3), own, ticket.Override(ov%3))
	})
}

// pipe hides every method but Read: the input cannot be read twice, as
// stdin cannot.
type pipe struct{ r io.Reader }

func (p pipe) Read(b []byte) (int, error) { return p.r.Read(b) }

// eachLine splits s as the reader must: \n, \r\n and \r end a line.
func eachLine(s string, fn func(n int, line string)) {
	n := 0
	for len(s) > 0 {
		n++
		i := strings.IndexAny(s, "\r\n")
		if i < 0 {
			fn(n, s)
			return
		}
		fn(n, s[:i])
		if s[i] == '\r' && i+1 < len(s) && s[i+1] == '\n' {
			i++
		}
		s = s[i+1:]
	}
}

// Inputs are read in chunks; what straddles two (a \r\n, a character of
// several bytes, a line) must read as it does whole, from a file, from
// memory, and from a pipe (a copy in a temporary file beyond 1 MiB).
func TestReadingInChunks(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, tail := range []string{"\r\nb@example.com\r\n", "\rb@example.com\r", "é@example.com\n", "日本@example.com\r\n", "\r\n\r\n"} {
		for _, big := range []int{0, 1 << 20} {
			for pad := 65536 - 4; pad <= 65536+4; pad++ {
				var b strings.Builder
				for b.Len() < big {
					fmt.Fprintf(&b, "u%d@example.com\n", b.Len())
				}
				// The tail starts a few bytes either side of a chunk's end.
				b.WriteString(strings.Repeat("x", pad+big-b.Len()-len("@example.com\n")) + "@example.com\n" + tail)
				in := b.String()
				var want []string
				eachLine(in, func(n int, line string) {
					if line = strings.TrimSpace(line); line != "" {
						// A long line is invalid, and kept cut (batch.ShortRaw).
						want = append(want, fmt.Sprintf("%d %s", n, strings.ToLower(batch.ShortRaw(line))))
					}
				})
				file := filepath.Join(t.TempDir(), "in.txt")
				if err := os.WriteFile(file, []byte(in), 0o600); err != nil {
					t.Fatal(err)
				}
				fh, err := os.Open(file)
				if err != nil {
					t.Fatal(err)
				}
				for k, r := range []io.Reader{strings.NewReader(in), pipe{strings.NewReader(in)}, fh} {
					items, f, err := batch.ReadFormat(r, "in.txt", batch.Add)
					if err != nil || f != batch.Lines {
						t.Fatalf("reader %d, %q at %d: %v, %v", k, tail, pad, f, err)
					}
					var got []string
					for _, it := range items {
						got = append(got, fmt.Sprintf("%d %s", it.Line, strings.ToLower(it.Raw)))
					}
					if !slices.Equal(got, want) {
						t.Fatalf("reader %d, %q at %d: %d lines %q…; want %d", k, tail, pad, len(got), got[max(len(got)-3, 0):], len(want))
					}
				}
				fh.Close()
			}
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) > 0 {
		t.Errorf("temporary files left behind: %v", left)
	}
}

// The errors about bytes name the line even when it is far into a large
// input read from a pipe.
func TestReadingInChunksFindsTheBadLine(t *testing.T) {
	lines := strings.Repeat("a@example.com\r\n", 100_000)
	for _, tc := range []struct{ bad, want string }{
		{"\x00", "in.txt: line 100001: it holds binary data"},
		{"Jos\xe9@example.com", "in.txt: line 100001: it is not UTF-8 text"},
	} {
		_, err := batch.ReadPlan(pipe{strings.NewReader(lines + tc.bad + "\n" + lines)}, "in.txt", batch.Add, ticket.Own{}, ticket.ByRule)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("error %v; want %q", err, tc.want)
		}
	}
	_, err := batch.ReadPlan(pipe{strings.NewReader("[" + strings.Repeat("\"a@example.com\",\n", 100_000) + "}")}, "x.json", batch.Add, ticket.Own{}, ticket.ByRule)
	if want := "x.json: line 100001: invalid character '}'"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %v; want %q", err, want)
	}
}

// A plan read in one pass is recorded and sent segment by segment, as
// the Plan of the same entries is.
func TestStartInput(t *testing.T) {
	svc := startService(t, 100000)
	c := svc.client()
	var b bytes.Buffer
	for i := range 250 {
		fmt.Fprintf(&b, "U%d@example.com\nu%d@example.com\n", i, i)
	}
	b.WriteString("not-an-address\n")
	in, err := batch.ReadPlan(bytes.NewReader(b.Bytes()), "in.txt", batch.Add, ticket.Own{}, ticket.ByRule)
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Collect(in.Values())
	dir := t.TempDir()
	var segs []batch.Report
	rs := &batch.Runs{Client: c, Dir: dir, Source: "cli", SegmentSize: 100}
	ri, err := rs.Start(context.Background(), in, batch.RunMeta{Input: "in.txt"}, batch.Observer{Segment: func(rep batch.Report) { segs = append(segs, rep) }})
	if err != nil {
		t.Fatal(err)
	}
	if ri.State != batch.Finished || ri.Entries != 250 || ri.Segments != 3 || ri.Invalid != 1 || ri.Duplicates != 250 ||
		ri.Counts[batch.Added] != 250 || ri.Sum != batch.Sum(want) {
		t.Fatalf("run %+v", ri)
	}
	var sent []string
	for _, rep := range segs {
		for _, res := range rep.Results {
			sent = append(sent, res.Input)
		}
	}
	if !slices.Equal(sent, want) || len(segs[0].Invalid) != 1 || segs[0].Duplicates != 250 {
		t.Fatalf("segments sent %d entries (%v…), invalid %v", len(sent), sent[:min(3, len(sent))], segs[0].Invalid)
	}
	if got := listed(t, c); len(got) != 250 {
		t.Fatalf("%d listed", len(got))
	}
	if in.Len() != 250 || in.Batches() != 3 {
		t.Fatalf("after recording: len %d, batches %d", in.Len(), in.Batches())
	}
}

// A batch read from a file offers the reference as FindReference does.
func TestReadPlanFindsTheReference(t *testing.T) {
	in, err := batch.ReadPlan(strings.NewReader("From: a@b.example\nSubject: Re: [#5521]\n\nplease remove x@y.example\n"), "mail.txt", batch.Add, ticket.Own{}, ticket.ByRule)
	if err != nil || !in.HasReference || in.Reference.Value != "#5521" || in.Reference.Where() != "the subject, line 2" {
		t.Fatalf("%+v %v", in.Reference, err)
	}
	in, err = batch.ReadPlan(strings.NewReader("email\na@b.example\n"), "TICKET-88-IDS.csv", batch.Add, ticket.Own{}, ticket.ByRule)
	if err != nil || in.Reference.Value != "#88" || in.Reference.Where() != "the file name TICKET-88-IDS.csv" {
		t.Fatalf("%+v %v", in.Reference, err)
	}
}
