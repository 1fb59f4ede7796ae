package storetest

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

func eraser(t *testing.T, st store.Store) store.Eraser {
	t.Helper()
	e, ok := st.(store.Eraser)
	if !ok {
		t.Fatalf("%T does not erase", st)
	}
	return e
}

// SeedErasure puts addr on tm's list with every trace it can leave (a
// note, evidence and a source ID from an intake event, a review item, a
// webhook event and a delivery attempt whose answer names it, an earlier
// entry added and removed), then erases it, and checks what the store
// answers after. It returns the erased entry.
func SeedErasure(t *testing.T, st store.Store, tm, addr string) store.Erased {
	t.Helper()
	hook := newWebhook(t, st, tm, api.AuditAdded, api.AuditRemoved)
	mixed := strings.ToUpper(addr[:1]) + addr[1:]
	// An earlier entry, added and removed: the trail keeps its removal.
	if _, err := st.Add(ctx(t), tm, store.Change{Reference: "first"}, []store.NewEntry{{Email: addr, Note: "asked by " + addr}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{addr}); err != nil {
		t.Fatal(err)
	}
	// Listed again by a bounce, with evidence naming it; a second event
	// waits in review.
	in := ev("e1", addr, store.ActList)
	in.Evidence.Diagnostic = "550 5.1.1 <" + mixed + ">: user unknown"
	in.Note = "bounced: " + addr
	review := ev("e2", addr, store.ActReview)
	review.Evidence.Diagnostic = "policy: " + addr
	if _, err := st.TakeIn(ctx(t), tm, store.Change{Reference: "intake:test"}, []store.IntakeEvent{in, review}); err != nil {
		t.Fatal(err)
	}
	evs := events(t, st, tm, hook.ID)
	if len(evs) == 0 {
		t.Fatal("no webhook events were queued")
	}
	a := store.Attempt{ID: uuid.Must(uuid.NewV7()).String(), EventID: evs[0].ID, StatusCode: 400,
		Response: `{"error":"unknown recipient ` + mixed + `"}`, SentAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := st.RecordAttempt(ctx(t), a, store.Outcome{Status: api.EventFailed}); err != nil {
		t.Fatal(err)
	}

	got, err := eraser(t, st).Erase(ctx(t), tm, store.Change{Reference: "GDPR-1"}, []string{addr})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Email != addr || !got[0].Listed || got[0].Already || !strings.HasPrefix(got[0].Marker, "erased:v1:") ||
		got[0].Entry.Email != got[0].Marker || got[0].Entry.Note != "" || got[0].Entry.Evidence != nil || got[0].Entry.SourceID != nil ||
		got[0].Entry.Origin != api.OriginBounce {
		t.Fatalf("Erase: %+v; want the listed entry kept as its marker with its origin, without note, evidence or source", got)
	}
	rules, err := st.TeamSettings(ctx(t), tm)
	if err != nil {
		t.Fatal(err)
	}
	if want := keptDomain(rules, addr); got[0].Entry.ErasedDomain != want {
		t.Fatalf("Erase kept the domain %q; want %q (the team's erasure_keeps_domain is %v)", got[0].Entry.ErasedDomain, want, rules.ErasureKeepsDomain)
	}
	if got[0].Rewritten < 4 {
		t.Errorf("Erase rewrote %d other rows; want the trail, the intake's rows, the outbox and the attempt", got[0].Rewritten)
	}
	checkErased(t, st, tm, addr, got[0], hook.ID)
	return got[0]
}

// checkErased checks that the store still blocks addr through every
// look-up and names it nowhere it answers from.
func checkErased(t *testing.T, st store.Store, tm, addr string, er store.Erased, hook string) {
	t.Helper()
	found, err := st.Check(ctx(t), tm, []string{addr, "other@example.com"})
	if err != nil || len(found) != 1 || found[0].Email != addr || found[0].Erased != er.Marker || found[0].ID != er.Entry.ID ||
		!found[0].Wire("").Erased {
		t.Errorf("Check after the erasure: %+v, %v; want the erased entry, matched by its hash", found, err)
	}
	if e, err := st.GetByEmail(ctx(t), tm, addr); err != nil || e.ID != er.Entry.ID || e.Erased == "" {
		t.Errorf("GetByEmail after the erasure: %+v, %v; want the erased entry", e, err)
	}
	added, err := st.Add(ctx(t), tm, store.Change{}, []store.NewEntry{{Email: addr, Note: "back again", ExpiresAt: time.Now().Add(time.Hour)}})
	if err != nil || len(added) != 1 || added[0].Created || added[0].ID != er.Entry.ID || added[0].Email != addr || added[0].Erased == "" {
		t.Errorf("Add after the erasure: %+v, %v; want already listed, the erased entry", added, err)
	}
	e, err := st.Get(ctx(t), tm, er.Entry.ID)
	if err != nil || e.Email != er.Marker || e.Note != "" || !e.ExpiresAt.IsZero() {
		t.Errorf("the erased entry after an add of its address: %+v, %v; want it unchanged (no note nor expiry given back)", e, err)
	}
	page, err := st.Page(ctx(t), tm, store.ListQuery{Limit: 1, Search: api.Search{Kind: api.SearchExact, Value: er.Marker}})
	if err != nil || len(page.Entries) != 1 || page.Entries[0].ID != er.Entry.ID || !page.Entries[0].Wire("").Erased {
		t.Errorf("the list's entry of the marker after the erasure: %+v, %v; want the erased entry", page.Entries, err)
	}
	if page, err := st.Page(ctx(t), tm, store.ListQuery{Limit: 1, Search: api.Search{Kind: api.SearchExact, Value: addr}}); err != nil || len(page.Entries) != 0 {
		t.Errorf("the list's entry of the address after the erasure: %+v, %v; want none", page.Entries, err)
	}
	low := strings.ToLower(addr)
	trail := trail(t, st, tm, store.AuditQuery{})
	erasures := 0
	for _, a := range trail {
		if strings.Contains(strings.ToLower(a.Suppression.Email+a.Suppression.Note+a.Reference), low) {
			t.Errorf("the trail names the address: %+v", a)
		}
		if a.Suppression.Evidence != nil && strings.Contains(strings.ToLower(a.Suppression.Evidence.Diagnostic), low) {
			t.Errorf("the trail's evidence names the address: %+v", a)
		}
		if a.Type == store.AuditErased {
			erasures++
			if a.Suppression.Email != er.Marker || a.Reference != "GDPR-1" {
				t.Errorf("the erasure's trail entry: %+v; want the marker and the reference", a)
			}
		}
	}
	if erasures != 1 {
		t.Errorf("%d erasures in the trail; want 1", erasures)
	}
	for _, ev := range events(t, st, tm, hook) {
		if bytes.Contains(bytes.ToLower(ev.Payload), []byte(low)) {
			t.Errorf("webhook event %s names the address: %s", ev.ID, ev.Payload)
		}
		atts, _, err := st.WebhookAttempts(ctx(t), tm, hook, ev.ID, store.Page{Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range atts {
			if strings.Contains(strings.ToLower(a.Response), low) {
				t.Errorf("an attempt's answer names the address: %s", a.Response)
			}
		}
	}
	// A provider's event for the erased address, after the erasure: it
	// is blocked by the erased entry, and keeps no trace of the address.
	later := ev("e9-"+er.Entry.ID, addr, store.ActList)
	later.Evidence.Diagnostic = "550 <" + strings.ToUpper(addr) + "> gone"
	later.Note = "again " + addr
	inReview := ev("e10-"+er.Entry.ID, addr, store.ActReview)
	inReview.Evidence.Diagnostic = "policy " + addr
	if _, err := st.TakeIn(ctx(t), tm, store.Change{Reference: "intake:test"}, []store.IntakeEvent{later, inReview}); err != nil {
		t.Fatal(err)
	}
	if e, err := st.Get(ctx(t), tm, er.Entry.ID); err != nil || e.Note != "" || e.Evidence != nil {
		t.Errorf("the erased entry after an event for its address: %+v, %v; want nothing given back", e, err)
	}
	items, _, err := st.ReviewItems(ctx(t), tm, store.ReviewQuery{Page: store.Page{Limit: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 2 {
		t.Errorf("%d review items; want the one before the erasure and the one after", len(items))
	}
	for _, it := range items {
		if strings.Contains(strings.ToLower(fmt.Sprintf("%+v", it)), low) {
			t.Errorf("a review item names the address: %+v", it)
		}
	}
}

// EraseStaysBlocked: an erased address is matched by every look-up
// and named by no row the store answers from; an address not listed is
// listed as an erased entry; a second erasure changes nothing.
func EraseStaysBlocked(t *testing.T, st store.Store) {
	tm := team(t)
	er := SeedErasure(t, st, tm, "gone@example.com")
	again, err := eraser(t, st).Erase(ctx(t), tm, store.Change{}, []string{"gone@example.com", "never@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != 2 || !again[0].Already || again[0].Entry.ID != er.Entry.ID || again[1].Listed || again[1].Entry.ID == "" ||
		again[1].Entry.Email != again[1].Marker || !again[1].Entry.Created {
		t.Fatalf("a second erasure with a new address: %+v; want the first already erased, the second listed as erased", again)
	}
	found, err := st.Check(ctx(t), tm, []string{"never@example.com"})
	if err != nil || len(found) != 1 || found[0].ID != again[1].Entry.ID {
		t.Errorf("Check of an address erased without being listed: %+v, %v; want its erased entry", found, err)
	}
	if got := trail(t, st, tm, store.AuditQuery{Type: store.AuditErased}); len(got) != 2 {
		t.Errorf("%d erasures in the trail after erasing a second address; want 2", len(got))
	}
	// Another team's list knows nothing of it.
	other := team(t)
	if found, err := st.Check(ctx(t), other, []string{"gone@example.com"}); err != nil || len(found) != 0 {
		t.Errorf("another team's check: %+v, %v; want nothing", found, err)
	}
}

// keptDomain is the domain an erasure of addr keeps under the team's
// rules: none unless the team keeps it.
func keptDomain(rules store.TeamSettings, addr string) string {
	if !rules.ErasureKeepsDomain {
		return ""
	}
	return addr[strings.LastIndexByte(addr, '@')+1:]
}

// KeepDomain sets the team's rule that erasures keep the address's
// domain.
func KeepDomain(t *testing.T, st store.Store, tm string) {
	t.Helper()
	rules, err := st.TeamSettings(ctx(t), tm)
	if err != nil {
		t.Fatal(err)
	}
	rules.ErasureKeepsDomain = true
	if err := st.SetTeamSettings(ctx(t), rules); err != nil {
		t.Fatal(err)
	}
}

// EraseKeepsDomain: with the team's rule on, an erased entry (listed
// before, or listed by the erasure) keeps its address's domain, and every
// look-up, the list and the export answer it; with the rule off it keeps
// none, and turning the rule on later gives none back to entries erased
// before; another team's rule is its own.
func EraseKeepsDomain(t *testing.T, st store.Store) {
	e := eraser(t, st)
	// Erased while the rule was off: nothing kept, nor given back when
	// the rule is turned on.
	before := team(t)
	if _, err := st.Add(ctx(t), before, store.Change{}, store.Manual("before@off.example")); err != nil {
		t.Fatal(err)
	}
	if got, err := e.Erase(ctx(t), before, store.Change{}, []string{"before@off.example"}); err != nil || len(got) != 1 || got[0].Entry.ErasedDomain != "" {
		t.Fatalf("an erasure with the rule off: %+v, %v; want no domain kept", got, err)
	}
	KeepDomain(t, st, before)
	if found, err := st.Check(ctx(t), before, []string{"before@off.example"}); err != nil || len(found) != 1 || found[0].ErasedDomain != "" {
		t.Errorf("Check of an entry erased before the rule was on: %+v, %v; want no domain", found, err)
	}

	tm := team(t)
	KeepDomain(t, st, tm)
	if rules, err := st.TeamSettings(ctx(t), tm); err != nil || !rules.ErasureKeepsDomain {
		t.Fatalf("TeamSettings after setting the rule: %+v, %v; want erasure_keeps_domain on", rules, err)
	}
	er := SeedErasure(t, st, tm, "kept.person@sub.keep.example")
	if er.Entry.ErasedDomain != "sub.keep.example" {
		t.Fatalf("the erased entry keeps %q; want sub.keep.example", er.Entry.ErasedDomain)
	}
	fresh, err := e.Erase(ctx(t), tm, store.Change{}, []string{"never.listed@keep.example"})
	if err != nil || len(fresh) != 1 || fresh[0].Listed || fresh[0].Entry.ErasedDomain != "keep.example" {
		t.Fatalf("an erasure of an address not listed: %+v, %v; want an erased entry keeping keep.example", fresh, err)
	}
	found, err := st.Check(ctx(t), tm, []string{"kept.person@sub.keep.example", "never.listed@keep.example"})
	if err != nil || len(found) != 2 {
		t.Fatalf("Check: %+v, %v; want the two erased entries", found, err)
	}
	want := map[string]string{"kept.person@sub.keep.example": "sub.keep.example", "never.listed@keep.example": "keep.example"}
	for _, f := range found {
		if f.ErasedDomain != want[f.Email] || f.Erased == "" {
			t.Errorf("Check of %s: erased %q, domain %q; want domain %q", f.Email, f.Erased, f.ErasedDomain, want[f.Email])
		}
	}
	if g, err := st.Get(ctx(t), tm, fresh[0].Entry.ID); err != nil || g.ErasedDomain != "keep.example" {
		t.Errorf("Get of the erased entry: %+v, %v; want its domain", g, err)
	}
	byMarker := map[string]string{}
	if err := st.Export(ctx(t), tm, store.ListQuery{}, func(x store.Entry) error {
		byMarker[x.Email] = x.ErasedDomain
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if byMarker[er.Marker] != "sub.keep.example" || byMarker[fresh[0].Marker] != "keep.example" || len(byMarker) != 2 {
		t.Errorf("the export: %v; want the two erased entries with their domains", byMarker)
	}
	// A removal's webhook payload, which the outbox keeps after the
	// entry is gone, does not carry the domain: it goes with the entry.
	hook := newWebhook(t, st, tm, api.AuditRemoved)
	if _, err := st.RemoveIDs(ctx(t), tm, store.Change{}, []string{fresh[0].Entry.ID}); err != nil {
		t.Fatal(err)
	}
	evs := events(t, st, tm, hook.ID)
	if len(evs) != 1 || !strings.Contains(string(evs[0].Payload), fresh[0].Marker) || strings.Contains(string(evs[0].Payload), "keep.example") {
		t.Errorf("the removal's webhook events: %+v; want one naming the marker, not the domain", evs)
	}
	// Another team's rule is its own.
	other := team(t)
	if got, err := e.Erase(ctx(t), other, store.Change{}, []string{"x@keep.example"}); err != nil || len(got) != 1 || got[0].Entry.ErasedDomain != "" {
		t.Errorf("an erasure on another team: %+v, %v; want no domain kept", got, err)
	}
}

// EraseRotation: after a rotation, new erasures hash with the new
// version and the entries of the old one are still matched; the versions
// say how many entries use each; no answer holds the secret.
func EraseRotation(t *testing.T, st store.Store) {
	tm := team(t)
	e := eraser(t, st)
	if _, err := e.Erase(ctx(t), tm, store.Change{}, []string{"old@example.com"}); err != nil {
		t.Fatal(err)
	}
	v, err := e.RotateErasureSecret(ctx(t), tm)
	if err != nil || v != 2 {
		t.Fatalf("RotateErasureSecret: %d, %v; want version 2", v, err)
	}
	got, err := e.Erase(ctx(t), tm, store.Change{}, []string{"new@example.com"})
	if err != nil || len(got) != 1 || !strings.HasPrefix(got[0].Marker, "erased:v2:") {
		t.Fatalf("an erasure after the rotation: %+v, %v; want a marker of version 2", got, err)
	}
	found, err := st.Check(ctx(t), tm, []string{"old@example.com", "new@example.com"})
	if err != nil || len(found) != 2 {
		t.Fatalf("Check after the rotation: %+v, %v; want both erased entries, by either version", found, err)
	}
	for _, f := range found {
		if f.Email == "old@example.com" && !strings.HasPrefix(f.Erased, "erased:v1:") {
			t.Errorf("the entry erased before the rotation: %+v; want its version 1 marker", f)
		}
	}
	added, err := st.Add(ctx(t), tm, store.Change{}, store.Manual("old@example.com"))
	if err != nil || len(added) != 1 || added[0].Created {
		t.Errorf("an add of an address erased before the rotation: %+v, %v; want already listed", added, err)
	}
	vs, err := e.ErasureVersions(ctx(t), tm)
	if err != nil || len(vs) != 2 || vs[0].Version != 1 || vs[0].Entries != 1 || vs[1].Version != 2 || vs[1].Entries != 1 {
		t.Errorf("ErasureVersions: %+v, %v; want versions 1 and 2, one entry each", vs, err)
	}
}

// PruneIntakeEvents: the events the intake took in before a cut are
// deleted (a replay of one is then taken in again); later ones stay (a
// replay of one is still a duplicate).
func PruneIntakeEvents(t *testing.T, st store.Store) {
	tm := team(t)
	p, ok := st.(store.IntakePruner)
	if !ok {
		t.Fatalf("%T does not prune the intake's events", st)
	}
	old := ev("old-"+tm, "old@example.com", store.ActIgnore)
	if _, err := st.TakeIn(ctx(t), tm, store.Change{}, []store.IntakeEvent{old}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(5 * time.Millisecond)
	cut := time.Now()
	time.Sleep(5 * time.Millisecond)
	recent := ev("new-"+tm, "new@example.com", store.ActIgnore)
	if _, err := st.TakeIn(ctx(t), tm, store.Change{}, []store.IntakeEvent{recent}); err != nil {
		t.Fatal(err)
	}
	n, err := p.PruneIntakeEvents(ctx(t), cut)
	if err != nil || n < 1 {
		t.Fatalf("PruneIntakeEvents: %d, %v; want the old event", n, err)
	}
	got, err := st.TakeIn(ctx(t), tm, store.Change{}, []store.IntakeEvent{old, recent})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Decision == api.DecisionDuplicate || got[1].Decision != api.DecisionDuplicate {
		t.Errorf("after the prune: %s, %s; want the pruned event taken in again, the recent one a duplicate", got[0].Decision, got[1].Decision)
	}
}
