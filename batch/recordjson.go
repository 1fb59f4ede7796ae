package batch

import (
	"strconv"

	"github.com/shushlist/shush/internal/jsonstr"
)

// appendBatchRecord appends what json.Marshal makes of rec, byte for byte:
// a run writes one batch record per batch, and encoding its results by
// reflection was a tenth of the CPU a run cost the client. ok is false
// when a field needs what only json.Marshal says (a time it cannot
// write): the caller then marshals rec itself.
func appendBatchRecord(b []byte, rec batchRecord) ([]byte, bool) {
	b = append(b, `{"kind":`...)
	b = jsonstr.Append(b, rec.Kind)
	b = append(b, `,"batch":`...)
	b = strconv.AppendInt(b, int64(rec.Batch), 10)
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, rec.OK)
	if rec.Error != "" {
		b = append(b, `,"error":`...)
		b = jsonstr.Append(b, rec.Error)
	}
	b = append(b, `,"results":`...)
	if rec.Results == nil {
		return append(b, "null}"...), true
	}
	b = append(b, '[')
	for i, r := range rec.Results {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendResult(b, r); !ok {
			return b, false
		}
	}
	return append(b, "]}"...), true
}

// appendResult appends what json.Marshal makes of r.
func appendResult(b []byte, r Result) ([]byte, bool) {
	b = append(b, `{"input":`...)
	b = jsonstr.Append(b, r.Input)
	b = appendOptional(b, `,"id":`, r.ID)
	b = append(b, `,"outcome":`...)
	b = jsonstr.Append(b, string(r.Outcome))
	b = appendOptional(b, `,"message":`, r.Message)
	b = append(b, `,"batch":`...)
	b = strconv.AppendInt(b, int64(r.Batch), 10)
	b = appendOptional(b, `,"email":`, r.Email)
	b = appendOptional(b, `,"origin":`, string(r.Origin))
	b = appendOptional(b, `,"source_id":`, r.SourceID)
	b = appendOptional(b, `,"note":`, r.Note)
	if !r.ExpiresAt.IsZero() {
		t, err := r.ExpiresAt.MarshalJSON()
		if err != nil {
			return b, false
		}
		b = append(b, `,"expires_at":`...)
		b = append(b, t...)
	}
	return append(b, '}'), true
}

// appendOptional appends an omitempty string field: key and value, or
// nothing when s is empty.
func appendOptional(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return jsonstr.Append(append(b, key...), s)
}
