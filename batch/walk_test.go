package batch_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/hostedtest"
)

// Without the bulk check, a check reads the list when its pages pair the
// addresses asked (a list shorter than the look-ups), and otherwise looks
// each up after at most a tenth of the look-ups' worth of pages: never
// more than 1.1 times the look-ups, and the list's own pages when they
// are fewer. Every answer is the service's.
func TestCheckWithoutBulkReadsTheListWhenItPays(t *testing.T) {
	for _, tc := range []struct {
		name        string
		list, asked int // entries on the list, addresses checked
		listed      int // of those asked, how many are on the list
		most        int64
	}{
		{"250 listed of a list of 253", 253, 250, 250, 1 + 3},
		{"20 not listed, a list of 5,000", 5000, 20, 0, 1 + 2 + 20},
		{"3 not listed, a list of 5,000", 5000, 3, 0, 1 + 3},
		{"40 listed spread over a list of 5,000", 5000, 40, 40, 1 + 4 + 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := hostedtest.Start(t)
			asked := addresses("asked", tc.asked)
			var others []string
			for i := range tc.list - tc.listed {
				others = append(others, fmt.Sprintf("other%05d@example.com", i))
			}
			// The listed addresses of those asked, spread among the others.
			step := max(1, len(others)/max(1, tc.listed))
			for i := range tc.listed {
				h.Add(others[min(i*step, len(others)):min((i+1)*step, len(others))]...)
				h.Add(asked[i])
			}
			if rest := tc.listed * step; rest < len(others) {
				h.Add(others[rest:]...)
			}
			before := h.Total()
			k := &batch.Checker{Client: foreignClient(h)}
			found, err := k.Check(context.Background(), asked)
			if err != nil {
				t.Fatal(err)
			}
			truth := h.Truth()
			for _, f := range found {
				id, listed := truth[f.Input]
				if f.Err != nil || f.Listed != listed || listed && f.Entry.ID != id {
					t.Fatalf("%+v; the service holds %q", f, id)
				}
			}
			if n := h.Total() - before; n > tc.most {
				t.Errorf("%d requests; want at most %d", n, tc.most)
			}
		})
	}
}
