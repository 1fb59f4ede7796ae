package server

import (
	"bytes"
	"encoding/csv"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/server/store"
)

// The export's records are byte for byte what encoding/csv writes for the
// same cells (with the formula guard and the service's time layout), for
// cells that need quoting, guarding or neither, and for any time.
func TestExportCSVIsEncodingCSV(t *testing.T) {
	cells := []string{"", "plain@example.com", "=1+2@example.com", "+evt", "-x", "@home", "\tlead", "\rlead",
		"a,b", `say "hi"`, "line\nbreak", "cr\rin", " lead", "\u00a0nbsp", `\.`, `"`, "ünï@example.com", "trail ", ","}
	rng := rand.New(rand.NewPCG(7, 26))
	for i := range 2000 {
		src := cells[rng.IntN(len(cells))]
		x := store.Entry{ID: "0190a1b2-0000-7000-8000-00000000000" + string(rune('0'+i%10)), Email: cells[rng.IntN(len(cells))],
			Origin: api.OriginBounce, CreatedAt: time.UnixMilli(rng.Int64N(1 << 48)), Note: cells[rng.IntN(len(cells))]}
		if i%3 != 0 {
			x.SourceID = &src
		}
		if i%2 == 0 {
			x.ExpiresAt = time.UnixMilli(rng.Int64N(1 << 48)).In(time.FixedZone("x", 3600))
		}
		ev := []string{"", "", "", "", "", "", "", ""}
		if i%4 == 1 {
			at := api.Timestamp{Time: time.UnixMilli(rng.Int64N(1 << 48))}
			x.Evidence = &api.Evidence{Provider: "mail", Kind: "bounce", EventID: cells[rng.IntN(len(cells))], MessageID: cells[rng.IntN(len(cells))],
				Status: "5.1.1", Diagnostic: cells[rng.IntN(len(cells))], ReportingMTA: cells[rng.IntN(len(cells))]}
			ev = []string{"mail", "bounce", safe.Cell(x.Evidence.EventID), safe.Cell(x.Evidence.MessageID), "5.1.1",
				safe.Cell(x.Evidence.Diagnostic), safe.Cell(x.Evidence.ReportingMTA), ""}
			if i%8 == 1 {
				x.Evidence.ReportedAt = &at
				ev[7] = at.UTC().Format(api.TimestampLayout)
			}
		}
		domain := ""
		if i%5 == 2 {
			// An erased entry that keeps its domain: the last column.
			x.Email, x.ErasedDomain = "erased:v1:"+strings.Repeat("ab", 32), cells[rng.IntN(len(cells))]
			domain = safe.Cell(x.ErasedDomain)
		}
		var want bytes.Buffer
		w := csv.NewWriter(&want)
		s, until := "", ""
		if x.SourceID != nil {
			s = *x.SourceID
		}
		if !x.ExpiresAt.IsZero() {
			until = x.ExpiresAt.UTC().Format(api.TimestampLayout)
		}
		_ = w.Write(append([]string{x.ID, safe.Cell(x.Email), string(x.Origin), safe.Cell(s), x.CreatedAt.UTC().Format(api.TimestampLayout), safe.Cell(x.Note), until}, append(ev, domain)...))
		w.Flush()
		if got := appendCSV(nil, x); !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("entry %+v:\n got %q\nwant %q", x, got, want.Bytes())
		}
	}
}
