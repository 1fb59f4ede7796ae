package batch

import (
	"io"

	"github.com/shushlist/shush/ticket"
)

// Read is ReadFormat without the format.
func Read(r io.Reader, name string, mode Mode) ([]Item, error) {
	items, _, err := ReadFormat(r, name, mode)
	return items, err
}

// ReadPlan is ReadPlanAs of a format found by itself.
func ReadPlan(r io.Reader, name string, mode Mode, own ticket.Own, ov ticket.Override) (*Input, error) {
	return ReadPlanAs(r, name, mode, own, ov, FormatAuto)
}

// Plan is a plan with every value a string, for the tests to compare and
// build runs from.
type Plan = plan

// NewPlan is NewInput's plan, every value a string.
func NewPlan(mode Mode, items []Item) Plan { return NewInput(mode, items).asPlan() }

// Plan is the whole plan, every value a string.
func (in *Input) Plan() Plan { return in.asPlan() }

// Input is the plan as an Input, for Runs.Start.
func (p plan) Input() *Input {
	in := &Input{Mode: p.Mode, Invalid: p.Invalid, LeftOut: p.LeftOut, Duplicates: p.Duplicates, Found: p.Found, given: true, values: newValueSet()}
	for _, v := range p.Values {
		if _, added := in.values.add(v); added {
			if to, ok := p.Restore[v]; ok {
				in.setOrigin(in.values.stored-1, Item{Value: v, Origin: to.Origin, SourceID: to.SourceID, Note: to.Note})
			}
		}
	}
	in.values.done()
	in.n = in.values.n
	return in
}

// Batches splits the values into requests of at most api.MaxBatch.
func (p plan) Batches() [][]string { return p.batches() }

// Names the package keeps to itself, for its tests.
var (
	ErrNoLookup = errNoLookup
	Outcomes    = outcomes
	ShortRaw    = shortRaw
	Sum         = sumOf
)

const (
	Lines          = formatLines
	JSONArray      = formatJSONArray
	JSONBody       = formatJSONBody
	CSV            = formatCSV
	NDJSON         = formatNDJSON
	FallbackChunk  = fallbackChunk
	FormatPlain    = formatPlain
	FormatSendGrid = formatSendGrid
	FormatMailgun  = formatMailgun
	FormatSES      = formatSES
	FormatPostmark = formatPostmark
)

type RefusedError = refusedError
