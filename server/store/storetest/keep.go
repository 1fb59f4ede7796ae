package storetest

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// An entry given its own ID and creation time keeps them when the ID is a
// UUIDv7 from before now that no entry has; otherwise it is listed with
// a new ID and time, as any new entry. The trail says the entries were
// added now, by the change's author, with their own IDs and times; the
// list stays in ID order and later additions go above.
func testKeptIDs(t *testing.T, st store.Store) {
	tm := team(t)
	at := time.Now().Add(-400 * 24 * time.Hour).UTC().Truncate(time.Millisecond)
	old, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	// A UUIDv7 of a year ago: the service could have made it.
	oldID := v7At(t, at)
	taken := mustAdd(t, st, tm, "first@example.com")[0].ID
	v4 := uuid.NewString()
	future := v7At(t, time.Now().Add(time.Hour))
	author := store.Change{KeyID: "kimp", KeyName: "importer", Reference: "move", RequestID: "req-keep"}
	got, err := st.Add(ctx(t), tm, author, []store.NewEntry{
		{Email: "kept@example.com", Origin: api.OriginBounce, ID: oldID, CreatedAt: at, Note: "moved"},
		{Email: "v4@example.com", ID: v4, CreatedAt: at},
		{Email: "future@example.com", ID: future, CreatedAt: at},
		{Email: "taken@example.com", ID: taken, CreatedAt: at},
		{Email: "first@example.com", ID: old.String(), CreatedAt: at},
		{Email: "plain@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkKeptAdd(t, got, keptIDs{old: oldID, at: at, v4: v4, future: future, taken: taken})
	checkKeptTrail(t, st, tm, oldID, at)
	// The list stays in ID order: the kept entry is the oldest; a later
	// addition is the newest.
	later := mustAdd(t, st, tm, "later@example.com")[0]
	list, _, err := st.List(ctx(t), tm, store.ListQuery{Limit: 100})
	if err != nil || len(list) != 7 || list[0].ID != later.ID || list[len(list)-1].ID != oldID {
		t.Fatalf("the list after: %d entries, newest %v, oldest %v, %v", len(list), list[0].Email, list[len(list)-1].Email, err)
	}
}

// keptIDs are the IDs testKeptIDs gives: one to keep, and those not.
type keptIDs struct {
	old, v4, future, taken string
	at                     time.Time
}

// checkKeptAdd checks each entry of the add: kept@ with its own ID and
// time, the others new, first@ found listed.
func checkKeptAdd(t *testing.T, got []store.Entry, ids keptIDs) {
	t.Helper()
	if k := got[0]; !k.Created || k.ID != ids.old || !k.CreatedAt.Equal(ids.at) || k.Note != "moved" || k.Origin != api.OriginBounce {
		t.Errorf("kept@: %+v; want created with %s at %v", k, ids.old, ids.at)
	}
	for i, why := range map[int]string{1: "a UUIDv4", 2: "from the future", 3: "in use"} {
		if e := got[i]; !e.Created || e.ID == ids.v4 || e.ID == ids.future || e.ID == ids.taken || e.CreatedAt.Equal(ids.at) {
			t.Errorf("%s (%s): %+v; want a new entry with a new ID and time", e.Email, why, e)
		}
	}
	if e := got[4]; e.Created || e.ID != ids.taken {
		t.Errorf("first@ (listed): %+v; want the listed entry %s", e, ids.taken)
	}
	if e := got[5]; !e.Created {
		t.Errorf("plain@: %+v", e)
	}
}

// checkKeptTrail checks the kept entry reads back by its ID, and its
// trail: added now, by the importing key, with its own ID and time.
func checkKeptTrail(t *testing.T, st store.Store, tm, id string, at time.Time) {
	t.Helper()
	e, err := st.Get(ctx(t), tm, id)
	if err != nil || e.Email != "kept@example.com" || !e.CreatedAt.Equal(at) {
		t.Fatalf("Get by the kept ID: %+v %v", e, err)
	}
	page, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 100, Email: "kept@example.com"})
	if err != nil || len(page) != 1 {
		t.Fatalf("the kept entry's trail: %+v %v", page, err)
	}
	if a := page[0]; a.Type != store.AuditAdded || a.KeyName != "importer" || a.Reference != "move" || a.Suppression.ID != id ||
		!a.Suppression.CreatedAt.Equal(at) || a.CreatedAt.Before(time.Now().Add(-time.Minute)) {
		t.Errorf("the kept entry's added entry: %+v", a)
	}
}

// v7At makes a UUIDv7 of time at.
func v7At(t *testing.T, at time.Time) string {
	t.Helper()
	u, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	return u.String()
}
