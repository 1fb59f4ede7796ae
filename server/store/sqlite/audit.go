package sqlite

import (
	"context"
	"database/sql"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// writeAudit writes the trail of one change, inside its transaction: an
// entry per suppression that changed, with the author and reason ctx
// carries.
func (s *db) writeAudit(ctx context.Context, team, typ string, at time.Time, changed []store.Entry) error {
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

// writeChange writes the trail's row of a change that may list new
// entries, inside its transaction, and returns its ID for the entries to
// name. It records the span of the entries' IDs, so that a change's
// entries are found by a range of the list's primary key.
func (s *db) writeChange(ctx context.Context, team string, at time.Time, entries []store.Entry) (int64, error) {
	ch := store.ChangeOf(ctx)
	var ref any
	if ch.Reference != "" {
		ref = ch.Reference
	}
	first, last := entries[0].ID, entries[0].ID
	for _, e := range entries[1:] {
		first, last = min(first, e.ID), max(last, e.ID)
	}
	st, err := s.stmt("INSERT INTO changes (team, created_at, key_id, key_name, reference, request_id, first_id, last_id) VALUES (?,?,?,?,?,?,?,?) RETURNING id")
	if err != nil {
		return 0, err
	}
	var id int64
	err = st.QueryRowContext(context.Background(), team, at.UnixMilli(), ch.KeyID, ch.KeyName, ref, ch.RequestID, first, last).Scan(&id)
	return id, err
}

// keepAdded writes, before entries are removed, the "added" audit entries
// that their rows and changes held, under the suppression's ID: the entry
// a reader saw while the address was listed stays, with the same ID.
func (s *db) keepAdded(team, col string, keys []string) error {
	hint := ""
	if col == "email" {
		hint = "INDEXED BY suppressions_team_email "
	}
	for lo := 0; lo < len(keys); lo += chunk {
		part := keys[lo:min(lo+chunk, len(keys))]
		st, err := s.stmt(`INSERT INTO audit (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
			SELECT s.team, s.id, 'suppression.added', s.created_at, s.id, s.email, s.origin, s.source_id, s.created_at, c.key_id, c.key_name, c.reference, c.request_id
			FROM suppressions s ` + hint + `JOIN changes c ON c.id = s.change_id
			WHERE s.team = ? AND s.` + col + ` IN (` + marks(len(part)) + `)`)
		if err != nil {
			return err
		}
		if _, err := st.ExecContext(context.Background(), keyArgs(team, part)...); err != nil {
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
// The trail is two sources read in one statement: the audit table (the
// removals, and the additions of entries since removed or listed before
// migration 4), and the listed entries with the change that added them.
func (s *db) Audit(ctx context.Context, team string, q store.AuditQuery) ([]store.AuditEntry, bool, error) {
	limit := q.Limit
	if limit < 1 || limit > api.MaxBatch {
		limit = 20
	}
	order, cmp, cursor := "DESC", "", ""
	switch {
	case q.After != "":
		cmp, cursor = "<", q.After
	case q.Before != "":
		cmp, cursor, order = ">", q.Before, "ASC"
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
	if cmp != "" {
		where = append(where, "id "+cmp+" ?")
		args = append(args, cursor)
	}
	args = append(args, limit+1)
	query := "SELECT * FROM (SELECT " + auditCols + " FROM audit WHERE " + strings.Join(where, " AND ") + " ORDER BY id " + order + " LIMIT ?)"

	if q.Type == "" || q.Type == store.AuditAdded {
		from := "suppressions s JOIN changes c ON c.id = s.change_id"
		where = []string{"s.team = ?"}
		args = append(args, team)
		if q.Reference != "" {
			// A change's entries lie in its span of IDs.
			from = "changes c JOIN suppressions s ON s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id"
			where = append(where, "c.team = ?", "c.reference = ?")
			args = append(args, team, q.Reference)
		}
		if q.Email != "" {
			from = strings.Replace(from, "suppressions s", "suppressions s INDEXED BY suppressions_team_email", 1)
			where, args = append(where, "s.email = ?"), append(args, q.Email)
		}
		if q.SuppressionID != "" {
			where, args = append(where, "s.id = ?"), append(args, q.SuppressionID)
		}
		if cmp != "" {
			where, args = append(where, "s.id "+cmp+" ?"), append(args, cursor)
		}
		args = append(args, limit+1)
		query += " UNION ALL SELECT * FROM (SELECT s.id, 'suppression.added', s.created_at, s.id, s.email, s.origin, s.source_id, s.created_at, c.key_id, c.key_name, c.reference, c.request_id FROM " +
			from + " WHERE " + strings.Join(where, " AND ") + " ORDER BY s.id " + order + " LIMIT ?)"
		query += " ORDER BY 1 " + order + " LIMIT ?"
		args = append(args, limit+1)
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
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
func (s *db) PruneAudit(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	for {
		var n int64
		var more bool
		err := s.change(ctx, func(ctx context.Context, c *sql.Conn) error {
			bg := context.Background()
			res, err := c.ExecContext(bg,
				"DELETE FROM audit WHERE (team, id) IN (SELECT team, id FROM audit INDEXED BY audit_created WHERE created_at < ? LIMIT ?)",
				before.UnixMilli(), pruneChunk)
			if err != nil {
				return err
			}
			if n, err = res.RowsAffected(); err != nil {
				return err
			}
			// A pruned change takes the "added" entries of the entries
			// it listed with it (they stay on the list).
			var hidden, changes int64
			err = c.QueryRowContext(bg, `SELECT coalesce(sum((SELECT count(*) FROM suppressions s
				WHERE s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id)), 0), count(*)
				FROM (SELECT * FROM changes INDEXED BY changes_created WHERE created_at < ? LIMIT ?) c`, before.UnixMilli(), pruneChunk).Scan(&hidden, &changes)
			if err != nil {
				return err
			}
			if _, err := c.ExecContext(bg, "DELETE FROM changes WHERE id IN (SELECT id FROM changes INDEXED BY changes_created WHERE created_at < ? LIMIT ?)",
				before.UnixMilli(), pruneChunk); err != nil {
				return err
			}
			n += hidden
			more = changes == pruneChunk || n >= pruneChunk
			return nil
		})
		total += n
		if err != nil || !more {
			return total, err
		}
	}
}

// trimPage cuts a page read with one row more than limit (to learn
// whether more lie beyond) to limit, and puts a page read oldest first
// (a "before" cursor) back newest first.
func trimPage[T any](page []T, limit int, ascending bool) ([]T, bool) {
	more := len(page) > limit
	if more {
		page = page[:limit]
	}
	if ascending {
		slices.Reverse(page)
	}
	return page, more
}
