// Package postgres is the PostgreSQL dialect of the store, for running
// several `shush serve` processes over one database: the rules are
// package sqlstore's, and this package owns what is PostgreSQL's own: the
// connection pool and its settings (plan_cache_mode), the retry of a
// change that lost a race and the classification of errors, the
// statements (unnest and ON CONFLICT inserts in address order, a removal
// locking in the same order, FOR UPDATE SKIP LOCKED claims of the outbox),
// and the schema steps with the map of the numbering used before. It
// stays correct when processes add and remove overlapping addresses at
// the same time.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// defaultMaxConns is the pool size when the DSN does not set
// pool_max_conns.
const defaultMaxConns = 10

// Store is a store.Store over a pool of PostgreSQL connections: the
// rules of package sqlstore over this package's statements.
type Store struct {
	*sqlstore.Core
	db *db
}

// db is the PostgreSQL side of a Store: the pool, the retry of changes
// that lost a race, and the statements (sqlstore.Driver).
type db struct {
	pool   *pgxpool.Pool
	queues queues
}

var _ store.Store = (*Store)(nil)

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value connection string; pgx pool settings such as pool_max_conns and
// run-time parameters such as search_path are accepted) and brings its
// schema up to date. Several processes may open the same database at once.
func Open(ctx context.Context, dsn string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message may quote the DSN, password included.
		return nil, errors.New("the PostgreSQL connection string is not valid")
	}
	if !strings.Contains(dsn, "pool_max_conns") {
		// pgx's default (4 on a small machine) caps how many commits can
		// wait on the disk together; requests mostly wait on I/O, not CPU.
		cfg.MaxConns = max(cfg.MaxConns, defaultMaxConns)
	}
	if _, set := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !set {
		// Plan each statement for its own run: a prepared statement's
		// generic plan is made once per connection from the statistics of
		// that moment, and one made while the list was empty (or before
		// autovacuum's next ANALYZE) would read a team's whole list for a
		// batch add's look-up of the addresses already listed. A custom
		// plan sees the table's current size; it costs a few hundred
		// microseconds of planning. The batch add's statement, whose
		// plan does not depend on the statistics, is the exception (see
		// genericPlan).
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	cfg.AfterConnect = registerUUIDs
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open PostgreSQL: %w", mapErr(err))
	}
	s := &db{pool: pool}
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{Core: sqlstore.New(s, sqlstore.Options{}), db: s}, nil
}

// Close releases the pool's connections.
func (s *Store) Close() error {
	s.db.pool.Close()
	return nil
}

// Ping reports whether the database answers.
func (s *Store) Ping(ctx context.Context) error {
	return mapErr(s.db.pool.Ping(ctx))
}

// dropReadOnly closes the pool's connections after a read-only answer: a
// session keeps the read-only state it started with (a standby, or
// default_transaction_read_only), so only new connections see the
// database become writable again, or reach a promoted primary.
func (s *db) dropReadOnly() {
	s.pool.Reset()
}

// CheckWritable reports whether a write would be accepted now: the
// database answers and a new transaction on it is not read-only. See
// store.WriteChecker.
func (st *Store) CheckWritable(ctx context.Context) error {
	s := st.db
	var ro string
	err := s.pool.QueryRow(ctx, "SELECT current_setting('transaction_read_only')").Scan(&ro)
	if err != nil {
		return mapErr(err)
	}
	if ro == "on" {
		s.dropReadOnly()
		return fmt.Errorf("postgres: new transactions are read-only: %w", store.ErrReadOnly)
	}
	return nil
}

// PoolStats reports the connection pool; see store.PoolStatser.
func (s *Store) PoolStats() store.PoolStats {
	st := s.db.pool.Stat()
	return store.PoolStats{
		Open:  int(st.TotalConns()),
		InUse: int(st.AcquiredConns()),
		Max:   int(st.MaxConns()),
		Waits: st.EmptyAcquireCount(),
	}
}

// tx is a change's transaction: the statements of sqlstore.Tx.
type tx struct {
	tx pgx.Tx
	s  *db
	// team keeps what the change, or its group, read of the team (see
	// teamReads); nil outside a change of the team (TeamChange).
	team *teamReads
}

// exec runs a statement and says how many rows it touched.
func (t tx) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (s *db) Change(ctx context.Context, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(t pgx.Tx) error { return fn(ctx, tx{tx: t, s: s}) })
	})
}

func (s *db) Err(err error) error { return mapErr(err) }

// readWindow reads a window of rows by ID, as every page is read; see
// windowQuery.
func readWindow[T any](ctx context.Context, s *db, base, where string, keys []string, args []any, w sqlstore.Window, scan func(sqlstore.Row) (T, error)) ([]T, error) {
	query, args := windowQuery(base, where, keys, args, w)
	return query1(ctx, s, query, args, scan)
}

// windowQuery is the statement that reads a window of rows by ID. base
// selects the columns; where (over args) narrows it, and keys are the
// columns of the index that serves it, ending with the ID, named with
// their table: ORDER BY names them all (a bare "id" would be the text
// output column, which no index serves), so that every plan, a generic one
// too, reads that index's range instead of walking the ID order of every
// team.
func windowQuery(base, where string, keys []string, args []any, w sqlstore.Window) (string, []any) {
	order := "DESC"
	if w.Cursor != "" {
		cmp := "<"
		if w.Ascending {
			cmp, order = ">", "ASC"
		}
		args = append(args, w.Cursor)
		where += fmt.Sprintf(" AND id %s $%d::uuid", cmp, len(args))
	}
	query := fmt.Sprintf("%s WHERE %s ORDER BY %s %s", base, where, strings.Join(keys, " "+order+", "), order)
	if w.Limit == 0 {
		return query, args
	}
	args = append(args, w.Limit)
	return fmt.Sprintf("%s LIMIT $%d", query, len(args)), args
}

// query1 runs a query and scans its rows.
func query1[T any](ctx context.Context, s *db, query string, args []any, scan func(sqlstore.Row) (T, error)) ([]T, error) {
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scan)
}

// collect scans every row and closes rows.
func collect[T any](rows pgx.Rows, scan func(sqlstore.Row) (T, error)) ([]T, error) {
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (T, error) { return scan(row{r}) })
}

// row reads the columns whose encoding differs between the dialects
// (sqlstore.Time, sqlstore.Strings) with pgx's own types.
type row struct{ pgx.Row }

func (r row) Scan(dest ...any) error {
	for i, d := range dest {
		switch d := d.(type) {
		case *sqlstore.Time:
			dest[i] = (*pgTime)(d)
		case *sqlstore.Strings:
			dest[i] = (*[]string)(d)
		}
	}
	return r.Row.Scan(dest...)
}

// pgTime reads a timestamptz (NULL is the zero time) into a
// sqlstore.Time; see pgtype.TimestamptzScanner.
type pgTime sqlstore.Time

func (t *pgTime) ScanTimestamptz(v pgtype.Timestamptz) error {
	t.Time = time.Time{}
	if v.Valid {
		t.Time = v.Time.UTC()
	}
	return nil
}
