package batch

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"iter"
	"slices"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

// Input is the plan of a run: what it sends, in compact form, and what it
// leaves out. It is an input read and planned in one pass (ReadPlanAs), or
// items already read (NewInput). A file of millions of entries is planned
// without an item per line: only the distinct values, the invalid entries
// and those left out are kept, so that its memory follows the distinct
// values, not the lines.
type Input struct {
	Mode   Mode
	Format Format
	// Preset is the provider's file the input was read as (nil for
	// none), and Warnings what its entries left unsaid (reasons or dates
	// shush could not read, a list that goes on beyond the file).
	Preset   *Preset
	Warnings []string
	// Entries counts the entries read: to send, duplicate, invalid or
	// left out.
	Entries int
	// Invalid holds the entries that cannot be sent, with line and reason.
	Invalid []Item
	// Duplicates counts the entries of the plan repeated after their first
	// occurrence.
	Duplicates int
	// LeftOut holds the valid entries that must not be sent (our own
	// addresses, and whom a ticket is not about), in input order.
	LeftOut []LeftOut
	// Reference is the ticket reference the input names
	// (ticket.FindReference: its file name, or a free text's words), when
	// HasReference.
	Reference    ticket.Reference
	HasReference bool
	// Decisions holds the rule's decision about every address it had
	// something to say about, sent or not, in order of first occurrence
	// (ticket.Ticket.Roles).
	Decisions []ticket.Decided
	// Proposal is what a free-text input asks for, read as a ticket
	// (when IsTicket: it has words besides its addresses).
	Proposal ticket.Proposal
	IsTicket bool
	// Found optionally holds a fresh lookup of the values (see Lookup). For
	// a removal by address the run then removes those entries by ID and
	// skips its own lookups for them (leave it nil to let the run look
	// up); for a removal by ID it names the removed entries' addresses and
	// origins in the results.
	Found map[string]Found

	// given says the input was made from items in memory (NewInput): its
	// values are kept until the run is recorded, and a run that cannot be
	// recorded reports them unsent.
	given  bool
	values *valueSet // nil once released
	n      int
	// origins holds, by ordinal (see valueSet.entries), the origin an
	// addition's input gives each value (originNone for none), once any
	// value has one: a byte a value, where a map would cost about a
	// hundred. sources holds the few source IDs, by ordinal.
	origins []byte
	sources map[int]string
	notes   map[int]string
	extras  map[int]*Extra
}

// The origins of Input.origins, a byte each.
const (
	originNone byte = iota
	originBounce
	originComplaint
	originManual
)

var originCodes = map[api.Origin]byte{api.OriginBounce: originBounce, api.OriginComplaint: originComplaint, api.OriginManual: originManual}

// setOrigin records what an item of an addition says of the entry of
// the value of ordinal ord: its origin, source ID, note and extra.
func (in *Input) setOrigin(ord int, it Item) {
	o, source, note := it.Origin, it.SourceID, it.Note
	if o == "" {
		return
	}
	if it.Extra != nil {
		if in.extras == nil {
			in.extras = map[int]*Extra{}
		}
		x := *it.Extra
		in.extras[ord] = &x
	}
	for len(in.origins) <= ord {
		in.origins = append(in.origins, originNone)
	}
	in.origins[ord] = originCodes[o]
	if source != "" {
		if in.sources == nil {
			in.sources = map[int]string{}
		}
		in.sources[ord] = strings.Clone(source)
	}
	if note != "" {
		if in.notes == nil {
			in.notes = map[int]string{}
		}
		in.notes[ord] = strings.Clone(note)
	}
}

// restoreAt is how the value of ordinal ord is to be listed, when its
// input said.
func (in *Input) restoreAt(ord int) (Restore, bool) {
	if ord >= len(in.origins) || in.origins[ord] == originNone {
		return Restore{}, false
	}
	for o, c := range originCodes {
		if c == in.origins[ord] {
			to := Restore{Origin: o, SourceID: in.sources[ord], Note: in.notes[ord]}
			if x := in.extras[ord]; x != nil {
				to.ExpiresAt, to.Evidence, to.ID, to.CreatedAt = x.ExpiresAt, x.Evidence, x.ID, x.CreatedAt
			}
			return to, true
		}
	}
	return Restore{}, false
}

// Origins counts the values whose input gives them an origin other than
// manual (a CSV or NDJSON export's bounce and complaint entries): what
// would be lost where the service does not take origins.
func (in *Input) Origins() int {
	n := 0
	for _, c := range in.origins {
		if c != originNone && c != originManual {
			n++
		}
	}
	return n
}

// Carried counts the values whose input gives them more than a plain
// address (an origin other than manual, a source ID, a note, an expiry,
// evidence): what a service that takes plain addresses only would not
// keep.
func (in *Input) Carried() int {
	n := 0
	for ord, c := range in.origins {
		if c != originNone && (c != originManual || in.notes[ord] != "" || in.sources[ord] != "" || in.extras[ord] != nil) {
			n++
		}
	}
	return n
}

// OwnIDs counts the values whose input gives them their own suppression
// ID (an export read back): kept only by a run that keeps IDs.
func (in *Input) OwnIDs() int {
	n := 0
	for _, x := range in.extras {
		if x.ID != "" {
			n++
		}
	}
	return n
}

// HasOrigins reports whether the input gave any value an origin (manual
// included): its run sends `entries`, which only shush's own service
// takes (TakesOrigins).
func (in *Input) HasOrigins() bool { return in.origins != nil }

// DropOrigins forgets the origins: every value is then added as the
// batch endpoint's emails are, as manual (for a service that does not
// take an entry's origin).
func (in *Input) DropOrigins() { in.origins, in.sources, in.notes, in.extras = nil, nil, nil, nil }

// ReadPlanAs reads an input as ReadFormat does, in the given format (see
// CheckFormat: FormatAuto finds it, another provider's file by its header
// or shape), and plans it in one pass that keeps no item for a valid entry
// the ticket's words name: our own addresses are left out, and whom a
// ticket is not about as the rule (ticket.Ticket.Roles) decides and ov
// overrides; then the rest is de-duplicated, first occurrence first.
func ReadPlanAs(r io.Reader, name string, mode Mode, own ticket.Own, ov ticket.Override, format string) (*Input, error) {
	p := &planner{in: &Input{Mode: mode, values: newValueSet()}, own: own, mode: mode, ov: ov}
	var refs ticket.RefFinder
	refs.Name(name)
	f, err := scan(r, name, mode, hooks{emit: p.add, expect: func(lines int) {
		// A list or a CSV has at most an entry a line: the table never
		// grows (and never holds two copies of itself) on the way.
		p.in.values.reserve(lines)
	}, line: refs.Line, ticket: func(tk *ticket.Ticket) { p.tk = tk }, format: format,
		preset: func(pr *Preset) { p.in.Preset = pr },
		warn:   func(w string) { p.in.Warnings = append(p.in.Warnings, w) }})
	if err != nil {
		return nil, err
	}
	p.in.Format = f
	p.in.Reference, p.in.HasReference = refs.Best()
	p.finish()
	return p.in, nil
}

// NewInput plans items already read: the valid items of mode,
// de-duplicated by normalized value (first occurrence wins), and the
// invalid ones set aside. An addition's items keep their origins (an
// export read back). Nothing is left out by the rule: LeftOut is the
// caller's to fill.
func NewInput(mode Mode, items []Item) *Input {
	in := &Input{Mode: mode, given: true, values: newValueSet()}
	in.values.reserve(len(items))
	for _, it := range items {
		in.Entries++
		if !it.Valid() {
			in.Invalid = append(in.Invalid, it)
			continue
		}
		if _, added := in.values.add(it.Value); !added {
			in.Duplicates++
		} else if it.Origin != "" && mode == Add {
			in.setOrigin(in.values.stored-1, it)
		}
	}
	in.values.done()
	in.n = in.values.n
	return in
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

// asPlan is the whole plan, every value a string: for an input small
// enough to hold so.
func (in *Input) asPlan() plan {
	p := plan{Mode: in.Mode, Values: make([]string, 0, in.n), Invalid: in.Invalid, LeftOut: in.LeftOut, Duplicates: in.Duplicates, Found: in.Found}
	for ord, b := range in.held().entries(false) {
		v := string(b)
		p.Values = append(p.Values, v)
		if to, ok := in.restoreAt(ord); ok {
			if p.Restore == nil {
				p.Restore = map[string]Restore{}
			}
			p.Restore[v] = to
		}
	}
	return p
}

// Sum identifies the plan's values as sumOf does.
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

// whole is the plan as one plan; the values are let go.
func (in *Input) whole() plan {
	defer in.Release()
	return in.asPlan()
}

// unsent is the plan of a given input whose run could not be recorded,
// for its report; an input read from a file has no such report.
func (in *Input) unsent() (plan, bool) {
	if !in.given || in.values == nil {
		return plan{}, false
	}
	return in.whole(), true
}

func (in *Input) found() map[string]Found { return in.Found }

// record writes each segment's journal from the compact values, with one
// buffer for all, and lets go of the values: in keeps its counts, and a
// run of it holds one segment at a time. An input read from a file lets
// go of each segment's values as they are written; a given one keeps them
// until every segment is written (see unsent).
func (in *Input) record(ri *RunInfo, size int) error {
	release := !in.given
	if release {
		defer in.Release()
	}
	// The line has room for a segment's values from the start (their
	// quotes and comma besides), rather than growing to it by copies.
	vs := in.held()
	line := make([]byte, 0, 1<<12+min(size, vs.stored)*(vs.length/max(vs.stored, 1)+3))
	next, stop := iter.Pull2(vs.entries(release))
	defer stop()
	for i := range ri.Segments {
		rec := planRecordOf(plan{Mode: in.Mode}, ri.Target)
		if i == 0 {
			rec.Invalid, rec.LeftOut, rec.Duplicates = in.Invalid, in.LeftOut, in.Duplicates
		}
		// The segment's origins, as the undo of a removal records them.
		var restore map[string]Restore
		seg := func(yield func([]byte) bool) {
			for range size {
				ord, v, ok := next()
				if !ok {
					return
				}
				if to, ok := in.restoreAt(ord); ok {
					if restore == nil {
						restore = map[string]Restore{}
					}
					restore[string(v)] = to
				}
				if !yield(v) {
					return
				}
			}
		}
		var err error
		if line, err = appendPlanRecord(line[:0], rec, seg); err != nil {
			return err
		}
		if line, err = appendRestore(line, restore); err != nil {
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
	in.Release()
	return nil
}

// planner builds an Input from the items of a scan as they come.
type planner struct {
	in   *Input
	own  ticket.Own
	mode Mode
	ov   ticket.Override
	tk   *ticket.Ticket // the ticket free text is read as; nil for other formats
	seq  int            // items so far: the left-out go back in input order
	left []leftAt
	// ours holds the decision about each of our own addresses met so far.
	ours map[string]ticket.Decision
	// tracked holds the addresses the rule may leave out (the ticket's
	// Pending): it decides them once the whole ticket is read. An
	// address its words name first simply goes.
	tracked map[string]*tracked
	decided []decidedAt
}

type leftAt struct {
	seq int
	LeftOut
}

type decidedAt struct {
	seq int
	ticket.Decided
}

// tracked is an address the rule decides at the end: where its value is
// kept, and its items.
type tracked struct {
	off   uint64
	seq   int
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
	// An ID is left out only when the ticket labels it another thing's
	// ("Trace ID: …").
	if (strings.Contains(v, "@") || p.tk != nil && p.tk.Pending(v)) && p.leftOut(it, v, seq) {
		return
	}
	if _, added := in.values.add(v); !added {
		in.Duplicates++
	} else if it.Origin != "" && in.Mode == Add {
		in.setOrigin(in.values.stored-1, it)
	}
}

// leftOut takes an address that is ours, or that the rule may leave out,
// aside; it reports whether it did.
func (p *planner) leftOut(it Item, v string, seq int) bool {
	in := p.in
	if !p.own.Empty() && p.own.Has(v) {
		d, seen := p.ours[v]
		if !seen {
			d = p.tk.OwnDecision(it.Line)
			if p.ours == nil {
				p.ours = map[string]ticket.Decision{}
			}
			p.ours[v] = d
			p.decided = append(p.decided, decidedAt{seq, ticket.NewDecided(v, d)})
		}
		p.left = append(p.left, leftAt{seq, LeftOut{Item: cloneItem(it), Decision: d}})
		return true
	}
	if t := p.tracked[v]; t != nil {
		t.items = append(t.items, leftAt{seq, LeftOut{Item: cloneItem(it)}})
		return true
	}
	if p.tk == nil || !p.tk.Pending(v) {
		return false
	}
	off, added := in.values.add(v)
	if !added {
		in.Duplicates++ // the ticket's words named it before: it goes
		return true
	}
	if p.tracked == nil {
		p.tracked = map[string]*tracked{}
	}
	p.tracked[v] = &tracked{off: off, seq: seq, items: []leftAt{{seq, LeftOut{Item: cloneItem(it)}}}}
	return true
}

// finish applies the rule to the addresses it waited for, leaves out what
// it decides (or the override does) and lets go of the table.
func (p *planner) finish() {
	if p.tk != nil {
		p.in.Proposal, p.in.IsTicket = p.tk.Propose(p.own), p.tk.IsTicket()
		if len(p.tracked) > 0 {
			p.decide(p.tk.Roles(p.own))
		}
	}
	slices.SortFunc(p.left, func(a, b leftAt) int { return a.seq - b.seq })
	for _, l := range p.left {
		p.in.LeftOut = append(p.in.LeftOut, l.LeftOut)
	}
	slices.SortFunc(p.decided, func(a, b decidedAt) int { return a.seq - b.seq })
	for _, d := range p.decided {
		p.in.Decisions = append(p.in.Decisions, d.Decided)
	}
	p.in.values.done()
	p.in.n = p.in.values.n
}

// decide applies the rule's roles to the tracked addresses.
func (p *planner) decide(roles map[string]ticket.Decision) {
	for v, t := range p.tracked {
		d := p.ov.Apply(roles[v].For(p.mode.Direction()))
		if d.Decided() {
			p.decided = append(p.decided, decidedAt{t.seq, ticket.NewDecided(v, d)})
		}
		if !d.Leave {
			p.in.Duplicates += len(t.items) - 1
			continue
		}
		p.in.values.drop(t.off)
		for _, l := range t.items {
			l.Decision = d
			p.left = append(p.left, l)
		}
	}
}

// cloneItem copies the item's strings: the reader's may share memory with
// the rest of a line or record.
func cloneItem(it Item) Item {
	it.Raw, it.Value = strings.Clone(it.Raw), strings.Clone(it.Value)
	return it
}
