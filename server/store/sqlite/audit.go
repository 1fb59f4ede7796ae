package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// InsertAudit binds what the rows share (team, type, time, author) once
// per statement and each row's own ten values: binding is a good part of
// a row's cost in this driver.
func (t tx) InsertAudit(ctx context.Context, p *sqlstore.InsertAuditParams) error {
	a := p.Author
	const cols = 10
	agentID, agentName := sqlstore.Author(a)
	for lo := 0; lo < len(p.Entries); lo += chunk {
		hi := min(lo+chunk, len(p.Entries))
		st, err := t.s.stmt(auditSQL(hi - lo))
		if err != nil {
			return err
		}
		args := make([]any, 0, 9+cols*(hi-lo))
		args = append(args, p.Team, p.Type, p.At.UnixMilli(), a.KeyID, a.KeyName, sqlstore.Reference(a), a.RequestID, agentID, agentName)
		for i, e := range p.Entries[lo:hi] {
			var change any
			if p.Changes != nil {
				change = p.Changes[lo+i]
			}
			args = append(args, p.IDs[lo+i], e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt.UnixMilli(), sqlstore.Note(e.Note), millis(e.ExpiresAt), change, sqlstore.Evidence(e.Evidence))
		}
		if _, err := st.ExecContext(context.Background(), args...); err != nil {
			return err
		}
	}
	return nil
}

// insertChange writes the trail's row of a change and returns the key its
// entries name: the table numbers its rows itself (an INTEGER PRIMARY
// KEY is the row's own number, the cheapest key SQLite has).
func (t tx) insertChange(c *sqlstore.ChangeRow) (int64, error) {
	st, err := t.s.stmt("INSERT INTO changes (team, created_at, key_id, key_name, reference, request_id, first_id, last_id, agent_id, agent_name) VALUES (?,?,?,?,?,?,?,?,?,?) RETURNING id")
	if err != nil {
		return 0, err
	}
	var id int64
	a := c.Author
	agentID, agentName := sqlstore.Author(a)
	err = st.QueryRowContext(context.Background(), c.Team, c.At.UnixMilli(), a.KeyID, a.KeyName, sqlstore.Reference(a), a.RequestID, c.FirstID, c.LastID,
		agentID, agentName).Scan(&id)
	return id, err
}

// auditSQL inserts n rows: ?1 to ?9 are what they share, the VALUES
// (numbered on from ?10) each row's own.
func auditSQL(n int) string {
	return "INSERT INTO audit (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id, note, expires_at, agent_id, agent_name, change_id, evidence) " +
		"SELECT ?1, column1, ?2, ?3, column2, column3, column4, column5, column6, ?4, ?5, ?6, ?7, column7, column8, ?8, ?9, column9, column10 FROM (VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?),", n), ",") + ")"
}

const auditCols = "id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, coalesce(reference, ''), request_id, note, expires_at, agent_id, agent_name, evidence"

// The three sources are read in one statement, each bounded by the
// window.
func (s *db) Trail(ctx context.Context, p *sqlstore.TrailParams) ([]store.AuditEntry, error) {
	order, cmp := "DESC", ""
	if p.Cursor != "" {
		cmp = "<"
		if p.Ascending {
			order, cmp = "ASC", ">"
		}
	}
	where := []string{"team = ?"}
	args := []any{p.Team}
	for _, f := range []struct{ col, v string }{
		{"email", p.Email}, {"sup_id", p.SuppressionID}, {"reference", p.Reference}, {"type", p.Type},
	} {
		if f.v != "" {
			where = append(where, f.col+" = ?")
			args = append(args, f.v)
		}
	}
	if cmp != "" {
		where = append(where, "id "+cmp+" ?")
		args = append(args, p.Cursor)
	}
	args = append(args, p.Limit)
	query := "SELECT * FROM (SELECT " + auditCols + " FROM audit WHERE " + strings.Join(where, " AND ") + " ORDER BY id " + order + " LIMIT ?)"

	if p.Added {
		from := "suppressions s JOIN changes c ON c.id = s.change_id"
		where = []string{"s.team = ?"}
		args = append(args, p.Team)
		if p.Reference != "" {
			// A change's entries lie in its span of IDs.
			from = "changes c JOIN suppressions s ON s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id"
			where = append(where, "c.team = ?", "c.reference = ?")
			args = append(args, p.Team, p.Reference)
		}
		if p.Email != "" {
			from = strings.Replace(from, "suppressions s", "suppressions s INDEXED BY suppressions_team_email", 1)
			where, args = append(where, "s.email = ?"), append(args, p.Email)
		}
		if p.SuppressionID != "" {
			where, args = append(where, "s.id = ?"), append(args, p.SuppressionID)
		}
		if cmp != "" {
			where, args = append(where, "s.id "+cmp+" ?"), append(args, p.Cursor)
		}
		args = append(args, p.Limit)
		query += " UNION ALL SELECT * FROM (SELECT s.id, 'suppression.added', s.created_at, s.id, s.email, s.origin, s.source_id, s.created_at, c.key_id, c.key_name, coalesce(c.reference, ''), c.request_id, s.note, s.expires_at, c.agent_id, c.agent_name, s.evidence FROM " +
			from + " WHERE " + strings.Join(where, " AND ") + " ORDER BY s.id " + order + " LIMIT ?)"
		removed, removedArgs := removedAdded(p, order, cmp)
		query += " UNION ALL " + removed
		args = append(args, removedArgs...)
		query += " ORDER BY 1 " + order + " LIMIT ?"
		args = append(args, p.Limit)
	}
	rows, err := s.read.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanAudit)
}

// removedAdded selects the window of the added entries of removed entries
// whose removal names the change that listed them: the removal's row has
// the entry as it was, the change who listed it and why. They are in the
// order of the entries' IDs, which the suppression index holds.
func removedAdded(p *sqlstore.TrailParams, order, cmp string) (string, []any) {
	from := "audit a INDEXED BY audit_team_sup JOIN changes c ON c.id = a.change_id"
	where, args := []string{"a.team = ?"}, []any{p.Team}
	if p.Reference != "" {
		from = "changes c JOIN audit a INDEXED BY audit_team_sup ON a.team = c.team AND a.sup_id BETWEEN c.first_id AND c.last_id AND a.change_id = c.id"
		where = append(where, "c.team = ?", "c.reference = ?")
		args = append(args, p.Team, p.Reference)
	}
	if p.Email != "" {
		if p.Reference == "" {
			from = "audit a INDEXED BY audit_team_email JOIN changes c ON c.id = a.change_id"
		}
		where, args = append(where, "a.email = ?"), append(args, p.Email)
	}
	if p.SuppressionID != "" {
		where, args = append(where, "a.sup_id = ?"), append(args, p.SuppressionID)
	}
	if cmp != "" {
		where, args = append(where, "a.sup_id "+cmp+" ?"), append(args, p.Cursor)
	}
	args = append(args, p.Limit)
	return "SELECT * FROM (SELECT a.sup_id, 'suppression.added', a.sup_created_at, a.sup_id, a.email, a.origin, a.source_id, a.sup_created_at, c.key_id, c.key_name, coalesce(c.reference, ''), c.request_id, a.note, a.expires_at, c.agent_id, c.agent_name, a.evidence FROM " +
		from + " WHERE " + strings.Join(where, " AND ") + " ORDER BY a.sup_id " + order + " LIMIT ?)", args
}

func (t tx) PruneTrail(ctx context.Context, before time.Time, limit int) (sqlstore.Pruned, error) {
	var n sqlstore.Pruned
	// A removal's row that names its change takes the added entry read
	// from the two with it.
	var withAdded int64
	err := t.c.QueryRowContext(context.Background(), `SELECT count(*) FROM (SELECT change_id FROM audit INDEXED BY audit_created WHERE created_at < ? LIMIT ?)
		WHERE change_id IN (SELECT id FROM changes)`, before.UnixMilli(), limit).Scan(&withAdded)
	if err != nil {
		return n, err
	}
	n.Audit, err = t.exec("DELETE FROM audit WHERE (team, id) IN (SELECT team, id FROM audit INDEXED BY audit_created WHERE created_at < ? LIMIT ?)",
		before.UnixMilli(), limit)
	if err != nil {
		return n, err
	}
	err = t.c.QueryRowContext(context.Background(), `SELECT coalesce(sum((SELECT count(*) FROM suppressions s
		WHERE s.team = c.team AND s.id BETWEEN c.first_id AND c.last_id AND s.change_id = c.id) + (SELECT count(*) FROM audit a INDEXED BY audit_team_sup
		WHERE a.team = c.team AND a.sup_id BETWEEN c.first_id AND c.last_id AND a.change_id = c.id)), 0), count(*)
		FROM (SELECT * FROM changes INDEXED BY changes_created WHERE created_at < ? LIMIT ?) c`, before.UnixMilli(), limit).Scan(&n.Hidden, &n.Changes)
	n.Hidden += withAdded
	if err != nil {
		return n, err
	}
	_, err = t.exec("DELETE FROM changes WHERE id IN (SELECT id FROM changes INDEXED BY changes_created WHERE created_at < ? LIMIT ?)",
		before.UnixMilli(), limit)
	return n, err
}

// HoldTrail reads the team's trail head: the one writer already makes the
// changes commit one at a time, in the order they run.
func (t tx) HoldTrail(ctx context.Context, team string, wait bool) (string, bool, error) {
	st, err := t.s.stmt("SELECT last_id FROM trail_heads WHERE team = ?")
	if err != nil {
		return "", false, err
	}
	var last string
	err = st.QueryRowContext(context.Background(), team).Scan(&last)
	if errors.Is(err, sql.ErrNoRows) {
		return "", true, nil
	}
	return last, err == nil, err
}

func (t tx) SetTrailHead(ctx context.Context, team, last string) error {
	st, err := t.s.stmt("INSERT INTO trail_heads (team, last_id) VALUES (?, ?) ON CONFLICT (team) DO UPDATE SET last_id = excluded.last_id")
	if err != nil {
		return err
	}
	_, err = st.ExecContext(context.Background(), team, last)
	return err
}
