package batch

import (
	"encoding/json"
	"errors"
	"io"

	"github.com/shushlist/shush/api"
)

// NDJSON: one JSON object a line, as `shush suppressions export --format
// ndjson` writes the list ({"object","id","email","origin","source_id",
// "created_at"}). An addition takes "email" and keeps "origin" and
// "source_id"; a removal by address takes "email", by ID "id".

// looksNDJSON reports whether an input that starts with { is NDJSON rather
// than a request body: its first object names one entry ("email" or
// "id") where a body names a list ("emails", "ids"). Only the first
// object's keys are read; a body's values are skipped, not kept.
func looksNDJSON(r io.Reader) bool {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		switch tok {
		case "emails", "ids", "entries", "data":
			return false
		case "email", "id":
			return true
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return false
		}
	}
	return false
}

// ndjsonEntry is what a line of NDJSON gives; the rest of it is ignored.
type ndjsonEntry struct {
	Email     *string       `json:"email"`
	ID        *string       `json:"id"`
	Origin    *string       `json:"origin"`
	SourceID  *string       `json:"source_id"`
	Note      *string       `json:"note"`
	ExpiresAt *string       `json:"expires_at"`
	CreatedAt *string       `json:"created_at"`
	Evidence  *api.Evidence `json:"evidence"`
}

// cells is what the entry says of itself, as an addition keeps it.
func (e ndjsonEntry) cells() cells {
	return cells{origin: deref(e.Origin), source: deref(e.SourceID), note: deref(e.Note), expires: deref(e.ExpiresAt),
		id: deref(e.ID), created: deref(e.CreatedAt), evidence: e.Evidence}
}

// deref is *s, or "" for nil.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// readNDJSON reads one entry a line (blank lines are skipped). A line that
// is not a JSON object stops the reading with its line, as a broken CSV
// row does; a line without the mode's field is an invalid entry.
func readNDJSON(r io.Reader, mode Mode, emit func(Item)) error {
	field := "email"
	if mode.byID() {
		field = "id"
	}
	lr := newLineReader(r)
	for {
		b, ok := lr.next()
		if !ok {
			return lr.err
		}
		b = trimLineBytes(b)
		if len(b) == 0 {
			continue
		}
		var e ndjsonEntry
		if err := json.Unmarshal(b, &e); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return errLine(lr.n, "%q is %s; it must be a string", te.Field, te.Value)
			}
			return errLine(lr.n, "it is not a JSON object, as each line of NDJSON must be (%v)", err)
		}
		v := e.Email
		if mode.byID() {
			v = e.ID
		}
		if v == nil || *v == "" {
			emit(Item{Line: lr.n, Raw: shorten(string(b)), Problem: "the line has no \"" + field + "\""})
			continue
		}
		it := NewItem(mode, lr.n, *v)
		if mode == Add {
			it = withCells(it, e.cells())
		}
		emit(it)
	}
}
