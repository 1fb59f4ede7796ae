package storetest

import (
	"encoding/binary"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shushlist/shush/server/store"
)

// AddAboveTheHead checks an add made while the team's trail head is
// ahead of this process's clock, as another process with a clock an hour
// fast leaves it: every ID the add mints is above the head, the head
// moves to the last of them, and the trail reads the add newest. set puts
// the team's head at an ID and get reads it, with the dialect's own SQL.
func AddAboveTheHead(t *testing.T, st store.Store, set func(team, id string), get func(team string) string) {
	t.Helper()
	ctx := t.Context()
	const tm = "ahead"
	if _, err := st.Add(ctx, tm, store.Change{}, store.Manual("first@example.com")); err != nil {
		t.Fatal(err)
	}
	u, err := uuid.NewV7()
	if err != nil {
		t.Fatal(err)
	}
	var ms [8]byte
	binary.BigEndian.PutUint64(ms[:], uint64(time.Now().Add(time.Hour).UnixMilli()))
	copy(u[:6], ms[2:])
	ahead := u.String()
	set(tm, ahead)

	emails := []string{"a@example.com", "b@example.com", "c@example.com"}
	got, err := st.Add(ctx, tm, store.Change{}, store.Manual(emails...))
	if err != nil {
		t.Fatalf("add with the head an hour ahead: %v", err)
	}
	last := ""
	for i, e := range got {
		if !e.Created || e.ID <= ahead {
			t.Errorf("%s: created %v, ID %s; want created with an ID above the head %s", emails[i], e.Created, e.ID, ahead)
		}
		last = max(last, e.ID)
	}
	if head := get(tm); head != last {
		t.Errorf("the head is %s after the add; want its last ID %s", head, last)
	}
	trail, _, err := st.Audit(ctx, tm, store.AuditQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 4 || trail[3].Suppression.Email != "first@example.com" {
		t.Fatalf("the trail has %d entries, oldest %+v; want the three added above the first", len(trail), trail[len(trail)-1].Suppression)
	}
	for i, a := range trail[:3] {
		if a.Suppression.ID <= ahead {
			t.Errorf("trail entry %d (%s) has ID %s, not above the head %s", i, a.Suppression.Email, a.Suppression.ID, ahead)
		}
	}
}
