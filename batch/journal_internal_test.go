package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
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
}

func FuzzParseRecord(f *testing.F) {
	f.Add([]byte(`{"kind":"plan","v":1,"mode":"add","target":"http://x","created":"2026-01-02T03:04:05Z","values":["a@example.com","b@example.com"],"duplicates":2}`))
	f.Add([]byte(`{"kind":"batch","batch":1,"ok":true,"results":[{"input":"a@example.com","id":"x","outcome":"added","batch":1}]}`))
	f.Fuzz(checkParseRecord)
}

func checkParseRecord(t *testing.T, line []byte) {
	got, gerr := parseRecord(line)
	want, werr := parseAnyRecord(line)
	var gd, wd *damagedError
	if !reflect.DeepEqual(got, want) || (gerr == nil) != (werr == nil) || errors.As(gerr, &gd) != errors.As(werr, &wd) {
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
// writes it, byte for byte, a line each, the buffer reused between them.
func TestBatchRecordAsMarshal(t *testing.T) {
	recs := []batchRecord{
		{Kind: "batch", Batch: 7, Error: "the service answered 500 <html>", Results: recordResults},
		{Kind: "batch", Batch: 1, OK: true, Results: recordResults[:1]},
		{Kind: "batch", Batch: 0},
		{Kind: "batch", Results: []Result{}},
	}
	path := filepath.Join(t.TempDir(), "j")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	j := &journal{path: path, f: f}
	var want []byte
	for _, rec := range recs {
		if err := j.appendBatch(rec); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		want = append(append(want, b...), '\n')
	}
	bad := batchRecord{Kind: "batch", Results: []Result{{ExpiresAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}}}
	if err := j.appendBatch(bad); err == nil {
		t.Error("a time json.Marshal refuses was written")
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("batch records:\n got %s\nwant %s", got, want)
	}
}
