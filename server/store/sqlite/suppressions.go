package sqlite

import (
	"context"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// InsertEntries inserts the entries all, letting the address index skip
// those already listed, and then reads back only the ones it skipped. The
// change's row is written first, for the entries to name, and taken back
// when no entry was new.
func (t tx) InsertEntries(ctx context.Context, p *sqlstore.InsertEntriesParams) ([]store.Entry, error) {
	var change any
	if p.Change != nil {
		id, err := t.insertChange(p.Change)
		if err != nil {
			return nil, err
		}
		change = id
	}
	index := make(map[string]int, len(p.Entries))
	for i, e := range p.Entries {
		index[e.Email] = i
	}
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
		args := make([]any, 0, 7*(hi-lo))
		for _, e := range p.Entries[lo:hi] {
			args = append(args, p.Team, e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt.UnixMilli(), change)
		}
		rows, err := st.QueryContext(context.Background(), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var email string
			if err := rows.Scan(&email); err != nil {
				rows.Close()
				return nil, err
			}
			created[index[email]] = true
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
	}
	out := make([]store.Entry, 0, len(p.Entries))
	var listed []string
	for i, e := range p.Entries {
		if created[i] {
			out = append(out, e)
		} else {
			listed = append(listed, e.Email)
		}
	}
	err := t.eachEntry(ctx, p.Team, listed, selectByEmailSQL, func(e store.Entry) { out = append(out, e) })
	if err != nil {
		return nil, err
	}
	if change != nil && len(listed) == len(p.Entries) {
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
	return "INSERT INTO suppressions (team, id, email, origin, source_id, created_at, change_id) VALUES " +
		strings.TrimSuffix(strings.Repeat("(?,?,?,?,?,?,?),", n), ",") +
		" ON CONFLICT (team, email) DO NOTHING RETURNING email"
}

func selectByEmailSQL(n int) string {
	return "SELECT id, email, origin, source_id, created_at FROM suppressions INDEXED BY suppressions_team_email WHERE team = ? AND email IN (" + marks(n) + ")"
}

func deleteSQL(col string, n int) string {
	hint := ""
	if col == "email" {
		hint = "INDEXED BY suppressions_team_email "
	}
	return "DELETE FROM suppressions " + hint + "WHERE team = ? AND " + col + " IN (" + marks(n) + ") RETURNING id, email, origin, source_id, created_at"
}

func keyArgs(team string, keys []string) []any {
	args := make([]any, 0, len(keys)+1)
	args = append(args, team)
	for _, k := range keys {
		args = append(args, k)
	}
	return args
}

func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]store.Entry, error) {
	col := "id"
	if p.ByEmail {
		col = "email"
	}
	if p.KeepAdded {
		if err := t.keepAdded(p.Team, col, p.Keys); err != nil {
			return nil, err
		}
	}
	out := make([]store.Entry, 0, len(p.Keys))
	deleteBy := func(n int) string { return deleteSQL(col, n) }
	err := t.eachEntry(ctx, p.Team, p.Keys, deleteBy, func(e store.Entry) { out = append(out, e) })
	return out, err
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

func (s *db) Entries(ctx context.Context, team string, origin api.Origin, w sqlstore.Window) ([]store.Entry, error) {
	where := []string{"team = ?"}
	args := []any{team}
	from := "suppressions"
	if origin != "" {
		where = append(where, "origin = ?")
		args = append(args, string(origin))
		// Without statistics SQLite walks the team's whole list in ID
		// order and filters on origin: a million rows for an origin the
		// team has none of. The index holds each origin's entries in ID
		// order, with what a page shows, so the page is a range read.
		from = "suppressions INDEXED BY suppressions_team_origin_id"
	}
	return readWindow(ctx, s, "SELECT id, email, origin, source_id, created_at FROM "+from, where, args, w, sqlstore.ScanEntry)
}

func marks(n int) string {
	return strings.TrimSuffix(strings.Repeat("?,", n), ",")
}
