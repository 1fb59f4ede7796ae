package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/server/store"
)

// An entry listed before migration 4 has its "added" audit row and no
// change: the trail shows that row once, before and after the removal, and
// the removal adds only its own.
func TestTrailOfEntriesListedBeforeChanges(t *testing.T) {
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, old := context.Background(), store.Change{KeyID: "k", KeyName: "old", Reference: "#1", RequestID: "r1"}
	added, err := st.Add(ctx, "t", old, store.Manual("old@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	// Make it what migration 4 finds: an audit row, no change.
	err = st.change(context.Background(), func(_ context.Context, c *sql.Conn) error {
		bg := context.Background()
		if _, err := c.ExecContext(bg, "UPDATE suppressions SET change_id = NULL"); err != nil {
			return err
		}
		if _, err := c.ExecContext(bg, "DELETE FROM changes"); err != nil {
			return err
		}
		_, err := c.ExecContext(bg, `INSERT INTO audit (team, id, type, created_at, sup_id, email, origin, source_id, sup_created_at, key_id, key_name, reference, request_id)
			VALUES ('t', '01900000-0000-7000-8000-000000000001', 'suppression.added', ?, ?, 'old@example.com', 'manual', NULL, ?, 'k', 'old', '#1', 'r1')`,
			added[0].CreatedAt.UnixMilli(), added[0].ID, added[0].CreatedAt.UnixMilli())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kinds := func() []string {
		page, _, err := st.Audit(context.Background(), "t", store.AuditQuery{Email: "old@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, a := range page {
			out = append(out, a.Type+" "+a.ID)
		}
		return out
	}
	if got := kinds(); len(got) != 1 || got[0] != "suppression.added 01900000-0000-7000-8000-000000000001" {
		t.Fatalf("before removal: %q; want the one old audit row", got)
	}
	if _, err := st.RemoveEmails(ctx, "t", old, []string{"old@example.com"}); err != nil {
		t.Fatal(err)
	}
	if got := kinds(); len(got) != 2 || got[1] != "suppression.added 01900000-0000-7000-8000-000000000001" {
		t.Fatalf("after removal: %q; want the removal and the one old added row", got)
	}
}
