package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// writeAudit writes the trail of one change, inside its transaction: an
// entry per suppression that changed, with the author and reason ctx
// carries.
func (s *Store) writeAudit(ctx context.Context, team, typ string, at time.Time, changed []store.Entry) error {
	ch := store.ChangeOf(ctx)
	var ref any
	if ch.Reference != "" {
		ref = ch.Reference
	}
	const cols = 13
	for lo := 0; lo < len(changed); lo += chunk {
		hi := min(lo+chunk, len(changed))
		st, err := s.stmt(auditSQL(hi - lo))
		if err != nil {
			return err
		}
		args := make([]any, 0, cols*(hi-lo))
		for _, e := range changed[lo:hi] {
			id, err := uuid.NewV7()
			if err != nil {
				return err
			}
			args = append(args, team, id.String(), typ, at.UnixMilli(), e.ID, e.Email, string(e.Origin), nullString(e.SourceID),
				e.CreatedAt.UnixMilli(), ch.KeyID, ch.KeyName, ref, ch.RequestID)
		}
		if _, err := st.ExecContext(context.Background(), args...); err != nil {
			return err
		}
	}
	return nil
}

func auditSQL(n int) string {
	return "INSERT INTO audit (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?,?,?,?),", n), ",")
}

const auditCols = "id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id"

// Audit returns a page of the team's trail, newest first; see store.Store.
func (s *Store) Audit(ctx context.Context, team string, q store.AuditQuery) ([]store.AuditEntry, bool, error) {
	limit := q.Limit
	if limit < 1 || limit > api.MaxBatch {
		limit = 20
	}
	where := []string{"team = ?"}
	args := []any{team}
	for _, f := range []struct{ col, v string }{
		{"email", q.Email}, {"sup_id", q.SuppressionID}, {"reference", q.Reference}, {"type", q.Type},
	} {
		if f.v != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.v)
		}
	}
	order := "DESC"
	switch {
	case q.After != "":
		where = append(where, "id < ?")
		args = append(args, q.After)
	case q.Before != "":
		where = append(where, "id > ?")
		args = append(args, q.Before)
		order = "ASC"
	}
	args = append(args, limit+1)
	rows, err := s.read.QueryContext(ctx, "SELECT "+auditCols+" FROM audit WHERE "+strings.Join(where, " AND ")+
		" ORDER BY id "+order+" LIMIT ?", args...)
	if err != nil {
		return nil, false, wrap(err)
	}
	defer rows.Close()
	page := make([]store.AuditEntry, 0, limit+1)
	for rows.Next() {
		var (
			a             store.AuditEntry
			at, supAt     int64
			origin        string
			source, refer sql.NullString
		)
		if err := rows.Scan(&a.ID, &a.Type, &at, &a.Suppression.ID, &a.Suppression.Email, &origin, &source, &supAt,
			&a.KeyID, &a.KeyName, &refer, &a.RequestID); err != nil {
			return nil, false, wrap(err)
		}
		a.CreatedAt = time.UnixMilli(at).UTC()
		a.Suppression.Origin = api.Origin(origin)
		if source.Valid {
			a.Suppression.SourceID = &source.String
		}
		a.Suppression.CreatedAt = time.UnixMilli(supAt).UTC()
		a.Reference = refer.String
		page = append(page, a)
	}
	if err := rows.Err(); err != nil {
		return nil, false, wrap(err)
	}
	page, more := trimPage(page, limit, order == "ASC")
	return page, more, nil
}

// pruneChunk is how many trail entries one commit of PruneAudit deletes,
// so that pruning a long trail never holds the writer for long.
const pruneChunk = 10000

// PruneAudit deletes trail entries older than before; see store.Store.
func (s *Store) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		err := s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
			res, err := c.ExecContext(context.Background(),
				"DELETE FROM audit WHERE (team, id) IN (SELECT team, id FROM audit INDEXED BY audit_created WHERE created_at < ? LIMIT ?)",
				before.UnixMilli(), pruneChunk)
			if err != nil {
				return err
			}
			n, err = res.RowsAffected()
			return err
		})
		total += n
		if err != nil || n < pruneChunk {
			return total, err
		}
	}
}
