package client

import (
	"encoding/json"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/jsonstr"
)

// decodeBatch decodes a batch answer into out as json.Unmarshal does. A
// batch answer is read per batch of a run that may have millions of
// entries, and most of the CPU a run costs the client went to decoding
// them by reflection (after a first pass that only validates): the plain
// answer (the envelope, known fields, strings without escapes, no
// non-ASCII byte) is read here in one pass. Anything else, valid or not,
// is left to json.Unmarshal, so the result and every error are its own.
func decodeBatch(body []byte, out *api.BatchResponse, sent []string) error {
	if data, ok := fastBatch(body, sent); ok {
		out.Data = data
		return nil
	}
	return json.Unmarshal(body, out)
}

// batchAnswer is where a batch answer is decoded, with the addresses the
// request sent: an item names one of them, most often the one at its own
// place, and then shares its string instead of a copy of its own. That
// is only a saving of memory: which address an item names is read from
// the item, never from its place.
type batchAnswer struct {
	out  *api.BatchResponse
	sent []string
}

func fastBatch(body []byte, sent []string) ([]api.Suppression, bool) {
	s := jsonstr.NewScanner(body)
	s.Expect('{')
	if string(s.Key()) != "data" {
		return nil, false
	}
	s.Expect('[')
	data := make([]api.Suppression, 0, 100)
	if !s.Peek(']') {
		for !s.Bad() {
			var it api.Suppression
			var hint string
			if k := len(data); k < len(sent) {
				hint = sent[k]
			}
			item(s, &it, hint)
			data = append(data, it)
			if !s.Next(',') {
				break
			}
		}
	}
	s.Expect(']')
	s.Expect('}')
	if !s.End() {
		return nil, false
	}
	return data, true
}

// item reads one object of the answer into it; an email equal to hint is
// hint.
func item(s *jsonstr.Scanner, it *api.Suppression, hint string) {
	s.Expect('{')
	if s.Next('}') {
		return
	}
	for !s.Bad() {
		switch string(s.Key()) {
		case "object":
			if v := s.Raw(); string(v) == api.ObjectSuppression {
				it.Object = api.ObjectSuppression // one copy, not one per item
			} else {
				it.Object = string(v)
			}
		case "id":
			it.ID = s.Str()
		case "email":
			if v := s.Raw(); hint != "" && string(v) == hint {
				it.Email = hint
			} else {
				it.Email = string(v)
			}
		case "created":
			if s.Null() {
				it.Created = nil
				break
			}
			v := s.Bool()
			it.Created = &v
		case "deleted":
			it.Deleted = s.Bool()
		case "note":
			if s.Null() {
				it.Note = nil
				break
			}
			v := s.Str()
			it.Note = &v
		case "expires_at":
			if s.Null() {
				it.ExpiresAt = nil
				break
			}
			start, end := s.Token()
			if s.Bad() {
				return
			}
			t := &api.Timestamp{}
			if err := t.UnmarshalJSON(s.Bytes(start, end)); err != nil {
				s.Fail()
				return
			}
			it.ExpiresAt = t
		default:
			s.Fail()
			return
		}
		if !s.Next(',') {
			break
		}
	}
	s.Expect('}')
}
