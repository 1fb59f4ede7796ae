package batch

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/ticket"
)

// A sync compares two lists (here: the profile's, there: another's) and
// carries what one has to the other, through runs like any other: paced,
// journaled, resumable, every pair the service's own. To tell an address
// new on one side from one removed on the other, it keeps a record of
// the addresses both lists held when they last agreed (the base, as a
// three-way merge keeps its common ancestor): an address on one side only
// that the base has was removed on the other since; one the base lacks is
// new. Without a record (the first sync of the pair) nothing is taken for
// removed. A removal is carried only when asked for (Both), and the plan
// names each one.

// Snapshot is one list as a sync read it: its entries by address, and
// what its service shows and takes beyond the batch API.
type Snapshot struct {
	Entries map[string]api.Entry
	// Ours says the service is shush's own: it showed the whole list in
	// one export, with notes and expiries, and takes entries with their
	// origin, note, expiry and evidence.
	Ours bool
	// Requests counts the requests the read took; At is the service's
	// time at the read (its Date header), zero when it sent none.
	Requests int
	At       time.Time
	// Protected is the team's protected addresses and domains (shush's
	// own service): an addition naming one is refused there.
	Protected []string
}

// ReadList reads a whole list: in one export where the service has it,
// else a page of 100 at a time; onPage hears the entries read so far.
func ReadList(ctx context.Context, c *client.Client, onPage func(entries int)) (Snapshot, error) {
	snap, err := readExport(ctx, c)
	if err == nil {
		if team, err := c.Team(ctx); err == nil {
			snap.Protected = team.Protected
			snap.Requests++
		}
		return snap, nil
	}
	// A service without the export answers 404 (its look-up of an entry
	// "export") or 405: the list is read a page at a time.
	var ae *api.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound && ae.StatusCode != http.StatusMethodNotAllowed {
		return Snapshot{}, err
	}
	snap = Snapshot{Entries: map[string]api.Entry{}, Requests: 1}
	p := client.ListParams{Limit: api.MaxBatch}
	for {
		octx, ans := client.Observe(ctx)
		page, err := c.List(octx, p)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Requests++
		if snap.At.IsZero() {
			snap.At = ans.Date()
		}
		for _, e := range page.Data {
			snap.Entries[e.Email] = e
		}
		if onPage != nil {
			onPage(len(snap.Entries))
		}
		if !page.HasMore || len(page.Data) == 0 {
			return snap, nil
		}
		p.After = page.Data[len(page.Data)-1].ID
	}
}

// readExport reads the list from the service's export (NDJSON).
func readExport(ctx context.Context, c *client.Client) (Snapshot, error) {
	pr, pw := io.Pipe()
	octx, ans := client.Observe(ctx)
	go func() {
		_, err := c.Export(octx, client.ExportParams{Format: "ndjson"}, pw)
		pw.CloseWithError(err)
	}()
	snap := Snapshot{Entries: map[string]api.Entry{}, Ours: true, Requests: 1}
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		var e api.Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			pr.CloseWithError(err)
			return Snapshot{}, fmt.Errorf("the export's line %d: %w", n, err)
		}
		snap.Entries[e.Email] = e
	}
	if err := sc.Err(); err != nil {
		return Snapshot{}, err
	}
	snap.At = ans.Date()
	return snap, nil
}

// Direction says which way a sync carries changes.
type Direction int

// The directions of a sync.
const (
	// Push carries here's new entries there.
	Push Direction = iota + 1
	// Pull carries there's new entries here.
	Pull
	// Both carries new entries both ways, and removals: an entry removed
	// on one side since the last sync is removed on the other.
	Both
)

// SyncItem is an address of a plan with its entry where it is listed.
type SyncItem struct {
	Email string    `json:"email"`
	Entry api.Entry `json:"entry"`
}

// SyncDiff is an address listed on both sides with a different origin,
// note or expiry (where both services show it).
type SyncDiff struct {
	Email string    `json:"email"`
	Here  api.Entry `json:"here"`
	There api.Entry `json:"there"`
	// What names what differs: "origin", "note", "expiry".
	What []string `json:"differs"`
}

// SyncPlan is the comparison of two lists and what each direction does.
type SyncPlan struct {
	// First says no earlier sync of the pair is on record: no address is
	// taken for removed.
	First bool `json:"first"`
	// Since is when the lists last agreed (the record's time).
	Since time.Time `json:"since,omitzero"`
	// NewHere and NewThere are listed on one side only, and were not on
	// both at the last sync: added there (or before any sync).
	NewHere  []SyncItem `json:"new_here"`
	NewThere []SyncItem `json:"new_there"`
	// GoneThere are listed here only, and were on both at the last sync:
	// removed there since. GoneHere the same the other way.
	GoneThere []SyncItem `json:"removed_there"`
	GoneHere  []SyncItem `json:"removed_here"`
	Differ    []SyncDiff `json:"differ"`
	// Same counts the addresses listed on both.
	Same int `json:"same"`
	// Expired are entries new on one side whose expiry has passed (the
	// service takes them off within a minute): not carried.
	Expired []SyncItem `json:"expired"`
	// Protected are entries new on one side that the other side's team
	// protects (its own mailboxes): not carried, as it would refuse them.
	Protected []SyncItem `json:"protected"`
	// base is the record's addresses that stay in it whatever is done:
	// those on both sides.
	both []string
	prev map[string]bool
}

// CompareLists makes the plan of two lists read now and the base of the
// last sync (nil for none). at is the service's time, which judges
// whether an expiry has passed.
func CompareLists(here, there Snapshot, rec *SyncRecord) SyncPlan {
	p := SyncPlan{First: rec == nil, prev: map[string]bool{}}
	if rec != nil {
		p.Since = rec.At
		for _, a := range rec.Base {
			p.prev[a] = true
		}
	}
	for a, e := range here.Entries {
		t, ok := there.Entries[a]
		if ok {
			p.Same++
			p.both = append(p.both, a)
			if d := differs(a, e, t, here.Ours && there.Ours); len(d.What) > 0 {
				p.Differ = append(p.Differ, d)
			}
			continue
		}
		p.sort(a, e, here.At, ticket.NewOwn(there.Protected), &p.NewHere, &p.GoneThere)
	}
	for a, e := range there.Entries {
		if _, ok := here.Entries[a]; !ok {
			p.sort(a, e, there.At, ticket.NewOwn(here.Protected), &p.NewThere, &p.GoneHere)
		}
	}
	for _, l := range [][]SyncItem{p.NewHere, p.NewThere, p.GoneHere, p.GoneThere, p.Expired, p.Protected} {
		slices.SortFunc(l, func(a, b SyncItem) int { return strings.Compare(a.Email, b.Email) })
	}
	slices.SortFunc(p.Differ, func(a, b SyncDiff) int { return strings.Compare(a.Email, b.Email) })
	slices.Sort(p.both)
	return p
}

// sort puts an address listed on one side only where it belongs: removed
// on the other side since the last sync, new, expired, or protected by
// the other side's team (protected).
func (p *SyncPlan) sort(a string, e api.Entry, now time.Time, protected ticket.Own, fresh, gone *[]SyncItem) {
	switch {
	case p.prev[a]:
		*gone = append(*gone, SyncItem{a, e})
	case e.ExpiresAt != nil && !now.IsZero() && !e.ExpiresAt.After(now.Add(time.Minute)):
		p.Expired = append(p.Expired, SyncItem{a, e})
	case !protected.Empty() && protected.Has(a):
		p.Protected = append(p.Protected, SyncItem{a, e})
	default:
		*fresh = append(*fresh, SyncItem{a, e})
	}
}

// differs compares an entry listed on both sides: the origin always; the
// note and the expiry where both services show them.
func differs(a string, here, there api.Entry, shown bool) SyncDiff {
	d := SyncDiff{Email: a, Here: here, There: there}
	if here.Origin != there.Origin {
		d.What = append(d.What, "origin")
	}
	if shown && deref(here.Note) != deref(there.Note) {
		d.What = append(d.What, "note")
	}
	if shown && !sameTime(here.ExpiresAt, there.ExpiresAt) {
		d.What = append(d.What, "expiry")
	}
	return d
}

func sameTime(a, b *api.Timestamp) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b.Time)
}

// SyncActions are what a direction of a plan changes: addresses to add
// on each side (with their entry on the other), and to remove.
type SyncActions struct {
	AddThere, AddHere       []SyncItem
	RemoveThere, RemoveHere []SyncItem
}

// Empty reports whether the actions change nothing.
func (a SyncActions) Empty() bool {
	return len(a.AddThere)+len(a.AddHere)+len(a.RemoveThere)+len(a.RemoveHere) == 0
}

// Actions are what direction d does of the plan: Push adds here's new
// entries there, Pull there's here; Both does both and removes on each
// side what was removed on the other since the last sync.
func (p SyncPlan) Actions(d Direction) SyncActions {
	var a SyncActions
	if d == Push || d == Both {
		a.AddThere = p.NewHere
	}
	if d == Pull || d == Both {
		a.AddHere = p.NewThere
	}
	if d == Both {
		// Removed there: remove here (the entries listed here); and the
		// other way.
		a.RemoveHere = p.GoneThere
		a.RemoveThere = p.GoneHere
	}
	return a
}

// SyncRecord is what a sync of two lists keeps between runs: the
// addresses both held when they last agreed, and the runs of an apply
// not yet counted into them (an apply cut off).
type SyncRecord struct {
	Here  string    `json:"here"`
	There string    `json:"there"`
	At    time.Time `json:"at"`
	Base  []string  `json:"base"`
	Runs  []string  `json:"runs,omitempty"`
	path  string
}

// syncKey names the record of a pair of lists, whichever is here.
func syncKey(here, there string) string {
	pair := []string{client.JournalTarget(here), client.JournalTarget(there)}
	slices.Sort(pair)
	sum := sha256.Sum256([]byte(pair[0] + "\n" + pair[1]))
	return hex.EncodeToString(sum[:8])
}

// LoadSync reads the record of the sync of two lists (by their clients'
// base URLs) from the run service's directory; nil when there is none.
func (rs *Runs) LoadSync(here, there string) (*SyncRecord, error) {
	dir, err := rs.dir()
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "sync", syncKey(here, there)+".json")
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &SyncRecord{Here: here, There: there, path: path}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the record of the last sync: %w", err)
	}
	rec := &SyncRecord{path: path}
	if err := json.Unmarshal(b, rec); err != nil {
		return nil, fmt.Errorf("read the record of the last sync %s: %w", path, err)
	}
	return rec, nil
}

// Known reports whether the record holds an earlier sync.
func (r *SyncRecord) Known() bool { return r != nil && !r.At.IsZero() }

// save writes the record, readable by its owner only.
func (r *SyncRecord) save() error {
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(r.path, b, 0o600)
}

// Settle counts the runs of an apply into the record: an address a run
// added (or found listed) is on both lists, one it removed (or found
// gone) is on neither. A run with entries left is kept for a resume;
// its settled entries count already.
func (rs *Runs) Settle(rec *SyncRecord) error {
	base := make(map[string]bool, len(rec.Base))
	for _, a := range rec.Base {
		base[a] = true
	}
	var left []string
	for _, id := range rec.Runs {
		ri, err := rs.Read(id, func(rep Report) error {
			for _, x := range rep.Results {
				switch x.Outcome {
				case Added, AlreadyListed:
					base[x.Address()] = true
				case Removed, NotListed:
					delete(base, x.Address())
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("read the sync's run %s: %w", id, err)
		}
		if ri.Resumable() && ri.Counts[Unsent]+ri.Counts[Failed] > 0 {
			left = append(left, id)
		}
	}
	rec.Base = slices.Sorted(func(yield func(string) bool) {
		for a := range base {
			if !yield(a) {
				return
			}
		}
	})
	rec.Runs = left
	return rec.save()
}

// Begin records the plan's outcome before the apply's runs: the base is
// every address on both lists now, and those on one side only whose
// removal the direction leaves (so that a later sync still knows them
// for removed); the runs, as they start, are added (Started). At is the
// time of the reads.
func (p SyncPlan) Begin(rec *SyncRecord, d Direction, at time.Time) error {
	base := slices.Clone(p.both)
	if d != Both {
		for _, l := range [][]SyncItem{p.GoneHere, p.GoneThere} {
			for _, x := range l {
				base = append(base, x.Email)
			}
		}
	}
	slices.Sort(base)
	rec.Base, rec.At, rec.Runs = base, at, nil
	return rec.save()
}

// Started adds a run of the apply to the record.
func (rec *SyncRecord) Started(id string) error {
	rec.Runs = append(rec.Runs, id)
	return rec.save()
}

// restoreOf is how an entry read from one list is listed on the other:
// its origin, source ID, note, expiry and evidence.
func restoreOf(e api.Entry) Restore {
	to := Restore{Origin: e.Origin, Note: deref(e.Note), Evidence: e.Evidence}
	if e.Origin == "" {
		to.Origin = api.OriginManual
	}
	if e.SourceID != nil && to.Origin != api.OriginManual {
		to.SourceID = *e.SourceID
	}
	if e.ExpiresAt != nil {
		to.ExpiresAt = e.ExpiresAt.UTC()
	}
	return to
}

// SyncSide is one list of an apply: the run service that changes it and
// what was read of it.
type SyncSide struct {
	Runs *Runs
	Snap Snapshot
}

// SyncRun is one run of an apply: what it does ("add there", "remove
// here") and its header as it ended.
type SyncRun struct {
	Action string
	Info   RunInfo
}

// syncStep is one run of an apply: the side it changes and the entries,
// read from the other side for an addition, from this one for a removal.
type syncStep struct {
	action string
	mode   Mode
	side   SyncSide
	items  []SyncItem
}

// ApplySync carries the plan out in direction d: a run per kind of change
// (adds there, adds here, removals there, removals here), each recorded in
// the sync's record as it starts and counted into it when the apply ends
// (Settle), with reference ref in both trails. An addition goes with each
// entry's origin, note, expiry and evidence where the receiving service
// takes them (shush's own), as plain addresses elsewhere; a removal goes
// by the IDs the read found, without a look-up. observe gives each run's
// observer (nil for none). It stops at the first run that fails; the
// record keeps what is left for the same apply again.
func ApplySync(ctx context.Context, plan SyncPlan, d Direction, rec *SyncRecord, here, there SyncSide, ref string,
	observe func(action string, entries int) Observer) ([]SyncRun, error) {
	at := here.Snap.At
	if at.IsZero() {
		at = time.Now().UTC()
	}
	if err := plan.Begin(rec, d, at); err != nil {
		return nil, fmt.Errorf("record the sync: %w", err)
	}
	acts := plan.Actions(d)
	var runs []SyncRun
	var runErr error
	for _, step := range []syncStep{
		{"add there", Add, there, acts.AddThere}, {"add here", Add, here, acts.AddHere},
		{"remove there", RemoveEmails, there, acts.RemoveThere}, {"remove here", RemoveEmails, here, acts.RemoveHere},
	} {
		if len(step.items) == 0 {
			continue
		}
		var on Observer
		if observe != nil {
			on = observe(step.action, len(step.items))
		}
		ri, err := step.run(ctx, rec, ref, on)
		if ri.ID != "" {
			runs = append(runs, SyncRun{Action: step.action, Info: ri})
		}
		if err != nil {
			runErr = fmt.Errorf("%s: %w", step.action, err)
			break
		}
	}
	if err := here.Runs.Settle(rec); err != nil && runErr == nil {
		runErr = err
	}
	return runs, runErr
}

// run sends one step as a recorded run.
func (s syncStep) run(ctx context.Context, rec *SyncRecord, ref string, on Observer) (RunInfo, error) {
	plan := plan{Mode: s.mode, Values: make([]string, len(s.items))}
	for i, x := range s.items {
		plan.Values[i] = x.Email
	}
	switch {
	case s.mode == Add && s.side.Snap.Ours:
		plan.Restore = make(map[string]Restore, len(s.items))
		for _, x := range s.items {
			plan.Restore[x.Email] = restoreOf(x.Entry)
		}
	case s.mode == RemoveEmails:
		plan.Found = make(map[string]Found, len(s.items))
		for _, x := range s.items {
			plan.Found[x.Email] = Found{Input: x.Email, Listed: true, Entry: x.Entry}
		}
	}
	var recErr error
	started := on.Started
	on.Started = func(ri RunInfo) {
		if ri.ID != "" {
			recErr = rec.Started(ri.ID)
		}
		if started != nil {
			started(ri)
		}
	}
	ri, err := s.side.Runs.start(ctx, plan, RunMeta{Reference: ref, Input: "sync"}, "", on)
	if err == nil && recErr != nil {
		err = fmt.Errorf("record the sync's run: %w", recErr)
	}
	return ri, err
}

// FinishCutOff settles an apply that was cut off (the record names its
// runs): with resume it first finishes each run against its own service
// (here's or there's), then counts the runs into the record. It returns
// how many runs still have entries left.
func FinishCutOff(ctx context.Context, rec *SyncRecord, here, there *Runs, resume bool) (int, error) {
	if len(rec.Runs) == 0 {
		return 0, nil
	}
	if resume {
		for _, id := range rec.Runs {
			ri, err := here.Get(id)
			if err != nil || !ri.Resumable() {
				continue
			}
			side := here
			if client.SameTarget(ri.Target, there.Client.BaseURL()) {
				side = there
			}
			if _, err := side.Resume(ctx, id, Observer{}); err != nil {
				return len(rec.Runs), fmt.Errorf("finishing the cut-off sync's run %s: %w", id, err)
			}
		}
	}
	if err := here.Settle(rec); err != nil {
		return len(rec.Runs), err
	}
	return len(rec.Runs), nil
}
