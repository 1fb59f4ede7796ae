package main

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "modernc.org/sqlite"

	"github.com/shushlist/shush/internal/cputime"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/sqlite"
)

// batchSize is the rows of one durable transaction: what one request of
// the CLI adds.
const batchSize = 100

// team is the team the rows belong to, in the floor and in shush.
const team = "bench"

// floor inserts the addresses into the fresh database db, batchSize rows
// per durable transaction, with plain prepared INSERT statements, and
// returns the time it took. The schema is the one a shush store creates.
// With trail, each transaction also writes what shush's trail writes for
// an addition: one row in changes (who, why, the span of the IDs), named
// by each new entry.
func floor(ctx context.Context, kind, db string, emails []string, trail bool) (result, error) {
	switch kind {
	case "sqlite":
		st, err := sqlite.Open(ctx, db)
		if err != nil {
			return result{}, err
		}
		if err := st.Close(); err != nil {
			return result{}, err
		}
		return floorSQLite(ctx, db, emails, trail)
	default:
		st, err := postgres.Open(ctx, db)
		if err != nil {
			return result{}, err
		}
		if err := st.Close(); err != nil {
			return result{}, err
		}
		return floorPostgres(ctx, db, emails, trail)
	}
}

// row is one address's values.
type row struct {
	id, email string
	at        time.Time
}

// makeRows gives the addresses their IDs and time, as the store does for
// each batch: inside the timed work.
func makeRows(emails []string) ([]row, error) {
	at := time.Now().UTC().Truncate(time.Millisecond)
	out := make([]row, len(emails))
	for i, e := range emails {
		id, err := uuid.NewV7()
		if err != nil {
			return nil, err
		}
		out[i] = row{id: id.String(), email: e, at: at}
	}
	return out, nil
}

// keyID and requestID stand for what the service writes into each change
// row: the key's ID and the request's.
const (
	keyID     = "0123456789abcdef"
	requestID = "fedcba9876543210"
)

func values(n, cols int, placeholder func(i int) string) string {
	var b strings.Builder
	k := 0
	for r := 0; r < n; r++ {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for c := 0; c < cols; c++ {
			if c > 0 {
				b.WriteByte(',')
			}
			k++
			b.WriteString(placeholder(k))
		}
		b.WriteByte(')')
	}
	return b.String()
}

// sqliteDSN opens the file as the store does: WAL, synchronous=FULL
// (every commit durable), the write lock taken at BEGIN.
func sqliteDSN(path string) string {
	params := url.Values{}
	params.Add("_pragma", "busy_timeout(5000)")
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Set("_txlock", "immediate")
	return "file:" + (&url.URL{Path: filepath.ToSlash(path)}).EscapedPath() + "?" + params.Encode()
}

func floorSQLite(ctx context.Context, path string, emails []string, trail bool) (result, error) {
	db, err := sql.Open("sqlite", sqliteDSN(path))
	if err != nil {
		return result{}, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	q := func(_ int) string { return "?" }
	prepared := map[int]*sql.Stmt{}
	insert := func(n int) (*sql.Stmt, error) {
		if st, ok := prepared[n]; ok {
			return st, nil
		}
		st, err := db.PrepareContext(ctx, "INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id) VALUES "+values(n, 7, q))
		prepared[n] = st
		return st, err
	}
	change, err := db.PrepareContext(ctx, "INSERT INTO changes (team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES (?,?,?,?,?,?,?,?) RETURNING id")
	if err != nil {
		return result{}, err
	}
	start, cpu0 := time.Now(), cputime.Process()
	for lo := 0; lo < len(emails); lo += batchSize {
		rows, err := makeRows(emails[lo:min(lo+batchSize, len(emails))])
		if err != nil {
			return result{}, err
		}
		st, err := insert(len(rows))
		if err != nil {
			return result{}, err
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			return result{}, err
		}
		var changeID any
		if trail {
			var id int64
			first, last := span(rows)
			if err := tx.StmtContext(ctx, change).QueryRowContext(ctx, team, rows[0].at.UnixMilli(), keyID, "", nil, requestID, first, last).Scan(&id); err != nil {
				tx.Rollback()
				return result{}, err
			}
			changeID = id
		}
		args := make([]any, 0, 7*len(rows))
		for _, r := range rows {
			args = append(args, team, r.id, r.email, "manual", nil, r.at.UnixMilli(), changeID)
		}
		if _, err := tx.StmtContext(ctx, st).ExecContext(ctx, args...); err != nil {
			tx.Rollback()
			return result{}, err
		}
		if err := tx.Commit(); err != nil {
			return result{}, err
		}
	}
	return result{wall: time.Since(start), serverCPU: cputime.Process() - cpu0}, nil
}

// span is the lowest and highest ID of the rows: a change row's span.
func span(rows []row) (first, last string) {
	first, last = rows[0].id, rows[0].id
	for _, r := range rows[1:] {
		first, last = min(first, r.id), max(last, r.id)
	}
	return first, last
}

func floorPostgres(ctx context.Context, dsn string, emails []string, trail bool) (result, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return result{}, err
	}
	defer conn.Close(ctx)
	q := func(i int) string { return fmt.Sprintf("$%d", i) }
	// pgx prepares each statement text once and reuses it.
	insert := func(n int) string {
		return "INSERT INTO suppressions (id, team, email, origin, source_id, created_at, change_id) VALUES " + values(n, 7, q)
	}
	const change = "INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
	start, cpu0 := time.Now(), cputime.Process()
	for lo := 0; lo < len(emails); lo += batchSize {
		rows, err := makeRows(emails[lo:min(lo+batchSize, len(emails))])
		if err != nil {
			return result{}, err
		}
		err = pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			var changeID *string
			if trail {
				id, err := uuid.NewV7()
				if err != nil {
					return err
				}
				s := id.String()
				changeID = &s
				first, last := span(rows)
				if _, err := tx.Exec(ctx, change, s, team, rows[0].at, keyID, "", nil, requestID, first, last); err != nil {
					return err
				}
			}
			args := make([]any, 0, 7*len(rows))
			for _, r := range rows {
				args = append(args, r.id, team, r.email, "manual", nil, r.at, changeID)
			}
			_, err := tx.Exec(ctx, insert(len(rows)), args...)
			return err
		})
		if err != nil {
			return result{}, err
		}
	}
	return result{wall: time.Since(start), serverCPU: cputime.Process() - cpu0}, nil
}

// checkCount makes sure the import put every address on the list.
func checkCount(ctx context.Context, kind, db string, want int) error {
	var got int
	switch kind {
	case "sqlite":
		d, err := sql.Open("sqlite", sqliteDSN(db))
		if err != nil {
			return err
		}
		defer d.Close()
		if err := d.QueryRowContext(ctx, "SELECT count(*) FROM suppressions WHERE team = ?", team).Scan(&got); err != nil {
			return err
		}
	default:
		conn, err := pgx.Connect(ctx, db)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM suppressions WHERE team = $1", team).Scan(&got); err != nil {
			return err
		}
	}
	if got != want {
		return fmt.Errorf("the list holds %d entries after the import, not %d", got, want)
	}
	return nil
}

// floorPostgresConns is floorPostgres's work with the trail's rows, the
// same one batch per transaction, spread over conns connections working
// at once, each taking the next batch when its last has committed: the
// floor for an import that keeps as many batches in flight (the CLI keeps
// 16), where PostgreSQL commits concurrent transactions together.
func floorPostgresConns(ctx context.Context, dsn string, emails []string, conns int) (result, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return result{}, err
	}
	cfg.MaxConns, cfg.MinConns = int32(conns), int32(conns)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return result{}, err
	}
	defer pool.Close()
	q := func(i int) string { return fmt.Sprintf("$%d", i) }
	insert := func(n int) string {
		return "INSERT INTO suppressions (id, team, email, origin, source_id, created_at, change_id) VALUES " + values(n, 7, q)
	}
	const change = "INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)"
	// Every connection is open before the clock starts.
	held := make([]*pgxpool.Conn, 0, conns)
	for range conns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			return result{}, err
		}
		held = append(held, c)
	}
	for _, c := range held {
		c.Release()
	}
	next := make(chan int)
	errs := make(chan error, conns)
	start, cpu0 := time.Now(), cputime.Process()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for lo := range next {
				rows, err := makeRows(emails[lo:min(lo+batchSize, len(emails))])
				if err == nil {
					err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
						id, err := uuid.NewV7()
						if err != nil {
							return err
						}
						first, last := span(rows)
						if _, err := tx.Exec(ctx, change, id.String(), team, rows[0].at, keyID, "", nil, requestID, first, last); err != nil {
							return err
						}
						args := make([]any, 0, 7*len(rows))
						for _, r := range rows {
							args = append(args, r.id, team, r.email, "manual", nil, r.at, id.String())
						}
						_, err = tx.Exec(ctx, insert(len(rows)), args...)
						return err
					})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var failed error
feed:
	for lo := 0; lo < len(emails); lo += batchSize {
		select {
		case next <- lo:
		case failed = <-errs:
			break feed
		}
	}
	close(next)
	wg.Wait()
	if failed == nil {
		select {
		case failed = <-errs:
		default:
		}
	}
	if failed != nil {
		return result{}, failed
	}
	return result{wall: time.Since(start), serverCPU: cputime.Process() - cpu0}, nil
}
