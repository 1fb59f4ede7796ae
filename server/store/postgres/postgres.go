// Package postgres is the PostgreSQL implementation of store.Store, for
// running several `shush serve` processes over one database. It keeps the
// same semantics as the SQLite store (it passes the same conformance suite)
// and stays correct when processes add and remove overlapping addresses at
// the same time.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/puddle/v2"

	"github.com/shushlist/shush/api"
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
	pool *pgxpool.Pool
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
		// microseconds of planning.
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
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

// maxAttempts bounds how often a transaction that lost a race (deadlock,
// serialization failure, unique violation) is run again.
const maxAttempts = 8

// retry runs fn, one statement (atomic on its own), and runs it again
// when it lost a race with another transaction (a deadlock, a
// serialization failure); any other error, and the last attempt's, is
// returned.
func (s *db) retry(ctx context.Context, fn func() error) error {
	var err error
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 {
			select {
			case <-ctx.Done():
				return mapErr(ctx.Err())
			case <-time.After(time.Duration(attempt) * 2 * time.Millisecond):
			}
		}
		err = fn()
		if !retryable(err) {
			break
		}
	}
	err = mapErr(err)
	if errors.Is(err, store.ErrReadOnly) {
		s.dropReadOnly()
	}
	return err
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

// retryable reports errors a transaction may get from a concurrent one and
// that a fresh attempt resolves.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return false
	}
	switch pgErr.Code {
	case "40001", // serialization_failure
		"40P01", // deadlock_detected
		"23505": // unique_violation
		return true
	}
	return false
}

// mapErr wraps errors that mean the database cannot be reached, or is too
// busy, with store.ErrUnavailable. Other errors are returned unchanged.
func mapErr(err error) error {
	if err == nil || errors.Is(err, store.ErrNotFound) || errors.Is(err, store.ErrUnavailable) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "25006" { // read_only_sql_transaction
		return fmt.Errorf("%w: %w", store.ErrReadOnly, err)
	}
	if unavailable(err) {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	return err
}

func unavailable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, puddle.ErrClosedPool) || pgconn.Timeout(err) {
		return true
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			strings.HasPrefix(pgErr.Code, "53"),                                 // insufficient resources
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", // shutdown, cannot connect now
			pgErr.Code == "40001", pgErr.Code == "40P01", pgErr.Code == "55P03": // still losing races after retries, lock timeout
			return true
		}
		return false
	}
	var netErr net.Error
	if errors.As(err, &netErr) {
		return true
	}
	// A connection that broke mid-query surfaces as an unexpected EOF or a
	// "conn closed" error from pgconn.
	msg := err.Error()
	return strings.Contains(msg, "conn closed") || strings.Contains(msg, "unexpected EOF") ||
		strings.Contains(msg, "connection reset") || strings.Contains(msg, "broken pipe")
}

const entryColumns = "id::text, email, origin, source_id, created_at"

// The insert skips listed addresses (ON CONFLICT DO NOTHING), so re-adding
// a listed address writes nothing: its row is read, not rewritten. The
// statement's own snapshot shows the rows that were listed before it; the
// Core tries an address that is neither inserted nor in that snapshot
// again, with a new statement that sees what other changes committed. Rows
// are inserted in address order, the order removes lock them in, so
// concurrent changes over overlapping sets wait for each other instead of
// deadlocking. The change's row is written by the same statement (a
// data-modifying WITH) when any entry is new; a later round's finds it
// there.
func (t tx) InsertEntries(ctx context.Context, p *sqlstore.InsertEntriesParams) ([]store.Entry, error) {
	sorted := slices.Clone(p.Entries)
	slices.SortFunc(sorted, func(a, b store.Entry) int { return strings.Compare(a.Email, b.Email) })
	sorted = slices.CompactFunc(sorted, func(a, b store.Entry) bool { return a.Email == b.Email })
	n := len(sorted)
	ids, emails, origins, sources := make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
	for i, e := range sorted {
		ids[i], emails[i], origins[i], sources[i] = e.ID, e.Email, string(e.Origin), e.SourceID
	}
	var ch sqlstore.ChangeRow
	var change *string
	if p.Change != nil {
		ch, change = *p.Change, &p.Change.ID
	}
	at := sorted[0].CreatedAt
	rows, err := t.tx.Query(ctx, `
		WITH ins AS (
			INSERT INTO suppressions AS s (id, team, email, origin, source_id, created_at, change_id)
			SELECT u.id, $1, u.email, u.origin, u.source_id, $6, $7::uuid
			FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(id, email, origin, source_id, n)
			ORDER BY u.n
			ON CONFLICT (team, email) DO NOTHING
			RETURNING s.id, s.email, s.origin, s.source_id, s.created_at
		), change AS (
			INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id)
			SELECT $7::uuid, $1, $6, $8, $9, $10, $11, $12, $13
			WHERE $7::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM ins)
			ON CONFLICT (id) DO NOTHING
		)
		SELECT id::text, email, origin, source_id, created_at FROM ins
		UNION ALL
		SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND email = ANY($3::text[])`,
		p.Team, ids, emails, origins, sources, at, change, ch.Author.KeyID, ch.Author.KeyName, nullRef(ch.Author.Reference), ch.Author.RequestID, ch.FirstID, ch.LastID)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

// nullRef is a change's reference as stored: NULL when there is none.
func nullRef(ref string) *string {
	if ref == "" {
		return nil
	}
	return &ref
}

// The statements of a remove. Each is one statement: the sub-select locks
// the team's entries in address order, the order InsertEntries takes them
// in, so that concurrent adds and removes of overlapping sets wait for
// each other rather than deadlock; the DELETE then takes them by primary
// key. The ARRAY(…) form runs the sub-select once, before the DELETE,
// which keeps the planner from joining it to a scan of the whole table.
const (
	deleteByEmail = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT id FROM suppressions WHERE team = $1 AND email = ANY($2::text[]) ORDER BY email FOR UPDATE
	))`
	deleteByID = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT id FROM suppressions WHERE team = $1 AND id = ANY($2::uuid[]) ORDER BY email FOR UPDATE
	))`
)

// With KeepAdded ($3) the same statement writes the added audit entries the
// rows and their changes held.
func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]store.Entry, error) {
	del := deleteByID
	if p.ByEmail {
		del = deleteByEmail
	}
	rows, err := t.tx.Query(ctx, `WITH del AS (`+del+` RETURNING id, team, email, origin, source_id, created_at, change_id
	), kept AS (
		INSERT INTO audit (id, team, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
		SELECT del.id, del.team, 'suppression.added', del.created_at, del.id, del.email, del.origin, del.source_id, del.created_at,
			c.key_id, c.key_name, c.reference, c.request_id
		FROM del JOIN changes c ON c.id = del.change_id
		WHERE $3
	)
	SELECT `+entryColumns+` FROM del`, p.Team, p.Keys, p.KeepAdded)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

func (s *db) EntryByID(ctx context.Context, team, id string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND id = $2::uuid`, team, id)})
}

func (s *db) EntryByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND email = $2`, team, email)})
}

// With an origin, ORDER BY leads with it too, so that the plan reads the
// origin index's range.
func (s *db) Entries(ctx context.Context, team string, origin api.Origin, w sqlstore.Window) ([]store.Entry, error) {
	query, args := entriesQuery(team, origin, w)
	return query1(ctx, s, query, args, sqlstore.ScanEntry)
}

func entriesQuery(team string, origin api.Origin, w sqlstore.Window) (string, []any) {
	if origin == "" {
		return windowQuery(`SELECT `+entryColumns+` FROM suppressions`, "team = $1", "suppressions.team, suppressions.id", []any{team}, w)
	}
	return windowQuery(`SELECT `+entryColumns+` FROM suppressions`, "team = $1 AND origin = $2", "suppressions.team, suppressions.origin, suppressions.id", []any{team, string(origin)}, w)
}

// keyColumns are what sqlstore.ScanKey reads; a key ID is text (not a
// UUID), as keys are named by their owners' tools.
const keyColumns = "id, team, name, read_only, hash, created_at, revoked_at"

func (t tx) InsertKey(ctx context.Context, k store.Key) error {
	_, err := t.tx.Exec(ctx, `INSERT INTO api_keys (id, team, name, read_only, hash, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.Team, k.Name, k.ReadOnly, k.Hash, k.CreatedAt, k.RevokedAt)
	return err
}

func (s *db) Key(ctx context.Context, id string) (store.Key, error) {
	return sqlstore.ScanKey(row{s.pool.QueryRow(ctx, `SELECT `+keyColumns+` FROM api_keys WHERE id = $1`, id)})
}

func (s *db) Keys(ctx context.Context) ([]store.Key, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+keyColumns+` FROM api_keys ORDER BY created_at, id`)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanKey)
}

func (t tx) RevokeKey(ctx context.Context, id string, at time.Time) (int64, error) {
	return t.exec(ctx, `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1`, id, at)
}

// readWindow reads a window of rows by ID, as every page is read; see
// windowQuery.
func readWindow[T any](ctx context.Context, s *db, base, where, keys string, args []any, w sqlstore.Window, scan func(sqlstore.Row) (T, error)) ([]T, error) {
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
func windowQuery(base, where, keys string, args []any, w sqlstore.Window) (string, []any) {
	order := "DESC"
	if w.Cursor != "" {
		cmp := "<"
		if w.Ascending {
			cmp, order = ">", "ASC"
		}
		args = append(args, w.Cursor)
		where += fmt.Sprintf(" AND id %s $%d::uuid", cmp, len(args))
	}
	keys = strings.ReplaceAll(keys, ",", " "+order+",")
	query := fmt.Sprintf("%s WHERE %s ORDER BY %s %s", base, where, keys, order)
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

// tx is a change's transaction: the statements of sqlstore.Tx.
type tx struct{ tx pgx.Tx }

// exec runs a statement and says how many rows it touched.
func (t tx) exec(ctx context.Context, query string, args ...any) (int64, error) {
	tag, err := t.tx.Exec(ctx, query, args...)
	return tag.RowsAffected(), err
}

func (s *db) Change(ctx context.Context, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(t pgx.Tx) error { return fn(ctx, tx{tx: t}) })
	})
}

func (s *db) Err(err error) error { return mapErr(err) }
