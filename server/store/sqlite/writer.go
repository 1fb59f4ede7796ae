package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/shushlist/shush/server/store"
)

// maxGroup bounds how many callers' changes one commit carries, so that a
// burst cannot hold the write lock for long.
const maxGroup = 64

// job is one caller's change: fn runs inside its own savepoint of a
// transaction that may carry other callers' changes too.
type job struct {
	ctx  context.Context
	fn   func(ctx context.Context, c *sql.Conn) error
	done chan error
	// probe marks the readiness check's empty job, whose commit proves
	// nothing about writing.
	probe bool
	// background marks work the store does by itself (the fan-out's
	// steps): committed alone, and only when no change waits.
	background bool
}

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
// callers share one fsync. Background work runs between changes, a step
// at a time.
func (s *db) run() {
	defer close(s.done)
	for {
		var group []*job
		select {
		case j := <-s.jobs:
			group = append(group, j)
		default:
			// No change waits: a background job may run, alone, so
			// that a change arriving meanwhile waits for one step of it
			// at most.
			select {
			case j := <-s.jobs:
				group = append(group, j)
			case j := <-s.bg:
				s.commitGroup([]*job{j})
				s.restartLog()
				continue
			case <-s.quit:
				return
			}
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
	s.wakeExpander()
	for i, j := range group {
		j.done <- errs[i]
	}
	select {
	case s.committed <- struct{}{}:
	default:
	}
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
