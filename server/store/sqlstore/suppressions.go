package sqlstore

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Get returns the team's entry with this ID; see store.Store.
func (c *Core) Get(ctx context.Context, team, id string) (store.Entry, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.Entry{}, store.ErrNotFound
	}
	e, err := c.d.EntryByID(ctx, team, id)
	return e, c.readErr("read the list", err)
}

// GetByEmail returns the team's entry for this address; see store.Store.
func (c *Core) GetByEmail(ctx context.Context, team, email string) (store.Entry, error) {
	e, err := c.d.EntryByEmail(ctx, team, email)
	if errors.Is(err, sql.ErrNoRows) {
		var found []store.Entry
		if found, err = c.checkErased(ctx, team, []string{email}, nil); err == nil {
			err = sql.ErrNoRows
			if len(found) == 1 {
				e, err = found[0], nil
			}
		}
	}
	return e, c.readErr("read the list", err)
}

// List returns a page of the team's list, newest first; see store.Store.
func (c *Core) List(ctx context.Context, team string, q store.ListQuery) ([]store.Entry, bool, error) {
	pg, err := c.Page(ctx, team, q)
	return pg.Entries, pg.HasMore, err
}

// Page returns a page of the team's list, newest first, and where a
// prefix's page stopped; see store.Store.
func (c *Core) Page(ctx context.Context, team string, q store.ListQuery) (store.ListPage, error) {
	p := store.Page{Limit: q.Limit, After: q.After, Before: q.Before}
	ep := selection(team, q)
	if q.Search.Kind == api.SearchPrefix {
		return c.prefixPage(ctx, p, ep)
	}
	page, more, err := readPage(ctx, c, "read the list", p, func(ctx context.Context, w Window) ([]store.Entry, error) {
		ep.Window = w
		return c.d.Entries(ctx, ep)
	})
	return store.ListPage{Entries: page, HasMore: more}, err
}

// The bounds of a prefix's page. Its matches are a range of the address
// index, in address order, and a page shows them in ID order: when the
// range holds at most PrefixExact addresses they are read from the index
// and sorted, which is exact and costs what they cost (a few
// milliseconds at the bound); when it holds more, the list is read in ID
// order from the page's cursor, at most PrefixScan entries, and the page
// holds the matches among them, which may be fewer than its limit, and
// says where it stopped (store.ListPage.Next). Either way a page reads at
// most about PrefixExact + PrefixScan entries, whatever the number of
// matches or the size of the list.
const (
	PrefixExact = 10_000
	PrefixScan  = 10_000
)

// prefixPage reads a page of a prefix's matches within the bounds above.
func (c *Core) prefixPage(ctx context.Context, p store.Page, ep *EntriesParams) (store.ListPage, error) {
	w, limit, err := window(p)
	if err != nil {
		return store.ListPage{}, err
	}
	ep.Window = w
	n, err := c.d.RangeCount(ctx, ep, PrefixExact+1)
	if err != nil {
		return store.ListPage{}, c.readErr("read the list", err)
	}
	var rows []store.Entry
	next := ""
	if n <= PrefixExact {
		rows, err = c.d.Entries(ctx, ep)
	} else {
		rows, next, err = c.d.ScanEntries(ctx, ep, PrefixScan)
	}
	if err != nil {
		return store.ListPage{}, c.readErr("read the list", err)
	}
	pg := store.ListPage{Entries: rows, HasMore: len(rows) > limit}
	if pg.HasMore {
		pg.Entries = rows[:limit]
	} else if next != "" {
		pg.HasMore, pg.Next = true, next
	}
	if w.Ascending {
		slices.Reverse(pg.Entries)
	}
	if pg.Entries == nil {
		pg.Entries = []store.Entry{}
	}
	return pg, nil
}

// selection is the entries a query selects, in the driver's terms: a
// domain and an address are matched as they are stored (normalized), a
// prefix is the range of the addresses that start with it.
func selection(team string, q store.ListQuery) *EntriesParams {
	p := &EntriesParams{Team: team, Origin: q.Origin, CreatedAfter: q.CreatedAfter, CreatedBefore: q.CreatedBefore}
	switch s := q.Search; s.Kind {
	case api.SearchDomain:
		p.Domain = s.Value
	case api.SearchExact:
		p.Exact = s.Value
	case api.SearchPrefix:
		p.PrefixFrom, p.PrefixTo = s.Value, prefixEnd(s.Value)
	}
	return p
}

// prefixEnd is the least string above every string that starts with p,
// in byte order: p with its last byte one higher. A prefix holds only the
// ASCII characters of addresses, none of them the highest byte.
func prefixEnd(p string) string {
	b := []byte(p)
	b[len(b)-1]++
	return string(b)
}

// Export streams the entries q selects, newest first, from one snapshot;
// see store.Store. An error from fn is returned as it is.
func (c *Core) Export(ctx context.Context, team string, q store.ListQuery, fn func(store.Entry) error) error {
	var fnErr error
	err := c.d.ExportEntries(ctx, selection(team, q), func(e store.Entry) error {
		fnErr = fn(e)
		return fnErr
	})
	if fnErr != nil {
		return fnErr
	}
	return c.fail("export the list", err)
}

// Check returns the team's entries of these addresses; see store.Store.
func (c *Core) Check(ctx context.Context, team string, emails []string) ([]store.Entry, error) {
	if len(emails) == 0 {
		return []store.Entry{}, nil
	}
	if r, ok := c.d.(CheckReader); ok {
		got, secrets, err := r.EntriesAndSecrets(ctx, team, emails)
		if err == nil && len(got) < len(emails) {
			got, err = c.matchErased(ctx, team, emails, got, secrets)
		}
		return got, c.fail("read the list", err)
	}
	got, err := c.d.EntriesByEmail(ctx, team, emails)
	if err == nil && len(got) < len(emails) {
		got, err = c.checkErased(ctx, team, emails, got)
	}
	return got, c.fail("read the list", err)
}

// CheckReader is a Driver that reads a check's entries and the team's
// erasure secrets in one exchange with the database: EntriesByEmail,
// then ErasureSecrets.
type CheckReader interface {
	EntriesAndSecrets(ctx context.Context, team string, emails []string) ([]store.Entry, []store.ErasureSecret, error)
}

// maxAddRounds bounds how often Add tries an address that concurrent
// changes keep listing and removing.
const maxAddRounds = 4

// Add puts each entry on the team's list; see store.Store. The entries it
// creates go into the trail (one row for the change, which they name) and
// the webhook outbox in the same change.
//
// An address that is neither inserted nor found listed (another process
// listed it, or removed it, in between) is tried again within the change;
// an address removed meanwhile can come back twice, inserted anew and as
// the old entry: the new entry is the one listed.
func (c *Core) Add(ctx context.Context, team string, author store.Change, entries []store.NewEntry) ([]store.Entry, error) {
	if len(entries) == 0 {
		return []store.Entry{}, nil
	}
	a := newAdding(team, author, entries)
	err := c.d.TeamChange(ctx, team, func(ctx context.Context, tx Tx) error {
		return c.addIn(ctx, tx, a)
	})
	if err != nil {
		return nil, c.fail("add to the list", err)
	}
	return a.result(), nil
}

// adding is one add: the entries given, the rows to create (one per
// address; index says which row an address has) and each row's entry as
// the list has it (listed).
type adding struct {
	team    string
	author  store.Change
	at      time.Time
	entries []store.NewEntry
	rows    []store.Entry
	index   map[string]int
	listed  []store.Entry
	p       *InsertEntriesParams
	// own are the rows given their own IDs (NewEntry.ID).
	own []ownID
}

// ownID is a row's own ID and creation time.
type ownID struct {
	row int
	id  string
	at  time.Time
}

func newAdding(team string, author store.Change, entries []store.NewEntry) *adding {
	a := &adding{team: team, author: author, at: now(), entries: entries,
		rows: make([]store.Entry, 0, len(entries)), index: make(map[string]int, len(entries)),
		p: &InsertEntriesParams{Team: team}}
	for _, n := range entries {
		if _, dup := a.index[n.Email]; dup {
			continue
		}
		o, source := origin(n)
		a.index[n.Email] = len(a.rows)
		a.rows = append(a.rows, store.Entry{Email: n.Email, Origin: o, SourceID: source, CreatedAt: a.at,
			Note: n.Note, ExpiresAt: n.ExpiresAt.UTC().Truncate(time.Millisecond), Evidence: n.Evidence})
		if n.ID != "" {
			a.own = append(a.own, ownID{row: len(a.rows) - 1, id: n.ID, at: n.CreatedAt.UTC().Truncate(time.Millisecond)})
		}
	}
	a.listed = make([]store.Entry, len(a.rows))
	return a
}

// result is the entries of the add, one per entry given, in its order.
func (a *adding) result() []store.Entry {
	if len(a.rows) == len(a.entries) {
		// No address was given twice: the rows are in the order given.
		return a.listed
	}
	out := make([]store.Entry, len(a.entries))
	for i, n := range a.entries {
		out[i] = a.listed[a.index[n.Email]]
	}
	return out
}

// addIn makes the add inside a change (which may run it more than once:
// it starts afresh each time).
func (c *Core) addIn(ctx context.Context, tx Tx, a *adding) error {
	team, rows, index, listed, p := a.team, a.rows, a.index, a.listed, a.p
	clear(listed)
	if err := protect(ctx, tx, team, a.entries); err != nil {
		return err
	}
	var hooks []store.Webhook
	if !c.noTrail {
		// Read before the head is held, which the team's other
		// changes wait for.
		var err error
		if hooks, err = wanting(ctx, tx, team, store.AuditAdded); err != nil {
			return err
		}
	}
	// The erased entries are read with the head held, as an erasure
	// rewrites them: an erasure of one of these addresses in another
	// process has then either committed, and its marker is read here,
	// or not begun.
	if _, err := holdTrail(ctx, tx, team, true); err != nil {
		return err
	}
	if err := addErased(ctx, tx, a); err != nil {
		return err
	}
	kept, got, err := c.insertFirst(ctx, tx, a)
	for round := 1; ; round++ {
		if err != nil {
			return err
		}
		for _, e := range got {
			i, ok := index[e.Email]
			if !ok {
				continue
			}
			// The entry is new if it has the ID minted for it: no
			// other entry can.
			e.Created = e.ID == rows[i].ID
			if listed[i].ID == "" || e.Created && !listed[i].Created {
				listed[i] = e
			}
		}
		p.Entries = nil
		for i, e := range listed {
			if e.ID == "" {
				p.Entries = append(p.Entries, rows[i])
			}
		}
		if len(p.Entries) == 0 {
			break
		}
		if round == maxAddRounds {
			return fmt.Errorf("%d addresses were neither inserted nor found after %d tries", len(p.Entries), round)
		}
		// The head moved with the first try; the addresses left keep
		// the IDs minted under it.
		p.Head = nil
		got, err = tx.InsertEntries(ctx, p)
	}
	if err := extend(ctx, tx, team, rows, listed); err != nil {
		return err
	}
	if c.noTrail {
		return nil
	}
	return c.added(ctx, tx, a, kept, hooks)
}

// added writes what an add's new entries bring besides the list: the
// trail of those listed with their own IDs, and the webhook events of
// every new entry.
func (c *Core) added(ctx context.Context, tx Tx, a *adding, kept []store.Entry, hooks []store.Webhook) error {
	if err := c.ownTrail(ctx, tx, a, kept); err != nil {
		return err
	}
	created := a.listed
	if slices.ContainsFunc(created, func(e store.Entry) bool { return !e.Created }) {
		created = slices.DeleteFunc(slices.Clone(created), func(e store.Entry) bool { return !e.Created })
	}
	return c.queue(ctx, tx, a.team, store.AuditAdded, a.at, hooks, created)
}

// insertFirst lists the rows given their own IDs that may keep them
// (insertOwn), then makes the first try of the others' insert
// (insertRest).
func (c *Core) insertFirst(ctx context.Context, tx Tx, a *adding) (kept, got []store.Entry, err error) {
	if kept, err = c.insertOwn(ctx, tx, a); err != nil {
		return nil, nil, err
	}
	got, err = c.insertRest(ctx, tx, a)
	return kept, got, err
}

// insertOwn lists the rows given their own IDs that may keep them: a
// UUIDv7 below the team's trail head (and below an ID minted now), that no
// entry has. Those inserted are listed (Created); the others go on as new
// rows. It returns the entries it inserted.
func (c *Core) insertOwn(ctx context.Context, tx Tx, a *adding) ([]store.Entry, error) {
	if len(a.own) == 0 {
		return nil, nil
	}
	m, err := holdTrail(ctx, tx, a.team, true)
	if err != nil {
		return nil, err
	}
	below := m.last.String()
	if now, err := uuid.NewV7(); err == nil && (m.last == uuid.UUID{} || now.String() < below) {
		below = now.String()
	}
	var try []store.Entry
	for _, o := range a.own {
		if a.listed[o.row].ID != "" {
			// An erased entry (addErased).
			continue
		}
		u, err := uuid.Parse(o.id)
		if err != nil || u.Version() != 7 || u.String() >= below || o.at.IsZero() {
			continue
		}
		e := a.rows[o.row]
		e.ID, e.CreatedAt = u.String(), o.at
		try = append(try, e)
	}
	if len(try) == 0 {
		return nil, nil
	}
	got, err := tx.InsertKept(ctx, a.team, try)
	if err != nil {
		return nil, err
	}
	for _, e := range got {
		i := a.index[e.Email]
		e.Created = true
		a.listed[i] = e
	}
	return got, nil
}

// insertRest mints the IDs of the rows not listed yet and makes the first
// try of their insert (insertNew).
func (c *Core) insertRest(ctx context.Context, tx Tx, a *adding) ([]store.Entry, error) {
	var rest []store.Entry
	var at []int
	for i, e := range a.listed {
		if e.ID == "" {
			rest = append(rest, a.rows[i])
			at = append(at, i)
		}
	}
	if len(rest) == len(a.rows) {
		return c.insertNew(ctx, tx, a.team, a.at, a.author, a.rows, a.p)
	}
	if len(rest) == 0 {
		return nil, nil
	}
	got, err := c.insertNew(ctx, tx, a.team, a.at, a.author, rest, a.p)
	for j, i := range at {
		a.rows[i].ID = rest[j].ID
	}
	return got, err
}

// ownTrail writes the trail of the entries listed with their own IDs:
// an added entry each, by the change's author, now (no change row names
// them: their IDs are no span of this change's).
func (c *Core) ownTrail(ctx context.Context, tx Tx, a *adding, kept []store.Entry) error {
	if len(kept) == 0 {
		return nil
	}
	m, err := holdTrail(ctx, tx, a.team, true)
	if err != nil {
		return err
	}
	if err := writeAudit(ctx, tx, m, a.team, store.AuditAdded, a.at, a.author, kept, nil); err != nil {
		return err
	}
	return m.save(ctx, tx)
}

// insertNew mints the rows' IDs and makes the first try of their insert.
// The IDs are minted before the team's trail head is held and the insert
// checks them against it (InsertEntriesParams.Head), so the head is held
// only for the insert and the commit; when another change minted above
// them first (another process's, or a removal or an expiry of this one's
// that reached the head sooner), the insert has taken the head and the
// IDs are minted again above it.
func (c *Core) insertNew(ctx context.Context, tx Tx, team string, at time.Time, author store.Change, rows []store.Entry, p *InsertEntriesParams) ([]store.Entry, error) {
	var m *minter
	if !c.noTrail {
		m = &minter{team: team}
	}
	for try := 1; ; try++ {
		for i := range rows {
			var err error
			if m != nil {
				rows[i].ID, err = m.next()
			} else {
				rows[i].ID, err = newID()
			}
			if err != nil {
				return nil, err
			}
		}
		p.Entries = rows
		if m != nil {
			ch, err := changeRow(team, at, author, rows)
			if err != nil {
				return nil, err
			}
			p.Change, p.Head = ch, &HeadMove{First: ch.FirstID, Last: ch.LastID}
		}
		got, err := tx.InsertEntries(ctx, p)
		ahead, ok := errors.AsType[*HeadAhead](err)
		if !ok || try == 3 {
			return got, err
		}
		if ahead.Missing {
			// The team's first change: make its head, and hold it.
			held, err := holdTrail(ctx, tx, team, true)
			if err != nil || held == nil {
				return nil, cmp.Or(err, fmt.Errorf("the trail head of team %q could not be held", team))
			}
			m.last = held.last
			continue
		}
		if m.last, err = uuid.Parse(ahead.Last); err != nil {
			return nil, fmt.Errorf("the trail head of team %q is not an ID: %w", team, err)
		}
	}
}

// extend makes each listed entry that a re-add names keep at least what
// the re-add asks for: its expiry extended (to the later one, or to none),
// never shortened, and the note and evidence given when it has none. listed[i] is the
// entry of rows[i]; those changed are read back into it.
func extend(ctx context.Context, tx Tx, team string, rows, listed []store.Entry) error {
	p := &ExtendEntriesParams{Team: team}
	at := make(map[string]int)
	for i, e := range listed {
		if e.Created || e.Erased != "" || store.IsErased(e.Email) {
			// An erased entry gets nothing back (addErased).
			continue
		}
		want := rows[i]
		x := Extension{ID: e.ID}
		if e.Note == "" && want.Note != "" {
			x.Note = want.Note
		}
		if e.Evidence == nil && want.Evidence != nil {
			x.Evidence = want.Evidence
		}
		if !e.ExpiresAt.IsZero() && (want.ExpiresAt.IsZero() || want.ExpiresAt.After(e.ExpiresAt)) {
			x.Extend, x.ExpiresAt = true, want.ExpiresAt
		}
		if x.Note != "" || x.Extend || x.Evidence != nil {
			at[e.ID] = i
			p.Rows = append(p.Rows, x)
		}
	}
	if len(p.Rows) == 0 {
		return nil
	}
	got, err := tx.ExtendEntries(ctx, p)
	if err != nil {
		return err
	}
	for _, e := range got {
		if i, ok := at[e.ID]; ok {
			listed[i] = e
		}
	}
	return nil
}

// RemoveEmails takes the entries with these addresses off the team's list
// and returns those removed, in the order given; see store.Store.
func (c *Core) RemoveEmails(ctx context.Context, team string, author store.Change, emails []string) ([]store.Entry, error) {
	return c.remove(ctx, team, author, true, emails)
}

// RemoveIDs takes the entries with these IDs off the team's list and
// returns those removed, in the order given; see store.Store. IDs that
// are not UUIDs name no entry.
func (c *Core) RemoveIDs(ctx context.Context, team string, author store.Change, ids []string) ([]store.Entry, error) {
	valid := make([]string, 0, len(ids))
	for _, id := range ids {
		if id, ok := canonicalID(id); ok {
			valid = append(valid, id)
		}
	}
	return c.remove(ctx, team, author, false, valid)
}

// remove takes entries off the list; each removal writes one audit row
// (which also keeps the entry's added entry: it names the change that
// listed the entry) and its outbox events, in the same change.
func (c *Core) remove(ctx context.Context, team string, author store.Change, byEmail bool, keys []string) ([]store.Entry, error) {
	if len(keys) == 0 {
		return []store.Entry{}, nil
	}
	var out []store.Entry
	err := c.d.TeamChange(ctx, team, func(ctx context.Context, tx Tx) (err error) {
		a := author
		if a.KeepComplaints, err = keepComplaints(ctx, tx, team, author); err != nil {
			return err
		}
		var m *minter
		if !c.noTrail {
			if m, err = holdTrail(ctx, tx, team, true); err != nil {
				return err
			}
		}
		out, err = c.removeIn(ctx, tx, m, team, a, byEmail, keys)
		return err
	})
	if err != nil {
		return nil, c.fail("remove from the list", err)
	}
	return out, nil
}

// removeIn is remove inside a change: the entries removed, in the order
// of keys.
func (c *Core) removeIn(ctx context.Context, tx Tx, m *minter, team string, author store.Change, byEmail bool, keys []string) ([]store.Entry, error) {
	p := &DeleteEntriesParams{Team: team, ByEmail: byEmail, Keys: keys}
	removed, err := tx.DeleteEntries(ctx, p)
	if err != nil {
		return nil, err
	}
	entries := make([]store.Entry, len(removed))
	listedBy := make(map[string]any, len(removed))
	for i, r := range removed {
		entries[i] = r.Entry
		if r.Change != nil {
			listedBy[r.ID] = r.Change
		}
	}
	out := inOrder(entries, keys, byEmail)
	if author.KeepComplaints {
		for _, e := range out {
			if e.Origin == api.OriginComplaint {
				// The change is rolled back: nothing is removed.
				return nil, &store.ComplaintError{Entry: e}
			}
		}
	}
	if c.noTrail {
		return out, nil
	}
	at := now()
	var changes []any
	if len(listedBy) > 0 {
		changes = make([]any, len(out))
		for i, e := range out {
			changes[i] = listedBy[e.ID]
		}
	}
	if err := writeAudit(ctx, tx, m, team, store.AuditRemoved, at, author, out, changes); err != nil {
		return nil, err
	}
	if err := m.save(ctx, tx); err != nil {
		return nil, err
	}
	return out, c.queueEvents(ctx, tx, team, store.AuditRemoved, at, out)
}

// RemoveExpired takes the entries due at now off their lists, as removals
// by store.Expired; see store.Store. The entries due are held by the
// change that removes them, so two sweepers never remove one twice.
func (c *Core) RemoveExpired(ctx context.Context, now time.Time, limit int) (int, error) {
	n := 0
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		n = 0
		due, err := tx.DueEntries(ctx, now.UTC(), limit)
		if err != nil {
			return err
		}
		byTeam := make(map[string][]string)
		var teams []string
		for _, e := range due {
			if _, ok := byTeam[e.Team]; !ok {
				teams = append(teams, e.Team)
			}
			byTeam[e.Team] = append(byTeam[e.Team], e.ID)
		}
		for _, team := range teams {
			// A team whose head another change holds is left to the
			// next sweep: waiting for it while holding the due entries
			// could deadlock with that change.
			var m *minter
			if !c.noTrail {
				if m, err = holdTrail(ctx, tx, team, false); err != nil {
					return err
				}
				if m == nil {
					continue
				}
			}
			out, err := c.removeIn(ctx, tx, m, team, store.Expired, false, byTeam[team])
			if err != nil {
				return err
			}
			n += len(out)
		}
		return nil
	})
	if err != nil {
		return 0, c.fail("remove the expired entries", err)
	}
	return n, nil
}

// inOrder returns the entries in the order of keys (addresses, or IDs);
// each entry once.
func inOrder(entries []store.Entry, keys []string, byEmail bool) []store.Entry {
	by := make(map[string]store.Entry, len(entries))
	for _, e := range entries {
		if byEmail {
			by[e.Email] = e
		} else {
			by[e.ID] = e
		}
	}
	out := make([]store.Entry, 0, len(entries))
	for _, k := range keys {
		if e, ok := by[k]; ok {
			out = append(out, e)
			delete(by, k)
		}
	}
	return out
}
