package postgres

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// writeAudit writes the trail of one change inside its transaction: an
// entry per suppression that changed, with the author and reason ctx
// carries. One statement, whatever the number of entries.
func writeAudit(ctx context.Context, tx pgx.Tx, team, typ string, at time.Time, changed []store.Entry) error {
	if len(changed) == 0 {
		return nil
	}
	ch := store.ChangeOf(ctx)
	var ref *string
	if ch.Reference != "" {
		ref = &ch.Reference
	}
	n := len(changed)
	ids, supIDs, emails, origins := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	sources, supAt := make([]*string, n), make([]time.Time, n)
	for i, e := range changed {
		id, err := uuid.NewV7()
		if err != nil {
			return err
		}
		ids[i], supIDs[i], emails[i], origins[i] = id.String(), e.ID, e.Email, string(e.Origin)
		sources[i], supAt[i] = e.SourceID, e.CreatedAt
	}
	_, err := tx.Exec(ctx, `
		INSERT INTO audit (id, team, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
		SELECT u.id, $1, $2, $3, u.sup_id, u.email, u.origin, u.source_id, u.sup_at, $10, $11, $12, $13
		FROM unnest($4::uuid[], $5::uuid[], $6::text[], $7::text[], $8::text[], $9::timestamptz[]) AS u(id, sup_id, email, origin, source_id, sup_at)`,
		team, typ, at, ids, supIDs, emails, origins, sources, supAt, ch.KeyID, ch.KeyName, ref, ch.RequestID)
	return err
}

const auditColumns = "id::text, type, created_at, sup_id::text, email, origin, source_id, sup_created_at, key_id, key_name, coalesce(reference, ''), request_id"

// Audit returns a page of the team's trail, newest first.
func (s *db) Audit(ctx context.Context, team string, q store.AuditQuery) ([]store.AuditEntry, bool, error) {
	limit := q.Limit
	if limit < 1 || limit > api.MaxBatch {
		limit = 20
	}
	args := []any{team, limit + 1}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	var supID string
	if q.SuppressionID != "" {
		c, err := cursor(q.SuppressionID)
		if err != nil {
			return []store.AuditEntry{}, false, nil
		}
		supID = c
	}
	order, cmp, at := "DESC", "", ""
	switch {
	case q.After != "":
		c, err := cursor(q.After)
		if err != nil {
			return nil, false, err
		}
		cmp, at = "<", arg(c)
	case q.Before != "":
		c, err := cursor(q.Before)
		if err != nil {
			return nil, false, err
		}
		cmp, at, order = ">", arg(c), "ASC"
	}

	// The trail is two sources: the audit table (the removals, and the
	// additions of entries since removed or listed before migration 5),
	// and the listed entries with the change that added them.
	where := "team = $1"
	for _, f := range []struct{ col, v string }{
		{"email", q.Email}, {"reference", q.Reference}, {"type", q.Type},
	} {
		if f.v != "" {
			where += " AND " + f.col + " = " + arg(f.v)
		}
	}
	if supID != "" {
		where += " AND sup_id = " + arg(supID) + "::uuid"
	}
	if cmp != "" {
		where += " AND id " + cmp + " " + at + "::uuid"
	}
	query := `(SELECT ` + auditColumns + ` FROM audit WHERE ` + where + ` ORDER BY audit.team, audit.id ` + order + ` LIMIT $2)`
	if q.Type == "" || q.Type == store.AuditAdded {
		from := "suppressions s JOIN changes c ON c.id = s.change_id"
		where := "s.team = $1"
		if q.Reference != "" {
			// A change's entries lie in its span of IDs.
			from = "changes c JOIN suppressions s ON s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id"
			where += " AND c.team = $1 AND c.reference = " + arg(q.Reference)
		}
		if q.Email != "" {
			where += " AND s.email = " + arg(q.Email)
		}
		if supID != "" {
			where += " AND s.id = " + arg(supID) + "::uuid"
		}
		if cmp != "" {
			where += " AND s.id " + cmp + " " + at + "::uuid"
		}
		query = `SELECT * FROM (` + query + ` UNION ALL (SELECT s.id::text, 'suppression.added', s.created_at, s.id::text, s.email, s.origin, s.source_id, s.created_at,
			c.key_id, c.key_name, coalesce(c.reference, ''), c.request_id
			FROM ` + from + ` WHERE ` + where + ` ORDER BY s.team, s.id ` + order + ` LIMIT $2)) t ORDER BY 1 ` + order + ` LIMIT $2`
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, false, fmt.Errorf("read the trail: %w", mapErr(err))
	}
	page, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.AuditEntry, error) {
		var a store.AuditEntry
		var origin string
		if err := r.Scan(&a.ID, &a.Type, &a.CreatedAt, &a.Suppression.ID, &a.Suppression.Email, &origin,
			&a.Suppression.SourceID, &a.Suppression.CreatedAt, &a.KeyID, &a.KeyName, &a.Reference, &a.RequestID); err != nil {
			return store.AuditEntry{}, err
		}
		a.Suppression.Origin = api.Origin(origin)
		a.CreatedAt, a.Suppression.CreatedAt = a.CreatedAt.UTC(), a.Suppression.CreatedAt.UTC()
		return a, nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("read the trail: %w", mapErr(err))
	}
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	if order == "ASC" {
		slices.Reverse(page)
	}
	return page, more, nil
}

// PruneAudit deletes trail entries older than before, 10,000 per
// transaction so that pruning a long trail never holds locks for long.
func (s *db) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM audit WHERE id = ANY(ARRAY(SELECT id FROM audit WHERE created_at < $1 LIMIT 10000))`, before)
		if err != nil {
			return total, fmt.Errorf("prune the trail: %w", mapErr(err))
		}
		// A pruned change takes the "added" entries of the entries it
		// listed with it (they stay on the list).
		var hidden, changes int64
		err = s.pool.QueryRow(ctx, `WITH gone AS (
				DELETE FROM changes WHERE id = ANY(ARRAY(SELECT id FROM changes WHERE created_at < $1 LIMIT 10000))
				RETURNING id, team, first_id, last_id)
			SELECT coalesce(sum((SELECT count(*) FROM suppressions s
				WHERE s.team = g.team AND s.id BETWEEN g.first_id AND g.last_id AND s.change_id = g.id)), 0), count(*) FROM gone g`, before).Scan(&hidden, &changes)
		if err != nil {
			return total, fmt.Errorf("prune the trail: %w", mapErr(err))
		}
		total += tag.RowsAffected() + hidden
		if tag.RowsAffected() < 10000 && changes < 10000 {
			return total, nil
		}
	}
}

func cursor(id string) (string, error) {
	u, err := uuid.Parse(id)
	if err != nil || len(id) != 36 {
		return "", fmt.Errorf("list cursor %s is not a UUID", api.Quote(id))
	}
	return u.String(), nil
}
