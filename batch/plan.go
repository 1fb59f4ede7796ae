// Package batch owns what happens between what a support agent has and
// the service's list:
//
//   - reading every input format (a file, a paste from a ticket read by
//     package ticket), with each address's role (listed, requester, own)
//     and the entries left out, normalized and de-duplicated with the
//     service's rule, invalid entries kept with their line and reason
//     (read.go, text.go, input.go);
//   - the plan, split into batches of at most api.MaxBatch (plan.go);
//   - runs: the run service (Runs) records each run (a header and a
//     journal per segment), sends it with progress events, retries and
//     pauses, resumes it without sending anything twice, reads, lists and
//     prunes it, for the CLI and the UI alike (runs.go, header.go,
//     journal.go, run.go, remove.go);
//   - truth reconciliation: which ID each entry has and whether this run
//     made it, only from what the service says, never by position
//     (truth.go);
//   - undo: removing what a run added, putting back what it removed with
//     the origin it had (undo.go).
package batch

import (
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

// Mode is what a batch does with its entries.
type Mode int

// The modes of a batch.
const (
	// Add puts addresses on the list.
	Add Mode = iota
	// RemoveEmails takes addresses off the list.
	RemoveEmails
	// RemoveIDs takes entries off the list by suppression ID.
	RemoveIDs
	// Erase keeps addresses on the list as their keyed hashes only
	// (POST /suppressions/erase, docs/erasure.md): a person asked to be
	// forgotten. It cannot be undone.
	Erase
)

// String names the mode for people: "add", "remove by address",
// "remove by ID".
func (m Mode) String() string {
	switch m {
	case Add:
		return "add"
	case RemoveEmails:
		return "remove by address"
	case RemoveIDs:
		return "remove by ID"
	case Erase:
		return "erase"
	}
	return fmt.Sprintf("mode %d", int(m))
}

// key is the mode's name in a journal.
func (m Mode) key() string {
	switch m {
	case Add:
		return "add"
	case RemoveEmails:
		return "remove-emails"
	case RemoveIDs:
		return "remove-ids"
	case Erase:
		return "erase"
	}
	return ""
}

func modeFromKey(s string) (Mode, bool) {
	for _, m := range []Mode{Add, RemoveEmails, RemoveIDs, Erase} {
		if m.key() == s {
			return m, true
		}
	}
	return 0, false
}

// Direction is which way the mode changes the list, for the rule of whom a
// ticket is about.
func (m Mode) Direction() ticket.Direction {
	if m == Add || m == Erase {
		return ticket.Suppress
	}
	return ticket.Release
}

// TicketMode is the mode a ticket's proposal names this batch mode by:
// add, remove, remove_ids, erase.
func (m Mode) TicketMode() ticket.Mode {
	switch m {
	case Add:
		return ticket.ModeAdd
	case RemoveEmails:
		return ticket.ModeRemove
	case Erase:
		return ticket.ModeErase
	}
	return ticket.ModeRemoveIDs
}

// byID reports whether the mode's entries are suppression IDs.
func (m Mode) byID() bool { return m == RemoveIDs }

// noun is what one entry of the mode is called in messages.
func (m Mode) noun() string {
	if m.byID() {
		return "ID"
	}
	return "address"
}

// Normalize applies the service's rule for the mode's entries
// (api.NormalizeEntry: an address, @domain or *.domain; or
// api.NormalizeID).
func (m Mode) Normalize(s string) (string, error) {
	if m.byID() {
		return api.NormalizeID(s)
	}
	return api.NormalizeEntry(s)
}

// Item is one entry of the input: its line (1-based; for a JSON array the
// line of the element), the text as given, the normalized value, and a
// Problem that says why it cannot be sent (empty when valid).
type Item struct {
	Line    int    `json:"line"`
	Raw     string `json:"raw"`
	Value   string `json:"value,omitempty"`
	Problem string `json:"problem,omitempty"`
	// Origin, SourceID and Note are what an addition's input says the
	// entry is to be listed with (a CSV export's origin, source_id and
	// note columns, an NDJSON export's fields); empty when it says nothing
	// (manual, no note).
	Origin   api.Origin `json:"-"`
	SourceID string     `json:"-"`
	Note     string     `json:"-"`
	// Extra is the rest of what the input says of the entry (its expiry,
	// evidence, ID and creation time); nil when it says nothing more.
	Extra *Extra `json:"-"`
}

// Valid reports whether the item can be sent.
func (it Item) Valid() bool { return it.Problem == "" }

// NewItem normalizes raw for mode and returns the item for line.
func NewItem(mode Mode, line int, raw string) Item {
	v, err := mode.Normalize(raw)
	if err != nil {
		return Item{Line: line, Raw: shortRaw(raw), Problem: err.Error()}
	}
	return Item{Line: line, Raw: raw, Value: v}
}

// maxRaw is how much of an invalid entry's text is kept: far more than
// any address (254 bytes) or ID, so that what is kept shows what the line
// was, while a line of megabytes (a file that is not a list) is not
// journaled, echoed and held whole.
const maxRaw = 512

// shortRaw is an invalid entry's text as kept: whole up to maxRaw bytes,
// else its start (cut at a character) and how long it was.
func shortRaw(raw string) string {
	if len(raw) <= maxRaw {
		return raw
	}
	cut := maxRaw
	for cut > 0 && !utf8.RuneStart(raw[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes in all)", raw[:cut], len(raw))
}

// plan is what a run sends, every value a string: the valid, distinct
// values in order of first occurrence, and what is left out (invalid
// entries and how many duplicates). It is the form of a segment in its
// journal; an Input (the one plan callers make) is recorded in this form,
// a segment at a time, and the runs shush plans itself (an undo, a sync
// step, an imported run) are made in it.
type plan struct {
	Mode       Mode
	Values     []string
	Invalid    []Item
	Duplicates int
	// LeftOut holds the valid entries the plan does not send (our own
	// addresses, a ticket's requester), with why: a run journals them, so
	// that what is told the customer keeps them.
	LeftOut []LeftOut
	// Found optionally holds a fresh lookup of the values (see Lookup). For
	// a removal by address the run then removes those entries by ID and
	// skips its own lookups for them (leave it nil to let the run look
	// up); for a removal by ID it names the removed entries' addresses and
	// origins in the results.
	Found map[string]Found
	// Restore optionally gives, for an addition, the origin each address
	// is to be listed with (the undo of a removal puts entries back as
	// they were). The run then sends `entries` instead of `emails`; only
	// shush's own service takes them.
	Restore map[string]Restore
}

// LeftOut is a valid entry that a plan does not send, and the rule's
// decision about it (package ticket).
type LeftOut struct {
	Item
	ticket.Decision
}

// Restore is how an address goes back on the list: with its origin and
// note. Not with its expiry: one that passed meanwhile would be refused,
// and an entry put back for ever errs on the side of not mailing.
type Restore struct {
	Origin   api.Origin `json:"origin"`
	SourceID string     `json:"source_id,omitempty"`
	Note     string     `json:"note,omitempty"`
	// ExpiresAt and Evidence are an import's (an export read back, a
	// provider's file): the entry keeps them. ID and CreatedAt are the
	// entry's own, sent only by a run that keeps IDs (RunMeta.KeepIDs).
	ExpiresAt time.Time     `json:"expires_at,omitzero"`
	Evidence  *api.Evidence `json:"evidence,omitempty"`
	ID        string        `json:"id,omitempty"`
	CreatedAt time.Time     `json:"created_at,omitzero"`
}

// batches splits the values into requests of at most api.MaxBatch.
func (p plan) batches() [][]string {
	return chunk(p.Values)
}

// BatchCount is the number of requests that entries entries take.
func BatchCount(entries int) int { return (entries + api.MaxBatch - 1) / api.MaxBatch }

func chunk(values []string) [][]string {
	out := make([][]string, 0, BatchCount(len(values)))
	for i := 0; i < len(values); i += api.MaxBatch {
		out = append(out, values[i:min(i+api.MaxBatch, len(values))])
	}
	return out
}
