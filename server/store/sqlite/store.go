// Package sqlite is the SQLite dialect of the store: the rules are package
// sqlstore's, and this package owns what is SQLite's own: one database
// file in WAL mode with durable commits (synchronous=FULL), a single
// writer that commits the changes of concurrent callers together (group
// commit) while each caller's change stays atomic on its own savepoint,
// the checkpointer and the checks of a writable file, the statements
// (chunked, naming the indexes SQLite would not choose without
// statistics), and the schema steps applied at Open.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// busyTimeout is how long a connection waits for another process's lock
// (for example `shush keys create` while `shush serve` runs) before the
// store reports itself unavailable.
const busyTimeout = 5 * time.Second

// cacheKiB is each connection's page cache and mmapBytes how much of the
// file is read through memory mapping: a batch touches about a hundred
// random pages of the address index, which should not each cost a read
// system call. They are variables only so that BenchmarkSettings can
// compare others; see docs/benchmarks.md for the figures behind them.
var (
	cacheKiB  = 64 << 10
	mmapBytes = 1 << 30
	// tempStore keeps SQLite's temporary files in memory. Every caller's
	// change runs in a savepoint, whose copy of the pages it changes
	// (the sub-journal) otherwise spills to a temporary file past 64 KiB:
	// a write system call per page of every batch.
	tempStore = "MEMORY"
)

// chunk is how many rows one statement reads or writes; it keeps the
// statement's parameters well below SQLite's limit.
const chunk = 400

// Store is a store.Store over one SQLite file: the rules of package
// sqlstore over this package's statements. It is safe for concurrent use.
type Store struct {
	*sqlstore.Core
	db *db
}

// db is the SQLite side of a Store: the file, the single writer with its
// group commit, the checkpointer, and the statements (sqlstore.Driver).
type db struct {
	path  string
	read  *sql.DB
	write *sql.DB
	conn  *sql.Conn            // the writer's connection, used only by run
	stmts map[string]*sql.Stmt // the writer's prepared statements
	reads readStmts

	jobs chan *job
	quit chan struct{}
	done chan struct{}
	// bg are the writer's background jobs (the fan-out's steps), run
	// when no change waits; fanout wakes the expander.
	bg         chan *job
	fanout     chan struct{}
	expandDone chan struct{}
	// fannedOut says the transaction in progress wrote fan-out rows: the
	// writer wakes the expander once it has committed.
	fannedOut bool
	committed chan struct{} // wakes the checkpointer
	bigLog    atomic.Bool   // the checkpointer asks the writer to restart the log
	closing   atomic.Bool
	ckptDone  chan struct{}
	// stale is set by the writer when its connection answered that the
	// database is read-only or unreachable: it opens a new one before the
	// next commit, since a connection that opened the file read-only stays
	// so.
	stale bool
	// failing is set when a write failed for want of a writable file (a
	// read-only or full file system, an immutable file) and cleared by
	// the next commit that wrote something.
	failing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ store.Store = (*Store)(nil)

// readStmts are the reads of every request, prepared once: preparing
// costs about as much as running them.
type readStmts struct {
	keyByID, get, getByEmail *sql.Stmt
	// byEmails and secrets are a check's two reads.
	byEmails, secrets *sql.Stmt
}

func prepareReads(ctx context.Context, db *sql.DB) (readStmts, error) {
	var r readStmts
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&r.keyByID, "SELECT " + sqlstore.KeyColumns + " FROM api_keys WHERE id = ?"},
		{&r.get, "SELECT " + sqlstore.EntryColumns + " FROM suppressions WHERE team = ? AND id = ?"},
		{&r.getByEmail, "SELECT " + sqlstore.EntryColumns + " FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email = ?"},
		{&r.byEmails, entriesByEmailSQL},
		{&r.secrets, secretsSQL},
	} {
		st, err := db.PrepareContext(ctx, p.q)
		if err != nil {
			r.close()
			return readStmts{}, err
		}
		*p.dst = st
	}
	return r, nil
}

func (r readStmts) close() {
	for _, st := range []*sql.Stmt{r.keyByID, r.get, r.getByEmail, r.byEmails, r.secrets} {
		if st != nil {
			st.Close()
		}
	}
}

// Open opens (creating if needed) the database file at path, applies the
// schema migrations it lacks and starts the writer. The parent directory
// must exist.
func Open(ctx context.Context, path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("sqlite: empty database path")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("sqlite: database path %s: %w", api.Quote(path), err)
	}
	if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("sqlite: database path %s is a directory", api.Quote(path))
	}
	// The list is personal data: a new database is readable only by its
	// owner, and SQLite gives its -wal and -shm files the same mode.
	if f, err := os.OpenFile(abs, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.Close()
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("sqlite: create %s: %w", api.Quote(path), err)
	}
	params := url.Values{}
	params.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	params.Add("_pragma", "journal_mode(WAL)")
	params.Add("_pragma", "synchronous(FULL)")
	params.Add("_pragma", "foreign_keys(1)")
	// Deleted and replaced content is overwritten with zeros, so that an
	// erased address (docs/erasure.md) leaves no bytes in free pages.
	params.Add("_pragma", "secure_delete(1)")
	params.Add("_pragma", fmt.Sprintf("cache_size(%d)", -cacheKiB))
	params.Add("_pragma", fmt.Sprintf("mmap_size(%d)", mmapBytes))
	params.Add("_pragma", fmt.Sprintf("temp_store(%s)", tempStore))
	params.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: filepath.ToSlash(abs)}).EscapedPath() + "?" + params.Encode()

	// Until the writer starts, what is open is closed again on error.
	var opened []io.Closer
	fail := func(what string, err error) (*Store, error) {
		for i := len(opened) - 1; i >= 0; i-- {
			opened[i].Close()
		}
		return nil, fmt.Errorf("sqlite: %s %s: %w", what, api.Quote(path), wrap(err))
	}
	write, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fail("open", err)
	}
	opened = append(opened, write)
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)
	conn, err := write.Conn(ctx)
	if err != nil {
		return fail("open", err)
	}
	opened = append(opened, conn)
	// The writer does not checkpoint: copying the log into the database
	// would stall the commits queued behind it. The checkpointer does it
	// alongside.
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		return fail("open", err)
	}
	if err := migrate(ctx, conn); err != nil {
		return fail("prepare", err)
	}
	read, err := sql.Open("sqlite", dsn)
	if err != nil {
		return fail("open", err)
	}
	opened = append(opened, read)
	read.SetMaxOpenConns(8)
	read.SetMaxIdleConns(8)
	reads, err := prepareReads(ctx, read)
	if err != nil {
		return fail("prepare", err)
	}
	s := &db{
		path:  abs,
		read:  read,
		write: write,
		conn:  conn,
		stmts: make(map[string]*sql.Stmt),
		reads: reads,
		jobs:  make(chan *job),
		quit:  make(chan struct{}),
		done:  make(chan struct{}),

		bg:         make(chan *job),
		fanout:     make(chan struct{}, 1),
		expandDone: make(chan struct{}),

		committed: make(chan struct{}, 1),
		ckptDone:  make(chan struct{}),
	}
	go s.run()
	go s.checkpoint()
	go s.expand()
	return &Store{Core: sqlstore.New(s, sqlstore.Options{}), db: s}, nil
}

// Path is the absolute path of the database file.
func (s *Store) Path() string { return s.db.path }

// Close stops the writer after the changes already handed to it and closes
// the database.
func (st *Store) Close() error {
	s := st.db
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		close(s.quit)
		<-s.done
		<-s.expandDone
		<-s.ckptDone
		for _, st := range s.stmts {
			st.Close()
		}
		s.reads.close()
		s.closeErr = errors.Join(s.conn.Close(), s.write.Close(), s.read.Close())
	})
	return s.closeErr
}

// Ping reports whether the database answers a query.
func (s *Store) Ping(ctx context.Context) error {
	var one int
	if err := s.db.read.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil {
		return wrap(err)
	}
	return nil
}

// errClosed is what callers get once Close has begun.
var errClosed = fmt.Errorf("sqlite: the database is closed: %w", store.ErrUnavailable)

// wrap marks the errors that mean "the database cannot answer now" with
// store.ErrUnavailable.
func wrap(err error) error {
	if err == nil || errors.Is(err, store.ErrUnavailable) || errors.Is(err, store.ErrNotFound) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if errors.Is(err, sql.ErrConnDone) || strings.Contains(err.Error(), "database is closed") {
		return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
	}
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL,
			sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_NOMEM, sqlite3.SQLITE_PROTOCOL,
			sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
			return fmt.Errorf("%w: %w", store.ErrUnavailable, err)
		}
	}
	return err
}

func (s *db) Change(ctx context.Context, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error { return fn(ctx, tx{s: s, c: c}) })
}

// TeamChange is Change: the one writer runs every change one after
// another already, those waiting committed together.
func (s *db) TeamChange(ctx context.Context, team string, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.Change(ctx, fn)
}

func (s *db) Err(err error) error {
	if err != nil && s.closing.Load() && !errors.Is(err, store.ErrUnavailable) {
		return errClosed
	}
	return wrap(err)
}

// readWindow reads a window of rows by ID, as every page of the service
// is read: base selects the columns scan reads, where and args narrow it.
func readWindow[T any](ctx context.Context, s *db, base string, where []string, args []any, w sqlstore.Window, scan func(sqlstore.Row) (T, error)) ([]T, error) {
	order := "DESC"
	if w.Cursor != "" {
		cmp := "<"
		if w.Ascending {
			cmp, order = ">", "ASC"
		}
		where, args = append(where, "id "+cmp+" ?"), append(args, w.Cursor)
	}
	args = append(args, w.Limit)
	rows, err := s.read.QueryContext(ctx, base+" WHERE "+strings.Join(where, " AND ")+" ORDER BY id "+order+" LIMIT ?", args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, scan)
}

// collect scans every row and closes rows.
func collect[T any](rows *sql.Rows, scan func(sqlstore.Row) (T, error)) ([]T, error) {
	var out []T
	err := each(rows, scan, func(v T) error { out = append(out, v); return nil })
	return out, err
}

// each scans every row into fn, stopping at fn's first error, and closes
// rows.
func each[T any](rows *sql.Rows, scan func(sqlstore.Row) (T, error), fn func(T) error) error {
	defer rows.Close()
	for rows.Next() {
		v, err := scan(rows)
		if err == nil {
			err = fn(v)
		}
		if err != nil {
			return err
		}
	}
	return rows.Err()
}
