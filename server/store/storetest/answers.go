package storetest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// The questions a list answers (contract: finding entries; notes and
// expiry on an entry).

func search(t *testing.T, q string) api.Search {
	t.Helper()
	s, err := api.ParseSearch(q)
	if err != nil {
		t.Fatalf("ParseSearch(%q): %v", q, err)
	}
	return s
}

// page reads one page of q and returns its addresses.
func page(t *testing.T, st store.Store, tm string, q store.ListQuery) ([]string, bool) {
	t.Helper()
	got, more, err := st.List(ctx(t), tm, q)
	if err != nil {
		t.Fatalf("List(%+v): %v", q, err)
	}
	return emails(got), more
}

// testSearch: a domain is exactly that domain, a prefix every address
// that starts with it, anything else one address; newest first, paged,
// with the origin and the created range, and only the team's own.
func testSearch(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	mustAdd(t, st, tm, "a@firm.example", "jane@example.com", "b@firm.example", "x@sub.firm.example", "jan@example.com")
	// Times are kept to the millisecond: mid is apart from both adds.
	time.Sleep(5 * time.Millisecond)
	mid := time.Now()
	time.Sleep(5 * time.Millisecond)
	src := "evt-9"
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginBounce, &src, "c@firm.example", "janet@example.com")); err != nil {
		t.Fatal(err)
	}
	mustAdd(t, st, tm, "d@firm.examples", "jane.doe@example.org")
	mustAdd(t, st, other, "z@firm.example", "jane@other.example")

	for _, c := range []struct {
		q    store.ListQuery
		want []string
	}{
		{store.ListQuery{Search: search(t, "@FIRM.example")}, []string{"c@firm.example", "b@firm.example", "a@firm.example"}},
		{store.ListQuery{Search: search(t, "@sub.firm.example")}, []string{"x@sub.firm.example"}},
		{store.ListQuery{Search: search(t, "@nowhere.example")}, nil},
		{store.ListQuery{Search: search(t, "Jane*")}, []string{"jane.doe@example.org", "janet@example.com", "jane@example.com"}},
		{store.ListQuery{Search: search(t, "jane@*")}, []string{"jane@example.com"}},
		{store.ListQuery{Search: search(t, "jan@example.com")}, []string{"jan@example.com"}},
		{store.ListQuery{Search: search(t, "JAN@example.com")}, []string{"jan@example.com"}},
		{store.ListQuery{Search: search(t, "nobody@example.com")}, nil},
		{store.ListQuery{Search: search(t, "@firm.example"), Origin: api.OriginBounce}, []string{"c@firm.example"}},
		{store.ListQuery{Search: search(t, "jane*"), Origin: api.OriginManual}, []string{"jane.doe@example.org", "jane@example.com"}},
		{store.ListQuery{Search: search(t, "@firm.example"), CreatedAfter: mid}, []string{"c@firm.example"}},
		{store.ListQuery{Search: search(t, "@firm.example"), CreatedBefore: mid}, []string{"b@firm.example", "a@firm.example"}},
		{store.ListQuery{CreatedAfter: mid, Origin: api.OriginBounce}, []string{"janet@example.com", "c@firm.example"}},
	} {
		c.q.Limit = 100
		got, more := page(t, st, tm, c.q)
		if !slices.Equal(got, c.want) || more {
			t.Errorf("%s %+v: %v (more %v); want %v", c.q.Search, c.q, got, more, c.want)
		}
	}

	// Paged like the list: newest first, a cursor is a position.
	q := store.ListQuery{Limit: 2, Search: search(t, "@firm.example")}
	first, more := page(t, st, tm, q)
	if !slices.Equal(first, []string{"c@firm.example", "b@firm.example"}) || !more {
		t.Fatalf("first page of 2: %v more=%v", first, more)
	}
	all, _, _ := st.List(ctx(t), tm, store.ListQuery{Limit: 2, Search: q.Search})
	q.After = all[1].ID
	if rest, more := page(t, st, tm, q); !slices.Equal(rest, []string{"a@firm.example"}) || more {
		t.Errorf("after %s: %v more=%v; want a@ alone", all[1].Email, rest, more)
	}
	q.After, q.Before = "", all[1].ID
	if back, more := page(t, st, tm, q); !slices.Equal(back, []string{"c@firm.example"}) || more {
		t.Errorf("before %s: %v more=%v; want c@ alone", all[1].Email, back, more)
	}

	// A prefix's pages too, both ways.
	pq := store.ListQuery{Limit: 1, Search: search(t, "jane*")}
	one, _, err := st.List(ctx(t), tm, pq)
	if err != nil || len(one) != 1 || one[0].Email != "jane.doe@example.org" {
		t.Fatalf("the first page of 1 of jane*: %v, %v", emails(one), err)
	}
	pq.After = one[0].ID
	two, more, err := st.List(ctx(t), tm, pq)
	if err != nil || len(two) != 1 || two[0].Email != "janet@example.com" || !more {
		t.Fatalf("the second page of jane*: %v more=%v, %v", emails(two), more, err)
	}
	pq.After, pq.Before = "", two[0].ID
	if back, more, err := st.List(ctx(t), tm, pq); err != nil || len(back) != 1 || back[0].Email != "jane.doe@example.org" || more {
		t.Errorf("the page before janet@ of jane*: %v more=%v, %v", emails(back), more, err)
	}

	// Export takes the same selection, whole.
	var exported []string
	err = st.Export(ctx(t), tm, store.ListQuery{Search: search(t, "jane*")}, func(e store.Entry) error {
		exported = append(exported, e.Email)
		return nil
	})
	if err != nil || !slices.Equal(exported, []string{"jane.doe@example.org", "janet@example.com", "jane@example.com"}) {
		t.Errorf("export of jane*: %v, %v", exported, err)
	}
}

// testCheck: the listed entries of the addresses asked, none of another
// team's, and nothing for addresses not listed.
func testCheck(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	added := mustAdd(t, st, tm, addrs("chk", 450)...)
	mustAdd(t, st, other, "theirs@example.com")
	ask := append(addrs("chk", 450)[100:], "theirs@example.com", "missing@example.com")
	got, err := st.Check(ctx(t), tm, ask)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 350 {
		t.Fatalf("Check of 350 listed, 1 of another team, 1 missing: %d entries", len(got))
	}
	byID := map[string]store.Entry{}
	for _, e := range added {
		byID[e.ID] = e
	}
	for _, e := range got {
		want, ok := byID[e.ID]
		if !ok || want.Email != e.Email || !want.CreatedAt.Equal(e.CreatedAt) {
			t.Fatalf("Check returned %+v; not the team's entry", e)
		}
	}
	if got, err := st.Check(ctx(t), tm, nil); err != nil || len(got) != 0 {
		t.Errorf("Check of nothing: %v, %v", got, err)
	}
}

// testNoteAndExpiry: an entry keeps its note and expiry on every read (the
// trail's and a webhook's too); re-adding extends the expiry, never
// shortens it, and gives a note only to an entry without one.
func testNoteAndExpiry(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditAdded, api.AuditRemoved)
	day := time.Now().UTC().Add(24 * time.Hour).Truncate(time.Millisecond)
	got, err := st.Add(ctx(t), tm, store.Change{Reference: "#48213"}, []store.NewEntry{
		{Email: "full@example.com", Note: "mailbox full, asked on #48213", ExpiresAt: day},
		{Email: "plain@example.com"},
		{Email: "later@example.com", ExpiresAt: day},
		{Email: "never@example.com", ExpiresAt: day},
		{Email: "kept@example.com", Note: "first reason"},
	})
	if err != nil {
		t.Fatal(err)
	}
	full := got[0]
	if full.Note != "mailbox full, asked on #48213" || !full.ExpiresAt.Equal(day) || got[1].Note != "" || !got[1].ExpiresAt.IsZero() {
		t.Fatalf("Add: %+v, %+v; want the note and expiry as given, and none for plain@", full, got[1])
	}
	for _, read := range []func() (store.Entry, error){
		func() (store.Entry, error) { return st.Get(ctx(t), tm, full.ID) },
		func() (store.Entry, error) { return st.GetByEmail(ctx(t), tm, full.Email) },
		func() (store.Entry, error) {
			p, _, err := st.List(ctx(t), tm, store.ListQuery{Limit: 1, Search: search(t, full.Email)})
			if len(p) != 1 {
				return store.Entry{}, err
			}
			return p[0], err
		},
		func() (store.Entry, error) {
			c, err := st.Check(ctx(t), tm, []string{full.Email})
			if len(c) != 1 {
				return store.Entry{}, err
			}
			return c[0], err
		},
	} {
		if e, err := read(); err != nil || e.Note != full.Note || !e.ExpiresAt.Equal(day) {
			t.Errorf("read back: %+v, %v; want note and expiry", e, err)
		}
	}
	if a := trail(t, st, tm, store.AuditQuery{Email: full.Email}); len(a) != 1 || a[0].Suppression.Note != full.Note || !a[0].Suppression.ExpiresAt.Equal(day) {
		t.Errorf("trail of full@: %+v; want the added entry with note and expiry", a)
	}
	for _, ev := range events(t, st, tm, hook.ID) {
		var p api.WebhookPayload
		if err := json.Unmarshal(ev.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.Data.Email == full.Email && (p.Data.Note == nil || *p.Data.Note != full.Note || p.Data.ExpiresAt == nil || !p.Data.ExpiresAt.Equal(day)) {
			t.Errorf("webhook payload of full@: %s; want note and expires_at", ev.Payload)
		}
	}

	week := day.Add(6 * 24 * time.Hour)
	again, err := st.Add(ctx(t), tm, store.Change{}, []store.NewEntry{
		{Email: "full@example.com", ExpiresAt: day.Add(-time.Hour), Note: "another reason"}, // shorter: kept
		{Email: "plain@example.com", ExpiresAt: week, Note: "now a reason"},                 // listed for ever: stays so
		{Email: "later@example.com", ExpiresAt: week},                                       // later: extended
		{Email: "never@example.com"},                                                        // none: for ever
		{Email: "kept@example.com", Note: "second reason"},                                  // has a note: kept
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		note  string
		until time.Time
	}{{full.Note, day}, {"now a reason", time.Time{}}, {"", week}, {"", time.Time{}}, {"first reason", time.Time{}}}
	for i, w := range want {
		e := again[i]
		if e.Created || e.ID != got[i].ID || e.Note != w.note || !e.ExpiresAt.Equal(w.until) {
			t.Errorf("re-add of %s: %+v; want the same entry with note %q, expiry %v", got[i].Email, e, w.note, w.until)
		}
		if r, err := st.Get(ctx(t), tm, e.ID); err != nil || r.Note != w.note || !r.ExpiresAt.Equal(w.until) {
			t.Errorf("%s read after the re-add: %+v, %v; want note %q, expiry %v", got[i].Email, r, err, w.note, w.until)
		}
	}
	if n := len(trail(t, st, tm, store.AuditQuery{})); n != 5 {
		t.Errorf("the trail holds %d entries after re-adds; want the 5 additions alone", n)
	}

	// A removal keeps the note and expiry in the trail and the event.
	if _, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{full.Email}); err != nil {
		t.Fatal(err)
	}
	a := trail(t, st, tm, store.AuditQuery{Email: full.Email})
	if len(a) != 2 || a[0].Type != store.AuditRemoved || a[0].Suppression.Note != full.Note || !a[0].Suppression.ExpiresAt.Equal(day) ||
		a[1].Suppression.Note != full.Note {
		t.Errorf("trail of full@ after removal: %+v", a)
	}
}

// testRemoveExpired: an entry whose expiry has passed is removed by the
// service, once, with the trail's "expired" reference and no key, and a
// removal event; one still due later, or without an expiry, stays. The
// clock is the caller's.
func testRemoveExpired(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditRemoved)
	base := time.Now().UTC().Add(-time.Hour).Truncate(time.Millisecond)
	if _, err := st.Add(ctx(t), tm, store.Change{KeyID: "k1", KeyName: "jane", Reference: "#1"}, []store.NewEntry{
		{Email: "soon@example.com", ExpiresAt: base.Add(time.Second), Note: "full mailbox"},
		{Email: "later@example.com", ExpiresAt: base.Add(2 * time.Second)},
		{Email: "forever@example.com"},
	}); err != nil {
		t.Fatal(err)
	}
	on := func() []string {
		var out []string
		for _, e := range []string{"soon@example.com", "later@example.com", "forever@example.com"} {
			if _, err := st.GetByEmail(ctx(t), tm, e); err == nil {
				out = append(out, e)
			}
		}
		return out
	}
	// Until it passes, the entry is listed.
	if n, err := st.RemoveExpired(ctx(t), base.Add(999*time.Millisecond), 100); err != nil || len(on()) != 3 {
		t.Fatalf("a sweep before any expiry: %d removed, %v; listed %v", n, err, on())
	}
	if n, err := st.RemoveExpired(ctx(t), base.Add(1500*time.Millisecond), 100); err != nil || n < 1 {
		t.Fatalf("a sweep after soon@'s expiry: %d removed, %v", n, err)
	}
	if got := on(); !slices.Equal(got, []string{"later@example.com", "forever@example.com"}) {
		t.Errorf("after soon@ expired: listed %v", got)
	}
	if n, err := st.RemoveExpired(ctx(t), base.Add(1500*time.Millisecond), 100); err != nil || n != 0 {
		t.Errorf("a second sweep at the same time: %d removed, %v; want none", n, err)
	}
	a := trail(t, st, tm, store.AuditQuery{Type: store.AuditRemoved})
	if len(a) != 1 || a[0].Suppression.Email != "soon@example.com" || a[0].KeyID != "" || a[0].KeyName != "" ||
		a[0].Reference != store.ExpiredReference || a[0].Suppression.Note != "full mailbox" {
		t.Errorf("the trail's removals: %+v; want soon@ alone, by no key, reference %q", a, store.ExpiredReference)
	}
	evs := events(t, st, tm, hook.ID)
	if len(evs) != 1 || evs[0].Type != store.AuditRemoved {
		t.Fatalf("events: %+v; want one removal", evs)
	}
	var p api.WebhookPayload
	if err := json.Unmarshal(evs[0].Payload, &p); err != nil || p.Data.Email != "soon@example.com" {
		t.Errorf("the removal's payload: %s, %v", evs[0].Payload, err)
	}
	// Everything due goes, however many sweeps it takes.
	for {
		n, err := st.RemoveExpired(ctx(t), base.Add(2*time.Second), 1)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
	}
	if got := on(); !slices.Equal(got, []string{"forever@example.com"}) {
		t.Errorf("after every expiry: listed %v", got)
	}
}
