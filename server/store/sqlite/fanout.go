package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/shushlist/shush/server/store/sqlstore"
)

// A change that queues many webhook events (a batch of 100 to a team
// with 20 webhooks queues 2,000) would hold the single writer for tens of
// milliseconds, and every other team's change would wait behind it. So a
// change writes at most inlineEvents events itself; past that it writes
// one row per entry to webhook_fanout (its body once, and its events' IDs
// and webhooks), in the same transaction, which loses nothing: the
// expander writes those events into webhook_events in steps of at most
// expandEvents, each its own commit, oldest first, at a lower priority
// than the changes of the list (see run), and at most a sixth of the
// writer's time. The events keep the IDs, times
// and bodies the change gave them; a webhook deleted meanwhile gets none.
const (
	inlineEvents = 100
	expandEvents = 100
	// expandPoll is how often the expander looks for rows left by a
	// change it was not told of (another process's, or before a crash).
	expandPoll = time.Second
)

// fanoutEvent is one event of a fan-out row: its ID and webhook.
type fanoutEvent [2]string

func (t tx) InsertEvents(ctx context.Context, p *sqlstore.InsertEventsParams) error {
	if len(p.Rows) <= inlineEvents {
		return t.insertEvents(p.Team, p.Type, p.At.UnixMilli(), p.Rows)
	}
	ins, err := t.s.stmt("INSERT INTO webhook_fanout (team, type, created_at, payload, events) VALUES (?,?,?,?,?)")
	if err != nil {
		return err
	}
	// The Core queues an entry's events one after another, with one body.
	for lo := 0; lo < len(p.Rows); {
		hi := lo + 1
		for hi < len(p.Rows) && bytes.Equal(p.Rows[hi].Payload, p.Rows[lo].Payload) {
			hi++
		}
		evs := make([]fanoutEvent, 0, hi-lo)
		for _, r := range p.Rows[lo:hi] {
			evs = append(evs, fanoutEvent{r.ID, r.WebhookID})
		}
		b, err := json.Marshal(evs)
		if err != nil {
			return err
		}
		if _, err := ins.ExecContext(context.Background(), p.Team, p.Type, p.At.UnixMilli(), p.Rows[lo].Payload, string(b)); err != nil {
			return err
		}
		lo = hi
	}
	// The expander is woken once the change has committed (commitGroup).
	t.s.fannedOut = true
	return nil
}

// wakeExpander wakes the expander after a transaction that wrote fan-out
// rows (it committed them, or they are gone: a look finds out).
func (s *db) wakeExpander() {
	if !s.fannedOut {
		return
	}
	s.fannedOut = false
	select {
	case s.fanout <- struct{}{}:
	default:
	}
}

// insertEvents writes events into the outbox.
func (t tx) insertEvents(team, typ string, at int64, rows []sqlstore.EventRow) error {
	ins, err := t.s.stmt("INSERT INTO webhook_events (id, webhook_id, team, type, created_at, payload, status, next_attempt_at) VALUES (?,?,?,?,?,?,'pending',?)")
	if err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := ins.ExecContext(context.Background(), r.ID, r.WebhookID, team, typ, at, r.Payload, at); err != nil {
			return err
		}
	}
	return nil
}

// expand writes the fan-out rows' events into the outbox, a step at a
// time, until none is left or the store closes; then it waits for a
// change that writes more, or for expandPoll.
func (s *db) expand() {
	defer close(s.expandDone)
	t := time.NewTicker(expandPoll)
	defer t.Stop()
	for {
		for {
			start := time.Now()
			more, err := s.expandStep()
			if err != nil || !more {
				break
			}
			// The expander takes at most a sixth of the writer's time:
			// the changes of the list come first, and a team's backlog
			// drains at the pace the writer can spare.
			select {
			case <-s.quit:
				return
			case <-time.After(5 * time.Since(start)):
			}
		}
		select {
		case <-s.quit:
			return
		case <-s.fanout:
		case <-t.C:
		}
	}
}

// expandStep writes the events of the oldest fan-out rows, up to
// expandEvents events (at least one row), and deletes those rows, in one
// commit of its own; it says whether it found rows.
func (s *db) expandStep() (more bool, err error) {
	// Most looks find nothing: a read says so without the write lock.
	var any int
	if err := s.read.QueryRowContext(context.Background(), "SELECT EXISTS (SELECT 1 FROM webhook_fanout)").Scan(&any); err != nil || any == 0 {
		return false, err
	}
	j := &job{ctx: context.Background(), done: make(chan error, 1), background: true,
		fn: func(_ context.Context, c *sql.Conn) error {
			more, err = s.expandRows(tx{s: s, c: c})
			return err
		}}
	select {
	case s.bg <- j:
	case <-s.quit:
		return false, errClosed
	}
	if err := <-j.done; err != nil {
		return false, err
	}
	return more, nil
}

// fan is a fan-out row.
type fan struct {
	seq       int64
	team, typ string
	at        int64
	payload   []byte
	events    []fanoutEvent
}

// expandRows is a step's work inside its transaction.
func (s *db) expandRows(t tx) (bool, error) {
	fans, err := t.oldestFans()
	if err != nil || len(fans) == 0 {
		return false, err
	}
	alive := map[string]bool{}
	for _, f := range fans {
		evs := make([]sqlstore.EventRow, 0, len(f.events))
		for _, e := range f.events {
			ok, err := t.webhookAlive(alive, e[1])
			if err != nil {
				return false, err
			}
			if ok {
				evs = append(evs, sqlstore.EventRow{ID: e[0], WebhookID: e[1], Payload: f.payload})
			}
		}
		if err := t.insertEvents(f.team, f.typ, f.at, evs); err != nil {
			return false, err
		}
		if _, err := t.exec("DELETE FROM webhook_fanout WHERE seq = ?", f.seq); err != nil {
			return false, err
		}
	}
	return true, nil
}

// oldestFans reads the oldest fan-out rows, up to expandEvents events (at
// least one row).
func (t tx) oldestFans() ([]fan, error) {
	rows, err := t.c.QueryContext(context.Background(), `SELECT seq, team, type, created_at, payload, events FROM webhook_fanout ORDER BY seq LIMIT ?`, expandEvents)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var fans []fan
	n := 0
	for rows.Next() {
		var f fan
		var events string
		if err := rows.Scan(&f.seq, &f.team, &f.typ, &f.at, &f.payload, &events); err != nil {
			return nil, err
		}
		if err := json.Unmarshal([]byte(events), &f.events); err != nil {
			return nil, err
		}
		if len(fans) > 0 && n+len(f.events) > expandEvents {
			break
		}
		fans, n = append(fans, f), n+len(f.events)
	}
	return fans, rows.Err()
}

// webhookAlive says whether the webhook still exists, remembering the
// answer for the step.
func (t tx) webhookAlive(alive map[string]bool, id string) (bool, error) {
	if ok, seen := alive[id]; seen {
		return ok, nil
	}
	var n int
	if err := t.c.QueryRowContext(context.Background(), "SELECT count(*) FROM webhooks WHERE id = ?", id).Scan(&n); err != nil {
		return false, err
	}
	alive[id] = n > 0
	return n > 0, nil
}
