package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// MaxBody is the largest request body the service reads, in bytes.
const MaxBody = 1 << 20

// readObject reads a POST body as a JSON object and returns its fields
// undecoded. It refuses what the contract refuses: a Content-Type other
// than application/json (415), a body over MaxBody (413), bytes that are
// not UTF-8, JSON that is not one object, and a field of the names in
// known given twice (400). Unknown fields are ignored.
func readObject(w http.ResponseWriter, r *http.Request, known ...string) (map[string]json.RawMessage, error) {
	body, err := readBody(w, r)
	if err != nil {
		return nil, err
	}
	return objectOf(body, known...)
}

// objectOf is readObject's reading of a body readBody has read.
func objectOf(body []byte, known ...string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, badRequest("The request body must be a JSON object, not %s.", jsonKind(body))
	}
	fields := make(map[string]json.RawMessage)
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, badRequest("The request body is not valid JSON: %s.", jsonReason(err))
		}
		name, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, badRequest("The request body is not valid JSON: %s.", jsonReason(err))
		}
		if _, dup := fields[name]; dup && slices.Contains(known, name) {
			return nil, badRequest("The field `%s` appears more than once in the request body; send it once.", name)
		}
		fields[name] = raw
	}
	return fields, nil
}

// readBody reads a POST body that is JSON text: with its Content-Type,
// at most MaxBody bytes, not empty, UTF-8 and valid JSON.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if err := jsonContentType(r); err != nil {
		return nil, err
	}
	if r.ContentLength > MaxBody {
		// Refuse before reading (and before a 100-continue invites the
		// body); the unread body is not worth keeping the connection.
		w.Header().Set("Connection", "close")
		if r.ContentLength <= drainLimit {
			drainTooLarge(w, r)
		}
		return nil, newProblem(http.StatusRequestEntityTooLarge, api.ErrValidation,
			"The request body is larger than %d bytes (1 MiB); send at most %d items per request.", MaxBody, api.MaxBatch)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			drainTooLarge(w, r)
			return nil, newProblem(http.StatusRequestEntityTooLarge, api.ErrValidation,
				"The request body is larger than %d bytes (1 MiB); send at most %d items per request.", MaxBody, api.MaxBatch)
		}
		return nil, badRequest("The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badRequest("The request body is empty; send a JSON object.")
	}
	if !utf8.Valid(body) {
		return nil, badRequest("The request body is not valid UTF-8 text.")
	}
	if !json.Valid(body) {
		var v any
		err := json.Unmarshal(body, &v)
		return nil, badRequest("The request body is not valid JSON: %s.", jsonReason(err))
	}
	return body, nil
}

// jsonContentType refuses a request with a body that is not said to be
// JSON (415).
func jsonContentType(r *http.Request) error {
	if r.ContentLength == 0 && len(r.TransferEncoding) == 0 {
		return nil
	}
	ct := r.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && mt == "application/json" {
		return nil
	}
	got := "no Content-Type"
	if ct != "" {
		got = "Content-Type " + api.Quote(ct)
	}
	return newProblem(http.StatusUnsupportedMediaType, api.ErrValidation,
		"The request has %s; send the body as JSON with Content-Type: application/json.", got)
}

// jsonReason is the decoder's complaint without its "json: " prefix.
func jsonReason(err error) string {
	if err == nil {
		return "it is incomplete"
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// jsonKind names the kind of a JSON value for a message.
func jsonKind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// stringList decodes the array field name with the contract's rules: an
// array (400 otherwise) of 1 to api.MaxBatch items (422), each a string
// (400) that norm accepts (422). It returns the normalized items with
// duplicates dropped, in the order of their first occurrence. what names an
// item for the message, e.g. "a valid email address".
func stringList(raw json.RawMessage, name, what string, norm func(string) (string, error)) ([]string, error) {
	return stringListOf(raw, name, what, api.MaxBatch, norm)
}

// stringListOf is stringList of 1 to most items.
func stringListOf(raw json.RawMessage, name, what string, most int, norm func(string) (string, error)) ([]string, error) {
	if isNull(raw) {
		return nil, invalid("`%s` is null; it must be an array of 1 to %d items.", name, most)
	}
	if kind := jsonKind(raw); kind != "an array" {
		return nil, badRequest("`%s` must be an array of strings, not %s.", name, kind)
	}
	if out, ok := plainStrings(raw, most, norm); ok {
		return out, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("`%s` must be an array of strings: %s.", name, jsonReason(err))
	}
	switch {
	case len(items) == 0:
		return nil, invalid("`%s` is empty; send 1 to %d items.", name, most)
	case len(items) > most:
		return nil, invalid("`%s` has %d items; send at most %d per request.", name, len(items), most)
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]bool, len(items))
	var first error
	bad := 0
	for i, item := range items {
		var s string
		switch {
		case isNull(item):
			bad++
			if first == nil {
				first = invalid("%s[%d] is null; it must be %s.", name, i, what)
			}
			continue
		case jsonKind(item) != "a string":
			// A wrong JSON type is a 400 on its own, whatever else is wrong.
			return nil, badRequest("%s[%d] must be a string, not %s.", name, i, jsonKind(item))
		}
		if err := json.Unmarshal(item, &s); err != nil {
			return nil, badRequest("%s[%d] is not a valid JSON string: %s.", name, i, jsonReason(err))
		}
		n, err := norm(s)
		if err != nil {
			bad++
			if first == nil {
				first = invalid("%s[%d] (%s) is not %s: %s.", name, i, api.Quote(s), what, err)
			}
			continue
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if first != nil {
		p := first.(*problem)
		switch {
		case bad == 2:
			p.message += fmt.Sprintf(" 1 more item of `%s` is invalid.", name)
		case bad > 2:
			p.message += fmt.Sprintf(" %d more items of `%s` are invalid.", bad-1, name)
		}
		return nil, p
	}
	return out, nil
}

// plainStrings is stringList for the common request: 1 to most strings
// that norm all accepts, decoded in one pass. It reports false for
// anything else (a null or non-string item, a bad or missing item, too
// many), which stringList then decodes item by item to say what is wrong.
func plainStrings(raw json.RawMessage, most int, norm func(string) (string, error)) ([]string, bool) {
	var items []*string
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 || len(items) > most {
		return nil, false
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]struct{}, len(items))
	for _, s := range items {
		if s == nil {
			return nil, false
		}
		n, err := norm(*s)
		if err != nil {
			return nil, false
		}
		if _, dup := seen[n]; !dup {
			seen[n] = struct{}{}
			out = append(out, n)
		}
	}
	return out, true
}

// stringField decodes a single string field with the same rules.
func stringField(raw json.RawMessage, name, what string, norm func(string) (string, error)) (string, error) {
	if isNull(raw) {
		return "", invalid("`%s` is null; it must be %s.", name, what)
	}
	if kind := jsonKind(raw); kind != "a string" {
		return "", badRequest("`%s` must be a string, not %s.", name, kind)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badRequest("`%s` is not a valid JSON string: %s.", name, jsonReason(err))
	}
	n, err := norm(s)
	if err != nil {
		return "", invalid("`%s` (%s) is not %s: %s.", name, api.Quote(s), what, err)
	}
	return n, nil
}

func missing(format string, args ...any) *problem {
	return newProblem(http.StatusUnprocessableEntity, api.ErrMissingRequiredField, format, args...)
}

// maxSourceID bounds an entry's source_id: an ID from the system that
// reported the bounce or complaint.
const maxSourceID = 200

// noteField decodes a `note` (contract: notes and expiry on an entry):
// null, or a string of 0 to api.MaxNote printable characters; "" is none.
func noteField(raw json.RawMessage, name string) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	if kind := jsonKind(raw); kind != "a string" {
		return "", badRequest("`%s` must be a string, not %s.", name, kind)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", badRequest("`%s` is not a valid JSON string: %s.", name, jsonReason(err))
	}
	if err := api.ValidNote(s); err != nil {
		return "", invalid("`%s` is not a note: %s; send at most %d printable characters.", name, err, api.MaxNote)
	}
	return s, nil
}

// expiresField decodes an `expires_at`: null (never), or an RFC 3339 time
// after now, the service's clock.
func expiresField(raw json.RawMessage, name string, now time.Time) (time.Time, error) {
	if isNull(raw) {
		return time.Time{}, nil
	}
	if kind := jsonKind(raw); kind != "a string" {
		return time.Time{}, badRequest("`%s` must be a string, not %s.", name, kind)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return time.Time{}, badRequest("`%s` is not a valid JSON string: %s.", name, jsonReason(err))
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, invalid("`%s` (%s) is not an RFC 3339 time such as 2026-12-31T00:00:00Z.", name, api.Quote(s))
	}
	if !t.After(now) {
		return time.Time{}, invalid("`%s` (%s) is not in the future (the service's clock says %s); leave it out for an entry that stays.",
			name, api.Quote(s), now.UTC().Format(api.TimestampLayout))
	}
	return t.UTC(), nil
}

// entryFields are the fields of an item of `entries`.
var entryFields = []string{"email", "origin", "source_id", "note", "expires_at", "evidence", "id", "created_at"}

// entryList decodes batch add's `entries`: an array of 1 to api.MaxBatch
// objects {"email", "origin"?, "source_id"?, "note"?, "expires_at"?}
// (contract: restoring entries with their origin; notes and expiry on an
// entry), expiries judged by now. Errors name the item by index.
// Addresses are normalized; a repeated address keeps its first
// occurrence.
func entryList(raw json.RawMessage, now time.Time) ([]store.NewEntry, error) {
	const name = "entries"
	if isNull(raw) {
		return nil, invalid("`%s` is null; it must be an array of 1 to %d objects.", name, api.MaxBatch)
	}
	if kind := jsonKind(raw); kind != "an array" {
		return nil, badRequest("`%s` must be an array of objects, not %s.", name, kind)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, badRequest("`%s` must be an array of objects: %s.", name, jsonReason(err))
	}
	switch {
	case len(items) == 0:
		return nil, invalid("`%s` is empty; send 1 to %d items.", name, api.MaxBatch)
	case len(items) > api.MaxBatch:
		return nil, invalid("`%s` has %d items; send at most %d per request.", name, len(items), api.MaxBatch)
	}
	out := make([]store.NewEntry, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		e, err := entryItem(item, fmt.Sprintf("%s[%d]", name, i), now)
		if err != nil {
			return nil, err
		}
		if !seen[e.Email] {
			seen[e.Email] = true
			out = append(out, e)
		}
	}
	return out, nil
}

// entryItem decodes one item of `entries`, named where in errors.
func entryItem(item json.RawMessage, where string, now time.Time) (store.NewEntry, error) {
	if kind := jsonKind(item); kind != "an object" {
		return store.NewEntry{}, badRequest("%s must be an object {\"email\", \"origin\", \"source_id\", \"note\", \"expires_at\", \"evidence\"}, not %s.", where, kind)
	}
	fields, dup, err := objectFields(item)
	if err != nil {
		return store.NewEntry{}, badRequest("%s is not a valid JSON object: %s.", where, jsonReason(err))
	}
	if dup != "" {
		// The last would win silently: an address or origin other
		// than the one the sender meant to keep.
		return store.NewEntry{}, invalid("%s has the field %s more than once; send each field once.", where, api.Quote(dup))
	}
	for k := range fields {
		if !slices.Contains(entryFields, k) {
			return store.NewEntry{}, invalid("%s has the unknown field %s; an entry has %s.", where, api.Quote(k), strings.Join(entryFields, ", "))
		}
	}
	rawEmail, ok := fields["email"]
	if !ok {
		return store.NewEntry{}, missing("%s has no `email`.", where)
	}
	email, err := stringField(rawEmail, where+".email", "a valid email address", api.NormalizeEntry)
	if err != nil {
		return store.NewEntry{}, err
	}
	e := store.NewEntry{Email: email, Origin: api.OriginManual}
	if err := entryOrigin(fields, where, &e); err != nil {
		return store.NewEntry{}, err
	}
	if err := entryExtras(fields, where, now, &e); err != nil {
		return store.NewEntry{}, err
	}
	return e, nil
}

// entryOrigin decodes an item's origin and source ID into e.
func entryOrigin(fields map[string]json.RawMessage, where string, e *store.NewEntry) error {
	if raw, ok := fields["origin"]; ok && !isNull(raw) {
		o, err := stringField(raw, where+".origin", "one of bounce, complaint, manual",
			func(s string) (string, error) { o, err := api.ParseOrigin(s); return string(o), err })
		if err != nil {
			return err
		}
		e.Origin = api.Origin(o)
	}
	if raw, ok := fields["source_id"]; ok && !isNull(raw) {
		src, err := stringField(raw, where+".source_id", "a source ID (1 to 200 printable characters)", sourceID)
		if err != nil {
			return err
		}
		if e.Origin == api.OriginManual {
			return invalid("%s is a manual entry with a source_id; only bounce and complaint entries have one.", where)
		}
		e.SourceID = &src
	}
	return nil
}

// objectFields reads a JSON object's fields, and the first name given
// twice ("" when none is).
func objectFields(raw json.RawMessage) (map[string]json.RawMessage, string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, "", err
	}
	fields := make(map[string]json.RawMessage)
	dup := ""
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, "", err
		}
		name, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, "", err
		}
		if _, ok := fields[name]; ok && dup == "" {
			dup = name
		}
		fields[name] = v
	}
	return fields, dup, nil
}

// sourceID accepts 1 to maxSourceID printable characters.
func sourceID(s string) (string, error) {
	n := 0
	for _, r := range s {
		n++
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return "", errors.New("it holds a character that is not printable")
		}
	}
	switch {
	case n == 0:
		return "", errors.New("it is empty")
	case n > maxSourceID:
		return "", fmt.Errorf("it is %d characters long; at most %d are allowed", n, maxSourceID)
	}
	return s, nil
}

// drainTooLarge reads and drops what a client is already sending of a
// body that is too large, up to drainLimit and for at most drainTime, so
// that a client without "Expect: 100-continue" reads the 413 instead of a
// connection reset while it still writes. A client that waits for
// 100-continue (or sends nothing) is answered once drainTime is up, or at
// once for the former.
func drainTooLarge(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Expect") != "" {
		return
	}
	rc := http.NewResponseController(w)
	if rc.SetReadDeadline(time.Now().Add(drainTime)) != nil {
		return
	}
	_, _ = io.CopyN(io.Discard, r.Body, drainLimit)
	_ = rc.SetReadDeadline(time.Time{})
}

// drainLimit and drainTime bound what drainTooLarge reads: a body a few
// times the limit (a client that overshot) is drained; a larger one is
// refused unread.
const (
	drainLimit = 8 * MaxBody
	drainTime  = time.Second
)

// evidenceField decodes an entry's `evidence` (contract: evidence on an
// entry): null, or an object {"provider", "kind", "event_id"?,
// "message_id"?, "status"?, "diagnostic"?, "reporting_mta"?,
// "reported_at"?} that api.Evidence.Check accepts.
func evidenceField(raw json.RawMessage, name string) (*api.Evidence, error) {
	if isNull(raw) {
		return nil, nil
	}
	if kind := jsonKind(raw); kind != "an object" {
		return nil, badRequest("`%s` must be an object, not %s.", name, kind)
	}
	fields, dup, err := objectFields(raw)
	if err != nil {
		return nil, badRequest("`%s` is not a valid JSON object: %s.", name, jsonReason(err))
	}
	if dup != "" {
		return nil, invalid("`%s` has the field %s more than once; send each field once.", name, api.Quote(dup))
	}
	known := []string{"provider", "kind", "event_id", "message_id", "status", "diagnostic", "reporting_mta", "reported_at"}
	for k, v := range fields {
		switch {
		case !slices.Contains(known, k):
			return nil, invalid("`%s` has the unknown field %s; evidence has %s.", name, api.Quote(k), strings.Join(known, ", "))
		case !isNull(v) && jsonKind(v) != "a string":
			return nil, badRequest("`%s.%s` must be a string, not %s.", name, k, jsonKind(v))
		}
	}
	var ev api.Evidence
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, invalid("`%s` is not evidence: %s.", name, jsonReason(err))
	}
	if err := ev.Check(); err != nil {
		return nil, invalid("`%s` is not evidence: %s.", name, err)
	}
	return &ev, nil
}

// ownID decodes an entry's own `id` and `created_at` (an import that keeps
// them): given together, a suppression ID and an RFC 3339 time not after
// now (the service's clock).
func ownID(fields map[string]json.RawMessage, name string, now time.Time, e *store.NewEntry) error {
	rawID, hasID := fields["id"]
	rawAt, hasAt := fields["created_at"]
	if hasID && isNull(rawID) {
		hasID = false
	}
	if hasAt && isNull(rawAt) {
		hasAt = false
	}
	switch {
	case !hasID && !hasAt:
		return nil
	case hasID != hasAt:
		return invalid("%s has `id` or `created_at` without the other; an entry keeps its own ID and creation time together.", name)
	}
	id, err := stringField(rawID, name+".id", "a suppression ID", api.NormalizeID)
	if err != nil {
		return err
	}
	at, err := stringField(rawAt, name+".created_at", "an RFC 3339 time", func(s string) (string, error) { return s, nil })
	if err != nil {
		return err
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return invalid("`%s.created_at` (%s) is not an RFC 3339 time such as 2026-01-31T12:00:00Z.", name, api.Quote(at))
	}
	if t.After(now) {
		return invalid("`%s.created_at` (%s) is after now (the service's clock says %s).", name, api.Quote(at), now.UTC().Format(api.TimestampLayout))
	}
	e.ID, e.CreatedAt = id, t.UTC()
	return nil
}

// entryExtras decodes what an item of `entries` may say beyond its
// address, origin and source: its note, expiry, evidence, and its own ID
// and creation time. name is the item's place ("entries[3]").
func entryExtras(fields map[string]json.RawMessage, name string, now time.Time, e *store.NewEntry) error {
	var err error
	if raw, ok := fields["note"]; ok {
		if e.Note, err = noteField(raw, name+".note"); err != nil {
			return err
		}
	}
	if raw, ok := fields["expires_at"]; ok {
		if e.ExpiresAt, err = expiresField(raw, name+".expires_at", now); err != nil {
			return err
		}
	}
	if raw, ok := fields["evidence"]; ok {
		if e.Evidence, err = evidenceField(raw, name+".evidence"); err != nil {
			return err
		}
	}
	return ownID(fields, name, now, e)
}

// plainListBody reads a body that is one field, name, holding an array
// of 1 to most plain strings (printable ASCII without quotes or
// backslashes, as addresses are sent), each accepted by norm: what
// stringListOf would answer (normalized, the first of each kept), in one
// pass over the body. It says false for a body of any other shape, which
// readObject and stringListOf then read, with their errors.
func plainListBody(body []byte, name string, most int, norm func(string) (string, error)) ([]string, bool) {
	i := 0
	ws := func() {
		for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\n' || body[i] == '\r') {
			i++
		}
	}
	next := func(c byte) bool {
		ws()
		if i < len(body) && body[i] == c {
			i++
			return true
		}
		return false
	}
	str := func() (string, bool) {
		if !next('"') {
			return "", false
		}
		j := i
		for j < len(body) && body[j] >= 0x20 && body[j] < 0x7f && body[j] != '"' && body[j] != '\\' {
			j++
		}
		if j >= len(body) || body[j] != '"' {
			return "", false
		}
		s := string(body[i:j])
		i = j + 1
		return s, true
	}
	if !next('{') {
		return nil, false
	}
	if key, ok := str(); !ok || key != name || !next(':') || !next('[') {
		return nil, false
	}
	var out []string
	seen := make(map[string]struct{})
	for n := 0; ; n++ {
		s, ok := str()
		if !ok || n == most {
			return nil, false
		}
		v, err := norm(s)
		if err != nil {
			return nil, false
		}
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
		if next(']') {
			break
		}
		if !next(',') {
			return nil, false
		}
	}
	if !next('}') {
		return nil, false
	}
	ws()
	return out, i == len(body)
}
