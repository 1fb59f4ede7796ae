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
func (s *Store) Audit(ctx context.Context, team string, q store.AuditQuery) ([]store.AuditEntry, bool, error) {
	limit := q.Limit
	if limit < 1 || limit > api.MaxBatch {
		limit = 20
	}
	args := []any{team, limit + 1}
	where := "team = $1"
	for _, f := range []struct{ col, v string }{
		{"email", q.Email}, {"reference", q.Reference}, {"type", q.Type},
	} {
		if f.v != "" {
			args = append(args, f.v)
			where += fmt.Sprintf(" AND %s = $%d", f.col, len(args))
		}
	}
	if q.SuppressionID != "" {
		c, err := cursor(q.SuppressionID)
		if err != nil {
			return []store.AuditEntry{}, false, nil
		}
		args = append(args, c)
		where += fmt.Sprintf(" AND sup_id = $%d::uuid", len(args))
	}
	order := "DESC"
	switch {
	case q.After != "":
		c, err := cursor(q.After)
		if err != nil {
			return nil, false, err
		}
		args = append(args, c)
		where += fmt.Sprintf(" AND id < $%d::uuid", len(args))
	case q.Before != "":
		c, err := cursor(q.Before)
		if err != nil {
			return nil, false, err
		}
		args = append(args, c)
		where += fmt.Sprintf(" AND id > $%d::uuid", len(args))
		order = "ASC"
	}
	rows, err := s.pool.Query(ctx, `SELECT `+auditColumns+` FROM audit WHERE `+where+` ORDER BY audit.team, audit.id `+order+` LIMIT $2`, args...)
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
func (s *Store) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		tag, err := s.pool.Exec(ctx, `DELETE FROM audit WHERE id = ANY(ARRAY(SELECT id FROM audit WHERE created_at < $1 LIMIT 10000))`, before)
		if err != nil {
			return total, fmt.Errorf("prune the trail: %w", mapErr(err))
		}
		total += tag.RowsAffected()
		if tag.RowsAffected() < 10000 {
			return total, nil
		}
	}
}
