package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/shushlist/shush/ticket"
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

// The value set holds a list's address in few bytes, and reading a list
// allocates little more than that: its table is sized once from the
// file's lines, not grown by copies, and a line's own garbage is its
// string. At 200,000 addresses `user%07d@example.com` (21 bytes): 26.4
// bytes held an address (the local part, a length byte and the domain's
// number in the chunks; 8 bytes a slot at three quarters full), 51 bytes
// allocated a line in all. The whole values, or a table of a power of two,
// would hold 37 an address; a map and a []string, about 70; a table grown
// by copies allocates 17 a line more (docs/benchmarks.md: the 1M import's
// peak RSS).
func TestValueSetHoldsAnAddressInFewBytes(t *testing.T) {
	const n = 200_000
	var file bytes.Buffer
	for i := range n {
		fmt.Fprintf(&file, "user%07d@example.com\n", i)
	}
	s := newValueSet()
	s.reserve(n)
	for v := range strings.Lines(file.String()) {
		s.add(strings.TrimSuffix(v, "\n"))
	}
	held := 8 * cap(s.slots)
	for _, c := range s.chunks {
		held += cap(c)
	}
	if per := float64(held) / n; per > 30 || s.n != n {
		t.Errorf("%d addresses held in %d bytes, %.1f an address; want at most 30", s.n, held, per)
	}

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	in, err := ReadPlanAs(bytes.NewReader(file.Bytes()), "in.txt", Add, ticket.Own{}, ticket.ByRule, FormatAuto)
	runtime.ReadMemStats(&after)
	if err != nil || in.Len() != n {
		t.Fatalf("read %d values: %v", in.Len(), err)
	}
	if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 64 {
		t.Errorf("reading %d addresses allocated %d bytes, %.1f a line; want at most 64", n, after.TotalAlloc-before.TotalAlloc, per)
	}
}
