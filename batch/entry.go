package batch

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
)

// Extra is what an addition's input says of an entry beyond its origin,
// source ID and note: its expiry and evidence (an export read back, a
// provider's file), and its own ID and creation time, which a run keeps
// only where it is asked to and the service allows it (--keep-ids).
type Extra struct {
	ExpiresAt time.Time
	Evidence  *api.Evidence
	ID        string
	CreatedAt time.Time
}

// empty reports whether the extra says nothing.
func (x *Extra) empty() bool {
	return x == nil || x.ExpiresAt.IsZero() && x.Evidence == nil && x.ID == "" && x.CreatedAt.IsZero()
}

// cells are the fields an input gives one entry of an addition, as text
// ("" for none): those of a shush export (origin, source_id, note,
// expires_at, id, created_at) and its evidence.
type cells struct {
	origin, source, note string
	expires              string
	id, created          string
	evidence             *api.Evidence
}

// any reports whether the input gave any of them.
func (c cells) any() bool {
	return c.origin != "" || c.source != "" || c.note != "" || c.expires != "" || c.id != "" || c.created != "" || c.evidence != nil
}

// withCells gives a valid item of an addition what its input says of the
// entry. What is not what it claims to be makes the entry invalid, with
// its line, rather than listing it as something it is not: an origin that
// is none of the contract's, a note the service refuses, an expiry that is
// not a time or has passed (the entry would come off the list at once),
// evidence the service refuses. An entry given a note, an expiry or
// evidence without an origin is manual.
func withCells(it Item, c cells) Item {
	if !it.Valid() || !c.any() {
		return it
	}
	origin := c.origin
	if origin == "" {
		origin = string(api.OriginManual)
	}
	o, err := api.ParseOrigin(strings.ToLower(origin))
	if err != nil {
		return refuse(it, "its %v", err)
	}
	if err := api.ValidNote(c.note); err != nil {
		return refuse(it, "its %v", err)
	}
	x, problem := c.extra()
	if problem != "" {
		return refuse(it, "%s", problem)
	}
	if c.origin == "" && c.note == "" && x.empty() {
		return it // nothing the entry keeps
	}
	it.Origin, it.Note = o, c.note
	if o != api.OriginManual {
		it.SourceID = c.source
	}
	if !x.empty() {
		it.Extra = x
	}
	return it
}

// extra reads the expiry and the evidence (a problem makes the entry
// invalid), and the entry's own ID and creation time.
func (c cells) extra() (*Extra, string) {
	x := &Extra{}
	if c.expires != "" {
		t, err := readTime(c.expires)
		switch {
		case err != nil:
			return nil, fmt.Sprintf("its expiry %s is not an RFC 3339 time", api.Quote(c.expires))
		case !t.After(time.Now()):
			return nil, fmt.Sprintf("its expiry %s has passed: the entry would be taken off the list at once", c.expires)
		}
		x.ExpiresAt = t
	}
	if c.evidence != nil {
		if err := c.evidence.Check(); err != nil {
			return nil, fmt.Sprintf("its evidence is not kept: %v", err)
		}
		ev := *c.evidence
		x.Evidence = &ev
	}
	// An ID and a creation time are kept only on request (--keep-ids),
	// and only as a suppression ID and a time: another system's own
	// (a CRM's numbers) are no entry's, and the entry is new without them.
	if id, err := api.NormalizeID(c.id); err == nil {
		x.ID = id
	}
	if t, err := readTime(c.created); err == nil && c.created != "" {
		x.CreatedAt = t
	}
	return x, ""
}

// refuse makes it invalid for the reason given.
func refuse(it Item, format string, args ...any) Item {
	it.Problem = fmt.Sprintf(format, args...)
	return it
}

// readTime reads a time as the service and the hosted service write it:
// RFC 3339, or PostgreSQL's text form.
func readTime(s string) (time.Time, error) {
	var t api.Timestamp
	if err := t.UnmarshalJSON([]byte(strconv.Quote(strings.TrimSpace(s)))); err != nil {
		return time.Time{}, err
	}
	return t.Time, nil
}

// evidenceColumns are the export's evidence columns, by headerKey, in the
// order of its header.
var evidenceColumns = []string{"evidenceprovider", "evidencekind", "evidenceeventid", "evidencemessageid",
	"evidencestatus", "evidencediagnostic", "evidencereportingmta", "evidencereportedat"}

// exportColumns are the columns of an export's row that an addition reads,
// by headerKey; -1 for those the header lacks.
type exportColumns struct {
	origin, source, note, expires, id, created int
	evidence                                   [8]int
}

// exportColumnsOf finds the export's columns in a CSV header.
func exportColumnsOf(header []string) exportColumns {
	c := exportColumns{origin: headerIndex(header, "origin"), source: headerIndex(header, "sourceid"),
		note: headerIndex(header, "note"), expires: headerIndex(header, "expiresat"),
		id: headerIndex(header, "id"), created: headerIndex(header, "createdat")}
	for i, name := range evidenceColumns {
		c.evidence[i] = headerIndex(header, name)
	}
	return c
}

// exportColumnsFor finds an addition's export columns in a CSV header
// (nil for another mode: a removal reads the entries alone).
func exportColumnsFor(header []string, mode Mode) *exportColumns {
	if mode != Add {
		return nil
	}
	c := exportColumnsOf(header)
	return &c
}

// item gives a valid item what its row says of the entry (nothing
// without columns).
func (c *exportColumns) item(it Item, row []string) Item {
	if c == nil || !it.Valid() {
		return it
	}
	cs, err := c.cellsOf(row)
	if err != nil {
		return refuse(it, "%v", err)
	}
	return withCells(it, cs)
}

// cellsOf reads a row's cells by the columns.
func (c exportColumns) cellsOf(row []string) (cells, error) {
	out := cells{origin: cell(row, c.origin), source: cell(row, c.source), note: cell(row, c.note),
		expires: cell(row, c.expires), id: cell(row, c.id), created: cell(row, c.created)}
	var v [8]string
	for i, col := range c.evidence {
		v[i] = cell(row, col)
	}
	if v == [8]string{} {
		return out, nil
	}
	ev := &api.Evidence{Provider: v[0], Kind: v[1], EventID: v[2], MessageID: v[3], Status: v[4], Diagnostic: v[5], ReportingMTA: v[6]}
	if v[7] != "" {
		t, err := readTime(v[7])
		if err != nil {
			return out, fmt.Errorf("its evidence_reported_at %s is not a time", api.Quote(v[7]))
		}
		ev.ReportedAt = &api.Timestamp{Time: t}
	}
	out.evidence = ev
	return out, nil
}

// free reports whether column i holds words that may name an address
// without being one (a note, a bounce's diagnostic): an address there is
// not a second address column.
func (c *exportColumns) free(i int) bool {
	return c != nil && i >= 0 && (i == c.note || i == c.evidence[5])
}
