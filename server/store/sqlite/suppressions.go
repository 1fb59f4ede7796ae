package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// InsertEntries inserts the entries all, letting the address index skip
// those already listed. A statement that inserted as many rows as it had
// (an import's) is done; the addresses of one that inserted fewer are read
// back, and those with the IDs minted for them are the new ones. The
// change's row is written first, for the entries to name, and taken back
// when no entry was new.
func (t tx) InsertEntries(ctx context.Context, p *sqlstore.InsertEntriesParams) ([]store.Entry, error) {
	if p.Head != nil {
		// The writer runs one change at a time: the head is held already.
		last, _, err := t.HoldTrail(ctx, p.Team, true)
		if err != nil {
			return nil, err
		}
		if last >= p.Head.First {
			return nil, &sqlstore.HeadAhead{Last: last}
		}
		if err := t.SetTrailHead(ctx, p.Team, p.Head.Last); err != nil {
			return nil, err
		}
	}
	var change any
	if p.Change != nil {
		id, err := t.insertChange(p.Change)
		if err != nil {
			return nil, err
		}
		change = id
	}
	// created says which entries are known to be inserted: all of a
	// chunk when the statement inserted as many rows as it had, as in an
	// import; the others are read back.
	created := make([]bool, len(p.Entries))
	for lo := 0; lo < len(p.Entries); lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi := min(lo+chunk, len(p.Entries))
		st, err := t.s.stmt(insertSQL(hi - lo))
		if err != nil {
			return nil, err
		}
		args := make([]any, 0, 10*(hi-lo))
		for _, e := range p.Entries[lo:hi] {
			args = append(args, p.Team, e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt.UnixMilli(), change,
				sqlstore.Note(e.Note), millis(e.ExpiresAt), sqlstore.Evidence(e.Evidence))
		}
		res, err := st.ExecContext(context.Background(), args...)
		if err != nil {
			return nil, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return nil, err
		}
		if n == int64(hi-lo) {
			for i := lo; i < hi; i++ {
				created[i] = true
			}
		}
	}
	var unknown []string
	for i, e := range p.Entries {
		if !created[i] {
			unknown = append(unknown, e.Email)
		}
	}
	if len(unknown) == 0 {
		return p.Entries, nil // all new, as in an import
	}
	// An entry read back is new if it has the ID minted for it.
	minted := make(map[string]bool, len(p.Entries))
	for _, e := range p.Entries {
		minted[e.ID] = true
	}
	out := make([]store.Entry, 0, len(p.Entries))
	for i, e := range p.Entries {
		if created[i] {
			out = append(out, e)
		}
	}
	inserted := len(out)
	err := t.eachEntry(ctx, p.Team, unknown, selectByEmailSQL, func(e store.Entry) {
		if minted[e.ID] {
			inserted++
		}
		out = append(out, e)
	})
	if err != nil {
		return nil, err
	}
	if change != nil && inserted == 0 {
		// Nothing new: the change is no part of the trail.
		if _, err := t.exec("DELETE FROM changes WHERE id = ?", change); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// The statements of the writer, by number of rows. The address statements
// name the address index: without statistics SQLite prefers scanning the
// team's whole primary key range to probing the index once per address,
// which on a large list is a hundred times slower.
func insertSQL(n int) string {
	return "INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id, note, expires_at, evidence) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?,?,?,?),", n), ",") +
		" ON CONFLICT (team, email) DO NOTHING"
}

func selectByEmailSQL(n int) string {
	return "SELECT " + sqlstore.EntryColumns + " FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email IN (" + marks(n) + ")"
}

func deleteSQL(col string, n int) string {
	hint := ""
	if col == "email" {
		hint = "INDEXED BY suppressions_team_email "
	}
	return "DELETE FROM suppressions " + hint + "WHERE team = ? AND " + col + " IN (" + marks(n) + ") RETURNING " + sqlstore.EntryColumns + ", change_id"
}

// millis is a time as stored: Unix milliseconds, NULL (nil) for zero.
func millis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMilli()
}

// The statement keeps a note, an evidence and a longer (or no) expiry as
// they are, whatever the change asked: see sqlstore.Extension.
const extendSQL = `UPDATE suppressions SET note = coalesce(note, ?3), evidence = coalesce(evidence, ?6),
	expires_at = CASE WHEN NOT ?4 OR expires_at IS NULL THEN expires_at WHEN ?5 IS NULL THEN NULL ELSE max(expires_at, ?5) END
	WHERE team = ?1 AND id = ?2 RETURNING ` + sqlstore.EntryColumns

func (t tx) ExtendEntries(ctx context.Context, p *sqlstore.ExtendEntriesParams) ([]store.Entry, error) {
	st, err := t.s.stmt(extendSQL)
	if err != nil {
		return nil, err
	}
	out := make([]store.Entry, 0, len(p.Rows))
	for _, x := range p.Rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		e, err := sqlstore.ScanEntry(st.QueryRowContext(context.Background(), p.Team, x.ID, sqlstore.Note(x.Note), x.Extend, millis(x.ExpiresAt), sqlstore.Evidence(x.Evidence)))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// The writer is the only one: what it reads is held until it commits.
func (t tx) DueEntries(ctx context.Context, now time.Time, limit int) ([]sqlstore.TeamEntry, error) {
	st, err := t.s.stmt("SELECT team, " + sqlstore.EntryColumns + " FROM suppressions INDEXED BY suppressions_expires" +
		" WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?")
	if err != nil {
		return nil, err
	}
	rows, err := st.QueryContext(context.Background(), now.UnixMilli(), limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanTeamEntry)
}

func keyArgs(team string, keys []string) []any {
	args := make([]any, 0, len(keys)+1)
	args = append(args, team)
	for _, k := range keys {
		args = append(args, k)
	}
	return args
}

func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]sqlstore.RemovedEntry, error) {
	col := "id"
	if p.ByEmail {
		col = "email"
	}
	out := make([]sqlstore.RemovedEntry, 0, len(p.Keys))
	for lo := 0; lo < len(p.Keys); lo += chunk {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		part := p.Keys[lo:min(lo+chunk, len(p.Keys))]
		st, err := t.s.stmt(deleteSQL(col, len(part)))
		if err != nil {
			return nil, err
		}
		rows, err := st.QueryContext(context.Background(), keyArgs(p.Team, part)...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var r sqlstore.RemovedEntry
			var change *int64
			r.Entry, err = sqlstore.ScanEntry(sqlstore.ScanAlso(rows, &change))
			if err != nil {
				rows.Close()
				return nil, err
			}
			if change != nil {
				r.Change = *change
			}
			out = append(out, r)
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// eachEntry runs the statement that sqlFor makes for a number of keys over
// the keys in chunks, and hands every entry it returns to fn. The caller's
// context is checked between chunks, not passed to the statements: an
// interrupted statement would roll back the whole group commit.
func (t tx) eachEntry(ctx context.Context, team string, keys []string, sqlFor func(n int) string, fn func(store.Entry)) error {
	for lo := 0; lo < len(keys); lo += chunk {
		if err := ctx.Err(); err != nil {
			return err
		}
		part := keys[lo:min(lo+chunk, len(keys))]
		st, err := t.s.stmt(sqlFor(len(part)))
		if err != nil {
			return err
		}
		rows, err := st.QueryContext(context.Background(), keyArgs(team, part)...)
		if err != nil {
			return err
		}
		for rows.Next() {
			e, err := sqlstore.ScanEntry(rows)
			if err != nil {
				rows.Close()
				return err
			}
			fn(e)
		}
		if err := rows.Close(); err != nil {
			return err
		}
	}
	return nil
}

func (s *db) EntryByID(ctx context.Context, team, id string) (store.Entry, error) {
	return sqlstore.ScanEntry(s.reads.get.QueryRowContext(ctx, team, id))
}

func (s *db) EntryByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	return sqlstore.ScanEntry(s.reads.getByEmail.QueryRowContext(ctx, team, email))
}

func (s *db) Entries(ctx context.Context, p *sqlstore.EntriesParams) ([]store.Entry, error) {
	if p.PrefixFrom != "" {
		return s.prefixEntries(ctx, p)
	}
	base, where, args := entriesQuery(p, sqlstore.EntryColumns)
	return readWindow(ctx, s, base, where, args, p.Window, sqlstore.ScanEntry)
}

// prefixEntries reads a prefix's window in two steps (prefixQuery).
func (s *db) prefixEntries(ctx context.Context, p *sqlstore.EntriesParams) ([]store.Entry, error) {
	q, args := prefixQuery(p)
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

// prefixQuery reads the window of a prefix's matches in two steps: the
// IDs of the window from the address index alone (it holds each
// address's ID, the table's key), sorted, and then the rows of those IDs
// only. Reading every match's row to sort them would cost a look-up per
// match, not per row shown.
func prefixQuery(p *sqlstore.EntriesParams) (string, []any) {
	_, where, args := entriesQuery(p, "")
	order := "DESC"
	if p.Cursor != "" {
		cmp := "<"
		if p.Ascending {
			cmp, order = ">", "ASC"
		}
		where, args = append(where, "id "+cmp+" ?"), append(args, p.Cursor)
	}
	args = append(args, p.Limit, p.Team)
	return "SELECT " + sqlstore.EntryColumns + " FROM suppressions WHERE id IN (SELECT id FROM suppressions INDEXED BY suppressions_team_email WHERE " +
		strings.Join(where, " AND ") + " ORDER BY id " + order + " LIMIT ?) AND team = ? ORDER BY id " + order, args
}

// domainExpr is the domain of an address, as the domain index holds it.
const domainExpr = "substr(email, instr(email, '@') + 1)"

// entriesQuery selects cols of the entries p names (not its window) from
// the index that finds them. Without statistics SQLite would walk the team's
// whole list in ID order and filter: a million rows for an origin or a
// domain the team has none of. The origin index holds each origin's
// entries in ID order, with what a page shows, and the domain index each
// domain's, so that their pages are range reads; a prefix or an address
// is a range of the address index, whose matches are sorted by ID (see
// prefixQuery for a prefix's page).
func entriesQuery(p *sqlstore.EntriesParams, cols string) (base string, where []string, args []any) {
	where, args = []string{"team = ?"}, []any{p.Team}
	index := ""
	switch {
	case p.Domain != "":
		index = "suppressions_team_domain"
		where, args = append(where, domainExpr+" = ?"), append(args, p.Domain)
	case p.Exact != "":
		index = "suppressions_team_email"
		where, args = append(where, "email = ?"), append(args, p.Exact)
	case p.PrefixFrom != "":
		index = "suppressions_team_email"
		where, args = append(where, "email >= ?", "email < ?"), append(args, p.PrefixFrom, p.PrefixTo)
	case p.Origin != "":
		index = "suppressions_team_origin_id"
	}
	if p.Origin != "" {
		where, args = append(where, "origin = ?"), append(args, string(p.Origin))
	}
	if !p.CreatedAfter.IsZero() {
		where, args = append(where, "created_at > ?"), append(args, p.CreatedAfter.UnixMilli())
	}
	if !p.CreatedBefore.IsZero() {
		where, args = append(where, "created_at < ?"), append(args, p.CreatedBefore.UnixMilli())
	}
	from := "suppressions"
	if index != "" {
		from += " INDEXED BY " + index
	}
	return "SELECT " + cols + " FROM " + from, where, args
}

// EntriesByEmail reads them in one statement whatever their number: the
// addresses go as one JSON array, and each is a probe of the unique
// (team, email) index (CROSS JOIN keeps that join order; a plain JOIN may
// walk the team's list once per address instead).
func (s *db) EntriesByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error) {
	list, err := json.Marshal(emails)
	if err != nil {
		return nil, err
	}
	rows, err := s.reads.byEmails.QueryContext(ctx, string(list), team)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

// entriesByEmailSQL reads the team's entries of a JSON array of
// addresses (json_each has an id column too: the entry's are qualified).
var entriesByEmailSQL = "SELECT s." + strings.ReplaceAll(sqlstore.EntryColumns, ", ", ", s.") + ` FROM json_each(?1) AS k
	CROSS JOIN suppressions AS s INDEXED BY suppressions_team_email ON s.team = ?2 AND s.email = k.value`

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}

// InsertKept inserts entries with their own IDs and times; a conflict of
// either key (the address, the ID) skips the entry.
func (t tx) InsertKept(ctx context.Context, team string, entries []store.Entry) ([]store.Entry, error) {
	var out []store.Entry
	for lo := 0; lo < len(entries); lo += chunk {
		hi := min(lo+chunk, len(entries))
		q := "INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id, note, expires_at, evidence) VALUES " +
			strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,NULL,?,?,?),", hi-lo), ",") + " ON CONFLICT DO NOTHING RETURNING id"
		args := make([]any, 0, 9*(hi-lo))
		by := make(map[string]store.Entry, hi-lo)
		for _, e := range entries[lo:hi] {
			args = append(args, team, e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt.UnixMilli(),
				sqlstore.Note(e.Note), millis(e.ExpiresAt), sqlstore.Evidence(e.Evidence))
			by[e.ID] = e
		}
		rows, err := t.c.QueryContext(context.Background(), q, args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var id string
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return nil, err
			}
			out = append(out, by[id])
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *db) RangeCount(ctx context.Context, p *sqlstore.EntriesParams, max int) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM (SELECT 1 FROM suppressions INDEXED BY suppressions_team_email
		WHERE team = ? AND email >= ? AND email < ? LIMIT ?)`, p.Team, p.PrefixFrom, p.PrefixTo, max).Scan(&n)
	return n, err
}

// ScanEntries reads the list in ID order from the cursor, at most rows
// entries (the table is keyed by team and ID: a range of it), keeps those
// p selects, and reads the position it reached only when the window was
// not filled.
func (s *db) ScanEntries(ctx context.Context, p *sqlstore.EntriesParams, rows int) ([]store.Entry, string, error) {
	_, where, args := entriesQuery(p, "")
	order, cmp, edge := "DESC", "<", "min"
	if p.Ascending {
		order, cmp, edge = "ASC", ">", "max"
	}
	scan, scanArgs := "team = ?", []any{p.Team}
	if p.Cursor != "" {
		scan, scanArgs = scan+" AND id "+cmp+" ?", append(scanArgs, p.Cursor)
	}
	scanned := "SELECT * FROM suppressions WHERE " + scan + " ORDER BY id " + order + " LIMIT ?"
	q := "SELECT " + sqlstore.EntryColumns + " FROM (" + scanned + ") WHERE " + strings.Join(where, " AND ") + " ORDER BY id " + order + " LIMIT ?"
	got, err := readRows(ctx, s, q, append(append(append([]any{}, scanArgs...), rows), append(args, p.Limit)...))
	if err != nil || len(got) >= p.Limit {
		return got, "", err
	}
	var n int
	var last sql.NullString
	err = s.read.QueryRowContext(ctx, "SELECT count(*), "+edge+"(id) FROM (SELECT id FROM suppressions WHERE "+scan+" ORDER BY id "+order+" LIMIT ?)",
		append(scanArgs, rows)...).Scan(&n, &last)
	if err != nil || n < rows {
		return got, "", err
	}
	return got, last.String, nil
}

// readRows reads the entries a query returns.
func readRows(ctx context.Context, s *db, q string, args []any) ([]store.Entry, error) {
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}
