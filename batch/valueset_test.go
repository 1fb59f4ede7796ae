package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"testing"
)

// Values whose hashes collide, fully, are told apart by their bytes: none
// is taken for another, and a repeat is still found.
func TestValueSetCollisions(t *testing.T) {
	for _, collide := range []bool{false, true} {
		s := newValueSet()
		s.collide = collide
		n := 3000
		if !collide {
			n = 300_000 // the table grows several times
		}
		var want []string
		for i := range n {
			v := fmt.Sprintf("u%d@example.com", i)
			if _, added := s.add(v); !added {
				t.Fatalf("collide %v: %s taken for a value already held", collide, v)
			}
			want = append(want, v)
			if i%3 == 0 {
				if _, added := s.add(fmt.Sprintf("u%d@example.com", i/2)); added {
					t.Fatalf("collide %v: u%d@example.com held twice", collide, i/2)
				}
			}
		}
		off, _ := s.add("u7@example.com")
		s.drop(off)
		s.done()
		var got []string
		s.each(func(v []byte) bool { got = append(got, string(v)); return true })
		want = slices.Delete(want, 7, 8)
		if !slices.Equal(got, want) || s.n != n-1 {
			t.Fatalf("collide %v: %d values listed, n %d; want %d", collide, len(got), s.n, len(want))
		}
	}
}

// A plan record written from compact values reads back as the one
// json.Marshal writes, whatever the values hold.
func TestAppendPlanRecord(t *testing.T) {
	values := []string{"a@example.com", `"q\"uote"@x.org`, `back\slash@x.org`, "tab\there", "nl\n\x00\x1f", "ünï@例え.jp", "<&>", "\u2028"}
	rec := planRecord{Kind: "plan", Version: 1, Mode: "add", Target: "http://x", Invalid: []Item{{Line: 2, Raw: "x", Problem: "no @"}}, Duplicates: 3}
	b, err := appendPlanRecord(nil, rec, func(yield func([]byte) bool) {
		for _, v := range values {
			if !yield([]byte(v)) {
				return
			}
		}
	})
	if err != nil || b[len(b)-1] != '\n' || bytes.Count(b, []byte{'\n'}) != 1 {
		t.Fatalf("%q, %v", b, err)
	}
	var got planRecord
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	want := rec
	want.Values = values
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("read back %+v; want %+v", got, want)
	}
}

// Values are listed exactly as added, in order of first occurrence, and a
// repeat is found, whatever their form: addresses at a domain kept once
// (more domains than are kept once, too), several @, an empty local part
// or domain, IDs, and colliding hashes.
func TestValueSetKeepsEveryFormExactly(t *testing.T) {
	forms := []string{"a@example.com", "@example.com", "b@", "@", "x@y@example.com", "*.example.com",
		"0198c0de-7d3a-7000-8000-000000000001", "ünï@例え.jp", "", "a@example.co", "a@example.comm"}
	for _, collide := range []bool{false, true} {
		s := newValueSet()
		s.collide = collide
		var want []string
		add := func(v string, fresh bool) {
			if _, added := s.add(v); added != fresh {
				t.Fatalf("collide %v: add(%q) added %v; want %v", collide, v, added, fresh)
			}
			if fresh {
				want = append(want, v)
			}
		}
		for _, v := range forms {
			add(v, true)
		}
		domains := maxDomains + 50
		if collide {
			domains = 200
		}
		for i := range domains {
			add(fmt.Sprintf("u%d@d%d.example", i%7, i), true)
		}
		for _, v := range forms {
			add(v, false)
		}
		for i := range domains {
			add(fmt.Sprintf("u%d@d%d.example", i%7, i), false)
			add(fmt.Sprintf("u%d@d%d.example", i%7+1, i), true)
		}
		s.done()
		var got []string
		s.each(func(v []byte) bool { got = append(got, string(v)); return true })
		if !slices.Equal(got, want) {
			t.Fatalf("collide %v: %d values listed; want %d", collide, len(got), len(want))
		}
	}
}
