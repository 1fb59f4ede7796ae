package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// The statements of an erasure (sqlstore.ErasureReads, ErasureWrites).

const secretsSQL = "SELECT version, secret, created_at FROM erasure_secrets WHERE team = ? ORDER BY version"

func scanSecret(r sqlstore.Row) (store.ErasureSecret, error) {
	var s store.ErasureSecret
	var at sqlstore.Time
	err := r.Scan(&s.Version, &s.Secret, &at)
	s.CreatedAt = at.Time
	return s, err
}

func (s *db) ErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error) {
	rows, err := s.reads.secrets.QueryContext(ctx, team)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanSecret)
}

func (s *db) ErasedCount(ctx context.Context, team, prefix string) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx, "SELECT count(*) FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email >= ? AND email < ?",
		team, prefix, prefix+"\xff").Scan(&n)
	return n, err
}

func (t tx) TxErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error) {
	rows, err := t.c.QueryContext(context.Background(), secretsSQL, team)
	if err != nil {
		return nil, err
	}
	return collect(rows, scanSecret)
}

func (t tx) InsertErasureSecret(ctx context.Context, team string, s store.ErasureSecret) (int64, error) {
	return t.exec("INSERT INTO erasure_secrets (team, version, secret, created_at) VALUES (?,?,?,?) ON CONFLICT DO NOTHING",
		team, s.Version, s.Secret, s.CreatedAt.UnixMilli())
}

func (t tx) ListedByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error) {
	var out []store.Entry
	for lo := 0; lo < len(emails); lo += chunk {
		part := emails[lo:min(lo+chunk, len(emails))]
		rows, err := t.c.QueryContext(context.Background(), selectByEmailSQL(len(part)), keyArgs(team, part)...)
		if err != nil {
			return nil, err
		}
		got, err := collect(rows, sqlstore.ScanEntry)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (t tx) EraseEntry(ctx context.Context, team, email, marker, domain string) (store.Entry, error) {
	return sqlstore.ScanEntry(t.c.QueryRowContext(context.Background(),
		"UPDATE suppressions SET email = ?, note = NULL, source_id = NULL, evidence = NULL, erased_domain = ? WHERE team = ? AND email = ? RETURNING "+sqlstore.EntryColumns,
		marker, sqlstore.Note(domain), team, email))
}

func (t tx) KeepErasedDomain(ctx context.Context, team, marker, domain string) error {
	_, err := t.exec("UPDATE suppressions SET erased_domain = ? WHERE team = ? AND email = ?", domain, team, marker)
	return err
}

func (t tx) EraseRows(ctx context.Context, team, email, marker string) (int64, error) {
	var total int64
	for _, q := range []string{
		"UPDATE audit SET email = ?, note = NULL, source_id = NULL, evidence = NULL WHERE team = ? AND email = ?",
		"UPDATE intake_events SET email = ? WHERE team = ? AND email = ?",
		"UPDATE intake_review SET email = ?, note = NULL, evidence = '{}' WHERE team = ? AND email = ?",
	} {
		n, err := t.exec(q, marker, team, email)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// textSources are the stored bodies an erasure reads: each statement
// takes the team and a needle, and reads a row's key and body.
var textSources = []struct{ table, read, write string }{
	{"webhook_events",
		"SELECT id, payload FROM webhook_events WHERE team = ? AND instr(lower(CAST(payload AS TEXT)), ?) > 0",
		"UPDATE webhook_events SET payload = ? WHERE id = ?"},
	{"webhook_fanout",
		"SELECT seq, payload FROM webhook_fanout WHERE team = ? AND instr(lower(CAST(payload AS TEXT)), ?) > 0",
		"UPDATE webhook_fanout SET payload = ? WHERE seq = ?"},
	{"webhook_attempts",
		"SELECT a.id, a.response FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id WHERE e.team = ? AND instr(lower(a.response), ?) > 0",
		"UPDATE webhook_attempts SET response = ? WHERE id = ?"},
}

func (t tx) Texts(ctx context.Context, team, needle string) ([]sqlstore.Text, error) {
	var out []sqlstore.Text
	for _, src := range textSources {
		rows, err := t.c.QueryContext(context.Background(), src.read, team, needle)
		if err != nil {
			return nil, err
		}
		got, err := collect(rows, func(r sqlstore.Row) (sqlstore.Text, error) {
			x := sqlstore.Text{Table: src.table}
			err := r.Scan(&x.ID, &x.Body)
			return x, err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func (t tx) SetText(ctx context.Context, x sqlstore.Text) error {
	for _, src := range textSources {
		if src.table != x.Table {
			continue
		}
		var body any = x.Body
		if x.Table == "webhook_attempts" {
			body = string(x.Body)
		}
		_, err := t.exec(src.write, body, x.ID)
		return err
	}
	return sql.ErrNoRows
}

// Settle truncates the write-ahead log, so that the pages an erasure
// replaced leave it (the database file itself keeps no freed bytes:
// secure_delete is on).
//
// A checkpoint cannot run beside another (the checkpointer's own) nor
// while a reader holds an older snapshot: it is tried again, for up to
// settleFor, until one finishes whole.
func (s *db) Settle(ctx context.Context) error {
	deadline := time.Now().Add(settleFor)
	for {
		var busy, logPages, done int
		err := s.read.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logPages, &done)
		if err == nil && busy == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			if err == nil {
				err = errors.New("the write-ahead log is in use; it keeps the erased bytes until the next checkpoint")
			}
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// settleFor bounds how long Settle tries.
const settleFor = 5 * time.Second
