package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"iter"
	"slices"
	"strings"
)

// Input is an input read and planned in one pass (ReadPlan): what a run
// of it sends, in compact form, and what it leaves out. It is the Plan of
// a file of millions of entries without an item per line: only the
// distinct values, the invalid entries and those left out are kept, so
// that its memory follows the distinct values, not the lines.
type Input struct {
	Mode   Mode
	Format Format
	// Entries counts the entries read: to send, duplicate, invalid or
	// left out.
	Entries int
	// Invalid holds the entries that cannot be sent, with line and reason.
	Invalid []Item
	// Duplicates counts the entries of the plan repeated after their first
	// occurrence.
	Duplicates int
	// LeftOut holds the valid entries that must not be sent (see
	// LeaveOut), in input order.
	LeftOut []LeftOut

	values *valueSet // nil once released
	n      int
}

// ReadPlan reads an input as Read does and plans it as LeaveOut then
// NewPlan would plan all of its items (our own addresses left out, and a
// ticket's requester unless includeRequester; then de-duplicated, first
// occurrence first), in one pass that keeps no item for a valid entry.
func ReadPlan(r io.Reader, name string, mode Mode, own Own, includeRequester bool) (*Input, error) {
	p := &planner{in: &Input{Mode: mode, values: newValueSet()}, own: own, takeIn: includeRequester}
	f, err := scan(r, name, mode, p.add, func(lines int) {
		// A list or a CSV has at most an entry a line: the table never
		// grows (and never holds two copies of itself) on the way.
		p.in.values.reserve(lines)
	})
	if err != nil {
		return nil, err
	}
	p.in.Format = f
	p.finish()
	return p.in, nil
}

// Len is the number of values the plan sends.
func (in *Input) Len() int { return in.n }

// Batches is the number of requests the plan takes.
func (in *Input) Batches() int { return BatchCount(in.n) }

// Values lists the values in plan order.
func (in *Input) Values() iter.Seq[string] {
	return func(yield func(string) bool) {
		in.held().each(func(v []byte) bool { return yield(string(v)) })
	}
}

// Plan is the whole plan as a Plan, every value a string: for an input
// small enough to hold so.
func (in *Input) Plan() Plan {
	p := Plan{Mode: in.Mode, Values: make([]string, 0, in.n), Invalid: in.Invalid, LeftOut: in.LeftOut, Duplicates: in.Duplicates}
	for v := range in.Values() {
		p.Values = append(p.Values, v)
	}
	return p
}

// Sum identifies the plan's values as Sum does.
func (in *Input) Sum() string {
	h := sha256.New()
	in.held().each(func(v []byte) bool {
		h.Write(v)
		h.Write([]byte{'\n'})
		return true
	})
	return hex.EncodeToString(h.Sum(nil))
}

// Release lets go of the values; the counts and the entries left out stay.
func (in *Input) Release() { in.values = nil }

func (in *Input) held() *valueSet {
	if in.values == nil {
		panic("batch: the values of an Input were used after Release")
	}
	return in.values
}

func (in *Input) head() planHead {
	return planHead{mode: in.Mode, entries: in.Len(), invalid: len(in.Invalid), leftOut: len(in.LeftOut), duplicates: in.Duplicates, sum: in.Sum()}
}

// whole is the plan as one Plan; the values are let go.
func (in *Input) whole() Plan {
	defer in.Release()
	return in.Plan()
}

// record writes each segment's journal from the compact values, with one
// buffer for all, and lets go of the values as they are written: in keeps
// its counts, and a run of it holds one segment at a time.
func (in *Input) record(ri *RunInfo, size int) error {
	defer in.Release()
	var line []byte
	next, stop := iter.Pull(in.held().values(true))
	defer stop()
	for i := range ri.Segments {
		rec := planRecordOf(Plan{Mode: in.Mode}, ri.Target)
		if i == 0 {
			rec.Invalid, rec.LeftOut, rec.Duplicates = in.Invalid, in.LeftOut, in.Duplicates
		}
		seg := func(yield func([]byte) bool) {
			for range size {
				v, ok := next()
				if !ok || !yield(v) {
					return
				}
			}
		}
		var err error
		if line, err = appendPlanRecord(line[:0], rec, seg); err != nil {
			return err
		}
		j, err := createJournalWith(ri.segmentPath(i), line)
		if err != nil {
			return err
		}
		if err := j.close(); err != nil {
			return err
		}
	}
	return nil
}

// planner builds an Input from the items of a scan as they come, to the
// same plan as LeaveOut and NewPlan make of all of them.
type planner struct {
	in     *Input
	own    Own
	takeIn bool // includeRequester
	seq    int  // items so far: the left-out go back in input order
	left   []leftAt
	// zoned holds the addresses a ticket has named only outside its body
	// so far: they go if the body names them too, else they are left out
	// with the zone of their first occurrence (Reasons).
	zoned map[string]*zoned
}

type leftAt struct {
	seq int
	LeftOut
}

type zoned struct {
	off   uint64 // where the value is kept, in order of its first occurrence
	items []leftAt
}

func (p *planner) add(it Item) {
	in := p.in
	in.Entries++
	seq := p.seq
	p.seq++
	if !it.Valid() {
		in.Invalid = append(in.Invalid, cloneItem(it))
		return
	}
	v := it.Value
	if strings.Contains(v, "@") { // an ID is never left out
		if !p.own.Empty() && p.own.Has(v) {
			p.left = append(p.left, leftAt{seq, LeftOut{Item: cloneItem(it), Reason: ReasonOwn}})
			return
		}
		if !p.takeIn && (it.Zone != "" || len(p.zoned) > 0) && p.addZoned(it, seq) {
			return
		}
	}
	if _, added := in.values.add(v); !added {
		in.Duplicates++
	}
}

// addZoned follows an address of a ticket named outside its body, or one
// so far named only there; it reports false for an address it leaves to
// the plan.
func (p *planner) addZoned(it Item, seq int) bool {
	v := it.Value
	if z, ok := p.zoned[v]; ok {
		if it.Zone == "" {
			// The body names it: it goes, from its first occurrence on; the
			// occurrences since are duplicates.
			delete(p.zoned, v)
			p.in.Duplicates += len(z.items)
			return true
		}
		z.items = append(z.items, leftAt{seq, LeftOut{Item: cloneItem(it), Reason: z.items[0].Reason}})
		return true
	}
	if it.Zone == "" {
		return false
	}
	off, added := p.in.values.add(v)
	if !added {
		p.in.Duplicates++ // the body named it before
		return true
	}
	if p.zoned == nil {
		p.zoned = map[string]*zoned{}
	}
	p.zoned[v] = &zoned{off: off, items: []leftAt{{seq, LeftOut{Item: cloneItem(it), Reason: it.Zone}}}}
	return true
}

// finish leaves out the addresses named only outside a ticket's body and
// lets go of the table.
func (p *planner) finish() {
	for _, z := range p.zoned {
		p.in.values.drop(z.off)
		p.left = append(p.left, z.items...)
	}
	slices.SortFunc(p.left, func(a, b leftAt) int { return a.seq - b.seq })
	for _, l := range p.left {
		p.in.LeftOut = append(p.in.LeftOut, l.LeftOut)
	}
	p.in.values.done()
	p.in.n = p.in.values.n
}

// cloneItem copies the item's strings: the reader's may share memory with
// the rest of a line or record.
func cloneItem(it Item) Item {
	it.Raw, it.Value = strings.Clone(it.Raw), strings.Clone(it.Value)
	return it
}
