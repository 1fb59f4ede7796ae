package server_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// BenchmarkExport streams a list of exportEntries through GET
// /suppressions/export (the client's Export over real HTTP, CSV) against
// the floor: the store's own snapshot read of the same rows, no HTTP, no
// encoding. Both run in one invocation; their ratio is the service's cost.
//
//	go test ./server -run '^$' -bench Export -benchtime 3x
const exportEntries = 200_000

func BenchmarkExport(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "export.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	for i := 0; i < exportEntries; i += 1000 {
		emails := make([]string, 1000)
		for j := range emails {
			emails[j] = fmt.Sprintf("e%07d@example.com", i+j)
		}
		if _, err := st.Add(ctx, "bench", store.Change{}, store.Manual(emails...)); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("floor=store", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := st.Export(ctx, "bench", store.ListQuery{}, func(store.Entry) error { n++; return nil }); err != nil || n != exportEntries {
				b.Fatalf("%d entries, %v", n, err)
			}
		}
		b.ReportMetric(float64(exportEntries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
	s := startService(b, st, server.Options{})
	key := s.key("bench", false)
	c := client.New(s.url, key)
	b.Run("shush=http+csv", func(b *testing.B) {
		for b.Loop() {
			n, err := c.Export(ctx, client.ExportParams{Format: "csv"}, io.Discard)
			if err != nil || n < int64(exportEntries)*40 {
				b.Fatalf("%d bytes, %v", n, err)
			}
		}
		b.ReportMetric(float64(exportEntries)*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	})
}
