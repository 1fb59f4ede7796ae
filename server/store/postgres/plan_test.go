package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// Every statement that touches a long list must use an index: a page read
// from the (team, id) index, not by sorting the team's whole list; a remove
// locking and deleting by key, not scanning. With a million entries the
// difference is a millisecond against seconds.
func TestPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Enough rows, analyzed, that the planner would rather sort than
	// use an index that cannot give the order.
	if _, err := st.db.pool.Exec(ctx, `
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT gen_random_uuid(), 'big', 'u' || g || '@example.com', 'manual', now()
		FROM generate_series(1, 20000) g;
		ANALYZE suppressions`); err != nil {
		t.Fatal(err)
	}
	const cursor = "01a1fe15-ef7e-7c10-a222-42a32cbb09a1"
	// A remove locks and deletes by index too.
	for _, c := range []struct {
		query string
		args  []any
	}{
		{deleteByEmail, []any{"big", []string{"u1@example.com", "u2@example.com"}}},
		{deleteByID, []any{"big", []string{cursor}}},
	} {
		if text := explain(t, st, c.query, c.args...); strings.Contains(text, "Seq Scan") || !strings.Contains(text, "Index") {
			t.Errorf("%s does not use an index:\n%s", c.query, text)
		}
	}
	for _, q := range []struct {
		origin api.Origin
		sqlstore.Window
	}{
		{"", sqlstore.Window{Limit: 101}},
		{"", sqlstore.Window{Limit: 101, Cursor: cursor}},
		{"", sqlstore.Window{Limit: 101, Cursor: cursor, Ascending: true}},
		{api.OriginManual, sqlstore.Window{Limit: 21}},
	} {
		query, args := entriesQuery(&sqlstore.EntriesParams{Team: "big", Origin: q.origin}, q.Window)
		text := explain(t, st, query, args...)
		if strings.Contains(text, "Sort") || !strings.Contains(text, "Index") {
			t.Errorf("List(%+v) does not read the index in order:\n%s", q, text)
		}
	}
}

// A search reads its index: a domain's page the domain index in ID order
// (no sort, however many entries the domain has), a prefix and an address
// a range of the address index. 20,000 entries at one domain and 20,000 at
// another, analyzed, so that the planner would rather scan than probe.
func TestSearchPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.pool.Exec(ctx, `
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT gen_random_uuid(), 'big', 'u' || g || CASE WHEN g % 2 = 0 THEN '@firm.example' ELSE '@example.com' END, 'manual', now()
		FROM generate_series(1, 40000) g`); err != nil {
		t.Fatal(err)
	}
	// As autovacuum leaves a table: analyzed, its pages all-visible.
	if _, err := st.db.pool.Exec(ctx, `VACUUM ANALYZE suppressions`); err != nil {
		t.Fatal(err)
	}
	const cursor = "01a1fe15-ef7e-7c10-a222-42a32cbb09a1"
	for _, c := range []struct {
		p     sqlstore.EntriesParams
		index string
		sort  bool
	}{
		{sqlstore.EntriesParams{Domain: "firm.example", Window: sqlstore.Window{Limit: 21}}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{Domain: "firm.example", Window: sqlstore.Window{Limit: 101, Cursor: cursor}}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{Domain: "firm.example", Origin: api.OriginManual, Window: sqlstore.Window{Limit: 21}}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{PrefixFrom: "u123", PrefixTo: "u124", Window: sqlstore.Window{Limit: 21}}, "suppressions_team_email", true},
		{sqlstore.EntriesParams{Exact: "u2@firm.example", Window: sqlstore.Window{Limit: 21}}, "suppressions_team_email", true},
	} {
		c.p.Team = "big"
		query, args := entriesQuery(&c.p, c.p.Window)
		if c.p.PrefixFrom != "" {
			query, args = prefixQuery(&c.p)
		}
		text := explain(t, st, query, args...)
		if strings.Contains(text, "Seq Scan") || !strings.Contains(text, c.index) || !c.sort && strings.Contains(text, "Sort") {
			t.Errorf("search %+v does not read %s:\n%s", c.p, c.index, text)
		}
		// A prefix's matches are sorted from the index alone; only the
		// rows shown are read, by key.
		if c.p.PrefixFrom != "" && (!strings.Contains(text, "Index Only Scan using suppressions_team_email") || !strings.Contains(text, "suppressions_pkey")) {
			t.Errorf("a prefix's page reads more than the index and the rows shown:\n%s", text)
		}
		// A generic plan too, but for a prefix: the condition is the
		// index's, nothing of another domain is read and filtered out. A
		// generic plan cannot know how many addresses a prefix matches;
		// the store plans each statement for its own run
		// (plan_cache_mode), which reads the prefix's range.
		if c.p.PrefixFrom != "" {
			continue
		}
		text = explainGeneric(t, st, query, args...)
		if strings.Contains(text, "Seq Scan") || !strings.Contains(text, c.index) || c.p.Origin == "" && strings.Contains(text, "Filter:") {
			t.Errorf("search %+v under a generic plan does not read %s:\n%s", c.p, c.index, text)
		}
	}
}

// explain returns the plan of a statement, run in a transaction that is
// rolled back (EXPLAIN does not run it, but a DELETE's plan is asked for
// inside one all the same).
func explain(t *testing.T, st *Store, query string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	tx, err := st.db.pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, "EXPLAIN "+query, args...)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "\n")
}

// A generic plan (prepared once, for any team) must still read the team's
// own range: a small team's first page never walks another team's rows.
// plan_cache_mode=force_generic_plan makes every execution use it.
func TestGenericPlansReadTheTeamsRange(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.pool.Exec(ctx, `
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT gen_random_uuid(), 'big', 'u' || g || '@example.com', 'bounce', now()
		FROM generate_series(1, 20000) g;
		INSERT INTO suppressions (id, team, email, origin, created_at)
		VALUES (gen_random_uuid(), 'small', 'a@example.com', 'manual', now());
		ANALYZE suppressions`); err != nil {
		t.Fatal(err)
	}
	for _, q := range []struct {
		origin api.Origin
		sqlstore.Window
	}{
		{"", sqlstore.Window{Limit: 21}},
		{api.OriginManual, sqlstore.Window{Limit: 21}},
		{api.OriginComplaint, sqlstore.Window{Limit: 21}},
		{"", sqlstore.Window{Limit: 21, Cursor: "01a1fe15-ef7e-7c10-a222-42a32cbb09a1"}},
	} {
		query, args := entriesQuery(&sqlstore.EntriesParams{Team: "small", Origin: q.origin}, q.Window)
		text := explainGeneric(t, st, query, args...)
		// Every condition in the index: no row of another team, or of
		// another origin, is read and then filtered out.
		if strings.Contains(text, "Sort") || strings.Contains(text, "Seq Scan") || strings.Contains(text, "Filter:") ||
			!strings.Contains(text, "Index Cond: (team = $1)") && !strings.Contains(text, "Index Cond: ((team = $1)") {
			t.Errorf("List(%+v) under a generic plan does not read the team's own range:\n%s", q, text)
		}
	}
}

// explainGeneric prepares query and explains its execution with a generic
// plan.
func explainGeneric(t *testing.T, st *Store, query string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	conn, err := st.db.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET plan_cache_mode = force_generic_plan"); err != nil {
		t.Fatal(err)
	}
	defer conn.Exec(ctx, "RESET plan_cache_mode")
	if _, err := conn.Conn().Prepare(ctx, "generic_list", query); err != nil {
		t.Fatal(err)
	}
	defer conn.Conn().Deallocate(ctx, "generic_list")
	params := make([]string, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			params[i] = "'" + strings.ReplaceAll(v, "'", "''") + "'"
		case nil:
			params[i] = "NULL" // a generic plan is the same for any values
		default:
			params[i] = fmt.Sprint(v)
		}
	}
	rows, err := conn.Query(ctx, "EXPLAIN EXECUTE generic_list("+strings.Join(params, ", ")+")")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	return strings.Join(plan, "\n")
}

// The look-ups of a batch add, a removal and the bulk check probe the
// unique (team, email) index (or the key) whatever the statistics say: on
// a table never analyzed the planner guesses that a team holds 0.5 % of
// the rows and would rather read the whole team's range than probe each
// address (80,000 rows read for 100 addresses, 80 times slower).
func TestLookupsProbeTheUniqueIndexWithoutStatistics(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.pool.Exec(ctx, `
		ALTER TABLE suppressions SET (autovacuum_enabled = false);
		INSERT INTO suppressions (id, team, email, origin, created_at)
		SELECT gen_random_uuid(), 'big', 'u' || lpad(g::text, 7, '0') || '@example.com', 'manual', now()
		FROM generate_series(1, 80000) g`); err != nil {
		t.Fatal(err)
	}
	var tuples float64
	if err := st.db.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'suppressions'::regclass`).Scan(&tuples); err != nil || tuples != -1 {
		t.Fatalf("the table has been analyzed (reltuples %v, %v): the test needs one never analyzed", tuples, err)
	}
	emails, ids := make([]string, 100), make([]string, 100)
	for i := range emails {
		emails[i] = fmt.Sprintf("u%07d@example.com", 79950+i) // half listed, half new
		ids[i] = fmt.Sprintf("01a1fe15-ef7e-7c10-a222-42a32cbb%04d", i)
	}
	at := time.Now()
	nulls := make([]*string, 100)
	for _, c := range []struct {
		what, query string
		args        []any
	}{
		{"batch add", insertEntriesSQL, []any{"big", ids, emails, slices.Repeat([]string{"manual"}, 100), nulls, at,
			ids[0], "key", "name", nil, "req", ids[0], ids[99], nulls, make([]*time.Time, 100), nil, nil, ids[0], ids[99], nulls}},
		{"removal by address", deleteByEmail, []any{"big", emails}},
		{"removal by ID", deleteByID, []any{"big", ids}},
		{"bulk check", listedSQL("$1", "$2"), []any{"big", emails}},
	} {
		text := explain(t, st, c.query, c.args...)
		if strings.Contains(text, "Seq Scan") || strings.Contains(text, "suppressions_team_id") && c.what != "removal by ID" ||
			!strings.Contains(text, "suppressions_team_email") && !strings.Contains(text, "suppressions_pkey") && !strings.Contains(text, "suppressions_team_id") {
			t.Errorf("%s on a table never analyzed does not probe the unique index:\n%s", c.what, text)
		}
		if c.what != "removal by ID" && !strings.Contains(text, "Index Cond: ((team = 'big'::text) AND (email = k.email))") {
			t.Errorf("%s on a table never analyzed does not probe each address:\n%s", c.what, text)
		}
		if c.what == "removal by ID" && !strings.Contains(text, "id = ANY") {
			t.Errorf("%s on a table never analyzed does not probe each ID:\n%s", c.what, text)
		}
	}
	// The batch add runs with its generic plan (genericPlan), made once
	// for any team and any addresses: it too probes each address.
	text := explainGeneric(t, st, insertEntriesSQL, make([]any, 20)...)
	if strings.Contains(text, "Seq Scan") || strings.Contains(text, "suppressions_team_id") ||
		!strings.Contains(text, "Index Cond: ((team = $1) AND (email = k.email))") {
		t.Errorf("the batch add's generic plan on a table never analyzed does not probe each address:\n%s", text)
	}
}

// TestTrailPlansWithoutStatistics: the trail's pages by address, by
// suppression and by reference read the indexes that find them in a trail
// never analyzed, removals' rows included (whose added entries are read
// with the change that listed the entry), not the team's whole trail.
func TestTrailPlansWithoutStatistics(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, err := st.db.pool.Exec(ctx, `
		ALTER TABLE audit SET (autovacuum_enabled = false);
		ALTER TABLE changes SET (autovacuum_enabled = false);
		INSERT INTO changes (id, team, created_at, key_id, key_name, reference, request_id, first_id, last_id)
		SELECT ('01a1fe15-0000-7000-8000-' || lpad(g::text, 12, '0'))::uuid, 'big', now(), 'k', 'n', '#' || g, 'r',
			('01a1fe15-0000-7000-8000-' || lpad(g::text, 12, '0'))::uuid, ('01a1fe15-0000-7000-8000-' || lpad((g + 99)::text, 12, '0'))::uuid
		FROM generate_series(0, 49999, 100) g;
		INSERT INTO audit (id, team, type, created_at, sup_id, email, origin, sup_created_at, key_id, key_name, request_id, change_id)
		SELECT gen_random_uuid(), 'big', 'suppression.removed', now(), ('01a1fe15-0000-7000-8000-' || lpad(g::text, 12, '0'))::uuid,
			'u' || lpad(g::text, 7, '0') || '@example.com', 'manual', now(), 'k', 'n', 'r',
			('01a1fe15-0000-7000-8000-' || lpad((g / 100 * 100)::text, 12, '0'))::uuid
		FROM generate_series(0, 49999) g`); err != nil {
		t.Fatal(err)
	}
	var tuples float64
	if err := st.db.pool.QueryRow(ctx, `SELECT reltuples FROM pg_class WHERE oid = 'audit'::regclass`).Scan(&tuples); err != nil || tuples != -1 {
		t.Fatalf("the trail has been analyzed (reltuples %v, %v): the test needs one never analyzed", tuples, err)
	}
	for _, c := range []struct {
		what string
		p    sqlstore.TrailParams
		// want are what the plan of the removals' rows must show.
		want []string
	}{
		{"by address", sqlstore.TrailParams{Email: "u0012345@example.com"}, []string{"audit_team_email on audit a"}},
		{"by suppression", sqlstore.TrailParams{SuppressionID: "01a1fe15-0000-7000-8000-000000012345"}, []string{"audit_team_sup on audit a"}},
		{"by reference", sqlstore.TrailParams{Reference: "#12300"}, []string{"changes_team_reference", "audit_team_sup", "(sup_id >= c"}},
	} {
		c.p.Team, c.p.Added, c.p.Limit = "big", true, 101
		query, args := trailQuery(&c.p)
		text := explain(t, st, query, args...)
		for _, w := range c.want {
			if strings.Contains(text, "Seq Scan on audit") || !strings.Contains(text, w) {
				t.Errorf("the trail %s on a trail never analyzed does not read %s:\n%s", c.what, w, text)
			}
		}
	}
}
