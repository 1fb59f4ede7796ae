package postgres

import (
	"context"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// intakeColumns are what sqlstore.ScanIntake reads, the ID as text.
const intakeColumns = "id::text, team, provider, name, credential, topic_arn, created_at"

// A lock of the team's endpoints, held to the end of the transaction,
// makes the count and the insert one step (see InsertWebhook).
func (t tx) InsertIntake(ctx context.Context, in store.Intake, limit int) (int64, error) {
	if _, err := t.tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('shush intakes of ' || $1))", in.Team); err != nil {
		return 0, err
	}
	var topic *string
	if in.TopicArn != "" {
		topic = &in.TopicArn
	}
	return t.exec(ctx, "INSERT INTO intakes (id, team, provider, name, credential, topic_arn, created_at) SELECT $1, $2, $3, $4, $5, $6, $7 "+
		"WHERE (SELECT count(*) FROM intakes WHERE team = $2) < $8",
		in.ID, in.Team, in.Provider, in.Name, in.Credential, topic, in.CreatedAt, limit)
}

func (t tx) PruneIntakeEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	return t.exec(ctx, `DELETE FROM intake_events WHERE ctid IN
		(SELECT ctid FROM intake_events WHERE received_at < $1 LIMIT $2)`, before, limit)
}

func (t tx) DeleteIntake(ctx context.Context, team, id string) (int64, error) {
	return t.exec(ctx, "DELETE FROM intakes WHERE team = $1 AND id = $2", team, id)
}

func (t tx) PinTopic(ctx context.Context, id, arn string) (string, error) {
	var topic string
	err := t.tx.QueryRow(ctx, "UPDATE intakes SET topic_arn = coalesce(topic_arn, $2) WHERE id = $1 RETURNING topic_arn", id, arn).Scan(&topic)
	return topic, err
}

func (s *db) Intakes(ctx context.Context, team string) ([]store.Intake, error) {
	return query1(ctx, s, "SELECT "+intakeColumns+" FROM intakes WHERE team = $1 ORDER BY created_at, id", []any{team}, sqlstore.ScanIntake)
}

func (s *db) Intake(ctx context.Context, id string) (store.Intake, error) {
	return sqlstore.ScanIntake(row{s.pool.QueryRow(ctx, "SELECT "+intakeColumns+" FROM intakes WHERE id = $1", id)})
}

// ClaimEvents inserts the events in one statement; an event another
// change recorded and has not committed yet makes it wait for that one,
// and is then skipped (ON CONFLICT DO NOTHING): a replay racing its
// original is taken in once.
func (t tx) ClaimEvents(ctx context.Context, p *sqlstore.ClaimEventsParams) ([]string, error) {
	n := len(p.Rows)
	providers, ids, emails, keys, temporary := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]bool, n)
	for i, r := range p.Rows {
		providers[i], ids[i], emails[i], keys[i], temporary[i] = r.Provider, r.EventID, r.Email, r.MessageKey, r.Temporary
	}
	rows, err := t.tx.Query(ctx, `INSERT INTO intake_events (team, provider, event_id, email, temporary, message_key, received_at)
		SELECT $1, u.provider, u.event_id, u.email, u.temporary, u.message_key, $2
		FROM unnest($3::text[], $4::text[], $5::text[], $6::bool[], $7::text[]) AS u(provider, event_id, email, temporary, message_key)
		ORDER BY u.provider, u.event_id
		ON CONFLICT (team, provider, event_id) DO NOTHING RETURNING provider, event_id`,
		p.Team, p.At, providers, ids, emails, temporary, keys)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r sqlstore.Row) (string, error) {
		var provider, id string
		err := r.Scan(&provider, &id)
		return sqlstore.ClaimKey(provider, id), err
	})
}

func (t tx) CountFailures(ctx context.Context, team, email string, since time.Time) (int, error) {
	var n int
	err := t.tx.QueryRow(ctx, `SELECT count(DISTINCT message_key) FROM intake_events
		WHERE team = $1 AND email = $2 AND temporary AND received_at > $3`, team, email, since).Scan(&n)
	return n, err
}

func (t tx) InsertReview(ctx context.Context, items []store.ReviewItem) error {
	n := len(items)
	ids, intakes, providers, emails, evidence, reasons := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	at := make([]time.Time, n)
	for i, it := range items {
		ev := it.Evidence
		ids[i], intakes[i], providers[i], emails[i], evidence[i], reasons[i], at[i] = it.ID, it.IntakeID, it.Provider, it.Email, *sqlstore.Evidence(&ev), it.Reason, it.ReceivedAt
	}
	_, err := t.tx.Exec(ctx, `INSERT INTO intake_review (team, id, intake_id, provider, email, evidence, reason, received_at)
		SELECT $1, u.id, u.intake_id, u.provider, u.email, u.evidence, u.reason, u.received_at
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])
			AS u(id, intake_id, provider, email, evidence, reason, received_at)`,
		items[0].Team, ids, intakes, providers, emails, evidence, reasons, at)
	return err
}

// reviewColumns are what sqlstore.ScanReview reads, the ID as text.
const reviewColumns = "team, id::text, intake_id, provider, email, evidence, reason, received_at, decision, decided_at, decided_by, note, entry_id"

func (t tx) HoldReview(ctx context.Context, team, id string) (store.ReviewItem, error) {
	return sqlstore.ScanReview(row{t.tx.QueryRow(ctx, "SELECT "+reviewColumns+" FROM intake_review WHERE team = $1 AND id = $2 FOR UPDATE", team, id)})
}

func (t tx) SettleReview(ctx context.Context, it store.ReviewItem) (int64, error) {
	var entry *string
	if it.EntryID != "" {
		entry = &it.EntryID
	}
	return t.exec(ctx, `UPDATE intake_review SET decision = $3, decided_at = $4, decided_by = $5, note = $6, entry_id = $7
		WHERE team = $1 AND id = $2 AND decision IS NULL`,
		it.Team, it.ID, it.Decision, it.DecidedAt, it.DecidedBy, sqlstore.Note(it.Note), entry)
}

func (s *db) ReviewItems(ctx context.Context, team string, decided bool, w sqlstore.Window) ([]store.ReviewItem, error) {
	cond := "team = $1 AND decision IS NULL"
	if decided {
		cond = "team = $1 AND decision IS NOT NULL"
	}
	return readWindow(ctx, s, "SELECT "+reviewColumns+" FROM intake_review", cond, []string{"intake_review.team", "intake_review.id"}, []any{team}, w, sqlstore.ScanReview)
}

func (s *db) ReviewItemByID(ctx context.Context, team, id string) (store.ReviewItem, error) {
	return sqlstore.ScanReview(row{s.pool.QueryRow(ctx, "SELECT "+reviewColumns+" FROM intake_review WHERE team = $1 AND id = $2", team, id)})
}

func (s *db) CountReview(ctx context.Context, team string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, "SELECT count(*) FROM intake_review WHERE team = $1 AND decision IS NULL", team).Scan(&n)
	return n, err
}
