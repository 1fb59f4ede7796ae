package sqlite

import (
	"context"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// The writer's transaction makes the count and the insert one step.
func (t tx) InsertIntake(ctx context.Context, in store.Intake, limit int) (int64, error) {
	var topic any
	if in.TopicArn != "" {
		topic = in.TopicArn
	}
	return t.exec("INSERT INTO intakes ("+sqlstore.IntakeColumns+") SELECT ?,?,?,?,?,?,? "+
		"WHERE (SELECT count(*) FROM intakes WHERE team = ?) < ?",
		in.ID, in.Team, in.Provider, in.Name, in.Credential, topic, in.CreatedAt.UnixMilli(), in.Team, limit)
}

func (t tx) PruneIntakeEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	return t.exec("DELETE FROM intake_events WHERE (team, provider, event_id) IN "+
		"(SELECT team, provider, event_id FROM intake_events INDEXED BY intake_events_received WHERE received_at < ? LIMIT ?)",
		before.UnixMilli(), limit)
}

func (t tx) DeleteIntake(ctx context.Context, team, id string) (int64, error) {
	return t.exec("DELETE FROM intakes WHERE team = ? AND id = ?", team, id)
}

func (t tx) PinTopic(ctx context.Context, id, arn string) (string, error) {
	var topic string
	err := t.c.QueryRowContext(context.Background(),
		"UPDATE intakes SET topic_arn = coalesce(topic_arn, ?) WHERE id = ? RETURNING topic_arn", arn, id).Scan(&topic)
	return topic, err
}

func (s *db) Intakes(ctx context.Context, team string) ([]store.Intake, error) {
	rows, err := s.read.QueryContext(ctx, "SELECT "+sqlstore.IntakeColumns+" FROM intakes WHERE team = ? ORDER BY created_at, id", team)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanIntake)
}

func (s *db) Intake(ctx context.Context, id string) (store.Intake, error) {
	return sqlstore.ScanIntake(s.read.QueryRowContext(ctx, "SELECT "+sqlstore.IntakeColumns+" FROM intakes WHERE id = ?", id))
}

// ClaimEvents inserts the events in chunks; the primary key skips those
// recorded before, and RETURNING names the ones inserted.
func (t tx) ClaimEvents(ctx context.Context, p *sqlstore.ClaimEventsParams) ([]string, error) {
	const cols = 7
	var out []string
	for lo := 0; lo < len(p.Rows); lo += chunk / cols {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := p.Rows[lo:min(lo+chunk/cols, len(p.Rows))]
		st, err := t.s.stmt("INSERT INTO intake_events (team, provider, event_id, email, temporary, message_key, received_at) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?),", len(part)), ",") +
			" ON CONFLICT (team, provider, event_id) DO NOTHING RETURNING provider, event_id")
		if err != nil {
			return nil, err
		}
		args := make([]any, 0, cols*len(part))
		for _, r := range part {
			args = append(args, p.Team, r.Provider, r.EventID, r.Email, r.Temporary, r.MessageKey, p.At.UnixMilli())
		}
		rows, err := st.QueryContext(context.Background(), args...)
		if err != nil {
			return nil, err
		}
		got, err := collect(rows, func(r sqlstore.Row) (string, error) {
			var provider, id string
			err := r.Scan(&provider, &id)
			return sqlstore.ClaimKey(provider, id), err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (t tx) CountFailures(ctx context.Context, team, email string, since time.Time) (int, error) {
	st, err := t.s.stmt("SELECT count(DISTINCT message_key) FROM intake_events INDEXED BY intake_events_failures " +
		"WHERE team = ? AND email = ? AND temporary = 1 AND received_at > ?")
	if err != nil {
		return 0, err
	}
	var n int
	err = st.QueryRowContext(context.Background(), team, email, since.UnixMilli()).Scan(&n)
	return n, err
}

func (t tx) InsertReview(ctx context.Context, items []store.ReviewItem) error {
	st, err := t.s.stmt("INSERT INTO intake_review (team, id, intake_id, provider, email, evidence, reason, received_at) VALUES (?,?,?,?,?,?,?,?)")
	if err != nil {
		return err
	}
	for _, it := range items {
		ev := it.Evidence
		if _, err := st.ExecContext(context.Background(), it.Team, it.ID, it.IntakeID, it.Provider, it.Email,
			sqlstore.Evidence(&ev), it.Reason, it.ReceivedAt.UnixMilli()); err != nil {
			return err
		}
	}
	return nil
}

// The writer is the only one: what it reads is held until it commits.
func (t tx) HoldReview(ctx context.Context, team, id string) (store.ReviewItem, error) {
	return sqlstore.ScanReview(t.c.QueryRowContext(context.Background(),
		"SELECT "+sqlstore.ReviewColumns+" FROM intake_review WHERE team = ? AND id = ?", team, id))
}

func (t tx) SettleReview(ctx context.Context, it store.ReviewItem) (int64, error) {
	var entry any
	if it.EntryID != "" {
		entry = it.EntryID
	}
	return t.exec("UPDATE intake_review SET decision = ?, decided_at = ?, decided_by = ?, note = ?, entry_id = ? "+
		"WHERE team = ? AND id = ? AND decision IS NULL",
		it.Decision, it.DecidedAt.UnixMilli(), it.DecidedBy, sqlstore.Note(it.Note), entry, it.Team, it.ID)
}

func (s *db) ReviewItems(ctx context.Context, team string, decided bool, w sqlstore.Window) ([]store.ReviewItem, error) {
	index, cond := "intake_review_waiting", "decision IS NULL"
	if decided {
		index, cond = "intake_review_decided", "decision IS NOT NULL"
	}
	return readWindow(ctx, s, "SELECT "+sqlstore.ReviewColumns+" FROM intake_review INDEXED BY "+index,
		[]string{"team = ?", cond}, []any{team}, w, sqlstore.ScanReview)
}

func (s *db) ReviewItemByID(ctx context.Context, team, id string) (store.ReviewItem, error) {
	return sqlstore.ScanReview(s.read.QueryRowContext(ctx, "SELECT "+sqlstore.ReviewColumns+" FROM intake_review WHERE team = ? AND id = ?", team, id))
}

func (s *db) CountReview(ctx context.Context, team string) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM intake_review INDEXED BY intake_review_waiting WHERE team = ? AND decision IS NULL", team).Scan(&n)
	return n, err
}
