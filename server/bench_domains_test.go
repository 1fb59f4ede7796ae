package server_test

import (
	"context"
	"fmt"
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

// domainBlocks is how many domain entries an incident's list holds in the
// benchmark: one blocks a domain of the checked addresses, the others
// domains and subdomains elsewhere.
const domainBlocks = 50

// BenchmarkCheckDomains checks checkAsk addresses through the service (the
// client's batch.Checker over real HTTP: ten bulk requests of 1,000) on a
// list of checkList entries: the floor is a team without domain entries,
// the measure a team with the same list and domainBlocks domain entries,
// one of which lists a tenth of the addresses checked ("listed by
// @blocked.example"), on both stores. Each iteration checks both, in
// turn; x_floor is the time with domain entries over the floor's, measured
// in the same run; the goal is at most 1.2.
//
//	go test ./server -run '^$' -bench CheckDomains -benchtime 20x -count 3
//
// PostgreSQL runs when SHUSH_TEST_POSTGRES names a server.
func BenchmarkCheckDomains(b *testing.B) {
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
			// Two teams hold the same list; one of them also blocks
			// domainBlocks domains.
			for _, team := range []string{"plain", "blocking"} {
				for i := 0; i < checkList; i += 1000 {
					emails := make([]string, 1000)
					for j := range emails {
						emails[j] = fmt.Sprintf("customer%07d@crm.example", 2*(i+j))
					}
					if _, err := st.Add(ctx, team, store.Change{}, store.Manual(emails...)); err != nil {
						b.Fatal(err)
					}
				}
			}
			blocks := []store.NewEntry{{Email: "@blocked.example", ExpiresAt: time.Now().Add(24 * time.Hour)}}
			for i := 1; i < domainBlocks; i++ {
				e := fmt.Sprintf("@incident%02d.example", i)
				if i%2 == 0 {
					e = fmt.Sprintf("*.incident%02d.example", i)
				}
				blocks = append(blocks, store.NewEntry{Email: e})
			}
			if _, err := st.Add(ctx, "blocking", store.Change{Reference: "INC-7"}, blocks); err != nil {
				b.Fatal(err)
			}
			// A tenth of the addresses checked are at the domain an
			// incident blocks.
			ask := make([]string, checkAsk)
			for i := range ask {
				if i%10 == 9 {
					ask[i] = fmt.Sprintf("user%07d@blocked.example", i)
				} else {
					ask[i] = fmt.Sprintf("customer%07d@crm.example", i)
				}
			}
			// The teams' budgets of costly reads are opened wide: the
			// measurement must not wait for them.
			s := startService(b, st, server.Options{Rate: 1e6, ReadBudget: time.Hour})
			plain := client.New(s.url, s.key("plain", true))
			blocking := client.New(s.url, s.key("blocking", true))
			check := func(b *testing.B, c *client.Client, wantBlocked bool) time.Duration {
				start := time.Now()
				k := &batch.Checker{Client: c}
				found, err := k.Check(ctx, ask)
				took := time.Since(start)
				if err != nil || len(found) != checkAsk || !found[0].Listed || found[1].Listed || !k.Bulk() {
					b.Fatalf("%d answers, %v", len(found), err)
				}
				if blocked := found[9].Listed && found[9].ListedBy == "@blocked.example"; blocked != wantBlocked {
					b.Fatalf("user at blocked.example: %+v, want listed by the domain %v", found[9], wantBlocked)
				}
				return took
			}
			// The floor and the check with domain entries alternate, so
			// that a loaded machine weighs on both alike.
			b.Run(fmt.Sprintf("check=%d/domains=%d", checkAsk, domainBlocks), func(b *testing.B) {
				var floor, domains time.Duration
				for i := 0; b.Loop(); i++ {
					if i%2 == 0 {
						floor += check(b, plain, false)
						domains += check(b, blocking, true)
					} else {
						domains += check(b, blocking, true)
						floor += check(b, plain, false)
					}
				}
				n := time.Duration(b.N)
				b.ReportMetric(float64(floor/n)/1e6, "floor-ms/check")
				b.ReportMetric(float64(domains/n)/1e6, "domains-ms/check")
				b.ReportMetric(float64(domains)/float64(floor), "x_floor")
			})
		})
	}
}
