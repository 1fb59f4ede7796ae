package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
)

// queueStage is a store and a second connection that holds a team's trail
// head, so that a test can line changes up behind it and see how they
// commit once it lets go.
type queueStage struct {
	t    *testing.T
	st   *Store
	conn *pgx.Conn
	team string
	// dsn is the database (and schema) of the store.
	dsn string
	// hold is the transaction holding the head.
	hold pgx.Tx
}

func newQueueStage(t *testing.T) *queueStage {
	t.Helper()
	dsn := pgtest.DSN(t)
	st, err := Open(t.Context(), dsn)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { st.Close() })
	conn, err := pgx.Connect(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	s := &queueStage{t: t, st: st, conn: conn, team: "queued", dsn: dsn}
	// The team's first change makes its head.
	if _, err := st.Add(t.Context(), s.team, store.Change{KeyID: "k"}, store.Manual("first@example.com")); err != nil {
		t.Fatal(err)
	}
	return s
}

// holdHead takes the team's trail head on the stage's own connection.
func (s *queueStage) holdHead() {
	s.t.Helper()
	tx, err := s.conn.Begin(s.t.Context())
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := tx.Exec(s.t.Context(), `SELECT 1 FROM trail_heads WHERE team = $1 FOR UPDATE`, s.team); err != nil {
		s.t.Fatal(err)
	}
	s.hold = tx
}

// release lets the head go.
func (s *queueStage) release() {
	s.t.Helper()
	if err := s.hold.Rollback(s.t.Context()); err != nil {
		s.t.Fatal(err)
	}
}

// waitBlocked waits until a change of the store waits for the head the
// stage holds.
func (s *queueStage) waitBlocked() {
	s.t.Helper()
	s.waitFor("a change waiting for the held head", func() bool {
		var n int
		err := s.st.db.pool.QueryRow(s.t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE $1 = ANY(pg_blocking_pids(pid))`,
			s.conn.PgConn().PID()).Scan(&n)
		if err != nil {
			s.t.Fatal(err)
		}
		return n > 0
	})
}

// waitQueued waits until n changes of the team wait in this process's
// queue behind the one running.
func (s *queueStage) waitQueued(n int) {
	s.t.Helper()
	s.waitFor(fmt.Sprintf("%d changes queued", n), func() bool {
		q := &s.st.db.queues
		q.mu.Lock()
		defer q.mu.Unlock()
		return len(q.teams[s.team]) == n
	})
}

func (s *queueStage) waitFor(what string, ok func() bool) {
	s.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			s.t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// transactions counts the transactions that inserted the team's entries
// of these addresses.
func (s *queueStage) transactions(emails []string) int {
	s.t.Helper()
	var n int
	if err := s.conn.QueryRow(s.t.Context(), `SELECT count(DISTINCT xmin::text) FROM suppressions WHERE team = $1 AND email = ANY($2)`,
		s.team, emails).Scan(&n); err != nil {
		s.t.Fatal(err)
	}
	return n
}

// A team's changes that come while one of its changes waits are committed
// together, in one transaction, once it is through; each still gets its
// own entries, its own trail change with IDs above the one before, and
// its webhook events, though only the first of them read the webhooks.
func TestTeamChangesCommitTogether(t *testing.T) {
	s := newQueueStage(t)
	ctx := t.Context()
	hook := store.Webhook{ID: uuid.Must(uuid.NewV7()).String(), Team: s.team, Endpoint: "https://example.com/hook",
		Events: []string{api.AuditAdded}, Status: api.WebhookEnabled, Secret: "whsec_c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0",
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := s.st.CreateWebhook(ctx, hook, 0); err != nil {
		t.Fatal(err)
	}
	s.holdHead()

	const changes, per = 16, 3
	got := make([][]store.Entry, changes)
	errs := make([]error, changes)
	var all []string
	var wg sync.WaitGroup
	add := func(i int) {
		emails := make([]string, per)
		for k := range emails {
			emails[k] = fmt.Sprintf("c%02d-%d@example.com", i, k)
		}
		all = append(all, emails...)
		wg.Go(func() {
			got[i], errs[i] = s.st.Add(ctx, s.team, store.Change{KeyID: "k", RequestID: fmt.Sprint("req-", i)}, store.Manual(emails...))
		})
	}
	add(0)
	s.waitBlocked()
	for i := 1; i < changes; i++ {
		add(i)
	}
	s.waitQueued(changes - 1)
	s.release()
	wg.Wait()

	for i := range changes {
		if errs[i] != nil {
			t.Fatalf("change %d: %v", i, errs[i])
		}
		if len(got[i]) != per || slices.ContainsFunc(got[i], func(e store.Entry) bool { return !e.Created || e.ID == "" }) {
			t.Fatalf("change %d answered %+v; want %d new entries", i, got[i], per)
		}
	}
	if n := s.transactions(all); n != 2 {
		t.Errorf("the %d changes were committed in %d transactions; want 2 (the one that waited, then the rest together)", changes, n)
	}

	// Each change is its own in the trail: the entries of each are
	// above those of every change the trail lists before it.
	rows, err := s.conn.Query(ctx, `SELECT first_id::text, last_id::text FROM changes WHERE team = $1 AND request_id LIKE 'req-%' ORDER BY id`, s.team)
	if err != nil {
		t.Fatal(err)
	}
	spans, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ First, Last string }])
	if err != nil {
		t.Fatal(err)
	}
	if len(spans) != changes {
		t.Fatalf("the trail has %d changes; want %d", len(spans), changes)
	}
	for i := 1; i < len(spans); i++ {
		if spans[i].First <= spans[i-1].Last {
			t.Errorf("change %d's entries start at %s, not above the change before it (last %s)", i, spans[i].First, spans[i-1].Last)
		}
	}

	var events int
	if err := s.conn.QueryRow(ctx, `SELECT count(*) FROM webhook_events WHERE team = $1`, s.team).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != changes*per {
		t.Errorf("%d webhook events queued; want one for each of the %d entries added", events, changes*per)
	}
}

// group holds the team's head, starts lead and waits until it waits for
// the head, starts each of the others and waits until it is queued, then
// lets the head go and waits for them all: the others are then one group.
func (s *queueStage) group(lead func(), others ...func()) {
	s.t.Helper()
	s.holdHead()
	var wg sync.WaitGroup
	wg.Go(lead)
	s.waitBlocked()
	for i, f := range others {
		wg.Go(f)
		s.waitQueued(i + 1)
	}
	s.release()
	wg.Wait()
}

// A change of a group that fails (a protected address, a complaint kept,
// a caller gone) changes nothing and gets its own error; the others of
// its group commit. The team's rules, read by the first change of a
// group, apply to the changes after it.
func TestTeamChangeFailingInAGroup(t *testing.T) {
	s := newQueueStage(t)
	ctx := t.Context()
	if _, err := s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Listed(api.OriginComplaint, nil, "complained@example.com")); err != nil {
		t.Fatal(err)
	}
	if err := s.st.SetTeamSettings(ctx, store.TeamSettings{Team: s.team, Protected: []string{"@ours.example"}, ComplaintRemoval: store.ComplaintConfirm}); err != nil {
		t.Fatal(err)
	}
	add := func(err *error, ctx context.Context, emails ...string) func() {
		return func() { _, *err = s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Manual(emails...)) }
	}

	var lead, good, protected error
	s.group(add(&lead, ctx, "a@example.com"),
		add(&good, ctx, "b@example.com"),
		add(&protected, ctx, "c@example.com", "desk@ours.example"))
	if lead != nil || good != nil {
		t.Fatalf("the changes that should commit failed: %v, %v", lead, good)
	}
	if pe, ok := errors.AsType[*store.ProtectedError](protected); !ok || pe.Email != "desk@ours.example" {
		t.Errorf("adding a protected address after another change of its group: %v; want its ProtectedError", protected)
	}

	gone, cancel := context.WithCancel(ctx)
	var later, complaint, other error
	s.group(add(&lead, ctx, "d@example.com"),
		add(&good, ctx, "e@example.com"),
		func() {
			_, complaint = s.st.RemoveEmails(ctx, s.team, store.Change{KeyID: "k", KeepComplaints: true}, []string{"complained@example.com"})
		},
		add(&other, gone, "gone@example.com"),
		func() {
			// The caller of the change before this one goes while it
			// is queued.
			cancel()
			add(&later, ctx, "f@example.com")()
		})
	if lead != nil || good != nil || later != nil {
		t.Fatalf("the changes that should commit failed: %v, %v, %v", lead, good, later)
	}
	if _, ok := errors.AsType[*store.ComplaintError](complaint); !ok {
		t.Errorf("removing a complaint kept: %v; want a ComplaintError", complaint)
	}
	if other == nil {
		t.Error("the change whose caller had gone was made")
	}
	for email, want := range map[string]bool{
		"a@example.com": true, "b@example.com": true, "d@example.com": true, "e@example.com": true, "f@example.com": true,
		"complained@example.com": true, "c@example.com": false, "desk@ours.example": false, "gone@example.com": false,
	} {
		_, err := s.st.GetByEmail(ctx, s.team, email)
		if listed := err == nil; listed != want {
			t.Errorf("%s listed: %v (%v); want %v", email, listed, err, want)
		}
	}
}

// The changes of a group after the first read the team's trail head and
// erasure secrets from what the group kept: an erasure in the group that
// makes the team's first secret is seen by an add after it, and the
// entries and trail rows of each change are above those of the change
// before it, the head ending at the last of them.
func TestGroupKeepsHeadAndSecrets(t *testing.T) {
	s := newQueueStage(t)
	ctx := t.Context()
	if _, err := s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Manual("x@example.com", "gone@example.com")); err != nil {
		t.Fatal(err)
	}
	var errs [5]error
	var again, removed, last []store.Entry
	s.group(func() { _, errs[0] = s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Manual("a@example.com")) },
		func() {
			_, errs[1] = s.st.Erase(ctx, s.team, store.Change{Reference: "GDPR"}, []string{"x@example.com"})
		},
		func() {
			again, errs[2] = s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Manual("x@example.com", "b@example.com"))
		},
		func() {
			removed, errs[3] = s.st.RemoveEmails(ctx, s.team, store.Change{KeyID: "k"}, []string{"gone@example.com"})
		},
		func() { last, errs[4] = s.st.Add(ctx, s.team, store.Change{KeyID: "k"}, store.Manual("c@example.com")) })
	for i, err := range errs {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
	}
	if len(again) != 2 || again[0].Erased == "" || again[0].Created || !again[1].Created {
		t.Fatalf("the add after the erasure answered %+v; want x's erased entry and b's new one", again)
	}
	if len(removed) != 1 || len(last) != 1 {
		t.Fatalf("removed %+v, then added %+v", removed, last)
	}
	if n := s.transactions([]string{"b@example.com", "c@example.com"}); n != 1 {
		t.Fatalf("the group's adds committed in %d transactions; want 1", n)
	}
	var removal string
	if err := s.conn.QueryRow(ctx, `SELECT id::text FROM audit WHERE team = $1 AND type = $2 AND sup_id = $3::uuid`,
		s.team, store.AuditRemoved, removed[0].ID).Scan(&removal); err != nil {
		t.Fatal(err)
	}
	if !(again[1].ID < removal && removal < last[0].ID) {
		t.Errorf("b %s, the removal %s, c %s: not in the order their changes ran", again[1].ID, removal, last[0].ID)
	}
	var head, top string
	if err := s.conn.QueryRow(ctx, `SELECT last_id::text, (SELECT greatest(max(id::text), (SELECT max(id::text) FROM audit WHERE team = $1))
		FROM suppressions WHERE team = $1) FROM trail_heads WHERE team = $1`, s.team).Scan(&head, &top); err != nil {
		t.Fatal(err)
	}
	if head != top {
		t.Errorf("the head is at %s; want the last ID minted, %s", head, top)
	}
}
