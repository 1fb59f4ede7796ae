package storetest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlstore"
)

// testBoundedPrefixPages: a prefix with many matches, all older than many
// entries that do not match (as an import in address order leaves them),
// is paged newest first, every match once and none other, following each
// page's Next where it stopped at its bound: a page may hold fewer than
// its limit, even none, but never reads past its bound (which the pages
// that stop short show), and paging back (before) walks the same matches.
// A prefix with few matches gives full pages.
func testBoundedPrefixPages(t *testing.T, st store.Store) {
	tm := team(t)
	add := func(format string, n int) {
		for i := 0; i < n; i += 1000 {
			emails := make([]string, min(1000, n-i))
			for j := range emails {
				emails[j] = fmt.Sprintf(format, i+j)
			}
			if _, err := st.Add(ctx(t), tm, store.Change{}, store.Manual(emails...)); err != nil {
				t.Fatal(err)
			}
		}
	}
	// More matches than a page sorts, older than more entries than a
	// page scans.
	matches := sqlstore.PrefixExact + 500
	add("old-%05d@example.com", matches)
	add("new-%05d@example.com", sqlstore.PrefixScan+2500)
	prefix, err := api.ParseSearch("old-*")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i := matches - 1; i >= 0; i-- {
		want = append(want, fmt.Sprintf("old-%05d@example.com", i))
	}

	var got, ids []string
	short := 0
	q := store.ListQuery{Limit: 100, Search: prefix}
	for pages := 0; ; pages++ {
		if pages > 300 {
			t.Fatalf("still paging after 300 pages; %d of %d matches", len(got), len(want))
		}
		pg, err := st.Page(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range pg.Entries {
			got, ids = append(got, e.Email), append(ids, e.ID)
		}
		if pg.Next != "" {
			short++
			if len(pg.Entries) >= q.Limit {
				t.Errorf("a page with Next holds %d entries, its whole limit", len(pg.Entries))
			}
		}
		if !pg.HasMore {
			break
		}
		if q.After = pg.Next; q.After == "" {
			if len(pg.Entries) == 0 {
				t.Fatalf("an empty page says more lie beyond, with no position to go on from")
			}
			q.After = ids[len(ids)-1]
		}
	}
	if !slices.Equal(got, want) {
		t.Fatalf("the prefix's pages hold %d entries (first %v); want the %d matches newest first, once each", len(got), head(got), len(want))
	}
	if short == 0 {
		t.Error("no page stopped at its bound: the prefix's pages read every match")
	}

	// Back from the oldest: before= pages walk the same matches.
	var back []string
	q = store.ListQuery{Limit: 100, Search: prefix, Before: ids[len(ids)-1]}
	for pages := 0; ; pages++ {
		if pages > 300 {
			t.Fatal("still paging back after 300 pages")
		}
		pg, err := st.Page(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		back = append(slices.Clone(emails(pg.Entries)), back...)
		if !pg.HasMore {
			break
		}
		q.Before = pg.Next
		if q.Before == "" {
			q.Before = pg.Entries[0].ID
		}
	}
	if !slices.Equal(back, want[:len(want)-1]) {
		t.Errorf("paging back holds %d entries; want the %d matches newer than the oldest", len(back), len(want)-1)
	}

	// Few matches: full, exact pages.
	few, _ := api.ParseSearch("new-0001*")
	pg, err := st.Page(ctx(t), tm, store.ListQuery{Limit: 7, Search: few})
	if err != nil || len(pg.Entries) != 7 || !pg.HasMore || pg.Next != "" || pg.Entries[0].Email != "new-00019@example.com" {
		t.Errorf("a prefix of 10 matches, limit 7: %v, %+v; want the 7 newest and more", err, pg)
	}
}

func head(s []string) []string { return s[:min(3, len(s))] }
