package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

// The --json document of a run: one item per entry, streamed.

// runItem is one entry of a run's --json document: what the service says
// of it, the outcome a script acts on, and why when it is not settled.
type runItem struct {
	Object  string        `json:"object"`
	ID      string        `json:"id,omitempty"`
	Email   string        `json:"email,omitempty"`
	Outcome batch.Outcome `json:"outcome"`
	Deleted *bool         `json:"deleted,omitempty"`
	Error   string        `json:"error,omitempty"`
	Reason  string        `json:"reason,omitempty"`
	Batch   int           `json:"batch,omitempty"`
	// Note and ExpiresAt are the entry's as the service said (our
	// service, on an addition).
	Note      string `json:"note,omitempty"`
	ExpiresAt string `json:"expires_at,omitempty"`
}

func itemOf(mode batch.Mode, r batch.Result) runItem {
	it := runItem{Object: api.ObjectSuppression, ID: r.ID, Email: r.Input, Outcome: r.Outcome, Batch: r.Batch, Note: r.Note}
	if !r.ExpiresAt.IsZero() {
		it.ExpiresAt = r.ExpiresAt.UTC().Format(api.TimestampLayout)
	}
	if mode == batch.RemoveIDs {
		it.Email = r.Email
		if it.ID == "" {
			it.ID = r.Input
		}
	}
	if mode != batch.Add && (r.Outcome == batch.Removed || r.Outcome == batch.NotListed) {
		d := r.Outcome == batch.Removed
		it.Deleted = &d
	}
	switch r.Outcome {
	case batch.Failed, batch.Unsent:
		it.Error = r.Message
		if it.Error == "" && r.Outcome == batch.Unsent {
			it.Error = "not sent: the run stopped first"
		}
	default:
		it.Reason = r.Message
	}
	return it
}

// mergedWriter prints a run as one JSON document a script can act on:
// `data` with an item per entry (object, id, email, outcome; deleted for
// removals; error for failures; reason for unverified entries), then the
// invalid entries left out. It streams, so that a run of millions of
// entries never holds its whole answer in memory; every string is escaped
// so that the document is exact and still safe on a terminal.
type mergedWriter struct {
	bw   *bufio.Writer
	n    int
	buf  bytes.Buffer  // one item's JSON, its room reused
	enc  *json.Encoder // encodes item into buf
	item runItem       // the item encoded, passed by pointer: not a copy on the heap each
}

func newMergedWriter(w io.Writer) *mergedWriter {
	m := &mergedWriter{bw: bufio.NewWriterSize(w, 64<<10)}
	m.bw.WriteString("{\n  \"object\": \"list\",\n  \"data\": [")
	return m
}

// add prints the items of one report.
func (m *mergedWriter) add(mode batch.Mode, rep batch.Report) {
	for _, r := range rep.Results {
		if m.enc == nil {
			m.enc = json.NewEncoder(&m.buf)
		}
		m.buf.Reset()
		m.item = itemOf(mode, r)
		if m.enc.Encode(&m.item) != nil {
			continue
		}
		b := bytes.TrimSuffix(m.buf.Bytes(), []byte{'\n'}) // json.Marshal's bytes
		if m.n > 0 {
			m.bw.WriteByte(',')
		}
		m.n++
		m.bw.WriteString("\n    ")
		m.bw.Write(safe.JSON(b))
	}
}

// close ends the data, adds the invalid entries and the addresses left
// out, and flushes.
func (m *mergedWriter) close(invalid []batch.Item, left []batch.LeftOut) error {
	type invalidItem struct {
		Line    int    `json:"line"`
		Entry   string `json:"entry"`
		Problem string `json:"problem"`
	}
	type leftItem struct {
		Line      int             `json:"line"`
		Email     string          `json:"email"`
		Reason    string          `json:"reason"`
		Requester bool            `json:"requester,omitempty"`
		DecidedBy ticket.Evidence `json:"decided_by"`
	}
	inv := make([]any, len(invalid))
	for i, it := range invalid {
		inv[i] = invalidItem{it.Line, it.Raw, it.Problem}
	}
	lo := make([]any, len(left))
	for i, l := range left {
		lo[i] = leftItem{l.Line, l.Value, l.Reason, l.Requester, l.By}
	}
	m.endArray(m.n)
	m.array("invalid", inv)
	m.array("left_out", lo)
	m.bw.WriteString("\n}\n")
	return m.bw.Flush()
}

// array writes `,\n  "name": [items]`, one item a line.
func (m *mergedWriter) array(name string, items []any) {
	m.bw.WriteString(",\n  \"" + name + "\": [")
	n := 0
	for _, v := range items {
		b, err := json.Marshal(v)
		if err != nil {
			continue
		}
		if n > 0 {
			m.bw.WriteByte(',')
		}
		n++
		m.bw.WriteString("\n    ")
		m.bw.Write(safe.JSON(b))
	}
	m.endArray(n)
}

// endArray closes an array of n items.
func (m *mergedWriter) endArray(n int) {
	if n > 0 {
		m.bw.WriteString("\n  ")
	}
	m.bw.WriteByte(']')
}

// writeMerged prints one report as the run's JSON document.
func writeMerged(w io.Writer, mode batch.Mode, rep batch.Report) error {
	m := newMergedWriter(w)
	m.add(mode, rep)
	return m.close(rep.Invalid, nil)
}
