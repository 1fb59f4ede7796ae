package server_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// The list the check is measured on, and how many addresses it checks: a
// CRM export of checkAsk customers, one in two of them listed.
const (
	checkList = 100_000
	checkAsk  = 10_000
)

// BenchmarkCheck checks checkAsk addresses through the service (the
// client's batch.Checker over real HTTP: ten bulk requests of 1,000)
// against the floor the issue names: exporting the whole list of
// checkList entries (the client's Export, CSV), on both stores. x_export
// is the check's time over the export's, measured in the same run.
//
//	go test ./server -run '^$' -bench Check -benchtime 20x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkCheck(b *testing.B) {
	for _, kind := range []string{"sqlite", "postgres"} {
		b.Run(kind, func(b *testing.B) {
			ctx := context.Background()
			var st store.Store
			switch kind {
			case "sqlite":
				s, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "check.db"))
				if err != nil {
					b.Fatal(err)
				}
				st = s
			case "postgres":
				s, err := postgres.Open(ctx, pgtest.DSN(b))
				if err != nil {
					b.Fatal(err)
				}
				st = s
			}
			defer st.Close()
			for i := 0; i < checkList; i += 1000 {
				emails := make([]string, 1000)
				for j := range emails {
					// Every other customer of the CRM export is listed.
					emails[j] = fmt.Sprintf("customer%07d@crm.example", 2*(i+j))
				}
				if _, err := st.Add(ctx, "bench", store.Change{}, store.Manual(emails...)); err != nil {
					b.Fatal(err)
				}
			}
			ask := make([]string, checkAsk)
			for i := range ask {
				ask[i] = fmt.Sprintf("customer%07d@crm.example", i)
			}
			s := startService(b, st, server.Options{Rate: 1e6})
			c := client.New(s.url, s.key("bench", true))
			var export time.Duration
			b.Run("floor=export", func(b *testing.B) {
				for b.Loop() {
					n, err := c.Export(ctx, client.ExportParams{Format: "csv"}, io.Discard)
					if err != nil || n < int64(checkList)*40 {
						b.Fatalf("%d bytes, %v", n, err)
					}
				}
				export = b.Elapsed() / time.Duration(b.N)
			})
			b.Run(fmt.Sprintf("check=%d", checkAsk), func(b *testing.B) {
				for b.Loop() {
					k := &batch.Checker{Client: c}
					found, err := k.Check(ctx, ask)
					if err != nil || len(found) != checkAsk || !found[0].Listed || found[1].Listed || !k.Bulk() {
						b.Fatalf("%d answers, %v", len(found), err)
					}
				}
				per := b.Elapsed() / time.Duration(b.N)
				b.ReportMetric(float64(checkAsk)/per.Seconds(), "addresses/s")
				if export > 0 {
					b.ReportMetric(float64(per)/float64(export), "x_export")
				}
			})
		})
	}
}
