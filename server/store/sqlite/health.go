package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/shushlist/shush/server/store"
)

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
		case sqlite3.SQLITE_FULL:
			s.stale = true
			s.failing.Store(true)
			return fmt.Errorf("%w: %w", store.ErrNoSpace, err)
		case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
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
// the file takes writes again; and it makes room for more than that one
// page (see room): a page fits in the log's pages a failed change left,
// where the next change would not. See store.WriteChecker.
func (st *Store) CheckWritable(ctx context.Context) error {
	s := st.db
	if !s.failing.Load() {
		return s.submit(ctx, &job{ctx: ctx, probe: true, done: make(chan error, 1),
			fn: func(context.Context, *sql.Conn) error { return nil }})
	}
	err := s.change(ctx, func(_ context.Context, c *sql.Conn) error {
		var id int64
		if err := c.QueryRowContext(context.Background(), "PRAGMA application_id").Scan(&id); err != nil {
			return err
		}
		_, err := c.ExecContext(context.Background(), fmt.Sprintf("PRAGMA application_id = %d", id))
		return err
	})
	if err == nil {
		if err = s.room(); err != nil {
			// Still failing: the next check tries both again.
			s.failing.Store(true)
		}
	}
	return err
}

// roomBytes is the room CheckWritable asks the file system for beside the
// database, after a failed write: more than a few changes write to the
// log.
const roomBytes = 256 << 10

// room writes roomBytes to a file beside the database, to disk, and
// removes it: a full file system or quota refuses it, as it would refuse
// the log's next pages.
func (s *db) room() error {
	probe := s.path + "-room"
	f, err := os.OpenFile(probe, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return noRoom(err)
	}
	defer os.Remove(probe)
	_, err = f.Write(make([]byte, roomBytes))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return noRoom(err)
}

// noRoom classifies the failure to make room: a full disk or quota, a
// read-only file system, or another failure of the file system.
func noRoom(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, syscall.ENOSPC) || isQuota(err):
		return fmt.Errorf("sqlite: the file system that holds the database is full: %w: %w", store.ErrNoSpace, err)
	case errors.Is(err, syscall.EROFS):
		return fmt.Errorf("sqlite: the file system that holds the database is read-only: %w: %w", store.ErrReadOnly, err)
	}
	return fmt.Errorf("sqlite: the file system that holds the database refuses writes: %w: %w", store.ErrUnavailable, err)
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
