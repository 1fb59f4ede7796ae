// Package sqlite is the SQLite implementation of store.Store: one database
// file in WAL mode with durable commits (synchronous=FULL), schema
// migrations applied at Open, and a single writer that commits the changes
// of concurrent callers together (group commit) while each caller's change
// stays atomic on its own.
package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
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

// maxGroup bounds how many callers' changes one commit carries, so that a
// burst cannot hold the write lock for long.
const maxGroup = 64

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

	jobs      chan *job
	quit      chan struct{}
	done      chan struct{}
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
}

func prepareReads(ctx context.Context, db *sql.DB) (readStmts, error) {
	var r readStmts
	for _, p := range []struct {
		dst **sql.Stmt
		q   string
	}{
		{&r.keyByID, "SELECT id, team, name, read_only, hash, created_at, revoked_at FROM api_keys WHERE id = ?"},
		{&r.get, "SELECT id, email, origin, source_id, created_at FROM suppressions WHERE team = ? AND id = ?"},
		{&r.getByEmail, "SELECT id, email, origin, source_id, created_at FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email = ?"},
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
	for _, st := range []*sql.Stmt{r.keyByID, r.get, r.getByEmail} {
		if st != nil {
			st.Close()
		}
	}
}

// job is one caller's change: fn runs inside its own savepoint of a
// transaction that may carry other callers' changes too.
type job struct {
	ctx  context.Context
	fn   func(ctx context.Context, c *sql.Conn) error
	done chan error
	// probe marks the readiness check's empty job, whose commit proves
	// nothing about writing.
	probe bool
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

		committed: make(chan struct{}, 1),
		ckptDone:  make(chan struct{}),
	}
	go s.run()
	go s.checkpoint()
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

// change hands fn to the writer and waits for the commit that carries it.
// It always waits for the writer's answer once fn is queued: returning early
// on a cancelled ctx could report failure for a change that commits.
func (s *db) change(ctx context.Context, fn func(ctx context.Context, c *sql.Conn) error) error {
	return s.submit(ctx, &job{ctx: ctx, fn: fn, done: make(chan error, 1)})
}

func (s *db) submit(ctx context.Context, j *job) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case s.jobs <- j:
	case <-ctx.Done():
		return ctx.Err()
	case <-s.quit:
		return errClosed
	}
	return <-j.done
}

// run is the writer: it takes the first waiting change, gathers the ones
// queued behind it, and commits them in one transaction, so that concurrent
// callers share one fsync.
func (s *db) run() {
	defer close(s.done)
	for {
		var group []*job
		select {
		case j := <-s.jobs:
			group = append(group, j)
		case <-s.quit:
			return
		}
	gather:
		for len(group) < maxGroup {
			select {
			case j := <-s.jobs:
				group = append(group, j)
			default:
				break gather
			}
		}
		s.commitGroup(group)
		s.restartLog()
	}
}

// commitGroup runs each job in its own savepoint, so a failing job leaves
// the others' changes in place, then commits. Nothing is reported to a
// caller before the commit that carries its change is durable.
func (s *db) commitGroup(group []*job) {
	// Statements of the group run with a background context: an interrupted
	// statement can roll back the whole transaction, taking other callers'
	// changes with it. Jobs check their own ctx between statements instead.
	bg := context.Background()
	errs := make([]error, len(group))
	fail := func(err error) {
		for i := range errs {
			if errs[i] == nil {
				errs[i] = err
			}
		}
	}
	if err := s.writable(); err != nil {
		fail(err)
	} else if err := s.reconnect(); err != nil {
		fail(err)
	} else if _, err := s.conn.ExecContext(bg, "BEGIN IMMEDIATE"); err != nil {
		fail(s.noteStale(wrap(err)))
	} else {
		broken := false
		for i, j := range group {
			if err := j.ctx.Err(); err != nil {
				errs[i] = err
				continue
			}
			if _, err := s.conn.ExecContext(bg, "SAVEPOINT job"); err != nil {
				errs[i] = wrap(err)
				broken = true
				break
			}
			if err := j.fn(j.ctx, s.conn); err != nil {
				errs[i] = s.noteStale(wrap(err))
				if _, rerr := s.conn.ExecContext(bg, "ROLLBACK TO job"); rerr != nil {
					broken = true
					break
				}
			}
			if _, err := s.conn.ExecContext(bg, "RELEASE job"); err != nil {
				broken = true
				break
			}
		}
		if broken {
			_, _ = s.conn.ExecContext(bg, "ROLLBACK")
			fail(fmt.Errorf("sqlite: the transaction was aborted: %w", store.ErrUnavailable))
		} else if _, err := s.conn.ExecContext(bg, "COMMIT"); err != nil {
			_, _ = s.conn.ExecContext(bg, "ROLLBACK")
			fail(s.noteStale(wrap(err)))
		} else {
			for i, j := range group {
				if errs[i] == nil && !j.probe {
					s.failing.Store(false)
					break
				}
			}
		}
	}
	for i, j := range group {
		j.done <- errs[i]
	}
	select {
	case s.committed <- struct{}{}:
	default:
	}
}

// writable refuses changes while the database file has lost its owner's
// write permission: an operator (or a backup tool) marked it read-only,
// and the service honours that even where its user could write anyway
// (root). Open files stay writable after a chmod, so without this check
// writes would go on.
func (s *db) writable() error {
	fi, err := os.Stat(s.path)
	if err != nil {
		return fmt.Errorf("sqlite: the database file cannot be examined: %w: %w", store.ErrUnavailable, err)
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("sqlite: the database file has no write permission (mode %04o): %w", fi.Mode().Perm(), store.ErrReadOnly)
	}
	return nil
}

// noteStale marks the writer's connection for replacement after an
// answer that a new connection may not give.
func (s *db) noteStale(err error) error {
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqlite3.SQLITE_READONLY:
			s.stale = true
			s.failing.Store(true)
			return fmt.Errorf("%w: %w", store.ErrReadOnly, err)
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_FULL:
			s.stale = true
			s.failing.Store(true)
		}
	}
	return err
}

// reconnect replaces the writer's connection when it is stale. Only the
// writer calls it, between commits.
func (s *db) reconnect() error {
	if !s.stale {
		return nil
	}
	for k, st := range s.stmts {
		st.Close()
		delete(s.stmts, k)
	}
	// Returning driver.ErrBadConn makes database/sql discard the
	// connection instead of keeping it for reuse.
	_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
	_ = s.conn.Close()
	ctx := context.Background()
	conn, err := s.write.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: reopen the database: %w", wrap(err))
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA wal_autocheckpoint = 0"); err != nil {
		conn.Close()
		return fmt.Errorf("sqlite: reopen the database: %w", wrap(err))
	}
	s.conn, s.stale = conn, false
	return nil
}

// CheckWritable reports whether a change would commit now: the file is
// writable and the writer can take the write lock. After a write failed
// at the file (see failing) it commits a real write, rewriting the
// header's application_id with its own value, so that it sees the moment
// the file takes writes again. See store.WriteChecker.
func (st *Store) CheckWritable(ctx context.Context) error {
	s := st.db
	if !s.failing.Load() {
		return s.submit(ctx, &job{ctx: ctx, probe: true, done: make(chan error, 1),
			fn: func(context.Context, *sql.Conn) error { return nil }})
	}
	return s.change(ctx, func(_ context.Context, c *sql.Conn) error {
		var id int64
		if err := c.QueryRowContext(context.Background(), "PRAGMA application_id").Scan(&id); err != nil {
			return err
		}
		_, err := c.ExecContext(context.Background(), fmt.Sprintf("PRAGMA application_id = %d", id))
		return err
	})
}

// PoolStats reports the readers' connection pool; see store.PoolStatser.
func (s *Store) PoolStats() store.PoolStats {
	st := s.db.read.Stats()
	return store.PoolStats{Open: st.OpenConnections, InUse: st.InUse, Max: st.MaxOpenConnections, Waits: st.WaitCount}
}

// checkpointEvery spaces the checkpoints; restartPages is the log size,
// in pages, from which the writer finishes a checkpoint itself so that the
// log can start over instead of growing.
const (
	checkpointEvery = 200 * time.Millisecond
	restartPages    = 2048
)

// checkpoint copies committed pages from the write-ahead log into the
// database file, after commits, at most every checkpointEvery. A passive
// checkpoint runs beside the writer without blocking it; but the log only
// starts over when a write begins with every page copied, which under a
// steady stream of commits never happens by itself. So when the log has
// grown past restartPages the writer copies the few pages committed since
// (see restartLog).
func (s *db) checkpoint() {
	defer close(s.ckptDone)
	t := time.NewTimer(checkpointEvery)
	defer t.Stop()
	for {
		select {
		case <-s.committed:
		case <-s.quit:
			return
		}
		var busy, logPages, done int
		err := s.read.QueryRowContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logPages, &done)
		if err == nil && logPages > restartPages {
			s.bigLog.Store(true)
		}
		t.Reset(checkpointEvery)
		select {
		case <-t.C:
		case <-s.quit:
			return
		}
	}
}

// restartLog runs in the writer between commits: it finishes the
// checkpoint the checkpointer started, which is cheap, so that the next
// write starts the log over.
func (s *db) restartLog() {
	if s.bigLog.CompareAndSwap(true, false) {
		_, _ = s.conn.ExecContext(context.Background(), "PRAGMA wal_checkpoint(PASSIVE)")
	}
}

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

// InsertEntries inserts the entries all, letting the address index skip
// those already listed, and then reads back only the ones it skipped. The
// change's row is written first, for the entries to name, and taken back
// when no entry was new.
func (t tx) InsertEntries(ctx context.Context, p *sqlstore.InsertEntriesParams) ([]store.Entry, error) {
	var change any
	if p.Change != nil {
		id, err := t.insertChange(p.Change)
		if err != nil {
			return nil, err
		}
		change = id
	}
	index := make(map[string]int, len(p.Entries))
	for i, e := range p.Entries {
		index[e.Email] = i
	}
	created := make([]bool, len(p.Entries))
	for lo := 0; lo < len(p.Entries); lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, len(p.Entries))
		st, err := t.s.stmt(insertSQL(hi - lo))
		if err != nil {
			return nil, err
		}
		args := make([]any, 0, 7*(hi-lo))
		for _, e := range p.Entries[lo:hi] {
			args = append(args, p.Team, e.ID, e.Email, string(e.Origin), nullString(e.SourceID), e.CreatedAt.UnixMilli(), change)
		}
		rows, err := st.QueryContext(context.Background(), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var email string
			if err := rows.Scan(&email); err != nil {
				rows.Close()
				return nil, err
			}
			created[index[email]] = true
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	out := make([]store.Entry, 0, len(p.Entries))
	var listed []string
	for i, e := range p.Entries {
		if created[i] {
			out = append(out, e)
		} else {
			listed = append(listed, e.Email)
		}
	}
	err := t.eachEntry(ctx, p.Team, listed, selectByEmailSQL, func(e store.Entry) { out = append(out, e) })
	if err != nil {
		return nil, err
	}
	if change != nil && len(listed) == len(p.Entries) {
		// Nothing new: the change is no part of the trail.
		if _, err := t.exec("DELETE FROM changes WHERE id = ?", change); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The statements of the writer, by number of rows. The address statements
// name the address index: without statistics SQLite prefers scanning the
// team's whole primary key range to probing the index once per address,
// which on a large list is a hundred times slower.
func insertSQL(n int) string {
	return "INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?),", n), ",") +
		" ON CONFLICT (team, email) DO NOTHING RETURNING email"
}

func selectByEmailSQL(n int) string {
	return "SELECT id, email, origin, source_id, created_at FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email IN (" + marks(n) + ")"
}

func deleteSQL(col string, n int) string {
	hint := ""
	if col == "email" {
		hint = "INDEXED BY suppressions_team_email "
	}
	return "DELETE FROM suppressions " + hint + "WHERE team = ? AND " + col + " IN (" + marks(n) + ") RETURNING id, email, origin, source_id, created_at"
}

// maxStmts bounds the writer's statement cache: requests need at most a
// few hundred shapes (one per batch size and statement).
const maxStmts = 512

// stmt returns the writer's prepared statement for q, preparing it on first
// use. Only the writer goroutine calls it.
func (s *db) stmt(q string) (*sql.Stmt, error) {
	if st, ok := s.stmts[q]; ok {
		return st, nil
	}
	if len(s.stmts) >= maxStmts {
		// Odd batch sizes from large calls: start over rather than grow.
		for k, st := range s.stmts {
			st.Close()
			delete(s.stmts, k)
		}
	}
	st, err := s.conn.PrepareContext(context.Background(), q)
	if err != nil {
		return nil, err
	}
	s.stmts[q] = st
	return st, nil
}

func keyArgs(team string, keys []string) []any {
	args := make([]any, 0, len(keys)+1)
	args = append(args, team)
	for _, k := range keys {
		args = append(args, k)
	}
	return args
}

func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]store.Entry, error) {
	col := "id"
	if p.ByEmail {
		col = "email"
	}
	if p.KeepAdded {
		if err := t.keepAdded(p.Team, col, p.Keys); err != nil {
			return nil, err
		}
	}
	out := make([]store.Entry, 0, len(p.Keys))
	deleteBy := func(n int) string { return deleteSQL(col, n) }
	err := t.eachEntry(ctx, p.Team, p.Keys, deleteBy, func(e store.Entry) { out = append(out, e) })
	return out, err
}

// eachEntry runs the statement that sqlFor makes for a number of keys over
// the keys in chunks, and hands every entry it returns to fn. The caller's
// context is checked between chunks, not passed to the statements: an
// interrupted statement would roll back the whole group commit.
func (t tx) eachEntry(ctx context.Context, team string, keys []string, sqlFor func(n int) string, fn func(store.Entry)) error {
	for lo := 0; lo < len(keys); lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := keys[lo:min(lo+chunk, len(keys))]
		st, err := t.s.stmt(sqlFor(len(part)))
		if err != nil {
			return err
		}
		rows, err := st.QueryContext(context.Background(), keyArgs(team, part)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			e, err := sqlstore.ScanEntry(rows)
			if err != nil {
				rows.Close()
				return err
			}
			fn(e)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

func (s *db) EntryByID(ctx context.Context, team, id string) (store.Entry, error) {
	return sqlstore.ScanEntry(s.reads.get.QueryRowContext(ctx, team, id))
}

func (s *db) EntryByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	return sqlstore.ScanEntry(s.reads.getByEmail.QueryRowContext(ctx, team, email))
}

func (s *db) Entries(ctx context.Context, team string, origin api.Origin, w sqlstore.Window) ([]store.Entry, error) {
	where := []string{"team = ?"}
	args := []any{team}
	from := "suppressions"
	if origin != "" {
		where = append(where, "origin = ?")
		args = append(args, string(origin))
		// Without statistics SQLite walks the team's whole list in ID
		// order and filters on origin: a million rows for an origin the
		// team has none of. The index holds each origin's entries in ID
		// order, with what a page shows, so the page is a range read.
		from = "suppressions INDEXED BY suppressions_team_origin_id"
	}
	return readWindow(ctx, s, "SELECT id, email, origin, source_id, created_at FROM "+from, where, args, w, sqlstore.ScanEntry)
}

func (t tx) InsertKey(ctx context.Context, k store.Key) error {
	var revoked any
	if k.RevokedAt != nil {
		revoked = k.RevokedAt.UnixMilli()
	}
	_, err := t.exec("INSERT INTO api_keys (id, team, name, read_only, hash, created_at, revoked_at) VALUES (?,?,?,?,?,?,?)",
		k.ID, k.Team, k.Name, k.ReadOnly, k.Hash, k.CreatedAt.UnixMilli(), revoked)
	return err
}

func (s *db) Key(ctx context.Context, id string) (store.Key, error) {
	return sqlstore.ScanKey(s.reads.keyByID.QueryRowContext(ctx, id))
}

func (s *db) Keys(ctx context.Context) ([]store.Key, error) {
	rows, err := s.read.QueryContext(ctx, "SELECT id, team, name, read_only, hash, created_at, revoked_at FROM api_keys ORDER BY created_at, id")
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanKey)
}

func (t tx) RevokeKey(ctx context.Context, id string, at time.Time) (int64, error) {
	return t.exec("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?", at.UnixMilli(), id)
}

func nullString(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
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

// tx is a change's view of the writer's connection: the statements of
// sqlstore.Tx. Only the writer goroutine uses it, inside a job. Its
// statements run with a background context (see commitGroup).
type tx struct {
	s *db
	c *sql.Conn
}

// exec runs a statement and says how many rows it touched.
func (t tx) exec(query string, args ...any) (int64, error) {
	res, err := t.c.ExecContext(context.Background(), query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *db) Change(ctx context.Context, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.change(ctx, func(ctx context.Context, c *sql.Conn) error { return fn(ctx, tx{s: s, c: c}) })
}

func (s *db) Err(err error) error {
	if err != nil && s.closing.Load() && !errors.Is(err, store.ErrUnavailable) {
		return errClosed
	}
	return wrap(err)
}
