package storetest

import (
	"context"
	"errors"

	"slices"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// testAddSaysCreated: Add tells the entries it made from those already
// listed, and lists each entry with its own origin.
func testAddSaysCreated(t *testing.T, st store.Store) {
	tm := team(t)
	first := mustAdd(t, st, tm, "old@example.com")
	if !first[0].Created {
		t.Fatalf("first Add of old@: Created false")
	}
	src := "bounce-7"
	got, err := st.Add(ctx(t), tm, store.Change{}, []store.NewEntry{
		{Email: "new@example.com", Origin: api.OriginBounce, SourceID: &src},
		{Email: "old@example.com", Origin: api.OriginComplaint},
		{Email: "plain@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !got[0].Created || got[0].Origin != api.OriginBounce || got[0].SourceID == nil || *got[0].SourceID != src {
		t.Errorf("new@: %+v; want created as bounce with source %s", got[0], src)
	}
	if got[1].Created || got[1].ID != first[0].ID || got[1].Origin != api.OriginManual {
		t.Errorf("old@: %+v; want the existing manual entry %s, not created", got[1], first[0].ID)
	}
	if !got[2].Created || got[2].Origin != api.OriginManual || got[2].SourceID != nil {
		t.Errorf("plain@: %+v; want created as manual without source", got[2])
	}
}

func trail(t *testing.T, st store.Store, tm string, q store.AuditQuery) []store.AuditEntry {
	t.Helper()
	if q.Limit == 0 {
		q.Limit = 100
	}
	page, _, err := st.Audit(ctx(t), tm, q)
	if err != nil {
		t.Fatalf("Audit(%+v): %v", q, err)
	}
	return page
}

func describe(es []store.AuditEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Type + " " + e.Suppression.Email + " " + e.Reference
	}
	return out
}

// testTrail: one entry per suppression that changed, with who and why,
// newest first, filterable, per team, and prunable.
func testTrail(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	mustAdd(t, st, tm, "before@example.com")
	jane := store.Change{KeyID: "key_1", KeyName: "jane", Reference: "#48213", RequestID: "req-1"}
	added, err := st.Add(ctx(t), tm, jane, store.Manual("before@example.com", "x@example.com", "y@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	cron := store.Change{KeyID: "key_2", KeyName: "cron", Reference: "https://tickets.example/9", RequestID: "req-2"}
	if _, err := st.RemoveEmails(ctx(t), tm, cron, []string{"x@example.com", "missing@example.com"}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveIDs(ctx(t), tm, cron, []string{added[2].ID}); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, st, other, "x@example.com")

	all := trail(t, st, tm, store.AuditQuery{})
	want := []string{
		"suppression.removed y@example.com https://tickets.example/9",
		"suppression.removed x@example.com https://tickets.example/9",
		"suppression.added y@example.com #48213",
		"suppression.added x@example.com #48213",
		"suppression.added before@example.com ",
	}
	// The entries of one change share a time; within it the order is the
	// change's own. Compare as sets per change, and the changes in order.
	got := describe(all)
	if len(got) != len(want) || !slices.Equal(sortedCopy(got[:2]), sortedCopy(want[:2])) ||
		!slices.Equal(sortedCopy(got[2:4]), sortedCopy(want[2:4])) || got[4] != want[4] {
		t.Fatalf("trail:\n got %q\nwant %q", got, want)
	}
	x := trail(t, st, tm, store.AuditQuery{Email: "x@example.com"})
	if len(x) != 2 || x[0].Type != store.AuditRemoved || x[1].Type != store.AuditAdded {
		t.Fatalf("x@'s trail: %q", describe(x))
	}
	a, r := x[1], x[0]
	if a.KeyID != "key_1" || a.KeyName != "jane" || a.RequestID != "req-1" || a.Suppression.ID != added[1].ID ||
		a.Suppression.Origin != api.OriginManual || a.CreatedAt.IsZero() || a.Suppression.CreatedAt.IsZero() {
		t.Errorf("x@ added: %+v", a)
	}
	if r.KeyName != "cron" || r.Suppression.ID != added[1].ID || r.Suppression.CreatedAt.UnixMilli() != added[1].CreatedAt.UnixMilli() {
		t.Errorf("x@ removed: %+v; want the removed entry %s as it was", r, added[1].ID)
	}
	if r.CreatedAt.Before(a.CreatedAt) {
		t.Errorf("removal at %v is before the add at %v", r.CreatedAt, a.CreatedAt)
	}
	if got := trail(t, st, tm, store.AuditQuery{SuppressionID: added[2].ID}); len(got) != 2 {
		t.Errorf("y@'s trail by its (removed) ID: %q", describe(got))
	}
	if got := trail(t, st, tm, store.AuditQuery{Reference: "#48213", Type: store.AuditAdded}); len(got) != 2 {
		t.Errorf("by reference #48213: %q", describe(got))
	}
	if got := trail(t, st, other, store.AuditQuery{}); len(got) != 1 || got[0].Suppression.Email != "x@example.com" {
		t.Errorf("the other team sees %q", describe(got))
	}
	if got := trail(t, st, tm, store.AuditQuery{Email: "missing@example.com"}); len(got) != 0 {
		t.Errorf("removing a missing address wrote %q", describe(got))
	}

	// Paging: two at a time, newest first, then back.
	p1, more, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 2})
	if err != nil || !more || len(p1) != 2 || p1[0].ID != all[0].ID {
		t.Fatalf("first page: %v more=%v err=%v", describe(p1), more, err)
	}
	p2, _, _ := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 2, After: p1[1].ID})
	if len(p2) != 2 || p2[0].ID != all[2].ID {
		t.Fatalf("second page: %v", describe(p2))
	}
	back, _, _ := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 2, Before: p2[0].ID})
	if len(back) != 2 || back[0].ID != p1[0].ID {
		t.Fatalf("page before the second: %v", describe(back))
	}
}

// testPruneAudit: entries older than the cut go, the rest stay.
func testPruneAudit(t *testing.T, st store.Store) {
	tm := team(t)
	mustAdd(t, st, tm, "a@example.com", "b@example.com")
	if n, err := st.PruneAudit(ctx(t), time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	} else if got := trail(t, st, tm, store.AuditQuery{}); len(got) != 2 {
		t.Fatalf("pruning an hour back (%d deleted) left %d of this team's 2 entries", n, len(got))
	}
	if _, err := st.PruneAudit(ctx(t), time.Now().Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	if got := trail(t, st, tm, store.AuditQuery{}); len(got) != 0 {
		t.Fatalf("pruning up to now left %q", describe(got))
	}
	if on := present(t, st, tm, []string{"a@example.com", "b@example.com"}); len(on) != 2 {
		t.Errorf("pruning the trail took entries off the list: %v", on)
	}
}

// testTrailMatchesList: under concurrent adds and removes, some cut short
// by deadlines, every change and its trail commit together: for each
// address, the trail's adds minus its removes is 1 when it is listed and
// 0 when not.
func testTrailMatchesList(t *testing.T, st store.Store) {
	tm := team(t)
	pool := addrs("trail", 40)
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 12 {
				d := time.Duration(1+(w*7+i*13)%40) * 100 * time.Microsecond
				c, cancel := context.WithTimeout(context.Background(), d)
				part := pool[(w*5+i*3)%20 : (w*5+i*3)%20+20]
				if (w+i)%3 == 0 {
					_, _ = st.RemoveEmails(c, tm, store.Change{}, part)
				} else {
					_, _ = st.Add(c, tm, store.Change{}, store.Manual(part...))
				}
				cancel()
			}
		}()
	}
	wg.Wait()
	balance := map[string]int{}
	q := store.AuditQuery{Limit: 100}
	for {
		page, more, err := st.Audit(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			if e.Type == store.AuditAdded {
				balance[e.Suppression.Email]++
			} else {
				balance[e.Suppression.Email]--
			}
		}
		if !more {
			break
		}
		q.After = page[len(page)-1].ID
	}
	listed := map[string]bool{}
	for _, e := range present(t, st, tm, pool) {
		listed[e] = true
	}
	for _, e := range pool {
		want := 0
		if listed[e] {
			want = 1
		}
		if balance[e] != want {
			t.Errorf("%s: listed %v but the trail's adds minus removes is %d", e, listed[e], balance[e])
		}
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	slices.Sort(c)
	return c
}

// testExport: every entry of the team, newest first, of one origin when
// asked, and nothing of another team.
func testExport(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	added := mustAdd(t, st, tm, addrs("exp", 250)...)
	src := "evt-1"
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginBounce, &src, "bounced@example.com")); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, st, other, "elsewhere@example.com")
	var got []store.Entry
	if err := st.Export(ctx(t), tm, store.ListQuery{}, func(e store.Entry) error { got = append(got, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 251 || got[0].Email != "bounced@example.com" || got[250].ID != added[0].ID {
		t.Fatalf("export: %d entries, first %s, last %s", len(got), got[0].Email, got[len(got)-1].ID)
	}
	for i := 1; i < len(got); i++ {
		if got[i].ID >= got[i-1].ID {
			t.Fatalf("export is not newest first at %d", i)
		}
	}
	var bounces []store.Entry
	if err := st.Export(ctx(t), tm, store.ListQuery{Origin: api.OriginBounce}, func(e store.Entry) error { bounces = append(bounces, e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(bounces) != 1 || bounces[0].SourceID == nil || *bounces[0].SourceID != src {
		t.Errorf("bounces: %+v", bounces)
	}
	stop := errors.New("enough")
	n := 0
	if err := st.Export(ctx(t), tm, store.ListQuery{}, func(store.Entry) error {
		n++
		if n == 10 {
			return stop
		}
		return nil
	}); !errors.Is(err, stop) || n != 10 {
		t.Errorf("an error from fn: %v after %d", err, n)
	}
}

// testTrailAddedEntryStable: the "added" entry of an address keeps its ID,
// author and reference when the address is removed, is found by
// reference, address and suppression ID before and after, and a re-add
// makes a new one.
func testTrailAddedEntryStable(t *testing.T, st store.Store) {
	tm := team(t)
	byTicket := func(ref string) store.Change {
		return store.Change{KeyID: "k-" + ref, KeyName: "agent", Reference: ref, RequestID: "req-" + ref}
	}
	added, err := st.Add(ctx(t), tm, byTicket("#1"), store.Manual("a@example.com", "b@example.com"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(ctx(t), tm, byTicket("#2"), store.Manual("a@example.com", "c@example.com")); err != nil {
		t.Fatal(err)
	}
	check := func(when string, q store.AuditQuery, want ...string) []store.AuditEntry {
		t.Helper()
		got := trail(t, st, tm, q)
		if d := describe(got); !slices.Equal(d, want) {
			t.Errorf("%s, trail %+v: %q; want %q", when, q, d, want)
		}
		return got
	}
	before := check("before removal", store.AuditQuery{Reference: "#1"}, "suppression.added b@example.com #1", "suppression.added a@example.com #1")
	if _, err := st.RemoveEmails(ctx(t), tm, byTicket("#3"), []string{"a@example.com"}); err != nil {
		t.Fatal(err)
	}
	after := check("after removal", store.AuditQuery{Reference: "#1"}, "suppression.added b@example.com #1", "suppression.added a@example.com #1")
	if len(before) == 2 && len(after) == 2 && (after[1] != before[1] || after[1].KeyID != "k-#1" || after[1].RequestID != "req-#1" || after[1].Suppression.ID != added[0].ID) {
		t.Errorf("a@'s added entry changed with its removal:\nbefore %+v\nafter  %+v", before[1], after[1])
	}
	check("by address", store.AuditQuery{Email: "a@example.com"}, "suppression.removed a@example.com #3", "suppression.added a@example.com #1")
	check("by suppression ID", store.AuditQuery{SuppressionID: added[0].ID}, "suppression.removed a@example.com #3", "suppression.added a@example.com #1")
	check("removals", store.AuditQuery{Type: store.AuditRemoved}, "suppression.removed a@example.com #3")
	if _, err := st.Add(ctx(t), tm, byTicket("#4"), store.Manual("a@example.com")); err != nil {
		t.Fatal(err)
	}
	check("after a re-add", store.AuditQuery{Email: "a@example.com"}, "suppression.added a@example.com #4", "suppression.removed a@example.com #3", "suppression.added a@example.com #1")
	all := check("the whole trail", store.AuditQuery{},
		"suppression.added a@example.com #4", "suppression.removed a@example.com #3", "suppression.added c@example.com #2",
		"suppression.added b@example.com #1", "suppression.added a@example.com #1")
	// Paging through the two sources keeps the order, both ways.
	var paged []string
	q := store.AuditQuery{Limit: 2}
	for {
		page, more, err := st.Audit(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, describe(page)...)
		if !more {
			break
		}
		q.After = page[len(page)-1].ID
	}
	if !slices.Equal(paged, describe(all)) {
		t.Errorf("paged by 2: %q; want %q", paged, describe(all))
	}
	page, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 2, Before: all[2].ID})
	if err != nil || !slices.Equal(describe(page), describe(all[:2])) {
		t.Errorf("the page before the third entry: %q (%v); want %q", describe(page), err, describe(all[:2]))
	}
}

// testTrailAfterPrune: once the trail is pruned, a listed address and a
// removed one keep no added entry of the changes that went, and later
// changes do not give them one: the trail of an address never names a
// change that did not list it.
func testTrailAfterPrune(t *testing.T, st store.Store) {
	tm := team(t)
	by := func(ref string) store.Change {
		return store.Change{KeyID: "k-" + ref, KeyName: "agent", Reference: ref, RequestID: "req-" + ref}
	}
	if _, err := st.Add(ctx(t), tm, by("#old"), store.Manual("listed@example.com", "removed@example.com", "late@example.com")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveEmails(ctx(t), tm, by("#gone"), []string{"removed@example.com"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(3 * time.Millisecond)
	cut := time.Now()
	time.Sleep(3 * time.Millisecond)
	// Removed after the cut: its removal stays, its addition goes.
	if _, err := st.RemoveEmails(ctx(t), tm, by("#late"), []string{"late@example.com"}); err != nil {
		t.Fatal(err)
	}
	// Before the cut: the three additions and one removal.
	if n, err := st.PruneAudit(ctx(t), cut); err != nil {
		t.Fatal(err)
	} else if n < 4 {
		t.Errorf("the prune counts %d entries; this team alone had 4 before the cut", n)
	}
	check := func(when string, q store.AuditQuery, want ...string) {
		t.Helper()
		if d := describe(trail(t, st, tm, q)); !slices.Equal(d, append([]string{}, want...)) {
			t.Errorf("%s, trail %+v: %q; want %q", when, q, d, want)
		}
	}
	check("after the prune", store.AuditQuery{}, "suppression.removed late@example.com #late")
	// Changes after the prune.
	for i := range 3 {
		ref := "#new" + string(rune('1'+i))
		if _, err := st.Add(ctx(t), tm, by(ref), store.Manual("new"+string(rune('1'+i))+"@example.com")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := st.Add(ctx(t), tm, by("#again"), store.Manual("removed@example.com")); err != nil {
		t.Fatal(err)
	}
	check("listed before the prune", store.AuditQuery{Email: "listed@example.com"})
	check("removed before the prune, added again", store.AuditQuery{Email: "removed@example.com"}, "suppression.added removed@example.com #again")
	check("removed after the cut", store.AuditQuery{Email: "late@example.com"}, "suppression.removed late@example.com #late")
	check("additions", store.AuditQuery{Type: store.AuditAdded},
		"suppression.added removed@example.com #again", "suppression.added new3@example.com #new3",
		"suppression.added new2@example.com #new2", "suppression.added new1@example.com #new1")
	for _, ref := range []string{"#new1", "#new2", "#new3"} {
		if got := trail(t, st, tm, store.AuditQuery{Reference: ref}); len(got) != 1 {
			t.Errorf("by reference %s: %q", ref, describe(got))
		}
	}
	if _, err := st.RemoveEmails(ctx(t), tm, by("#rm"), []string{"listed@example.com"}); err != nil {
		t.Fatal(err)
	}
	check("listed before the prune, then removed", store.AuditQuery{Email: "listed@example.com"}, "suppression.removed listed@example.com #rm")
	check("whole trail", store.AuditQuery{},
		"suppression.removed listed@example.com #rm", "suppression.added removed@example.com #again", "suppression.added new3@example.com #new3",
		"suppression.added new2@example.com #new2", "suppression.added new1@example.com #new1", "suppression.removed late@example.com #late")
}
