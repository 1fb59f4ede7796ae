package postgres

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/storetest"
)

// BenchmarkAddAgainstInsert adds batches of 100 new addresses, one at a
// time, with the store's Add and, alternately in the same run, with the
// floor's transaction (bench/floor): a plain multi-row INSERT of the same
// columns and the change's row, in BEGIN … COMMIT. It reports the mean
// time of each and their ratio: what a batch costs the database beyond
// the rows themselves, without HTTP or other batches in flight.
//
//	SHUSH_TEST_POSTGRES=… go test ./server/store/postgres -run '^$' -bench AddAgainstInsert -benchtime 1000x -count 3
func BenchmarkAddAgainstInsert(b *testing.B) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	author := store.Change{KeyID: "k1", KeyName: "bench", RequestID: "r"}
	var values strings.Builder
	for i := range 100 {
		if i > 0 {
			values.WriteString(", ")
		}
		fmt.Fprintf(&values, "($%d, $%d, $%d, $%d, $%d, $%d, $%d)", 7*i+1, 7*i+2, 7*i+3, 7*i+4, 7*i+5, 7*i+6, 7*i+7)
	}
	insert := "INSERT INTO suppressions (id, team, email, origin, source_id, created_at, change_id) VALUES " + values.String()
	const change = "INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
	n := 0
	next := func() []string {
		emails := make([]string, 100)
		for i := range emails {
			emails[i] = fmt.Sprintf("new%08d@example.com", n)
			n++
		}
		return emails
	}
	add := func() time.Duration {
		emails := next()
		start := time.Now()
		if _, err := st.Add(ctx, "bench", author, store.Manual(emails...)); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	plain := func() time.Duration {
		emails := next()
		start := time.Now()
		at := time.Now().UTC()
		ch := uuid.Must(uuid.NewV7()).String()
		args := make([]any, 0, 700)
		var first, last string
		for i, e := range emails {
			id := uuid.Must(uuid.NewV7()).String()
			if i == 0 {
				first = id
			}
			last = id
			args = append(args, id, "floor", e, "manual", nil, at, ch)
		}
		err := pgx.BeginFunc(ctx, st.db.pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, change, ch, "floor", at, "k1", "bench", nil, "r", first, last); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, insert, args...)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	storetest.Alternate(b, "insert", "add", "add/insert", func(int) time.Duration { return plain() }, func(int) time.Duration { return add() })
}
