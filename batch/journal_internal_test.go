package batch

import (
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
		`{"kind":"end"}`,
		`{"Kind":"plan","values":["a"]}`,
		`not json`,
		``,
	}
	for _, line := range lines {
		got, gerr := parseRecord([]byte(line))
		want, werr := parseAnyRecord([]byte(line))
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gerr, werr) {
			t.Errorf("%s:\n got %+v, %v\nwant %+v, %v", line, got, gerr, want, werr)
		}
	}
}
