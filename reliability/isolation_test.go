package reliability

import (
	"context"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// TestIsolation checks that a key of one team can neither read, add to,
// nor remove from another team's list, through any endpoint, by ID or by
// address, and that another team's entry answers exactly like one that
// does not exist.
func TestIsolation(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "shush.db"))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		isolation(t, st)
	})
	t.Run("postgres", func(t *testing.T) {
		st, err := postgres.Open(context.Background(), pgtest.DSN(t))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		isolation(t, st)
	})
}

func isolation(t *testing.T, st store.Store) {
	ctx := context.Background()
	ts := httptest.NewServer(server.New(st, server.Options{Rate: 100000}))
	defer ts.Close()
	key := func(team string, readOnly bool) *client {
		_, k, err := server.CreateKey(ctx, st, team, readOnly)
		if err != nil {
			t.Fatal(err)
		}
		return newClient(ts.URL, k)
	}
	alice, bob, bobRO := key("alice", false), key("bob", false), key("bob", true)

	aEmails := []string{"a1@example.com", "a2@example.com", "a3@example.com", "shared@example.com"}
	aIDs, a := alice.add(ctx, aEmails)
	if a.err != nil || a.status != 201 {
		t.Fatalf("alice adds: %v %d %s", a.err, a.status, a.body)
	}
	bShared, a := bob.add(ctx, []string{"shared@example.com"})
	if a.err != nil || a.status != 201 {
		t.Fatalf("bob adds: %v %d %s", a.err, a.status, a.body)
	}
	if bShared[0] == aIDs[3] {
		t.Fatal("two teams share one entry for the same address")
	}
	aliceBefore := alice.list(t)
	missingID := uuid.Must(uuid.NewV7()).String()

	for _, c := range []*client{bob, bobRO} {
		// Reads by ID and by address answer exactly like a missing entry.
		want := c.do(ctx, "GET", "/suppressions/"+missingID, nil)
		for i, id := range aIDs[:3] {
			for _, ref := range []string{id, aEmails[i]} {
				got := c.do(ctx, "GET", "/suppressions/"+url.PathEscape(ref), nil)
				if got.status != 404 || string(got.body) != string(want.body) {
					t.Errorf("bob reads alice's %s: %d %s, want the answer for a missing entry %d %s", ref, got.status, got.body, want.status, want.body)
				}
			}
		}
		if e, ok := c.get(t, "shared@example.com"); !ok || e.ID != bShared[0] {
			t.Errorf("bob reads shared@example.com: %+v, want his own entry %s", e, bShared[0])
		}
		// Listing shows only bob's entry, whatever the cursor.
		for _, q := range []string{"", "?after=" + aIDs[0], "?before=" + aIDs[0], "?origin=manual", "?limit=100"} {
			got := c.do(ctx, "GET", "/suppressions"+q, nil)
			var page api.ListResponse
			if got.status != 200 || jsonInto(got.body, &page) != nil {
				t.Fatalf("bob lists %q: %d %s", q, got.status, got.body)
			}
			for _, e := range page.Data {
				if e.ID != bShared[0] {
					t.Errorf("bob's list %q shows %s (%s)", q, e.ID, e.Email)
				}
			}
		}
	}

	// Removal by ID and by address, batch and single, finds nothing of
	// alice's.
	wantDel := bob.do(ctx, "DELETE", "/suppressions/"+missingID, nil)
	for i, id := range aIDs[:3] {
		for _, ref := range []string{id, aEmails[i]} {
			got := bob.do(ctx, "DELETE", "/suppressions/"+url.PathEscape(ref), nil)
			if got.status != 404 || string(got.body) != string(wantDel.body) {
				t.Errorf("bob deletes alice's %s: %d %s", ref, got.status, got.body)
			}
		}
	}
	if ids, a := bob.remove(ctx, api.BatchRemoveRequest{IDs: aIDs}); a.status != 200 || len(ids) != 0 {
		t.Errorf("bob batch-removes alice's IDs: %d %s", a.status, a.body)
	}
	if ids, a := bob.remove(ctx, api.BatchRemoveRequest{Emails: aEmails[:3]}); a.status != 200 || len(ids) != 0 {
		t.Errorf("bob batch-removes alice's addresses: %d %s", a.status, a.body)
	}
	// Adding alice's addresses makes bob entries of his own.
	ids, a := bob.add(ctx, aEmails[:2])
	if a.status != 201 || len(ids) != 2 || slices.Contains(aIDs, ids[0]) || slices.Contains(aIDs, ids[1]) {
		t.Errorf("bob adds alice's addresses: %d %s, alice's IDs %v", a.status, a.body, aIDs)
	}
	one := bob.do(ctx, "POST", "/suppressions", api.AddRequest{Email: aEmails[2]})
	var s api.Suppression
	if one.status != 201 || jsonInto(one.body, &s) != nil || slices.Contains(aIDs, s.ID) {
		t.Errorf("bob adds alice's %s alone: %d %s", aEmails[2], one.status, one.body)
	}
	// Removing the shared address removes only bob's entry.
	if ids, a := bob.remove(ctx, api.BatchRemoveRequest{Emails: []string{"shared@example.com"}}); a.status != 200 || !slices.Equal(ids, bShared) {
		t.Errorf("bob removes shared@example.com: %d %s, want his entry %s", a.status, a.body, bShared[0])
	}

	aliceAfter := alice.list(t)
	if !slices.EqualFunc(aliceBefore, aliceAfter, func(x, y api.Entry) bool {
		return x.ID == y.ID && x.Email == y.Email && x.CreatedAt.Equal(y.CreatedAt.Time)
	}) {
		t.Errorf("alice's list changed:\nbefore %+v\nafter  %+v", aliceBefore, aliceAfter)
	}
	if len(aliceAfter) != 4 {
		t.Errorf("alice's list holds %d entries, want 4", len(aliceAfter))
	}
}
