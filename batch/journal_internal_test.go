package batch

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/shushlist/shush/api"
	"reflect"
	"testing"
)

// TestParseRecordAsTheGeneralWay: the one-pass decoding of a journal line
// says what reading its kind first says, for whole, damaged and odd lines.
func TestParseRecordAsTheGeneralWay(t *testing.T) {
	lines := []string{
		`{"kind":"plan","v":1,"mode":"add","target":"http://x","created":"2026-01-02T03:04:05Z","values":["a@example.com","b@example.com"]}`,
		`{"kind":"plan","v":1,"mode":"add","values":["a@example.com",`,
		`{"kind":"plan","v":"one","mode":"add","values":[]}`,
		`{"kind":"plan","v":1,"values":[],"kind":"end"}`,
		`{"kind":"plan","v":1,"values":[],"kind":5}`,
		`{"kind":"batch","batch":1,"ok":true,"results":[{"input":"a@example.com","id":"x","outcome":"added","batch":1}]}`,
		`{"kind":"batch","batch":1,"ok":tr`,
		`{"kind":"batch","batch":1,"ok":true,"results":[{"outcome":5}]}`,
		`{"kind":"batch","batch":1,"results":[{"outcome":"already listed"}],"kind":"plan","values":["a"]}`,
		`{"kind":"plan","v":1,"mode":"add","target":"http://x","created":"2026-01-02T03:04:05.123456789+01:00","values":[],"duplicates":7}`,
		` {"kind":"plan" , "v" : 0 ,"values" : [ "a" , "b" ] , "duplicates":0 } `,
		`{"kind":"plan","v":1,"values":["a"],"values":["b","c"]}`,
		`{"kind":"plan","v":01,"values":[]}`,
		`{"kind":"plan","v":1.0,"values":[]}`,
		`{"kind":"plan","v":-1,"values":[]}`,
		`{"kind":"plan","v":1e3,"values":[]}`,
		`{"kind":"plan","v":9999999999,"values":[]}`,
		`{"kind":"plan","created":null,"values":null}`,
		`{"kind":"plan","created":"yesterday","values":[]}`,
		`{"kind":"plan","values":["a\u0040b","ü"],"Duplicates":2}`,
		`{"kind":"plan","values":["a",]}`,
		`{"kind":"plan","values":["a"],"invalid":[{"line":1,"raw":"x","problem":"y"}],"restore":{"a":{"origin":"bounce"}}}`,
		`{"kind":"plan","values":["a"]}x`,
		`{"kind":"end"}`,
		`{"Kind":"plan","values":["a"]}`,
		`not json`,
		``,
	}
	for _, line := range lines {
		checkParseRecord(t, []byte(line))
	}
	if _, ok := fastPlan([]byte(lines[0])); !ok {
		t.Errorf("a plain plan record took the general path: %s", lines[0])
	}
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"kind":"plan","v":1,"mode":"add","target":"http://x","created":"2026-01-02T03:04:05Z","values":["a@example.com","b@example.com"],"duplicates":2}`))
	f.Add([]byte(`{"kind":"batch","batch":1,"ok":true,"results":[{"input":"a@example.com","id":"x","outcome":"added","batch":1}]}`))
	f.Fuzz(checkParseRecord)
}

func checkParseRecord(t *testing.T, line []byte) {
	got, gerr := parseRecord(line)
	want, werr := parseAnyRecord(line)
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
		t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", line, got, gerr, want, werr)
	}
}

var recordResults = []Result{
	{Input: "a@example.com", ID: "3f1c-9a2b", Outcome: Added, Batch: 1},
	{Input: "b@example.com", Outcome: Failed, Message: `refused: "bad" <x> & \ more`, Batch: 2},
	{Input: "ü@example.com", ID: "x", Outcome: Removed, Batch: 3, Email: "ü@example.com", Origin: "bounce", SourceID: "s1", Note: "line\nbreak\u2028", ExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)},
	{Input: "c@example.com", Outcome: Unverified, Message: "\x00\x7f\xff", ExpiresAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("x", 3600))},
	{},
}

// TestBatchRecordAsMarshal: a batch record is written as json.Marshal
// writes it, byte for byte.
func TestBatchRecordAsMarshal(t *testing.T) {
	recs := []batchRecord{
		{Kind: "batch", Batch: 1, OK: true, Results: recordResults[:1]},
		{Kind: "batch", Batch: 7, Error: "the service answered 500 <html>", Results: recordResults},
		{Kind: "batch", Batch: 0},
		{Kind: "batch", Results: []Result{}},
	}
	for _, rec := range recs {
		checkBatchRecord(t, rec)
	}
	bad := batchRecord{Kind: "batch", Results: []Result{{ExpiresAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if _, ok := appendBatchRecord(nil, bad); ok {
		t.Error("a time json.Marshal refuses was written")
	}
}

func FuzzBatchRecord(f *testing.F) {
	f.Add("a@example.com", "id", "added", "", "note", 3, int64(0))
	f.Add("<&>", "\u2028", "x\"y", "\\", "\x01\xff", -1, int64(1767323045))
	f.Fuzz(func(t *testing.T, input, id, outcome, message, note string, batch int, unix int64) {
		r := Result{Input: input, ID: id, Outcome: Outcome(outcome), Message: message, Batch: batch, Email: note, Origin: api.Origin(id), SourceID: message, Note: note}
		if unix != 0 {
			r.ExpiresAt = time.Unix(unix, 0)
		}
		checkBatchRecord(t, batchRecord{Kind: "batch", Batch: batch, OK: batch%2 == 0, Error: message, Results: []Result{r, r}})
	})
}

func checkBatchRecord(t *testing.T, rec batchRecord) {
	t.Helper()
	want, err := json.Marshal(rec)
	got, ok := appendBatchRecord(nil, rec)
	if ok != (err == nil) || ok && !bytes.Equal(got, want) {
		t.Errorf("batch record:\n got %s (%v)\nwant %s (%v)", got, ok, want, err)
	}
}
