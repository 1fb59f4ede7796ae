package postgres

import (
	"context"
	"database/sql"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// The statements of an erasure (sqlstore.ErasureReads, ErasureWrites).

const secretsSQL = `SELECT version, secret, created_at FROM erasure_secrets WHERE team = $1 ORDER BY version`

func scanSecret(r sqlstore.Row) (store.ErasureSecret, error) {
	var s store.ErasureSecret
	var at sqlstore.Time
	err := r.Scan(&s.Version, &s.Secret, &at)
	s.CreatedAt = at.Time
	return s, err
}

func (s *db) ErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error) {
	return query1(ctx, s, secretsSQL, []any{team}, scanSecret)
}

// EntriesAndSecrets reads EntriesByEmail and ErasureSecrets in one
// exchange; see sqlstore.CheckReader.
func (s *db) EntriesAndSecrets(ctx context.Context, team string, emails []string) ([]store.Entry, []store.ErasureSecret, error) {
	b := &pgx.Batch{}
	b.Queue(listedSQL("$1", "$2"), team, emails)
	b.Queue(secretsSQL, team)
	br := s.pool.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return nil, nil, err
	}
	found, err := collect(rows, sqlstore.ScanEntry)
	if err != nil {
		return nil, nil, err
	}
	if rows, err = br.Query(); err != nil {
		return nil, nil, err
	}
	secrets, err := collect(rows, scanSecret)
	if err == nil {
		err = br.Close()
	}
	if err != nil {
		return nil, nil, err
	}
	return found, secrets, nil
}

func (s *db) ErasedCount(ctx context.Context, team, prefix string) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM suppressions WHERE team = $1 AND starts_with(email, $2)`,
		team, prefix).Scan(&n)
	return n, err
}

// In a group, the secrets are read once the head is held, and kept (see
// teamReads).
func (t tx) TxErasureSecrets(ctx context.Context, team string) ([]store.ErasureSecret, error) {
	r := t.group(team)
	if r != nil && r.secretsRead {
		return slices.Clone(r.secrets), nil
	}
	rows, err := t.tx.Query(ctx, secretsSQL, team)
	if err != nil {
		return nil, err
	}
	secrets, err := collect(rows, scanSecret)
	if r != nil && r.headHeld && err == nil {
		r.secrets, r.secretsRead = slices.Clone(secrets), true
	}
	return secrets, err
}

func (t tx) InsertErasureSecret(ctx context.Context, team string, s store.ErasureSecret) (int64, error) {
	if r := t.group(team); r != nil {
		r.secrets, r.secretsRead = nil, false
	}
	return t.exec(ctx, `INSERT INTO erasure_secrets (team, version, secret, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
		team, s.Version, s.Secret, s.CreatedAt)
}

func (t tx) ListedByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error) {
	rows, err := t.tx.Query(ctx, listedSQL("$1", "$2"), team, emails)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

func (t tx) EraseEntry(ctx context.Context, team, email, marker, domain string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{t.tx.QueryRow(ctx,
		`UPDATE suppressions SET email = $1, note = NULL, source_id = NULL, evidence = NULL, erased_domain = $4 WHERE team = $2 AND email = $3 RETURNING `+entryColumns,
		marker, team, email, sqlstore.Note(domain))})
}

func (t tx) KeepErasedDomain(ctx context.Context, team, marker, domain string) error {
	_, err := t.tx.Exec(ctx, `UPDATE suppressions SET erased_domain = $3 WHERE team = $1 AND email = $2`, team, marker, domain)
	return err
}

func (t tx) EraseRows(ctx context.Context, team, email, marker string) (int64, error) {
	var total int64
	for _, q := range []string{
		`UPDATE audit SET email = $1, note = NULL, source_id = NULL, evidence = NULL WHERE team = $2 AND email = $3`,
		`UPDATE intake_events SET email = $1 WHERE team = $2 AND email = $3`,
		`UPDATE intake_review SET email = $1, note = NULL, evidence = '{}' WHERE team = $2 AND email = $3`,
	} {
		n, err := t.exec(ctx, q, marker, team, email)
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
		`SELECT id::text, payload FROM webhook_events WHERE team = $1 AND strpos(lower(convert_from(payload, 'UTF8')), $2) > 0`,
		`UPDATE webhook_events SET payload = $1 WHERE id = $2::uuid`},
	{"webhook_attempts",
		`SELECT a.id::text, convert_to(a.response, 'UTF8') FROM webhook_attempts a JOIN webhook_events e ON e.id = a.event_id
			WHERE e.team = $1 AND strpos(lower(a.response), $2) > 0`,
		`UPDATE webhook_attempts SET response = convert_from($1, 'UTF8') WHERE id = $2::uuid`},
}

func (t tx) Texts(ctx context.Context, team, needle string) ([]sqlstore.Text, error) {
	var out []sqlstore.Text
	for _, src := range textSources {
		rows, err := t.tx.Query(ctx, src.read, team, needle)
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
		if src.table == x.Table {
			_, err := t.exec(ctx, src.write, x.Body, x.ID)
			return err
		}
	}
	return sql.ErrNoRows
}
