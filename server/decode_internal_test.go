package server

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

// slowList is how a check's body is read without plainListBody.
func slowList(body []byte) ([]string, error) {
	f, err := objectOf(body, "emails")
	if err != nil {
		return nil, err
	}
	raw, ok := f["emails"]
	if !ok {
		return nil, fmt.Errorf("missing")
	}
	return stringListOf(raw, "emails", "a valid email address", 3, api.NormalizeEntry)
}

// TestPlainListBody checks that the one-pass reading of a check's body
// answers what readObject and stringListOf answer whenever it answers,
// and that it answers the bodies clients send.
func TestPlainListBody(t *testing.T) {
	bodies := []string{
		`{"emails":["a@x.example","B@X.example","a@x.example"]}`,
		" {\n \"emails\" : [ \"a@x.example\" , \"@x.example\" ] } \n",
		`{"emails":["*.x.example"]}`,
		`{"emails":["a@x.example","b@x.example","c@x.example","d@x.example"]}`,
		`{"emails":[]}`, `{"emails":null}`, `{"emails":["not an address"]}`,
		`{"emails":["a@x.example"],"emails":["b@x.example"]}`,
		`{"emails":["a@x.example"],"other":1}`, `{"other":1,"emails":["a@x.example"]}`,
		`{"emails":["a\u0040x.example"]}`, `{"em\u0061ils":["a@x.example"]}`,
		`{"emails":["a@x.example",]}`, `{"emails":["a@x.example"]} {}`, `{"emails":[1]}`,
		`{"emails":["ä@x.example"]}`, `{"Emails":["a@x.example"]}`,
	}
	answered := 0
	for _, b := range bodies {
		got, ok := plainListBody([]byte(b), "emails", 3, api.NormalizeEntry)
		if !ok {
			continue
		}
		answered++
		want, err := slowList([]byte(b))
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: one pass %q, the fields' reading %q, %v", b, got, want, err)
		}
	}
	if answered != 3 {
		t.Errorf("the one pass answered %d of the first bodies; want the three plain ones", answered)
	}
	// Every cut of a plain body is refused.
	full := bodies[0]
	for i := range len(full) - 1 {
		if got, ok := plainListBody([]byte(full[:i]), "emails", 3, api.NormalizeEntry); ok {
			t.Errorf("%q: answered %q", full[:i], got)
		}
	}
	if _, ok := plainListBody([]byte(strings.Replace(full, `"]}`, `"]`, 1)), "emails", 3, api.NormalizeEntry); ok {
		t.Error("an unclosed object was answered")
	}
}
