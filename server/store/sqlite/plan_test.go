package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// A search reads its index, as a page of the list does: a domain's page
// the domain index in ID order (no sort, however many entries the domain
// has), a prefix and an address a range of the address index; the sweeper
// the index of expiries. None walks the team's whole list.
func TestSearchPlansUseIndexes(t *testing.T) {
	ctx := context.Background()
	st, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	const cursor = "01a1fe15-ef7e-7c10-a222-42a32cbb09a1"
	for _, c := range []struct {
		p     sqlstore.EntriesParams
		index string
		sort  bool
	}{
		{sqlstore.EntriesParams{}, "", false},
		{sqlstore.EntriesParams{Origin: api.OriginBounce}, "suppressions_team_origin_id", false},
		{sqlstore.EntriesParams{Domain: "firm.example"}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{Domain: "firm.example", Window: sqlstore.Window{Cursor: cursor}}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{Domain: "firm.example", Origin: api.OriginManual}, "suppressions_team_domain", false},
		{sqlstore.EntriesParams{PrefixFrom: "jane", PrefixTo: "janf"}, "suppressions_team_email", true},
		{sqlstore.EntriesParams{Exact: "jane@example.com"}, "suppressions_team_email", true},
	} {
		c.p.Team, c.p.Limit = "big", 21
		base, where, args := entriesQuery(&c.p, sqlstore.EntryColumns)
		if c.p.Cursor != "" {
			where, args = append(where, "id < ?"), append(args, c.p.Cursor)
		}
		query := base + " WHERE " + strings.Join(where, " AND ") + " ORDER BY id DESC LIMIT 21"
		if c.p.PrefixFrom != "" {
			query, args = prefixQuery(&c.p)
		}
		plan := explain(t, st, query, args...)
		if strings.Contains(plan, "SCAN") || !strings.Contains(plan, "SEARCH suppressions USING") ||
			!strings.Contains(plan, c.index) || !c.sort && strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("%+v reads:\n%s", c.p, plan)
		}
		// A prefix's matches are sorted from the index alone; only the
		// rows shown are read, by key.
		if c.p.PrefixFrom != "" && (!strings.Contains(plan, "COVERING INDEX suppressions_team_email") || !strings.Contains(plan, "PRIMARY KEY")) {
			t.Errorf("a prefix's page reads more than the index and the rows shown:\n%s", plan)
		}
	}
	plan := explain(t, st, "SELECT team, "+sqlstore.EntryColumns+" FROM suppressions INDEXED BY suppressions_expires"+
		" WHERE expires_at IS NOT NULL AND expires_at <= ? ORDER BY expires_at LIMIT ?", 1, 100)
	if strings.Contains(plan, "SCAN suppressions ") || !strings.Contains(plan, "suppressions_expires") || strings.Contains(plan, "TEMP B-TREE") {
		t.Errorf("the sweeper reads:\n%s", plan)
	}
}

// explain returns SQLite's plan of a query, one step a line.
func explain(t *testing.T, st *Store, query string, args ...any) string {
	t.Helper()
	rows, err := st.db.read.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		out = append(out, detail)
	}
	return strings.Join(out, "\n")
}
