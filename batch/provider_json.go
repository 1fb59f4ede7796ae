package batch

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// jsonPreset is one provider's JSON: the key of its list of entries (""
// for a bare array or one object a line) and the fields of an entry.
type jsonPreset struct {
	provider, name string
	list           string
	addr           string
	reason, by     string // the reason, and who suppressed (Postmark's Origin)
	date           string
	more           string // a field that says the list goes on (SES's NextToken)
}

var (
	postmarkDump = jsonPreset{provider: formatPostmark, name: "Postmark suppression dump JSON", list: "Suppressions",
		addr: "EmailAddress", reason: "SuppressionReason", by: "Origin", date: "CreatedAt"}
	sesList = jsonPreset{provider: formatSES, name: "Amazon SES list-suppressed-destinations JSON", list: "SuppressedDestinationSummaries",
		addr: "EmailAddress", reason: "Reason", date: "LastUpdateTime", more: "NextToken"}
	sesImport = jsonPreset{provider: formatSES, name: "Amazon SES bulk suppression JSON (one object a line)",
		addr: "emailAddress", reason: "reason"}
	postmarkArray = jsonPreset{provider: formatPostmark, name: "Postmark suppressions JSON array", addr: "EmailAddress",
		reason: "SuppressionReason", by: "Origin", date: "CreatedAt"}
	sesArray = jsonPreset{provider: formatSES, name: "Amazon SES suppressed destinations JSON array", addr: "EmailAddress",
		reason: "Reason", date: "LastUpdateTime"}
)

// jsonKeys are the presets a key of a file's object finds, and those a
// key of its array's first object finds.
var jsonKeys = map[bool]map[string]*jsonPreset{
	false: {postmarkDump.list: &postmarkDump, sesList.list: &sesList, sesImport.addr: &sesImport},
	true:  {"SuppressionReason": &postmarkArray, "Reason": &sesArray},
}

// preset says what the preset reads.
func (p *jsonPreset) preset() *Preset {
	read := []string{p.addr, p.reason}
	for _, f := range []string{p.by, p.date} {
		if f != "" {
			read = append(read, f)
		}
	}
	return &Preset{Provider: p.provider, Name: p.name, Read: read, Origin: "from field " + p.reason}
}

// findJSONPreset reads the first keys of a JSON text (an object's, or its
// first element's) and picks the provider's file it is; format narrows it
// to one provider.
func findJSONPreset(text io.Reader, format string) *jsonPreset {
	dec := json.NewDecoder(text)
	array, ok := firstObject(dec)
	if !ok {
		return nil
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		if p := jsonKeys[array][key]; p != nil && (format == FormatAuto || format == p.provider) {
			return p
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil
		}
	}
	return nil
}

// firstObject reads up to the keys of the text's object, or of its
// array's first element (array); ok is false for anything else.
func firstObject(dec *json.Decoder) (array, ok bool) {
	tok, err := dec.Token()
	if err != nil {
		return false, false
	}
	if array = tok == json.Delim('['); array {
		tok, err = dec.Token()
	}
	return array, err == nil && tok == json.Delim('{')
}

// readPresetJSON reads a provider's JSON as p says: the entries of its
// list (or of the array), each an object.
func readPresetJSON(src *source, sv *survey, p *jsonPreset, pr *presetReader) error {
	if p == &sesImport {
		return readPresetLines(src, p, pr)
	}
	track := &lineTrack{r: src.reader(), line: 1}
	jr := &jsonReader{src: src, sv: sv, dec: json.NewDecoder(track), track: track, mode: pr.mode}
	dec := jr.dec
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return jr.error(err)
	}
	if tok == json.Delim('[') {
		err = p.entries(jr, pr, "")
	} else {
		err = p.object(jr, pr)
	}
	if err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		if err != nil {
			return jr.error(err)
		}
		return errLine(src.lineOf(dec.InputOffset()), "there is more after the end of the JSON value")
	}
	pr.done()
	return nil
}

// object reads the file's object: its list, and whether it goes on.
func (p *jsonPreset) object(jr *jsonReader, pr *presetReader) error {
	dec := jr.dec
	found := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jr.error(err)
		}
		key, _ := tok.(string)
		line := jr.lineAt(dec.InputOffset())
		var raw json.RawMessage
		switch key {
		case p.list:
			found = true
			next, err := dec.Token()
			if err != nil {
				return jr.error(err)
			}
			if next != json.Delim('[') {
				return errLine(line, "%q is %s; it must be an array of entry objects", key, jsonKind(next))
			}
			if err := p.entries(jr, pr, key); err != nil {
				return err
			}
			continue
		case p.more:
			if err := dec.Decode(&raw); err != nil {
				return jr.error(err)
			}
			if s := strings.TrimSpace(string(raw)); s != "null" && s != `""` {
				pr.warn(fmt.Sprintf("line %d: the file has a %s: %s has more entries than this file holds; fetch the rest (the AWS CLI pages them all without --max-items) and read them too",
					line, p.more, providerName(p.provider)))
			}
			continue
		}
		if err := dec.Decode(&raw); err != nil {
			return jr.error(err)
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return jr.error(err)
	}
	if !found {
		return errLine(1, "it has no %q list", p.list)
	}
	return nil
}

// entries reads the elements of an array of entry objects, up to and
// including its closing bracket.
func (p *jsonPreset) entries(jr *jsonReader, pr *presetReader, field string) error {
	dec := jr.dec
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return jr.error(err)
		}
		line := jr.lineAt(dec.InputOffset() - int64(len(raw)))
		where := fmt.Sprintf("item %d", i)
		if field != "" {
			where = fmt.Sprintf("%s[%d]", field, i)
		}
		p.entry(raw, line, where, pr)
	}
	if _, err := dec.Token(); err != nil { // the closing bracket
		return jr.error(err)
	}
	return nil
}

// entry reads one entry object; one without an address is an invalid
// entry with its place.
func (p *jsonPreset) entry(raw json.RawMessage, line int, where string, pr *presetReader) {
	var fields map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if raw[0] != '{' || dec.Decode(&fields) != nil {
		pr.emit(Item{Line: line, Raw: shorten(string(raw)), Problem: where + " is not an entry object"})
		return
	}
	text := func(k string) string {
		switch v := fields[k].(type) {
		case string:
			return v
		case json.Number:
			return v.String()
		}
		return ""
	}
	addr := text(p.addr)
	if addr == "" {
		pr.emit(Item{Line: line, Raw: shorten(string(raw)), Problem: fmt.Sprintf("%s has no %q", where, p.addr)})
		return
	}
	r := providerRow{line: line, address: addr, reason: text(p.reason), diag: text(p.reason), date: text(p.date)}
	if r.reason == "" {
		r.reason = "(none given)"
	}
	if by := text(p.by); by != "" {
		r.diag = fmt.Sprintf("%s (%s: %s)", r.diag, p.by, by)
	}
	pr.item(r)
}

// readPresetLines reads one entry object a line (SES's bulk JSON).
func readPresetLines(src *source, p *jsonPreset, pr *presetReader) error {
	lr := newLineReader(src.reader())
	for {
		b, ok := lr.next()
		if !ok {
			pr.done()
			return lr.err
		}
		b = trimLineBytes(b)
		if len(b) == 0 {
			continue
		}
		if b[0] != '{' || !json.Valid(b) {
			return errLine(lr.n, "it is not a JSON object, as each line of %s must be", p.name)
		}
		p.entry(b, lr.n, fmt.Sprintf("line %d", lr.n), pr)
	}
}
