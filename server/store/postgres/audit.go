package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

func (t tx) InsertAudit(ctx context.Context, p *sqlstore.InsertAuditParams) error {
	n := len(p.Entries)
	supIDs, emails, origins := make([]string, n), make([]string, n), make([]string, n)
	sources, supAt := make([]*string, n), make([]time.Time, n)
	notes, until, changes := make([]*string, n), make([]*time.Time, n), make([]*string, n)
	evidence := make([]*string, n)
	for i, e := range p.Entries {
		supIDs[i], emails[i], origins[i], sources[i], supAt[i] = e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt
		notes[i], until[i], evidence[i] = sqlstore.Note(e.Note), timeOrNull(e.ExpiresAt), sqlstore.Evidence(e.Evidence)
		if p.Changes != nil {
			if c, ok := p.Changes[i].(string); ok {
				changes[i] = &c
			}
		}
	}
	a := p.Author
	agentID, agentName := sqlstore.Author(a)
	args := []any{p.Team, p.Type, p.At, p.IDs, supIDs, emails, origins, sources, supAt, a.KeyID, a.KeyName, sqlstore.Reference(a), a.RequestID, notes, until,
		agentID, agentName, changes, evidence}
	if r := t.group(p.Team); r != nil && r.headHeld {
		// The head moves to the last of these IDs in the same exchange,
		// as the change would move it next (SetTrailHead finds it there).
		last := slices.Max(p.IDs)
		if last > r.head {
			b := &pgx.Batch{}
			b.Queue(insertAuditSQL, args...)
			b.Queue(setHeadSQL, p.Team, last)
			if err := t.tx.SendBatch(ctx, b).Close(); err != nil {
				return err
			}
			r.head = last
			return nil
		}
	}
	_, err := t.tx.Exec(ctx, insertAuditSQL, args...)
	return err
}

// insertAuditSQL writes audit rows.
const insertAuditSQL = `
		INSERT INTO audit (id, team, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id, note, expires_at, agent_id, agent_name, change_id, evidence)
		SELECT u.id, $1, $2, $3, u.sup_id, u.email, u.origin, u.source_id, u.sup_at, $10, $11, $12, $13, u.note, u.expires_at, $16, $17, u.change_id, u.evidence
		FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::timestamptz[], $14::text[], $15::timestamptz[], $18::uuid[], $19::text[])
			AS u(id, sup_id, email, origin, source_id, sup_at, note, expires_at, change_id, evidence)`

const auditColumns = "id::text, type, created_at, sup_id::text, email, origin, source_id, sup_created_at, key_id, key_name, coalesce(reference, ''), request_id, note, expires_at, agent_id, agent_name, evidence"

// The three sources are read in one statement, each bounded by the
// window ($2).
func (s *db) Trail(ctx context.Context, p *sqlstore.TrailParams) ([]store.AuditEntry, error) {
	query, args := trailQuery(p)
	return query1(ctx, s, query, args, sqlstore.ScanAudit)
}

// trailQuery is the statement of Trail and its arguments.
func trailQuery(p *sqlstore.TrailParams) (string, []any) {
	args := []any{p.Team, p.Limit}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	order, cmp, at := "DESC", "", ""
	if p.Cursor != "" {
		cmp, at = "<", arg(p.Cursor)
		if p.Ascending {
			order, cmp = "ASC", ">"
		}
	}
	where := "team = $1"
	for _, f := range []struct{ col, v string }{
		{"email", p.Email}, {"reference", p.Reference}, {"type", p.Type},
	} {
		if f.v != "" {
			where += " AND " + f.col + " = " + arg(f.v)
		}
	}
	if p.SuppressionID != "" {
		where += " AND sup_id = " + arg(p.SuppressionID) + "::uuid"
	}
	if cmp != "" {
		where += " AND id " + cmp + " " + at + "::uuid"
	}
	query := `(SELECT ` + auditColumns + ` FROM audit WHERE ` + where + ` ORDER BY audit.team, audit.id ` + order + ` LIMIT $2)`
	if p.Added {
		from := "suppressions s JOIN changes c ON c.id = s.change_id"
		where := "s.team = $1"
		if p.Reference != "" {
			// A change's entries lie in its span of IDs.
			from = "changes c JOIN suppressions s ON s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id"
			where += " AND c.team = $1 AND c.reference = " + arg(p.Reference)
		}
		if p.Email != "" {
			where += " AND s.email = " + arg(p.Email)
		}
		if p.SuppressionID != "" {
			where += " AND s.id = " + arg(p.SuppressionID) + "::uuid"
		}
		if cmp != "" {
			where += " AND s.id " + cmp + " " + at + "::uuid"
		}
		// The added entries of removed entries whose removal names the
		// change that listed them, in the order of the entries' IDs.
		rfrom := "audit a JOIN changes c ON c.id = a.change_id"
		rwhere := "a.team = $1"
		if p.Reference != "" {
			rfrom = "changes c JOIN audit a ON a.team = c.team AND a.sup_id BETWEEN c.first_id AND c.last_id AND a.change_id = c.id"
			rwhere += " AND c.team = $1 AND c.reference = " + arg(p.Reference)
		}
		if p.Email != "" {
			rwhere += " AND a.email = " + arg(p.Email)
		}
		if p.SuppressionID != "" {
			rwhere += " AND a.sup_id = " + arg(p.SuppressionID) + "::uuid"
		}
		if cmp != "" {
			rwhere += " AND a.sup_id " + cmp + " " + at + "::uuid"
		}
		query = `SELECT * FROM (` + query + ` UNION ALL (SELECT s.id::text, 'suppression.added', s.created_at, s.id::text, s.email, s.origin, s.source_id, s.created_at,
			c.key_id, c.key_name, coalesce(c.reference, ''), c.request_id, s.note, s.expires_at, c.agent_id, c.agent_name, s.evidence
			FROM ` + from + ` WHERE ` + where + ` ORDER BY s.team, s.id ` + order + ` LIMIT $2)
			UNION ALL (SELECT a.sup_id::text, 'suppression.added', a.sup_created_at, a.sup_id::text, a.email, a.origin, a.source_id, a.sup_created_at,
			c.key_id, c.key_name, coalesce(c.reference, ''), c.request_id, a.note, a.expires_at, c.agent_id, c.agent_name, a.evidence
			FROM ` + rfrom + ` WHERE ` + rwhere + ` ORDER BY a.team, a.sup_id ` + order + ` LIMIT $2)) t ORDER BY 1 ` + order + ` LIMIT $2`
	}
	return query, args
}

func (t tx) PruneTrail(ctx context.Context, before time.Time, limit int) (sqlstore.Pruned, error) {
	var n sqlstore.Pruned
	// A removal's row that names its change takes the added entry read
	// from the two with it.
	var withAdded int64
	err := t.tx.QueryRow(ctx, `WITH gone AS (
			DELETE FROM audit WHERE id = ANY(ARRAY(SELECT id FROM audit WHERE created_at < $1 LIMIT $2)) RETURNING change_id)
		SELECT count(*), count(*) FILTER (WHERE change_id IN (SELECT id FROM changes)) FROM gone`, before, limit).Scan(&n.Audit, &withAdded)
	if err != nil {
		return n, err
	}
	err = t.tx.QueryRow(ctx, `WITH gone AS (
			DELETE FROM changes WHERE id = ANY(ARRAY(SELECT id FROM changes WHERE created_at < $1 LIMIT $2))
			RETURNING id, team, first_id, last_id)
		SELECT coalesce(sum((SELECT count(*) FROM suppressions s
			WHERE s.team = g.team AND s.id BETWEEN g.first_id AND g.last_id AND s.change_id = g.id) + (SELECT count(*) FROM audit a
			WHERE a.team = g.team AND a.sup_id BETWEEN g.first_id AND g.last_id AND a.change_id = g.id)), 0), count(*) FROM gone g`, before, limit).Scan(&n.Hidden, &n.Changes)
	n.Hidden += withAdded
	return n, err
}

// HoldTrail locks the team's head row until the change ends; the first
// change of a team inserts it (a concurrent first change waits on that
// insert, then locks the row).
func (t tx) HoldTrail(ctx context.Context, team string, wait bool) (string, bool, error) {
	r := t.group(team)
	if r != nil && r.headHeld {
		return r.head, true, nil
	}
	query := `SELECT coalesce(last_id::text, '') FROM trail_heads WHERE team = $1 FOR UPDATE`
	if !wait {
		query += ` SKIP LOCKED`
	}
	if r != nil {
		// The group's first hold reads the erasure secrets with it.
		if last, held, err := t.holdWithSecrets(ctx, r, query); err != nil || held {
			return last, held, err
		}
	}
	for range 2 {
		var last string
		err := t.tx.QueryRow(ctx, query, team).Scan(&last)
		if err == nil {
			if r != nil {
				r.head, r.headHeld = last, true
			}
			return last, true, nil
		}
		if !errors.Is(err, pgx.ErrNoRows) {
			return "", false, err
		}
		// No row: the team has none yet, or (skipping) another change
		// holds it.
		n, err := t.exec(ctx, `INSERT INTO trail_heads (team, last_id) VALUES ($1, NULL) ON CONFLICT (team) DO NOTHING`, team)
		if err != nil {
			return "", false, err
		}
		if n == 1 {
			if r != nil {
				r.head, r.headHeld = "", true
			}
			return "", true, nil
		}
		if !wait {
			return "", false, nil
		}
	}
	return "", false, fmt.Errorf("the trail head of team %q could not be held", team)
}

const setHeadSQL = `UPDATE trail_heads SET last_id = $2::uuid WHERE team = $1`

func (t tx) SetTrailHead(ctx context.Context, team, last string) error {
	r := t.group(team)
	if r != nil && r.headHeld && r.head == last {
		return nil // moved there already (InsertAudit)
	}
	_, err := t.tx.Exec(ctx, setHeadSQL, team, last)
	if r != nil && err == nil {
		r.head, r.headHeld = last, true
	}
	return err
}
