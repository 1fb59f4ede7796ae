package reliability

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// TestSameAddressAcrossProcesses adds the same addresses at once through
// two `shush serve` processes on one PostgreSQL database, whose changes of
// one team commit side by side: 16 clients, each sending the same 40
// addresses in its own order, in batches of 1 to 8. Every answer must name
// one ID per address, the same in every answer (each mapped by its
// address, not its place), exactly one answer must say it created it, and
// the table must hold one row per address, with that ID.
func TestSameAddressAcrossProcesses(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := serve(t, dsn, "--rate", "100000")
	a.waitHealthy()
	b := serve(t, dsn, "--rate", "100000")
	b.waitHealthy()
	key := createKey(t, dsn, "race", false)
	const clients, addresses = 16, 40
	addr := func(i int) string { return fmt.Sprintf("same%02d@race.example", i) }

	ctx := context.Background()
	var mu sync.Mutex
	ids := map[string]map[string]bool{}
	created := map[string]int{}
	var failures []string
	var wg sync.WaitGroup
	for w := range clients {
		c := newClient([]string{a.url, b.url}[w%2], key)
		wg.Go(func() {
			order := make([]int, addresses)
			for i := range order {
				order[i] = (i*7 + w*13) % addresses
			}
			for lo := 0; lo < addresses; {
				n := min(1+(lo+w)%8, addresses-lo)
				emails := make([]string, n)
				for i := range emails {
					emails[i] = addr(order[lo+i])
				}
				lo += n
				ans := c.do(ctx, "POST", "/suppressions/batch/add", api.BatchAddRequest{Emails: emails})
				var r api.BatchResponse
				if ans.err == nil && ans.status == 201 {
					ans.err = json.Unmarshal(ans.body, &r)
				}
				mu.Lock()
				if ans.err != nil || ans.status != 201 {
					failures = append(failures, fmt.Sprintf("%d %v %s", ans.status, ans.err, ans.body))
				}
				for _, d := range r.Data {
					if ids[d.Email] == nil {
						ids[d.Email] = map[string]bool{}
					}
					ids[d.Email][d.ID] = true
					if d.Created != nil && *d.Created {
						created[d.Email]++
					}
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(failures) > 0 {
		t.Fatalf("%d adds failed, the first: %s", len(failures), failures[0])
	}

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT email, id::text FROM suppressions WHERE team = 'race'`)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Email, ID string }])
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != addresses {
		t.Errorf("the table holds %d rows of the team; want one for each of the %d addresses", len(stored), addresses)
	}
	for _, row := range stored {
		got := ids[row.Email]
		if len(got) != 1 || !got[row.ID] {
			t.Errorf("%s is stored as %s, and the answers named %v: want that one ID in every answer", row.Email, row.ID, got)
		}
		if created[row.Email] != 1 {
			t.Errorf("%s: %d answers said they created it; want exactly one", row.Email, created[row.Email])
		}
	}
	report(t, "%d clients through two processes, %d addresses: one row and one ID each, one creation each", clients, addresses)
}
