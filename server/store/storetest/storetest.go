// Package storetest is the conformance suite of store.Store: every store
// implementation passes Run unchanged. Each subtest uses team names of its
// own, so one shared database serves the whole suite.
package storetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Run runs the suite. open returns a store to test; it may return the same
// database for every call, and should close it when t ends.
func Run(t *testing.T, open func(t *testing.T) store.Store) {
	tests := []struct {
		name string
		fn   func(t *testing.T, st store.Store)
	}{
		{"AddOrderAndIDs", testAddOrderAndIDs},
		{"AddExistingUnchanged", testAddExistingUnchanged},
		{"AddOriginAndSource", testAddOriginAndSource},
		{"RemoveEmails", testRemoveEmails},
		{"RemoveIDs", testRemoveIDs},
		{"GetNotFound", testGetNotFound},
		{"CancelledContextChangesNothing", testCancelled},
		{"AllOrNothingUnderDeadline", testAllOrNothing},
		{"TeamIsolation", testTeamIsolation},
		{"ListPaging", testListPaging},
		{"ListOrigin", testListOrigin},
		{"ListCursorOfRemovedEntry", testListRemovedCursor},
		{"CursorIsAPosition", testCursorIsAPosition},
		{"Keys", testKeys},
		{"ConcurrentAdds", testConcurrentAdds},
		{"ConcurrentAddRemove", testConcurrentAddRemove},
		{"AddSaysCreated", testAddSaysCreated},
		{"Trail", testTrail},
		{"PruneAudit", testPruneAudit},
		{"TrailMatchesList", testTrailMatchesList},
		{"TrailAddedEntryStable", testTrailAddedEntryStable},
		{"TrailAfterPrune", testTrailAfterPrune},
		{"Export", testExport},
		{"WebhooksCRUD", testWebhooksCRUD},
		{"Outbox", testOutbox},
		{"LargeFanOut", testLargeFanOut},
		{"DeliveryLifecycle", testDeliveryLifecycle},
		{"RotatedSecretsSign", testRotatedSecretsSign},
		{"Search", testSearch},
		{"BoundedPrefixPages", testBoundedPrefixPages},
		{"Check", testCheck},
		{"NoteAndExpiry", testNoteAndExpiry},
		{"RemoveExpired", testRemoveExpired},
		{"Agents", testAgents},
		{"AgentsTrail", testAgentsTrail},
		{"TeamSettings", testTeamSettings},
		{"KeepComplaints", testKeepComplaints},
		{"AddObeysProtected", testAddObeysProtected},
		{"RemovalObeysComplaintRule", testRemovalObeysComplaintRule},
		{"Evidence", testEvidence},
		{"KeptIDs", testKeptIDs},
		{"IntakeEndpoints", testIntakeEndpoints},
		{"IntakePolicy", testIntakePolicy},
		{"TakeIn", testTakeIn},
		{"TakeInConcurrentReplays", testTakeInConcurrentReplays},
		{"ReviewQueue", testReviewQueue},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, open(t))
		})
	}
}

// team returns a team name no other test uses, so that tests can share a
// database.
func team(t *testing.T) string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "t-" + hex.EncodeToString(b)
}

func addrs(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%d@example.com", prefix, i)
	}
	return out
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

func mustAdd(t *testing.T, st store.Store, team string, emails ...string) []store.Entry {
	t.Helper()
	got, err := st.Add(ctx(t), team, store.Change{}, store.Manual(emails...))
	if err != nil {
		t.Fatalf("Add(%d addresses): %v", len(emails), err)
	}
	return got
}

func ids(es []store.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func emails(es []store.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Email
	}
	return out
}

// present returns which of the addresses are on the team's list.
func present(t *testing.T, st store.Store, team string, emails []string) []string {
	t.Helper()
	var on []string
	for _, e := range emails {
		_, err := st.GetByEmail(ctx(t), team, e)
		switch {
		case err == nil:
			on = append(on, e)
		case !errors.Is(err, store.ErrNotFound):
			t.Fatalf("GetByEmail(%s): %v", e, err)
		}
	}
	return on
}

func testAddOrderAndIDs(t *testing.T, st store.Store) {
	tm := team(t)
	in := []string{"zed@example.com", "amy@example.com", "mid@example.com"}
	before := time.Now().Add(-time.Second)
	got := mustAdd(t, st, tm, in...)
	if !slices.Equal(emails(got), in) {
		t.Fatalf("Add returned %v, want the addresses in the order given %v", emails(got), in)
	}
	seen := map[string]bool{}
	for _, e := range got {
		u, err := uuid.Parse(e.ID)
		if err != nil || u.String() != e.ID {
			t.Errorf("ID %q is not a canonical lowercase UUID", e.ID)
		}
		if err == nil && u.Version() != 7 {
			t.Errorf("ID %s is UUID version %d, want 7", e.ID, u.Version())
		}
		if seen[e.ID] {
			t.Errorf("ID %s given twice", e.ID)
		}
		seen[e.ID] = true
		if e.Origin != api.OriginManual || e.SourceID != nil {
			t.Errorf("entry %+v: want origin manual and no source", e)
		}
		if e.CreatedAt.Before(before) || e.CreatedAt.After(time.Now().Add(time.Second)) {
			t.Errorf("CreatedAt %v is not about now", e.CreatedAt)
		}
		if e.CreatedAt.Location() != time.UTC {
			t.Errorf("CreatedAt %v is not in UTC", e.CreatedAt)
		}
		g, err := st.Get(ctx(t), tm, e.ID)
		if err != nil {
			t.Fatalf("Get(%s): %v", e.ID, err)
		}
		if g.Email != e.Email || !g.CreatedAt.Equal(e.CreatedAt) || g.Origin != e.Origin {
			t.Errorf("Get(%s) = %+v, Add returned %+v", e.ID, g, e)
		}
	}
	// IDs sort by creation: a later add sorts after an earlier one.
	later := mustAdd(t, st, tm, "later@example.com")
	for _, e := range got {
		if later[0].ID <= e.ID {
			t.Errorf("later ID %s does not sort after earlier ID %s", later[0].ID, e.ID)
		}
	}
}

func testAddExistingUnchanged(t *testing.T, st store.Store) {
	tm := team(t)
	src := "msg-1"
	first, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginBounce, &src, []string{"b@example.com"}...))
	if err != nil {
		t.Fatal(err)
	}
	got := mustAdd(t, st, tm, "new@example.com", "b@example.com")
	if got[1].ID != first[0].ID || got[1].Origin != api.OriginBounce || got[1].SourceID == nil || *got[1].SourceID != src ||
		!got[1].CreatedAt.Equal(first[0].CreatedAt) {
		t.Errorf("re-added entry %+v, want the existing one %+v unchanged", got[1], first[0])
	}
	if got[0].ID == first[0].ID || got[0].Email != "new@example.com" {
		t.Errorf("new entry %+v", got[0])
	}
	page, _, err := st.List(ctx(t), tm, store.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 2 {
		t.Errorf("the list holds %d entries, want 2 (no second entry for a re-added address)", len(page))
	}
}

func testAddOriginAndSource(t *testing.T, st store.Store) {
	tm := team(t)
	src := "complaint-7"
	got, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginComplaint, &src, []string{"c@example.com"}...))
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.GetByEmail(ctx(t), tm, "c@example.com")
	if err != nil {
		t.Fatal(err)
	}
	if g.ID != got[0].ID || g.Origin != api.OriginComplaint || g.SourceID == nil || *g.SourceID != src {
		t.Errorf("stored %+v, want origin complaint with source %s", g, src)
	}
}

func testRemoveEmails(t *testing.T, st store.Store) {
	tm := team(t)
	added := mustAdd(t, st, tm, "a@example.com", "b@example.com", "c@example.com")
	got, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{"c@example.com", "missing@example.com", "a@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{added[2].ID, added[0].ID}; !slices.Equal(ids(got), want) {
		t.Errorf("RemoveEmails returned %v, want %v (request order, misses left out)", ids(got), want)
	}
	if on := present(t, st, tm, []string{"a@example.com", "b@example.com", "c@example.com"}); !slices.Equal(on, []string{"b@example.com"}) {
		t.Errorf("after removal the list holds %v, want only b", on)
	}
	again, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{"a@example.com"})
	if err != nil || len(again) != 0 {
		t.Errorf("removing twice: %v, %v; want nothing removed and no error", again, err)
	}
}

func testRemoveIDs(t *testing.T, st store.Store) {
	tm := team(t)
	added := mustAdd(t, st, tm, "a@example.com", "b@example.com", "c@example.com")
	unknown := uuid.Must(uuid.NewV7()).String()
	got, err := st.RemoveIDs(ctx(t), tm, store.Change{}, []string{added[1].ID, unknown, added[2].ID})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{added[1].ID, added[2].ID}; !slices.Equal(ids(got), want) {
		t.Errorf("RemoveIDs returned %v, want %v", ids(got), want)
	}
	if !slices.Equal(emails(got), []string{"b@example.com", "c@example.com"}) {
		t.Errorf("removed entries carry addresses %v", emails(got))
	}
	if _, err := st.Get(ctx(t), tm, added[1].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get of a removed ID: %v, want ErrNotFound", err)
	}
	if _, err := st.Get(ctx(t), tm, added[0].ID); err != nil {
		t.Errorf("Get of a kept ID: %v", err)
	}
}

func testGetNotFound(t *testing.T, st store.Store) {
	tm := team(t)
	if _, err := st.Get(ctx(t), tm, uuid.Must(uuid.NewV7()).String()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get unknown ID: %v, want ErrNotFound", err)
	}
	if _, err := st.GetByEmail(ctx(t), tm, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("GetByEmail unknown: %v, want ErrNotFound", err)
	}
}

func testCancelled(t *testing.T, st store.Store) {
	tm := team(t)
	kept := mustAdd(t, st, tm, "kept@example.com")
	c, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := st.Add(c, tm, store.Change{}, store.Manual([]string{"x@example.com", "y@example.com"}...)); err == nil {
		t.Error("Add with a cancelled context succeeded")
	}
	if _, err := st.RemoveIDs(c, tm, store.Change{}, []string{kept[0].ID}); err == nil {
		t.Error("RemoveIDs with a cancelled context succeeded")
	}
	if _, err := st.RemoveEmails(c, tm, store.Change{}, []string{"kept@example.com"}); err == nil {
		t.Error("RemoveEmails with a cancelled context succeeded")
	}
	if on := present(t, st, tm, []string{"kept@example.com", "x@example.com", "y@example.com"}); !slices.Equal(on, []string{"kept@example.com"}) {
		t.Errorf("after cancelled changes the list holds %v, want only kept@example.com", on)
	}
}

// testAllOrNothing gives large changes a deadline that may strike while
// they run: whatever happens, each change is applied wholly or not at all,
// and only reported as done when it was.
func testAllOrNothing(t *testing.T, st store.Store) {
	tm := team(t)
	const n = 5000
	for i, d := range []time.Duration{time.Microsecond, 200 * time.Microsecond, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond} {
		batch := addrs(fmt.Sprintf("deadline%d", i), n)
		c, cancel := context.WithTimeout(context.Background(), d)
		_, err := st.Add(c, tm, store.Change{}, store.Manual(batch...))
		cancel()
		count := countOn(t, st, tm, batch)
		if err == nil && count != n {
			t.Fatalf("Add reported success but %d of %d addresses are on the list", count, n)
		}
		if err != nil && count != 0 {
			t.Fatalf("Add failed (%v) but left %d of %d addresses on the list", err, count, n)
		}
		if err != nil {
			continue
		}
		c, cancel = context.WithTimeout(context.Background(), d)
		removed, err := st.RemoveEmails(c, tm, store.Change{}, batch)
		cancel()
		count = countOn(t, st, tm, batch)
		if err == nil && (count != 0 || len(removed) != n) {
			t.Fatalf("RemoveEmails reported %d removed but %d of %d addresses remain", len(removed), count, n)
		}
		if err != nil && count != n {
			t.Fatalf("RemoveEmails failed (%v) but removed %d of %d addresses", err, n-count, n)
		}
	}
}

// countOn counts the addresses on the team's list by paging through it.
func countOn(t *testing.T, st store.Store, tm string, batch []string) int {
	t.Helper()
	want := make(map[string]bool, len(batch))
	for _, e := range batch {
		want[e] = true
	}
	n := 0
	q := store.ListQuery{Limit: 100}
	for {
		page, more, err := st.List(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if want[e.Email] {
				n++
			}
		}
		if !more || len(page) == 0 {
			return n
		}
		q.After = page[len(page)-1].ID
	}
}

func testTeamIsolation(t *testing.T, st store.Store) {
	a, b := team(t), team(t)
	ea := mustAdd(t, st, a, "shared@example.com", "only-a@example.com")
	eb := mustAdd(t, st, b, "shared@example.com")
	if ea[0].ID == eb[0].ID {
		t.Fatal("two teams got the same entry for the same address")
	}
	if _, err := st.Get(ctx(t), b, ea[1].ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("team b sees team a's entry by ID: %v", err)
	}
	if _, err := st.GetByEmail(ctx(t), b, "only-a@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("team b sees team a's entry by address: %v", err)
	}
	if got, err := st.RemoveIDs(ctx(t), b, store.Change{}, []string{ea[0].ID, ea[1].ID}); err != nil || len(got) != 0 {
		t.Errorf("team b removed team a's entries by ID: %v, %v", got, err)
	}
	if got, err := st.RemoveEmails(ctx(t), b, store.Change{}, []string{"only-a@example.com"}); err != nil || len(got) != 0 {
		t.Errorf("team b removed team a's entries by address: %v, %v", got, err)
	}
	page, more, err := st.List(ctx(t), b, store.ListQuery{Limit: 100})
	if err != nil || more || len(page) != 1 || page[0].ID != eb[0].ID {
		t.Errorf("team b's list: %v more=%v err=%v; want only its own entry", page, more, err)
	}
	// A cursor from another team's list selects nothing of that team.
	page, _, err = st.List(ctx(t), b, store.ListQuery{Limit: 100, Before: ea[0].ID})
	for _, e := range page {
		if e.ID == ea[0].ID || e.ID == ea[1].ID {
			t.Errorf("team b's page shows team a's entry %v", e)
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := st.RemoveEmails(ctx(t), a, store.Change{}, []string{"shared@example.com"}); err != nil || len(got) != 1 || got[0].ID != ea[0].ID {
		t.Errorf("team a removing its own entry: %v, %v", got, err)
	}
	if g, err := st.GetByEmail(ctx(t), b, "shared@example.com"); err != nil || g.ID != eb[0].ID {
		t.Errorf("team a's removal touched team b's entry: %v, %v", g, err)
	}
}

func testListPaging(t *testing.T, st store.Store) {
	tm := team(t)
	var all []store.Entry // oldest first
	for i := 0; i < 5; i++ {
		all = append(all, mustAdd(t, st, tm, addrs(fmt.Sprintf("page%d", i), 5)...)...)
	}
	newest := slices.Clone(all)
	slices.Reverse(newest)

	page, more, err := st.List(ctx(t), tm, store.ListQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(page), ids(newest[:10])) || !more {
		t.Fatalf("first page %v more=%v, want the 10 newest %v and more", emails(page), more, emails(newest[:10]))
	}
	// Walk forward (older) with after, then back (newer) with before.
	var walked []store.Entry
	q := store.ListQuery{Limit: 7}
	for {
		page, more, err := st.List(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		walked = append(walked, page...)
		if !more {
			break
		}
		q.After = page[len(page)-1].ID
	}
	if !slices.Equal(ids(walked), ids(newest)) {
		t.Fatalf("walking with after gave %v, want %v", emails(walked), emails(newest))
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 7, After: newest[10].ID})
	if err != nil || !slices.Equal(ids(page), ids(newest[11:18])) || !more {
		t.Fatalf("after newest[10]: %v more=%v err=%v", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 7, Before: newest[10].ID})
	if err != nil || !slices.Equal(ids(page), ids(newest[3:10])) || !more {
		t.Fatalf("before newest[10]: %v more=%v err=%v; want newest[3:10] (newest first) and more", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 7, Before: newest[3].ID})
	if err != nil || !slices.Equal(ids(page), ids(newest[:3])) || more {
		t.Fatalf("before newest[3]: %v more=%v err=%v; want the 3 newest and no more", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 5, After: newest[19].ID})
	if err != nil || !slices.Equal(ids(page), ids(newest[20:])) || more {
		t.Fatalf("after newest[19]: %v more=%v err=%v; want the 5 oldest and no more", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 100, After: newest[24].ID})
	if err != nil || len(page) != 0 || more {
		t.Fatalf("after the oldest: %v more=%v err=%v; want an empty page", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 1})
	if err != nil || len(page) != 1 || page[0].ID != newest[0].ID || !more {
		t.Fatalf("limit 1: %v more=%v err=%v", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 100})
	if err != nil || len(page) != 25 || more {
		t.Fatalf("limit 100 over 25 entries: %d entries more=%v err=%v", len(page), more, err)
	}
}

func testListOrigin(t *testing.T, st store.Store) {
	tm := team(t)
	src := "s"
	bounces, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginBounce, &src, addrs("bounce", 3)...))
	if err != nil {
		t.Fatal(err)
	}
	mustAdd(t, st, tm, addrs("manual", 4)...)
	complaints, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginComplaint, &src, addrs("complaint", 2)...))
	if err != nil {
		t.Fatal(err)
	}
	page, more, err := st.List(ctx(t), tm, store.ListQuery{Limit: 2, Origin: api.OriginBounce})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(page), []string{bounces[2].ID, bounces[1].ID}) || !more {
		t.Fatalf("bounces page 1: %v more=%v", emails(page), more)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 2, Origin: api.OriginBounce, After: page[1].ID})
	if err != nil || !slices.Equal(ids(page), []string{bounces[0].ID}) || more {
		t.Fatalf("bounces page 2: %v more=%v err=%v", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 10, Origin: api.OriginComplaint, Before: bounces[0].ID})
	if err != nil || !slices.Equal(ids(page), []string{complaints[1].ID, complaints[0].ID}) || more {
		t.Fatalf("complaints before the first bounce: %v more=%v err=%v", emails(page), more, err)
	}
	page, _, err = st.List(ctx(t), tm, store.ListQuery{Limit: 100, Origin: api.OriginManual})
	if err != nil || len(page) != 4 {
		t.Fatalf("manual entries: %v err=%v; want 4", emails(page), err)
	}
}

func testListRemovedCursor(t *testing.T, st store.Store) {
	tm := team(t)
	all := mustAdd(t, st, tm, addrs("cursor", 6)...) // oldest first
	if _, err := st.RemoveIDs(ctx(t), tm, store.Change{}, []string{all[3].ID}); err != nil {
		t.Fatal(err)
	}
	page, more, err := st.List(ctx(t), tm, store.ListQuery{Limit: 2, After: all[3].ID})
	if err != nil || !slices.Equal(ids(page), []string{all[2].ID, all[1].ID}) || !more {
		t.Fatalf("after a removed entry: %v more=%v err=%v", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 5, Before: all[3].ID})
	if err != nil || !slices.Equal(ids(page), []string{all[5].ID, all[4].ID}) || more {
		t.Fatalf("before a removed entry: %v more=%v err=%v", emails(page), more, err)
	}
}

// testCursorIsAPosition: a cursor is a place in ID order, whether or not
// an entry has that ID, on every page of the store; one that is not an ID
// at all is refused.
func testCursorIsAPosition(t *testing.T, st store.Store) {
	tm := team(t)
	all := mustAdd(t, st, tm, addrs("position", 3)...) // oldest first
	const (
		past   = "00000000-0000-7000-8000-000000000000"
		future = "ffffffff-ffff-7fff-bfff-ffffffffffff"
	)
	page, more, err := st.List(ctx(t), tm, store.ListQuery{Limit: 2, After: future})
	if err != nil || !slices.Equal(ids(page), []string{all[2].ID, all[1].ID}) || !more {
		t.Errorf("list after an ID later than all: %v more=%v err=%v; want the two newest and more", emails(page), more, err)
	}
	page, more, err = st.List(ctx(t), tm, store.ListQuery{Limit: 2, Before: past})
	if err != nil || !slices.Equal(ids(page), []string{all[1].ID, all[0].ID}) || !more {
		t.Errorf("list before an ID earlier than all: %v more=%v err=%v; want the two oldest and more", emails(page), more, err)
	}
	if got, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 10, After: future}); err != nil || len(got) != 3 {
		t.Errorf("trail after an ID later than all: %d entries, %v; want 3", len(got), err)
	}
	if got, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 10, SuppressionID: future}); err != nil || len(got) != 0 {
		t.Errorf("trail of an ID no entry has: %d entries, %v; want none", len(got), err)
	}
	if got, _, err := st.ListWebhooks(ctx(t), tm, store.Page{Limit: 10, Before: past}); err != nil || len(got) != 0 {
		t.Errorf("webhooks before an ID earlier than all: %v, %v; want none", got, err)
	}
	if got, _, err := st.WebhookEvents(ctx(t), tm, future, store.Page{Limit: 10, After: future}); err != nil || len(got) != 0 {
		t.Errorf("events of a webhook no one has: %v, %v; want none", got, err)
	}
	for _, bad := range []string{"not-an-id", all[0].Email} {
		if _, _, err := st.List(ctx(t), tm, store.ListQuery{After: bad}); err == nil {
			t.Errorf("list after %q: no error", bad)
		}
		if _, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Before: bad}); err == nil {
			t.Errorf("trail before %q: no error", bad)
		}
		if _, _, err := st.ListWebhooks(ctx(t), tm, store.Page{After: bad}); err == nil {
			t.Errorf("webhooks after %q: no error", bad)
		}
	}
}

func testKeys(t *testing.T, st store.Store) {
	tm := team(t)
	now := time.Now().UTC().Truncate(time.Millisecond)
	k1 := store.Key{ID: "k" + tm, Team: tm, Hash: []byte{1, 2, 3, 4}, CreatedAt: now}
	k2 := store.Key{ID: "r" + tm, Team: tm, ReadOnly: true, Override: true, Hash: []byte{5, 6, 7}, CreatedAt: now.Add(time.Millisecond)}
	for _, k := range []store.Key{k1, k2} {
		if err := st.CreateKey(ctx(t), k); err != nil {
			t.Fatalf("CreateKey: %v", err)
		}
	}
	got, err := st.KeyByID(ctx(t), k2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != k2.ID || got.Team != tm || !got.ReadOnly || !got.Override || string(got.Hash) != string(k2.Hash) ||
		!got.CreatedAt.Equal(k2.CreatedAt) || got.RevokedAt != nil {
		t.Errorf("KeyByID = %+v, want %+v", got, k2)
	}
	if _, err := st.KeyByID(ctx(t), "no-such-key-"+tm); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("KeyByID unknown: %v, want ErrNotFound", err)
	}
	if err := st.CreateKey(ctx(t), k1); err == nil {
		t.Error("CreateKey with an ID already used succeeded")
	}
	list, err := st.ListKeys(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	i1 := slices.IndexFunc(list, func(k store.Key) bool { return k.ID == k1.ID })
	i2 := slices.IndexFunc(list, func(k store.Key) bool { return k.ID == k2.ID })
	if i1 < 0 || i2 < 0 || i1 > i2 {
		t.Errorf("ListKeys: positions %d and %d; want both, oldest first", i1, i2)
	}
	if err := st.RevokeKey(ctx(t), k1.ID); err != nil {
		t.Fatal(err)
	}
	got, err = st.KeyByID(ctx(t), k1.ID)
	if err != nil || got.RevokedAt == nil {
		t.Fatalf("revoked key: %+v, %v; want RevokedAt set", got, err)
	}
	first := *got.RevokedAt
	if err := st.RevokeKey(ctx(t), k1.ID); err != nil {
		t.Errorf("revoking twice: %v", err)
	}
	if again, _ := st.KeyByID(ctx(t), k1.ID); again.RevokedAt == nil || !again.RevokedAt.Equal(first) {
		t.Errorf("revoking twice changed the revocation time to %v", again.RevokedAt)
	}
	if err := st.RevokeKey(ctx(t), "no-such-key-"+tm); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("RevokeKey unknown: %v, want ErrNotFound", err)
	}
	if got, _ := st.KeyByID(ctx(t), k2.ID); got.RevokedAt != nil {
		t.Error("revoking one key revoked another")
	}
}

func testConcurrentAdds(t *testing.T, st store.Store) {
	tm := team(t)
	pool := addrs("race", 40)
	const workers = 16
	results := make([][]store.Entry, workers)
	inputs := make([][]string, workers)
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		// Overlapping slices in different orders.
		in := slices.Clone(pool[(w*7)%20 : (w*7)%20+20])
		if w%2 == 1 {
			slices.Reverse(in)
		}
		inputs[w] = in
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			got, err := st.Add(ctx(t), tm, store.Change{}, store.Manual(inputs[w]...))
			if err != nil {
				errs <- err
				return
			}
			results[w] = got
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent Add: %v", err)
	}
	idOf := map[string]string{}
	for w, got := range results {
		if !slices.Equal(emails(got), inputs[w]) {
			t.Fatalf("worker %d got %v for %v", w, emails(got), inputs[w])
		}
		for _, e := range got {
			if prev, ok := idOf[e.Email]; ok && prev != e.ID {
				t.Errorf("%s got two IDs: %s and %s", e.Email, prev, e.ID)
			}
			idOf[e.Email] = e.ID
		}
	}
	page, _, err := st.List(ctx(t), tm, store.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != len(idOf) {
		t.Errorf("the list holds %d entries, want exactly one per address (%d)", len(page), len(idOf))
	}
	for _, e := range page {
		if idOf[e.Email] != e.ID {
			t.Errorf("stored %s has ID %s, callers were told %s", e.Email, e.ID, idOf[e.Email])
		}
	}
}

// testConcurrentAddRemove mixes adds and removes of the same addresses:
// afterwards every address is either absent or present once, and what Get
// says agrees with the list.
func testConcurrentAddRemove(t *testing.T, st store.Store) {
	tm := team(t)
	pool := addrs("churn", 10)
	var wg sync.WaitGroup
	errs := make(chan error, 32)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				var err error
				if (w+i)%3 == 0 {
					_, err = st.RemoveEmails(ctx(t), tm, store.Change{}, pool[i%5:i%5+5])
				} else {
					_, err = st.Add(ctx(t), tm, store.Change{}, store.Manual(pool[(w+i)%5:(w+i)%5+5]...))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("concurrent change: %v", err)
	}
	page, _, err := st.List(ctx(t), tm, store.ListQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, e := range page {
		if seen[e.Email] {
			t.Errorf("%s is on the list twice", e.Email)
		}
		seen[e.Email] = true
		if g, err := st.GetByEmail(ctx(t), tm, e.Email); err != nil || g.ID != e.ID {
			t.Errorf("GetByEmail(%s) = %v, %v; the list says %s", e.Email, g.ID, err, e.ID)
		}
	}
}
