package postgres

import (
	"context"
	"slices"
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

const entryColumns = "id::text, email, origin, source_id, created_at"

// The insert skips listed addresses (ON CONFLICT DO NOTHING), so re-adding
// a listed address writes nothing: its row is read, not rewritten. The
// statement's own snapshot shows the rows that were listed before it; the
// Core tries an address that is neither inserted nor in that snapshot
// again, with a new statement that sees what other changes committed. Rows
// are inserted in address order, the order removes lock them in, so
// concurrent changes over overlapping sets wait for each other instead of
// deadlocking. The change's row is written by the same statement (a
// data-modifying WITH) when any entry is new; a later round's finds it
// there.
func (t tx) InsertEntries(ctx context.Context, p *sqlstore.InsertEntriesParams) ([]store.Entry, error) {
	sorted := slices.Clone(p.Entries)
	slices.SortFunc(sorted, func(a, b store.Entry) int { return strings.Compare(a.Email, b.Email) })
	sorted = slices.CompactFunc(sorted, func(a, b store.Entry) bool { return a.Email == b.Email })
	n := len(sorted)
	ids, emails, origins, sources := make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
	for i, e := range sorted {
		ids[i], emails[i], origins[i], sources[i] = e.ID, e.Email, string(e.Origin), e.SourceID
	}
	var ch sqlstore.ChangeRow
	var change *string
	if p.Change != nil {
		ch, change = *p.Change, &p.Change.ID
	}
	at := sorted[0].CreatedAt
	rows, err := t.tx.Query(ctx, `
		WITH ins AS (
			INSERT INTO suppressions AS s (id, team, email, origin, source_id, created_at, change_id)
			SELECT u.id, $1, u.email, u.origin, u.source_id, $6, $7::uuid
			FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS u(id, email, origin, source_id, n)
			ORDER BY u.n
			ON CONFLICT (team, email) DO NOTHING
			RETURNING s.id, s.email, s.origin, s.source_id, s.created_at
		), change AS (
			INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id)
			SELECT $7::uuid, $1, $6, $8, $9, $10, $11, $12, $13
			WHERE $7::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM ins)
			ON CONFLICT (id) DO NOTHING
		)
		SELECT id::text, email, origin, source_id, created_at FROM ins
		UNION ALL
		SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND email = ANY($3::text[])`,
		p.Team, ids, emails, origins, sources, at, change, ch.Author.KeyID, ch.Author.KeyName, sqlstore.Reference(ch.Author), ch.Author.RequestID, ch.FirstID, ch.LastID)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

// The statements of a remove. Each is one statement: the sub-select locks
// the team's entries in address order, the order InsertEntries takes them
// in, so that concurrent adds and removes of overlapping sets wait for
// each other rather than deadlock; the DELETE then takes them by primary
// key. The ARRAY(…) form runs the sub-select once, before the DELETE,
// which keeps the planner from joining it to a scan of the whole table.
const (
	deleteByEmail = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT id FROM suppressions WHERE team = $1 AND email = ANY($2::text[]) ORDER BY email FOR UPDATE
	))`
	deleteByID = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT id FROM suppressions WHERE team = $1 AND id = ANY($2::uuid[]) ORDER BY email FOR UPDATE
	))`
)

// With KeepAdded ($3) the same statement writes the added audit entries the
// rows and their changes held.
func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]store.Entry, error) {
	del := deleteByID
	if p.ByEmail {
		del = deleteByEmail
	}
	rows, err := t.tx.Query(ctx, `WITH del AS (`+del+` RETURNING id, team, email, origin, source_id, created_at, change_id
	), kept AS (
		INSERT INTO audit (id, team, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
		SELECT del.id, del.team, 'suppression.added', del.created_at, del.id, del.email, del.origin, del.source_id, del.created_at,
			c.key_id, c.key_name, c.reference, c.request_id
		FROM del JOIN changes c ON c.id = del.change_id
		WHERE $3
	)
	SELECT `+entryColumns+` FROM del`, p.Team, p.Keys, p.KeepAdded)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

func (s *db) EntryByID(ctx context.Context, team, id string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND id = $2::uuid`, team, id)})
}

func (s *db) EntryByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND email = $2`, team, email)})
}

// With an origin, ORDER BY leads with it too, so that the plan reads the
// origin index's range.
func (s *db) Entries(ctx context.Context, team string, origin api.Origin, w sqlstore.Window) ([]store.Entry, error) {
	query, args := entriesQuery(team, origin, w)
	return query1(ctx, s, query, args, sqlstore.ScanEntry)
}

func entriesQuery(team string, origin api.Origin, w sqlstore.Window) (string, []any) {
	if origin == "" {
		return windowQuery(`SELECT `+entryColumns+` FROM suppressions`, "team = $1", "suppressions.team, suppressions.id", []any{team}, w)
	}
	return windowQuery(`SELECT `+entryColumns+` FROM suppressions`, "team = $1 AND origin = $2", "suppressions.team, suppressions.origin, suppressions.id", []any{team, string(origin)}, w)
}
