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
