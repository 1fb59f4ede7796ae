package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// jsonReader reads a JSON array of strings or a request body object,
// handing on each element as the decoder reaches it.
type jsonReader struct {
	src   *source
	sv    *survey
	dec   *json.Decoder
	track *lineTrack
	mode  Mode
	emit  func(Item)
}

// readJSON reads a JSON array of strings or a request body object.
func readJSON(src *source, sv *survey, mode Mode, emit func(Item)) (Format, error) {
	track := &lineTrack{r: src.reader(), line: 1}
	jr := &jsonReader{src: src, sv: sv, dec: json.NewDecoder(track), track: track, mode: mode, emit: emit}
	dec := jr.dec
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return formatJSONArray, jr.error(err)
	}
	format := formatJSONArray
	switch tok {
	case json.Delim('['):
		if err := jr.array(""); err != nil {
			return format, err
		}
	case json.Delim('{'):
		format = formatJSONBody
		if err := jr.body(); err != nil {
			return format, err
		}
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		if err != nil {
			return format, jr.error(err)
		}
		return format, errLine(src.lineOf(off), "there is more after the end of the JSON value")
	}
	return format, nil
}

// lineAt is the line of offset off, counted as lineCounter did: \n only.
func (jr *jsonReader) lineAt(off int64) int {
	if line, ok := jr.track.at(off); ok {
		return line
	}
	return jr.src.lineOf(off)
}

func (jr *jsonReader) body() error {
	dec := jr.dec
	have := map[string]int{}
	for dec.More() {
		if err := jr.field(have); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return jr.error(err)
	}
	return jr.bodyFits(have)
}

// field reads one field of the body: an array of the values or entries
// it holds, recording its line in have, or anything else, skipped.
func (jr *jsonReader) field(have map[string]int) error {
	dec := jr.dec
	tok, err := dec.Token()
	if err != nil {
		return jr.error(err)
	}
	key, _ := tok.(string)
	line := jr.lineAt(dec.InputOffset())
	if key != "emails" && key != "ids" && key != "data" && key != "entries" {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return jr.error(err)
		}
		return nil
	}
	have[key] = line
	next, err := dec.Token()
	if err != nil {
		return jr.error(err)
	}
	if next != json.Delim('[') {
		what := jsonKind(next)
		return errLine(line, "%q is %s; it must be an array of %s", key, what, nounFor(key))
	}
	if key == "data" || key == "entries" {
		return jr.objects(key)
	}
	return jr.array(key)
}

// bodyFits says whether the fields the body had (have, by line) make a
// request of the mode, or a list or run as shush prints it.
func (jr *jsonReader) bodyFits(have map[string]int) error {
	el, hasE := have["emails"]
	il, hasI := have["ids"]
	nl, hasN := have["entries"]
	if _, hasD := have["data"]; hasD && !hasE && !hasI && !hasN {
		return nil // a list or a run as shush prints it: its entries were read
	}
	if hasN {
		switch {
		case hasE || hasI:
			return errLine(nl, `the body has "entries" and "emails" or "ids"; a request gives one of them`)
		case jr.mode != Add:
			return errLine(nl, `the body holds "entries", which only an addition takes`)
		}
		return nil
	}
	switch mode := jr.mode; {
	case hasE && hasI:
		return errLine(max(el, il), `the body has both "emails" and "ids"; a request gives one of them`)
	case !hasE && !hasI:
		return errLine(1, `the body has neither "emails" nor "ids"`)
	case mode == RemoveIDs && hasE:
		return errLine(el, `the body holds "emails", but removal by ID needs "ids" (remove by address instead)`)
	case mode == Add && hasI:
		return errLine(il, `the body holds "ids", but adding needs "emails"`)
	case mode == RemoveEmails && hasI:
		return errLine(il, `the body holds "ids"; remove by ID instead`)
	}
	return nil
}

// jsonEntry is an object of a "data" or "entries" array: an entry as the
// API, a run's --json or the UI's results export show it, or as batch
// add's entries body gives it.
type jsonEntry struct {
	ndjsonEntry
	Address *string `json:"address"` // the UI's results export
}

// objects reads an array of entry objects: each gives the mode's value
// ("email", or "address"; "id" for a removal by ID) and, for an
// addition, the origin and source ID to list it with.
func (jr *jsonReader) objects(field string) error {
	dec := jr.dec
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jr.error(err)
		}
		line := jr.lineAt(dec.InputOffset() - int64(len(raw)))
		where := fmt.Sprintf("%s[%d]", field, i)
		var e jsonEntry
		if raw[0] != '{' || json.Unmarshal(raw, &e) != nil {
			jr.emit(Item{Line: line, Raw: shorten(string(raw)), Problem: where + " is not an entry object with an email or id"})
			continue
		}
		v, name := e.Email, "email"
		switch {
		case jr.mode.byID():
			v, name = e.ID, "id"
		case v == nil:
			v = e.Address
		}
		if v == nil || *v == "" {
			jr.emit(Item{Line: line, Raw: shorten(string(raw)), Problem: fmt.Sprintf("%s has no %q", where, name)})
			continue
		}
		it := NewItem(jr.mode, line, *v)
		if jr.mode == Add {
			it = withCells(it, e.cells())
		}
		jr.emit(it)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return jr.error(err)
	}
	return nil
}

func nounFor(key string) string {
	switch key {
	case "ids":
		return "suppression IDs"
	case "data", "entries":
		return "entry objects"
	}
	return "email addresses"
}

func jsonKind(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return "not a string"
}

// array reads the elements after an opening bracket, up to and including
// the closing one. Strings become items; null, numbers, booleans, objects
// and arrays become invalid items that say what they are.
func (jr *jsonReader) array(field string) error {
	dec := jr.dec
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jr.error(err)
		}
		end := dec.InputOffset()
		line := jr.lineAt(end - int64(len(raw)))
		where := fmt.Sprintf("item %d", i)
		if field != "" {
			where = fmt.Sprintf("%s[%d]", field, i)
		}
		if raw[0] != '"' {
			var tok any
			if raw[0] == '{' {
				tok = json.Delim('{')
			} else if raw[0] == '[' {
				tok = json.Delim('[')
			} else {
				d := json.NewDecoder(bytes.NewReader(raw))
				d.UseNumber()
				tok, _ = d.Token()
			}
			jr.emit(Item{Line: line, Raw: shorten(string(raw)),
				Problem: fmt.Sprintf("%s is %s, not a string", where, jsonKind(tok))})
			continue
		}
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return errLine(line, "%s: %v", where, err)
		}
		jr.emit(NewItem(jr.mode, line, s))
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return jr.error(err)
	}
	return nil
}

func shorten(s string) string {
	if len(s) > 60 {
		cut := 60
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return s[:cut] + "…"
	}
	return s
}

// error says where the JSON went wrong.
func (jr *jsonReader) error(err error) error {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	src := jr.src
	switch {
	case errors.As(err, &se):
		// The offset of an error within a value counts only the bytes of
		// the values scanned so far, not the commas and brackets between
		// them: deep into a large array it lags far behind. The decoder
		// stands at the start of the value it failed on, which the bad
		// character cannot precede.
		return errLine(src.lineOf(badByte(src, max(se.Offset-1, jr.dec.InputOffset()), se.Error())), "%v", se)
	case errors.As(err, &te):
		return errLine(src.lineOf(te.Offset), "%v", te)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return errLine(jr.sv.lines, "the JSON ends before it is complete")
	}
	return errLine(src.lineOf(jr.dec.InputOffset()), "%v", err)
}

// badByte finds the character a syntax error is about. The decoder's
// offset may point a few bytes before it (at the end of the previous value)
// or at it; the message names it ("invalid character '}' …"), so the first
// such character from the offset on is the one, and its line is the line
// the user must fix.
func badByte(src *source, off int64, msg string) int64 {
	off = min(max(off, 0), src.end-src.off)
	var buf [64]byte
	if _, rest, ok := strings.Cut(msg, "invalid character '"); ok {
		if r, size := utf8.DecodeRuneInString(rest); size > 0 && r != '\\' {
			n := src.readAt(buf[:8+utf8.UTFMax], off)
			if i := bytes.IndexRune(buf[:n], r); i >= 0 && i < 8 {
				return off + int64(i)
			}
		}
	}
	for {
		n := src.readAt(buf[:], off)
		if n == 0 {
			return off
		}
		for _, c := range buf[:n] {
			if strings.IndexByte(" \t\r\n,:", c) < 0 {
				return off
			}
			off++
		}
	}
}
