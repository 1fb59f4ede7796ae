package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

const entryColumns = "id::text, email, origin, source_id, created_at, note, expires_at, evidence, erased_domain"

// insertEntriesSQL inserts the entries ($2…$5, $14, $15, $20, in address
// order) and the change's row ($7…$13, $16, $17, when $7 is not NULL and
// an entry is new), and returns a row for each address it did not insert
// (notInsertedSQL): the listed entry, or one with no ID when the address
// is neither inserted nor listed (another change removed it meanwhile).
// The entries it inserted are those given: an import of new addresses
// returns no rows, and probes the address index for none of them.
//
// With the span of the IDs minted ($18, $19) it first takes the team's
// trail head (waiting for the change that holds it to end) and does all
// that only if the head is below $18, moving it to $19; otherwise it
// returns one row whose last column is the head's last ID (” when the
// team has no head yet). The other rows' last column is NULL.
var insertEntriesSQL = `
	WITH head AS MATERIALIZED (
		SELECT last_id FROM trail_heads WHERE team = $1 AND $18::uuid IS NOT NULL FOR UPDATE
	), gate AS MATERIALIZED (
		SELECT $18::uuid IS NULL OR EXISTS (SELECT 1 FROM head WHERE last_id IS NULL OR last_id < $18::uuid) AS ok
	), moved AS (
		UPDATE trail_heads SET last_id = $19::uuid
		WHERE team = $1 AND $18::uuid IS NOT NULL AND (SELECT ok FROM gate)
	), ins AS (
		INSERT INTO suppressions AS s (id, team, email, origin, source_id, created_at, change_id, note, expires_at, evidence)
		SELECT u.id, $1, u.email, u.origin, u.source_id, $6, $7::uuid, u.note, u.expires_at, u.evidence
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $14::text[], $15::timestamptz[], $20::text[]) WITH ORDINALITY AS u(id, email, origin, source_id, note, expires_at, evidence, n)
		WHERE (SELECT ok FROM gate)
		ORDER BY u.n
		ON CONFLICT (team, email) DO NOTHING
		RETURNING s.email
	), change AS (
		INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id, agent_id, agent_name)
		SELECT $7::uuid, $1, $6, $8, $9, $10, $11, $12, $13, $16, $17
		WHERE $7::uuid IS NOT NULL AND EXISTS (SELECT 1 FROM ins)
		ON CONFLICT (id) DO NOTHING
	)
	SELECT coalesce(x.id, ''), k.email, coalesce(x.origin, ''), x.source_id, x.created_at, x.note, x.expires_at, x.evidence, x.erased_domain, NULL::text
	FROM unnest(` + notInsertedSQL + `) AS k(email) LEFT JOIN LATERAL (
		SELECT ` + entryColumns + ` FROM suppressions WHERE team = $1 AND email = k.email LIMIT 1) x ON true
	WHERE (SELECT ok FROM gate)
	UNION ALL
	SELECT '', '', '', NULL::text, $6, NULL::text, NULL::timestamptz, NULL::text, NULL::text, coalesce((SELECT last_id::text FROM head), '')
	FROM gate WHERE NOT ok`

// genericPlan and connectionPlans surround the batch add's statement: it
// runs with the generic plan PostgreSQL keeps for it on the connection,
// planned once, where the connection's other statements are planned for
// each run (see Open). Planning it for each run cost more than running
// it (0.5–0.8 ms against about 1 ms, on every batch); and its plan does
// not depend on the statistics, each address being its own probe of the
// unique index (listedSQL), which TestLookupsProbeTheUniqueIndexWithoutStatistics
// checks of the generic plan too. RESET returns to the connection's own
// setting for the rest of the transaction.
const (
	genericPlan     = "SET LOCAL plan_cache_mode = force_generic_plan"
	connectionPlans = "RESET plan_cache_mode"
)

// notInsertedSQL is the addresses given ($3) that the insert (ins) did not
// insert, in the order given.
const notInsertedSQL = `ARRAY(SELECT k.email FROM unnest($3::text[]) AS k(email)
	WHERE NOT EXISTS (SELECT 1 FROM ins WHERE ins.email = k.email))`

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
	notes, until, evidence := make([]*string, n), make([]*time.Time, n), make([]*string, n)
	for i, e := range sorted {
		ids[i], emails[i], origins[i], sources[i] = e.ID, e.Email, string(e.Origin), e.SourceID
		notes[i], until[i], evidence[i] = sqlstore.Note(e.Note), timeOrNull(e.ExpiresAt), sqlstore.Evidence(e.Evidence)
	}
	// Without a change its columns are NULL: no value may fail to parse
	// as a uuid where none is written.
	var ch sqlstore.ChangeRow
	var change, first, last *string
	if p.Change != nil {
		ch, change, first, last = *p.Change, &p.Change.ID, &p.Change.FirstID, &p.Change.LastID
	}
	at := sorted[0].CreatedAt
	var headFirst, headLast *string
	if p.Head != nil {
		headFirst, headLast = &p.Head.First, &p.Head.Last
	}
	agentID, agentName := sqlstore.Author(ch.Author)
	// The statement runs with its generic plan (see genericPlan), in one
	// exchange with the settings around it.
	b := &pgx.Batch{}
	b.Queue(genericPlan)
	b.Queue(insertEntriesSQL,
		p.Team, ids, emails, origins, sources, at, change, ch.Author.KeyID, ch.Author.KeyName, sqlstore.Reference(ch.Author), ch.Author.RequestID, first, last,
		notes, until, agentID, agentName, headFirst, headLast, evidence)
	b.Queue(connectionPlans)
	br := t.tx.SendBatch(ctx, b)
	defer br.Close()
	if _, err := br.Exec(); err != nil {
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		return nil, err
	}
	var ahead *sqlstore.HeadAhead
	got, err := collect(rows, func(r sqlstore.Row) (store.Entry, error) {
		var head *string
		e, err := sqlstore.ScanEntry(sqlstore.ScanAlso(r, &head))
		if head != nil {
			ahead = &sqlstore.HeadAhead{Last: *head, Missing: *head == ""}
		}
		return e, err
	})
	if err == nil {
		_, err = br.Exec()
	}
	if err == nil {
		err = br.Close()
	}
	if r := t.group(p.Team); r != nil && err == nil {
		// The statement held the head: it left it where it was, or
		// moved it.
		switch {
		case ahead != nil && !ahead.Missing:
			r.head, r.headHeld = ahead.Last, true
		case ahead == nil && headLast != nil:
			r.head, r.headHeld = *headLast, true
		}
	}
	switch {
	case err != nil:
		return nil, err
	case ahead != nil:
		return nil, ahead
	case len(got) == 0:
		return sorted, nil // every address inserted
	}
	// got has the addresses not inserted: those listed, and those
	// neither inserted nor listed (no ID); the others were inserted.
	out := make([]store.Entry, 0, n)
	notInserted := make(map[string]bool, len(got))
	for _, e := range got {
		notInserted[e.Email] = true
		if e.ID != "" {
			out = append(out, e)
		}
	}
	for _, e := range sorted {
		if !notInserted[e.Email] {
			out = append(out, e)
		}
	}
	return out, nil
}

// listedSQL reads the team's ($team) entries of the addresses ($emails, a
// text[]), each by its own probe of the unique (team, email) index: a
// LATERAL sub-select with a LIMIT is never flattened into a join, so the
// planner cannot trade the probes for a walk of the team's whole list,
// which it prefers while the table has no statistics (a new database
// before autovacuum's first ANALYZE): 80,000 rows read for 100 addresses.
// The probes run in the order of the addresses given.
func listedSQL(team, emails string) string {
	return `SELECT x.* FROM unnest(` + emails + `::text[]) AS k(email) CROSS JOIN LATERAL (
		SELECT ` + entryColumns + ` FROM suppressions WHERE team = ` + team + ` AND email = k.email LIMIT 1) x`
}

// The statements of a remove. Each is one statement: the sub-select finds
// the team's entries by their unique keys and locks them in address order
// (a removal by address is given its addresses sorted, and probes them in
// that order; one by ID sorts what it found), the order InsertEntries
// takes them in, so that concurrent adds and removes of overlapping sets
// wait for each other rather than deadlock; the DELETE then takes them by
// primary key. The ARRAY(…) form runs the sub-select once, before the
// DELETE, which keeps the planner from joining it to a scan of the whole
// table.
const (
	deleteByEmail = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT x.id FROM unnest($2::text[]) AS k(email) CROSS JOIN LATERAL (
			SELECT id FROM suppressions WHERE team = $1 AND email = k.email LIMIT 1 FOR UPDATE) x
	))`
	deleteByID = `DELETE FROM suppressions WHERE id = ANY(ARRAY(
		SELECT id FROM suppressions WHERE team = $1 AND id = ANY($2::uuid[]) ORDER BY email FOR UPDATE
	))`
)

// Each row comes back with the change that listed it, for the removal's
// audit row to name.
func (t tx) DeleteEntries(ctx context.Context, p *sqlstore.DeleteEntriesParams) ([]sqlstore.RemovedEntry, error) {
	del, keys := deleteByID, p.Keys
	if p.ByEmail {
		del, keys = deleteByEmail, slices.Clone(p.Keys)
		slices.Sort(keys)
	}
	rows, err := t.tx.Query(ctx, del+` RETURNING `+entryColumns+`, change_id::text`, p.Team, keys)
	if err != nil {
		return nil, err
	}
	return collect(rows, func(r sqlstore.Row) (sqlstore.RemovedEntry, error) {
		var out sqlstore.RemovedEntry
		var change *string
		e, err := sqlstore.ScanEntry(sqlstore.ScanAlso(r, &change))
		out.Entry = e
		if change != nil {
			out.Change = *change
		}
		return out, err
	})
}

func (s *db) EntryByID(ctx context.Context, team, id string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND id = $2::uuid`, team, id)})
}

func (s *db) EntryByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	return sqlstore.ScanEntry(row{s.pool.QueryRow(ctx, `SELECT `+entryColumns+` FROM suppressions WHERE team = $1 AND email = $2`, team, email)})
}

func (s *db) Entries(ctx context.Context, p *sqlstore.EntriesParams) ([]store.Entry, error) {
	query, args := entriesQuery(p, p.Window)
	if p.PrefixFrom != "" {
		query, args = prefixQuery(p)
	}
	return query1(ctx, s, query, args, sqlstore.ScanEntry)
}

// domainExpr is the domain of an address, as the domain index holds it.
const domainExpr = "split_part(suppressions.email, '@', 2)"

// entriesQuery reads the window w of the entries p selects from the index
// that finds them. ORDER BY leads with the index's columns (the origin's,
// the domain's) so that the plan reads its range in ID order; an address
// is a range of the address index (see prefixQuery for a prefix's page).
func entriesQuery(p *sqlstore.EntriesParams, w sqlstore.Window) (string, []any) {
	where, args, keys := selection(p)
	return windowQuery(`SELECT `+entryColumns+` FROM suppressions`, where, keys, args, w)
}

// selection is the condition (over args) of the entries p selects, and
// the columns of the index that reads them in ID order.
func selection(p *sqlstore.EntriesParams) (where string, args []any, keys []string) {
	args = []any{p.Team}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	where = "team = $1"
	keys = []string{"suppressions.team", "suppressions.id"}
	switch {
	case p.Domain != "":
		where += " AND " + domainExpr + " = " + arg(p.Domain)
		keys = []string{"suppressions.team", domainExpr, "suppressions.id"}
	case p.Exact != "":
		where += " AND email = " + arg(p.Exact)
		keys = []string{"suppressions.id"}
	case p.PrefixFrom != "":
		where += " AND email >= " + arg(p.PrefixFrom) + " AND email < " + arg(p.PrefixTo)
		keys = []string{"suppressions.id"}
	case p.Origin != "":
		keys = []string{"suppressions.team", "suppressions.origin", "suppressions.id"}
	}
	if p.Origin != "" {
		where += " AND origin = " + arg(string(p.Origin))
	}
	if !p.CreatedAfter.IsZero() {
		where += " AND created_at > " + arg(p.CreatedAfter)
	}
	if !p.CreatedBefore.IsZero() {
		where += " AND created_at < " + arg(p.CreatedBefore)
	}
	return where, args, keys
}

// prefixQuery reads the window of a prefix's matches: every match's ID
// from the address index alone (it includes each address's ID), the
// window of them sorted, and then the rows of those IDs only. MATERIALIZED
// keeps the planner from walking the list in ID order and filtering on the
// address instead, hoping for an early match: addresses imported in
// order have IDs in the same order, and a prefix's matches are then all
// in one stretch of the list, perhaps its oldest.
func prefixQuery(p *sqlstore.EntriesParams) (string, []any) {
	where, args, _ := selection(p)
	ids, args := windowQuery(`SELECT m.id FROM m`, "true", []string{"m.id"}, args, p.Window)
	order := "DESC"
	if p.Ascending {
		order = "ASC"
	}
	return `WITH m AS MATERIALIZED (SELECT suppressions.id FROM suppressions WHERE ` + where + `)
		SELECT ` + entryColumns + ` FROM suppressions WHERE id = ANY(ARRAY(` + ids + `)) ORDER BY suppressions.id ` + order, args
}

func (s *db) EntriesByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error) {
	return query1(ctx, s, listedSQL("$1", "$2"), []any{team, emails}, sqlstore.ScanEntry)
}

// timeOrNull is a time as stored: NULL (nil) for zero.
func timeOrNull(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// The rows are locked in address order, as everywhere, and the statement
// keeps a note and a longer (or no) expiry as they are, whatever the
// change asked (see sqlstore.Extension): a change that read an entry
// before another extended it cannot undo that.
func (t tx) ExtendEntries(ctx context.Context, p *sqlstore.ExtendEntriesParams) ([]store.Entry, error) {
	n := len(p.Rows)
	ids, notes, extend, until := make([]string, n), make([]*string, n), make([]bool, n), make([]*time.Time, n)
	evidence := make([]*string, n)
	for i, x := range p.Rows {
		ids[i], notes[i], extend[i], until[i] = x.ID, sqlstore.Note(x.Note), x.Extend, timeOrNull(x.ExpiresAt)
		evidence[i] = sqlstore.Evidence(x.Evidence)
	}
	rows, err := t.tx.Query(ctx, `UPDATE suppressions SET note = coalesce(suppressions.note, u.note),
			evidence = coalesce(suppressions.evidence, u.evidence),
			expires_at = CASE WHEN NOT u.extend OR suppressions.expires_at IS NULL THEN suppressions.expires_at
				WHEN u.expires_at IS NULL THEN NULL ELSE greatest(suppressions.expires_at, u.expires_at) END
		FROM unnest($2::uuid[], $3::text[], $4::bool[], $5::timestamptz[], $6::text[]) AS u(id, note, extend, expires_at, evidence)
		WHERE suppressions.id = u.id AND suppressions.id = ANY(ARRAY(
			SELECT id FROM suppressions WHERE team = $1 AND id = ANY($2::uuid[]) ORDER BY email FOR UPDATE))
		RETURNING suppressions.id::text, suppressions.email, suppressions.origin, suppressions.source_id,
			suppressions.created_at, suppressions.note, suppressions.expires_at, suppressions.evidence, suppressions.erased_domain`, p.Team, ids, notes, extend, until, evidence)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanEntry)
}

// SKIP LOCKED: another process's sweeper, or a change of the same entry,
// holds its rows; this one takes others, and never waits for them.
func (t tx) DueEntries(ctx context.Context, now time.Time, limit int) ([]sqlstore.TeamEntry, error) {
	rows, err := t.tx.Query(ctx, `SELECT team, `+entryColumns+` FROM suppressions
		WHERE expires_at IS NOT NULL AND expires_at <= $1 ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
	if err != nil {
		return nil, err
	}
	return collect(rows, sqlstore.ScanTeamEntry)
}

// InsertKept inserts entries with their own IDs and times; a conflict of
// either key (the address, the ID) skips the entry.
func (t tx) InsertKept(ctx context.Context, team string, entries []store.Entry) ([]store.Entry, error) {
	n := len(entries)
	ids, emails, origins, sources := make([]string, n), make([]string, n), make([]string, n), make([]*string, n)
	at, notes, until, evidence := make([]time.Time, n), make([]*string, n), make([]*time.Time, n), make([]*string, n)
	by := make(map[string]store.Entry, n)
	for i, e := range entries {
		ids[i], emails[i], origins[i], sources[i], at[i] = e.ID, e.Email, string(e.Origin), e.SourceID, e.CreatedAt
		notes[i], until[i], evidence[i] = sqlstore.Note(e.Note), timeOrNull(e.ExpiresAt), sqlstore.Evidence(e.Evidence)
		by[e.ID] = e
	}
	rows, err := t.tx.Query(ctx, `INSERT INTO suppressions (id, team, email, origin, source_id, created_at, note, expires_at, evidence)
		SELECT u.id, $1, u.email, u.origin, u.source_id, u.created_at, u.note, u.expires_at, u.evidence
		FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::timestamptz[], $7::text[], $8::timestamptz[], $9::text[])
			AS u(id, email, origin, source_id, created_at, note, expires_at, evidence)
		ORDER BY u.email
		ON CONFLICT DO NOTHING
		RETURNING id::text`, team, ids, emails, origins, sources, at, notes, until, evidence)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []store.Entry
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out = append(out, by[id])
	}
	return out, rows.Err()
}

func (s *db) RangeCount(ctx context.Context, p *sqlstore.EntriesParams, max int) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT count(*) FROM (SELECT 1 FROM suppressions
		WHERE team = $1 AND email >= $2 AND email < $3 LIMIT $4) r`, p.Team, p.PrefixFrom, p.PrefixTo, max).Scan(&n)
	return n, err
}

// ScanEntries reads the list in ID order from the cursor, at most rows
// entries (the team's ID index, in its order; MATERIALIZED keeps the
// planner from reading the prefix's range instead), keeps those p
// selects, and reads the position it reached only when the window was not
// filled.
func (s *db) ScanEntries(ctx context.Context, p *sqlstore.EntriesParams, rows int) ([]store.Entry, string, error) {
	where, args, _ := selection(p)
	order, edge := "DESC", "min"
	if p.Ascending {
		order, edge = "ASC", "max"
	}
	// scanned is the stretch of the list read, over its own arguments
	// from $n on.
	scanned := func(n int, cols string) (string, []any) {
		q, a := "SELECT "+cols+" FROM suppressions WHERE team = $"+fmt.Sprint(n), []any{p.Team}
		if p.Cursor != "" {
			cmp := "<"
			if p.Ascending {
				cmp = ">"
			}
			a = append(a, p.Cursor)
			q += fmt.Sprintf(" AND id %s $%d::uuid", cmp, n+1)
		}
		a = append(a, rows)
		return fmt.Sprintf("%s ORDER BY team %s, id %s LIMIT $%d", q, order, order, n+len(a)-1), a
	}
	sq, sargs := scanned(len(args)+1, "*")
	args = append(append(args, sargs...), p.Limit)
	q := fmt.Sprintf("WITH suppressions AS MATERIALIZED (%s) SELECT %s FROM suppressions WHERE %s ORDER BY id %s LIMIT $%d",
		sq, entryColumns, where, order, len(args))
	got, err := query1(ctx, s, q, args, sqlstore.ScanEntry)
	if err != nil || len(got) >= p.Limit {
		return got, "", err
	}
	cq, cargs := scanned(1, "id")
	var n int
	var last *string
	err = s.pool.QueryRow(ctx, fmt.Sprintf("SELECT count(*), %s(id::text) FROM (%s) w", edge, cq), cargs...).Scan(&n, &last)
	if err != nil || n < rows || last == nil {
		return got, "", err
	}
	return got, *last, nil
}
