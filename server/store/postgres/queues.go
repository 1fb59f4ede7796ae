package postgres

import (
	"context"
	"database/sql"
	"errors"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// maxGroup bounds how many changes of a team one transaction carries, so
// that a burst holds the team's trail head, which other processes' changes
// of the team wait for, for a few dozen changes at most.
const maxGroup = 32

// queues line up this process's changes of each team's list (see
// TeamChange). A team's changes hold its trail head from their first
// write to their commit, so they commit one at a time whatever this
// process does; run one per transaction, each would wait for the one
// before it to reach the disk. The queue of a team runs them instead in
// the order they came, those that came while a transaction was under way
// together in the next one: one commit, one wait on the disk, for all of
// them.
type queues struct {
	mu sync.Mutex
	// teams holds the queue of each team whose changes are running; its
	// runner removes it when none is left.
	teams map[string][]*job
}

// job is one caller's change, and where its outcome goes.
type job struct {
	ctx  context.Context
	fn   func(ctx context.Context, t sqlstore.Tx) error
	done chan error
}

// TeamChange runs fn as one atomic change of the team's list, in the
// team's queue; see sqlstore.Driver. Once queued, the change is waited
// for even if ctx ends: it may be in a transaction that commits.
func (s *db) TeamChange(ctx context.Context, team string, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	if err := ctx.Err(); err != nil {
		return mapErr(err)
	}
	j := &job{ctx: ctx, fn: fn, done: make(chan error, 1)}
	q := &s.queues
	q.mu.Lock()
	if q.teams == nil {
		q.teams = make(map[string][]*job)
	}
	waiting, running := q.teams[team]
	q.teams[team] = append(waiting, j)
	q.mu.Unlock()
	if !running {
		go s.runQueue(team)
	}
	return <-j.done
}

// runQueue runs the team's changes until none is waiting: those waiting
// together, up to maxGroup at a time.
func (s *db) runQueue(team string) {
	q := &s.queues
	for {
		q.mu.Lock()
		waiting := q.teams[team]
		if len(waiting) == 0 {
			delete(q.teams, team)
			q.mu.Unlock()
			return
		}
		n := min(len(waiting), maxGroup)
		group := waiting[:n:n]
		q.teams[team] = waiting[n:]
		q.mu.Unlock()
		s.runGroup(team, group)
	}
}

// runGroup commits the changes in one transaction. When one of them fails,
// or the transaction loses a race with another, nothing of theirs has
// committed, and each runs again on its own (changeAlone), which retries
// what lost a race and reports each change's own outcome; a change is made
// to be run more than once. A change whose caller has gone runs on its own
// from the start: it ends at its first statement. (One whose caller goes
// while its group runs can stop the group's statement; the others then
// run again on their own.)
func (s *db) runGroup(team string, group []*job) {
	var together, alone []*job
	for _, j := range group {
		if j.ctx.Err() != nil {
			alone = append(alone, j)
		} else {
			together = append(together, j)
		}
	}
	if len(together) == 1 {
		alone, together = append(alone, together[0]), nil
	}
	if len(together) > 0 {
		committed, err := s.commitTogether(team, together)
		switch {
		case committed:
			for _, j := range together {
				j.done <- nil
			}
		case err != nil:
			for _, j := range together {
				j.done <- err
			}
		default:
			alone = append(alone, together...)
		}
	}
	for _, j := range alone {
		j.done <- s.changeAlone(j.ctx, team, j.fn)
	}
}

// changeAlone is Change for one change of the team: its transaction keeps
// what it reads of the team as a group's does (teamReads), afresh for
// each attempt.
func (s *db) changeAlone(ctx context.Context, team string, fn func(ctx context.Context, t sqlstore.Tx) error) error {
	return s.retry(ctx, func() error {
		return pgx.BeginFunc(ctx, s.pool, func(t pgx.Tx) error {
			return fn(ctx, tx{tx: t, s: s, team: &teamReads{team: team}})
		})
	})
}

// commitTogether runs the changes one after another in one transaction,
// and commits it. It returns committed false and no error when nothing
// committed (a change failed, the transaction could not begin, or its
// commit was refused), and an error only when the commit's outcome is not
// known: the connection was lost while committing.
func (s *db) commitTogether(team string, group []*job) (committed bool, err error) {
	// The transaction is the group's: no one caller's end stops it.
	ctx := context.Background()
	t, err := s.pool.Begin(ctx)
	if err != nil {
		return false, nil
	}
	reads := &teamReads{team: team}
	for _, j := range group {
		if err := j.fn(j.ctx, tx{tx: t, s: s, team: reads}); err != nil {
			_ = t.Rollback(ctx)
			return false, nil
		}
	}
	err = t.Commit(ctx)
	if err == nil {
		return true, nil
	}
	if _, refused := errors.AsType[*pgconn.PgError](err); refused || errors.Is(err, pgx.ErrTxCommitRollback) || pgconn.SafeToRetry(err) {
		return false, nil
	}
	err = mapErr(err)
	return false, err
}

// teamReads are what the changes of a group read of their team, as the
// first change that needed each read it, kept for the changes after it
// (and for the rest of a lone change: see changeAlone): they are changes
// of the same team in the same transaction, and the group commits as one.
// Each read is returned as a copy.
//
//   - The team's rules and webhooks: no change of a group changes them.
//   - The team's trail head, once the transaction holds it: no other
//     transaction can move it until the group commits, and each statement
//     of this one that moves it (HoldTrail, InsertEntries, SetTrailHead)
//     records where it left it.
//   - The team's erasure secrets, read with the head held: the erasures
//     that write the entries a secret matches hold the head, so none of
//     another transaction commits while the group holds it; a rotation
//     may add a version meanwhile, which no entry uses until an erasure
//     of the team's commits. A secret this transaction writes
//     (InsertErasureSecret) drops the copy.
type teamReads struct {
	team string
	// rules and rulesErr are the team's rules, or sql.ErrNoRows, once
	// rulesRead.
	rules     store.TeamSettings
	rulesErr  error
	rulesRead bool
	// hooks are the team's enabled webhooks once hooksRead.
	hooks     []store.Webhook
	hooksRead bool
	// head is the team's trail head's last ID ("" for none) once the
	// transaction holds the head (headHeld).
	head     string
	headHeld bool
	// secrets are the team's erasure secrets once secretsRead.
	secrets     []store.ErasureSecret
	secretsRead bool
}

// group is what the transaction's group keeps of the team, or nil outside
// a group (or for another team).
func (t tx) group(team string) *teamReads {
	if t.team != nil && t.team.team == team {
		return t.team
	}
	return nil
}

// readTeam reads the team's rules and, unless kept already, its enabled
// webhooks, in one exchange, and keeps them for the group.
func (t tx) readTeam(ctx context.Context, r *teamReads) error {
	b := &pgx.Batch{}
	b.Queue(rulesSQL, r.team)
	if !r.hooksRead {
		b.Queue(hooksSQL, r.team)
	}
	br := t.tx.SendBatch(ctx, b)
	defer br.Close()
	rules, rulesErr := sqlstore.ScanTeam(row{br.QueryRow()})
	if rulesErr != nil && !errors.Is(rulesErr, sql.ErrNoRows) {
		return rulesErr
	}
	var hooks []store.Webhook
	if !r.hooksRead {
		rows, err := br.Query()
		if err == nil {
			hooks, err = collect(rows, sqlstore.ScanWebhook)
		}
		if err != nil {
			return err
		}
	}
	if err := br.Close(); err != nil {
		return err
	}
	if !r.hooksRead {
		r.hooks, r.hooksRead = hooks, true
	}
	r.rules, r.rulesErr, r.rulesRead = rules, rulesErr, true
	return nil
}

// holdWithSecrets takes the team's trail head with query (HoldTrail's)
// and reads the team's erasure secrets after it, in one exchange, keeping
// both for the group. held is false, and nothing is kept, when the query
// found no row.
func (t tx) holdWithSecrets(ctx context.Context, r *teamReads, query string) (last string, held bool, err error) {
	b := &pgx.Batch{}
	b.Queue(query, r.team)
	b.Queue(secretsSQL, r.team)
	br := t.tx.SendBatch(ctx, b)
	defer br.Close()
	err = br.QueryRow().Scan(&last)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, br.Close()
	}
	if err != nil {
		return "", false, err
	}
	rows, err := br.Query()
	if err != nil {
		return "", false, err
	}
	secrets, err := collect(rows, scanSecret)
	if err == nil {
		err = br.Close()
	}
	if err != nil {
		return "", false, err
	}
	r.head, r.headHeld = last, true
	r.secrets, r.secretsRead = secrets, true
	return last, true, nil
}
