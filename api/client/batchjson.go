package client

import (
	"encoding/json"

	"github.com/shushlist/shush/api"
)

// decodeBatch decodes a batch answer into out as json.Unmarshal does. A
// batch answer is read per batch of a run that may have millions of
// entries, and most of the CPU a run costs the client went to decoding
// them by reflection (after a first pass that only validates): the plain
// answer (the envelope, known fields, strings without escapes, no
// non-ASCII byte) is read here in one pass. Anything else, valid or not,
// is left to json.Unmarshal, so the result and every error are its own.
func decodeBatch(body []byte, out *api.BatchResponse) error {
	if data, ok := fastBatch(body); ok {
		out.Data = data
		return nil
	}
	return json.Unmarshal(body, out)
}

// batchScanner reads a batch answer; any byte it does not expect makes
// it give up (ok false), never guess.
type batchScanner struct {
	b   []byte
	i   int
	bad bool
}

func fastBatch(body []byte) ([]api.Suppression, bool) {
	s := &batchScanner{b: body}
	s.expect('{')
	if string(s.key()) != "data" {
		return nil, false
	}
	s.expect('[')
	data := make([]api.Suppression, 0, 100)
	if !s.peek(']') {
		for !s.bad {
			var it api.Suppression
			s.item(&it)
			data = append(data, it)
			if !s.peek(',') {
				break
			}
			s.i++
		}
	}
	s.expect(']')
	s.expect('}')
	s.space()
	if s.bad || s.i != len(s.b) {
		return nil, false
	}
	return data, true
}

// item reads one object of the answer into it.
func (s *batchScanner) item(it *api.Suppression) {
	s.expect('{')
	if s.peek('}') {
		s.i++
		return
	}
	for !s.bad {
		switch string(s.key()) {
		case "object":
			if v := s.raw(); string(v) == api.ObjectSuppression {
				it.Object = api.ObjectSuppression // one copy, not one per item
			} else {
				it.Object = string(v)
			}
		case "id":
			it.ID = s.str()
		case "email":
			it.Email = s.str()
		case "created":
			if s.null() {
				it.Created = nil
				break
			}
			v := s.boolean()
			it.Created = &v
		case "deleted":
			it.Deleted = s.boolean()
		case "note":
			if s.null() {
				it.Note = nil
				break
			}
			v := s.str()
			it.Note = &v
		case "expires_at":
			if s.null() {
				it.ExpiresAt = nil
				break
			}
			s.space()
			start := s.i
			s.rawStr()
			if s.bad {
				return
			}
			t := &api.Timestamp{}
			if err := t.UnmarshalJSON(s.b[start:s.i]); err != nil {
				s.bad = true
				return
			}
			it.ExpiresAt = t
		default:
			s.bad = true
			return
		}
		if !s.peek(',') {
			break
		}
		s.i++
	}
	s.expect('}')
}

// space skips JSON whitespace.
func (s *batchScanner) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek skips whitespace and reports whether c comes next.
func (s *batchScanner) peek(c byte) bool {
	s.space()
	return !s.bad && s.i < len(s.b) && s.b[s.i] == c
}

func (s *batchScanner) expect(c byte) {
	if !s.peek(c) {
		s.bad = true
		return
	}
	s.i++
}

// key reads an object's key and its colon; nil when it cannot.
func (s *batchScanner) key() []byte {
	k := s.raw()
	s.expect(':')
	if s.bad {
		return nil
	}
	return k
}

// rawStr skips a string without escapes, control or non-ASCII bytes.
func (s *batchScanner) rawStr() {
	s.space()
	if s.bad || s.i >= len(s.b) || s.b[s.i] != '"' {
		s.bad = true
		return
	}
	for j := s.i + 1; j < len(s.b); j++ {
		switch c := s.b[j]; {
		case c == '"':
			s.i = j + 1
			return
		case c == '\\' || c < 0x20 || c >= 0x80:
			s.bad = true
			return
		}
	}
	s.bad = true
}

// raw reads a string and returns its bytes between the quotes.
func (s *batchScanner) raw() []byte {
	s.space()
	start := s.i
	s.rawStr()
	if s.bad {
		return nil
	}
	return s.b[start+1 : s.i-1]
}

// str reads a string value.
func (s *batchScanner) str() string { return string(s.raw()) }

// null reads a null when one comes next.
func (s *batchScanner) null() bool {
	s.space()
	if len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "null" {
		s.i += 4
		return true
	}
	return false
}

func (s *batchScanner) boolean() bool {
	s.space()
	switch {
	case len(s.b)-s.i >= 4 && string(s.b[s.i:s.i+4]) == "true":
		s.i += 4
		return true
	case len(s.b)-s.i >= 5 && string(s.b[s.i:s.i+5]) == "false":
		s.i += 5
		return false
	}
	s.bad = true
	return false
}
