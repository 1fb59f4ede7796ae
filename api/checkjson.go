package api

import "encoding/json"

// A check's answer is written by hand: it is the largest answer the
// service writes for its size of request (up to MaxCheck items, each with
// its entry), and encoding/json spends most of its time there on
// reflection and on re-checking what each item's MarshalJSON wrote. The
// bytes are the same as encoding/json writes (api tests compare them).

// AppendJSON appends the answer as JSON: {"object":…,"data":[…]}.
func (r CheckResponse) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"object":`...)
	b = appendString(b, r.Object)
	b = append(b, `,"data":`...)
	if r.Data == nil {
		return append(b, "null}"...), nil
	}
	b = append(b, '[')
	for i, c := range r.Data {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = c.AppendJSON(b); err != nil {
			return nil, err
		}
	}
	return append(b, "]}"...), nil
}

// AppendJSON appends the item as MarshalJSON writes it.
func (c CheckItem) AppendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"email":`...)
	b = appendString(b, c.Email)
	if !c.Listed {
		return append(b, `,"listed":false}`...), nil
	}
	e := c.Entry
	b = append(b, `,"listed":true,"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"origin":`...)
	b = appendString(b, string(e.Origin))
	b = append(b, `,"source_id":`...)
	b = appendStringOrNull(b, e.SourceID)
	b = append(b, `,"created_at":`...)
	b = e.CreatedAt.appendJSON(b)
	b = append(b, `,"note":`...)
	b = appendStringOrNull(b, e.Note)
	b = append(b, `,"expires_at":`...)
	if e.ExpiresAt == nil {
		b = append(b, "null"...)
	} else {
		b = e.ExpiresAt.appendJSON(b)
	}
	b = append(b, `,"evidence":`...)
	if e.Evidence == nil {
		b = append(b, "null"...)
	} else {
		j, err := json.Marshal(e.Evidence)
		if err != nil {
			return nil, err
		}
		b = append(b, j...)
	}
	if c.ListedBy != "" {
		b = append(b, `,"listed_by":`...)
		b = appendString(b, c.ListedBy)
	}
	if e.Erased {
		b = append(b, `,"erased":true`...)
	}
	if e.ErasedDomain != "" {
		b = append(b, `,"erased_domain":`...)
		b = appendString(b, e.ErasedDomain)
	}
	return append(b, '}'), nil
}

// appendJSON appends the time as MarshalJSON writes it.
func (t Timestamp) appendJSON(b []byte) []byte {
	if t.raw != "" {
		return appendString(b, t.raw)
	}
	b = append(b, '"')
	b = t.UTC().AppendFormat(b, TimestampLayout)
	return append(b, '"')
}

func appendStringOrNull(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString appends s as a JSON string the way encoding/json writes
// it: printable ASCII other than the quote, the backslash and <, >, &
// (which encoding/json escapes for HTML) as it is; anything else through
// encoding/json itself (a string always encodes).
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c < 0x20, c > 0x7e, c == '"', c == '\\', c == '<', c == '>', c == '&':
			j, _ := json.Marshal(s)
			return append(b, j...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// DecodeCheckResponse reads a check's answer as json.Unmarshal reads it
// into a CheckResponse, in one pass over the answer: the client reads up
// to MaxCheck items an answer, and encoding/json passes over each item
// three times (the answer's check, the item's, and the item's decode by
// reflection). An answer of any other shape than this service writes (an
// unknown or repeated field, a number, a value of another type, a string
// that is not plain, bad JSON) is read by json.Unmarshal instead, so the
// result and the error are always json.Unmarshal's.
func DecodeCheckResponse(b []byte) (CheckResponse, error) {
	d := checkDecoder{b: b}
	if r, ok := d.response(); ok {
		return r, nil
	}
	var r CheckResponse
	err := json.Unmarshal(b, &r)
	return r, err
}

// checkDecoder reads the shape of a check's answer that this service
// writes; each method says false at anything else.
type checkDecoder struct {
	b []byte
	i int
}

func (d *checkDecoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next skips white space and says whether the next byte is c, taking it
// if so.
func (d *checkDecoder) next(c byte) bool {
	d.ws()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// literal takes the word (true, false, null) if it is next.
func (d *checkDecoder) literal(word string) bool {
	d.ws()
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return true
	}
	return false
}

// str reads a string: plain ASCII as it is, one with escapes or other
// bytes through json.Unmarshal.
func (d *checkDecoder) str() (string, bool) {
	d.ws()
	if d.i >= len(d.b) || d.b[d.i] != '"' {
		return "", false
	}
	j := d.i + 1
	for j < len(d.b) && d.b[j] >= 0x20 && d.b[j] < 0x80 && d.b[j] != '"' && d.b[j] != '\\' {
		j++
	}
	if j < len(d.b) && d.b[j] == '"' {
		s := string(d.b[d.i+1 : j])
		d.i = j + 1
		return s, true
	}
	for j < len(d.b) && d.b[j] != '"' {
		if d.b[j] == '\\' {
			j++
		}
		j++
	}
	if j >= len(d.b) {
		return "", false
	}
	var s string
	if err := json.Unmarshal(d.b[d.i:j+1], &s); err != nil {
		return "", false
	}
	d.i = j + 1
	return s, true
}

// optStr reads a string or null.
func (d *checkDecoder) optStr() (*string, bool) {
	if d.literal("null") {
		return nil, true
	}
	s, ok := d.str()
	return &s, ok
}

func (d *checkDecoder) boolean() (v, ok bool) {
	if d.literal("true") {
		return true, true
	}
	return false, d.literal("false")
}

// evidence reads null, or an object (its extent found here, read by
// json.Unmarshal).
func (d *checkDecoder) evidence() (*Evidence, bool) {
	if d.literal("null") {
		return nil, true
	}
	d.ws()
	start, depth := d.i, 0
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case '"':
			if _, ok := d.str(); !ok {
				return nil, false
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		}
		d.i++
		if depth <= 0 {
			break
		}
	}
	if depth != 0 || d.i == start || d.b[start] != '{' {
		return nil, false
	}
	var ev Evidence
	if err := json.Unmarshal(d.b[start:d.i], &ev); err != nil {
		return nil, false
	}
	return &ev, true
}

// The fields of an item, each allowed once.
var checkFields = map[string]uint{"email": 1, "listed": 2, "id": 4, "origin": 8, "source_id": 16, "created_at": 32,
	"note": 64, "expires_at": 128, "evidence": 256, "listed_by": 512, "erased": 1024, "erased_domain": 2048, "object": 4096}

// item reads one item as CheckItem.UnmarshalJSON does.
func (d *checkDecoder) item() (CheckItem, bool) {
	var (
		e        Entry
		listed   bool
		listedBy string
		seen     uint
		ok       = true
	)
	if !d.next('{') {
		return CheckItem{}, false
	}
	if !d.next('}') {
		for {
			key, kok := d.str()
			bit := checkFields[key]
			if !kok || bit == 0 || seen&bit != 0 || !d.next(':') {
				return CheckItem{}, false
			}
			seen |= bit
			switch key {
			case "email":
				e.Email, ok = d.str()
			case "listed":
				listed, ok = d.boolean()
			case "id":
				e.ID, ok = d.str()
			case "origin":
				var o string
				o, ok = d.str()
				e.Origin = Origin(o)
			case "source_id":
				e.SourceID, ok = d.optStr()
			case "created_at":
				var s string
				if s, ok = d.str(); ok {
					ok = e.CreatedAt.parse(s) == nil
				}
			case "note":
				e.Note, ok = d.optStr()
			case "expires_at":
				var s *string
				if s, ok = d.optStr(); ok && s != nil {
					e.ExpiresAt = &Timestamp{}
					ok = e.ExpiresAt.parse(*s) == nil
				}
			case "evidence":
				e.Evidence, ok = d.evidence()
			case "listed_by":
				listedBy, ok = d.str()
			case "erased":
				e.Erased, ok = d.boolean()
			case "erased_domain":
				e.ErasedDomain, ok = d.str()
			case "object":
				e.Object, ok = d.str()
			}
			if !ok {
				return CheckItem{}, false
			}
			if d.next('}') {
				break
			}
			if !d.next(',') {
				return CheckItem{}, false
			}
		}
	}
	c := CheckItem{Email: e.Email, Listed: listed}
	if listed {
		c.Entry = e
		c.Entry.Object = ""
		if listedBy != "" {
			c.ListedBy = listedBy
			c.Entry.Email = listedBy
		}
	}
	return c, true
}

// response reads the whole answer, and nothing after it but white space.
func (d *checkDecoder) response() (CheckResponse, bool) {
	var r CheckResponse
	if !d.next('{') {
		return r, false
	}
	var seenObject, seenData bool
	if !d.next('}') {
		for {
			key, ok := d.str()
			if !ok || !d.next(':') {
				return r, false
			}
			switch {
			case key == "object" && !seenObject:
				seenObject = true
				if r.Object, ok = d.str(); !ok {
					return r, false
				}
			case key == "data" && !seenData:
				seenData = true
				if d.literal("null") {
					break
				}
				if !d.next('[') {
					return r, false
				}
				r.Data = make([]CheckItem, 0, bytesItems(len(d.b)))
				if !d.next(']') {
					for {
						c, ok := d.item()
						if !ok {
							return r, false
						}
						r.Data = append(r.Data, c)
						if d.next(']') {
							break
						}
						if !d.next(',') {
							return r, false
						}
					}
				}
			default:
				return r, false
			}
			if d.next('}') {
				break
			}
			if !d.next(',') {
				return r, false
			}
		}
	}
	d.ws()
	return r, d.i == len(d.b)
}

// bytesItems guesses how many items an answer of n bytes holds, for the
// slice's first size: an unlisted item is some 50 bytes, a listed one
// some 250.
func bytesItems(n int) int {
	return min(n/100+1, MaxCheck)
}
