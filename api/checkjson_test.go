package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"
)

// marshalReflect is how a check's item was written before AppendJSON:
// encoding/json over the fields, in this order. The wire must not move.
func marshalReflect(c CheckItem) ([]byte, error) {
	if !c.Listed {
		return json.Marshal(struct {
			Email  string `json:"email"`
			Listed bool   `json:"listed"`
		}{c.Email, false})
	}
	e := c.Entry
	return json.Marshal(struct {
		Email     string     `json:"email"`
		Listed    bool       `json:"listed"`
		ID        string     `json:"id"`
		Origin    Origin     `json:"origin"`
		SourceID  *string    `json:"source_id"`
		CreatedAt Timestamp  `json:"created_at"`
		Note      *string    `json:"note"`
		ExpiresAt *Timestamp `json:"expires_at"`
		Evidence  *Evidence  `json:"evidence"`
		ListedBy  string     `json:"listed_by,omitempty"`
		Erased    bool       `json:"erased,omitempty"`
		Domain    string     `json:"erased_domain,omitempty"`
	}{c.Email, true, e.ID, e.Origin, e.SourceID, e.CreatedAt, e.Note, e.ExpiresAt, e.Evidence, c.ListedBy, e.Erased, e.ErasedDomain})
}

// TestCheckAnswerBytes checks that a check's answer written by hand is
// byte for byte what encoding/json writes, for items with every field
// set or not, and strings that encoding/json escapes (quotes,
// backslashes, HTML's <>&, control characters, non-ASCII, invalid UTF-8,
// U+2028).
func TestCheckAnswerBytes(t *testing.T) {
	items := checkItems()
	for _, c := range items {
		want, err := marshalReflect(c)
		if err != nil {
			t.Fatal(err)
		}
		got, err := c.AppendJSON(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("item of %q:\n got %s\nwant %s", c.Email, got, want)
		}
	}
	r := CheckResponse{Object: ObjectList, Data: items}
	want, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the answer of %d items differs from encoding/json's", len(items))
	}
	for _, r := range []CheckResponse{{Object: ObjectList}, {Object: ObjectList, Data: []CheckItem{}}} {
		want, _ := json.Marshal(r)
		if got, _ := r.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Errorf("answer of %d items: got %s, want %s", len(r.Data), got, want)
		}
	}
}

// checkItems are items of a check's answer with every field set or not,
// and strings that encoding/json escapes (quotes, backslashes, HTML's
// <>&, control characters, non-ASCII, invalid UTF-8, U+2028).
func checkItems() []CheckItem {
	str := func(s string) *string { return &s }
	at := time.Date(2026, 11, 27, 18, 30, 1, 234_567_890, time.FixedZone("x", 3600))
	until := Timestamp{Time: at.Add(48 * time.Hour)}
	odd := []string{"plain@example.com", `quo"te@x.example`, `back\slash@x.example`, "<tag>&amp;@x.example",
		"tab\there@x.example", "ünïcode@bücher.example", "bad\xffutf8@x.example", "line\u2028sep@x.example", ""}
	for _, c := range "\"\\<>&\x00\x1f\x7f\u00e9" {
		odd = append(odd, "a"+string(c)+"b@x.example")
	}
	var items []CheckItem
	for i, s := range odd {
		items = append(items, CheckItem{Email: s})
		items = append(items, CheckItem{Email: s, Listed: true, Entry: Entry{ID: "0193a0b4-0000-7000-8000-00000000000" + string(rune('0'+i)),
			Email: s, Origin: OriginManual, CreatedAt: Timestamp{Time: at}}})
		items = append(items, CheckItem{Email: s, Listed: true, ListedBy: "@" + s, Entry: Entry{ID: "id-" + s, Origin: Origin(s),
			SourceID: str(s), CreatedAt: Timestamp{Time: at, raw: "2026-11-27 17:30:01.234+00"}, Note: str(s), ExpiresAt: &until,
			Evidence: &Evidence{Provider: s, Kind: "bounce", Diagnostic: s, ReportedAt: &Timestamp{Time: at}},
			Erased:   true, ErasedDomain: s}})
	}
	return items
}

// TestDecodeCheckAnswer checks that DecodeCheckResponse reads what
// json.Unmarshal reads, and fails where it fails with its error: the
// service's own answers (which it reads in its one pass), the same
// indented, every cut of an answer, and answers of other shapes.
func TestDecodeCheckAnswer(t *testing.T) {
	items := checkItems()
	own, err := CheckResponse{Object: ObjectList, Data: items}.AppendJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, own, "", "\t "); err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{own, indented.Bytes(), []byte(`{"object":"list","data":[]}`), []byte(` {"data":null} `)} {
		d := checkDecoder{b: b}
		if _, ok := d.response(); !ok {
			t.Errorf("the one pass did not read %.80s…", b)
		}
	}
	small, _ := CheckResponse{Object: ObjectList, Data: items[len(items)-6:]}.AppendJSON(nil)
	cases := [][]byte{own, indented.Bytes(),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"Note":"n"}]}`),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"listed":false}]}`),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":1}]}`),
		[]byte(`{"object":"list","data":[null,{"email":"a@x.example","listed":null}]}`),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"created_at":"yesterday"}]}`),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"evidence":{"provider":"p","kind":"k","x":[1,{"}":"]"}]}}]}`),
		[]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"evidence":"bounce"}]}`),
		[]byte(`{"object":"list","extra":{"a":1},"data":[]}`),
		[]byte(`{"object":"list","data":[]} x`),
		[]byte(`{"object":"list","data":[{"email":"a\u0040x.example","listed":false}]}`),
		[]byte(`{"object":"list","data":[{"email":"a` + "\x01" + `x.example","listed":false}]}`),
		[]byte(`null`), []byte(``), []byte(`[]`),
	}
	for i := range small {
		cases = append(cases, small[:i])
	}
	for _, b := range cases {
		got, gotErr := DecodeCheckResponse(b)
		var want CheckResponse
		wantErr := json.Unmarshal(b, &want)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%.120s:\n got %+v, %v\nwant %+v, %v", b, got, gotErr, want, wantErr)
		}
	}
}

// FuzzDecodeCheckAnswer checks DecodeCheckResponse against json.Unmarshal
// on any input: the same answer, or the same error.
func FuzzDecodeCheckAnswer(f *testing.F) {
	own, _ := CheckResponse{Object: ObjectList, Data: checkItems()[:9]}.AppendJSON(nil)
	f.Add(own)
	f.Add([]byte(`{"object":"list","data":[{"email":"a@x.example","listed":true,"evidence":{"provider":"p","kind":"k"}}]}`))
	f.Add([]byte(`{"data":[{"email":"a\u0040x.example","listed":false}],"object":"list"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := DecodeCheckResponse(b)
		var want CheckResponse
		wantErr := json.Unmarshal(b, &want)
		if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
			t.Errorf("%q:\n got %+v, %v\nwant %+v, %v", b, got, gotErr, want, wantErr)
		}
	})
}
