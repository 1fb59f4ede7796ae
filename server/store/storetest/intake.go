package storetest

import (
	"encoding/json"
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

// evidence is an event's evidence with a time cut to the milliseconds
// the wire shows.
func evidence(kind, status string) api.Evidence {
	at := api.Timestamp{Time: time.Date(2026, 11, 2, 9, 30, 0, 123e6, time.UTC)}
	return api.Evidence{Provider: api.ProviderSendGrid, EventID: "ev-" + status, MessageID: "msg-1@example.com", Kind: kind,
		Status: status, Diagnostic: "550 5.1.1 <x@example.com>: user unknown \x1b[2J", ReportingMTA: "mx.example.com", ReportedAt: &at}
}

// sameEvidence compares evidence as the wire shows it.
func sameEvidence(a, b *api.Evidence) bool {
	if a == nil || b == nil {
		return a == b
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// testEvidence: an entry's evidence reads back wherever the entry does
// (get, list, a page of its origin, export, check, the trail while listed
// and after removal, the webhook's payload); an entry without one has
// none; a re-add gives evidence to an entry that has none and never
// replaces one.
func testEvidence(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditAdded, api.AuditRemoved)
	ev := evidence(api.EvidenceBounce, "5.1.1")
	got, err := st.Add(ctx(t), tm, store.Change{KeyID: "k", KeyName: "intake"}, []store.NewEntry{
		{Email: "hard@example.com", Origin: api.OriginBounce, Evidence: &ev},
		{Email: "plain@example.com"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sameEvidence(got[0].Evidence, &ev) || got[1].Evidence != nil {
		t.Fatalf("Add returned evidence %+v and %+v; want the event's and none", got[0].Evidence, got[1].Evidence)
	}
	e, err := st.Get(ctx(t), tm, got[0].ID)
	if err != nil || !sameEvidence(e.Evidence, &ev) {
		t.Errorf("Get: %+v, %v; want the evidence", e.Evidence, err)
	}
	if e, _ := st.GetByEmail(ctx(t), tm, "plain@example.com"); e.Evidence != nil {
		t.Errorf("an entry made by hand has evidence %+v", e.Evidence)
	}
	for _, q := range []store.ListQuery{{Limit: 10}, {Limit: 10, Origin: api.OriginBounce}} {
		page, _, err := st.List(ctx(t), tm, q)
		if err != nil {
			t.Fatal(err)
		}
		i := slices.IndexFunc(page, func(e store.Entry) bool { return e.Email == "hard@example.com" })
		if i < 0 || !sameEvidence(page[i].Evidence, &ev) {
			t.Errorf("List(%+v) shows the entry's evidence as %v", q, page)
		}
	}
	var exported *api.Evidence
	if err := st.Export(ctx(t), tm, store.ListQuery{}, func(e store.Entry) error {
		if e.Email == "hard@example.com" {
			exported = e.Evidence
		} else if e.Evidence != nil {
			return fmt.Errorf("%s exported with evidence %+v", e.Email, e.Evidence)
		}
		return nil
	}); err != nil || !sameEvidence(exported, &ev) {
		t.Errorf("Export: evidence %+v, %v", exported, err)
	}
	checked, err := st.Check(ctx(t), tm, []string{"hard@example.com"})
	if err != nil || len(checked) != 1 || !sameEvidence(checked[0].Evidence, &ev) {
		t.Errorf("Check = %+v, %v", checked, err)
	}

	// A re-add gives evidence to an entry without one, never replaces it.
	other := evidence(api.EvidenceComplaint, "")
	again, err := st.Add(ctx(t), tm, store.Change{}, []store.NewEntry{
		{Email: "hard@example.com", Origin: api.OriginComplaint, Evidence: &other},
		{Email: "plain@example.com", Origin: api.OriginComplaint, Evidence: &other},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sameEvidence(again[0].Evidence, &ev) || !sameEvidence(again[1].Evidence, &other) || again[1].Origin != api.OriginManual {
		t.Errorf("re-add: %+v and %+v; want the first evidence kept, the second given (origin kept)", again[0], again[1])
	}

	if _, err := st.RemoveEmails(ctx(t), tm, store.Change{}, []string{"hard@example.com"}); err != nil {
		t.Fatal(err)
	}
	trail, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 10, Email: "hard@example.com"})
	if err != nil || len(trail) != 2 {
		t.Fatalf("the trail of a removed entry = %+v, %v; want its addition and removal", trail, err)
	}
	for _, a := range trail {
		if !sameEvidence(a.Suppression.Evidence, &ev) {
			t.Errorf("trail %s: evidence %+v; want the entry's", a.Type, a.Suppression.Evidence)
		}
	}
	payloads := 0
	for _, w := range events(t, st, tm, hook.ID) {
		var p struct {
			Data api.Entry `json:"data"`
		}
		if err := json.Unmarshal(w.Payload, &p); err != nil {
			t.Fatal(err)
		}
		if p.Data.Email == "hard@example.com" {
			payloads++
			if !sameEvidence(p.Data.Evidence, &ev) {
				t.Errorf("webhook payload %s: evidence %+v", w.Payload, p.Data.Evidence)
			}
		}
	}
	if payloads != 2 {
		t.Errorf("%d webhook events of the entry; want its addition and removal", payloads)
	}
}

// testIntakeEndpoints: endpoints are kept per team within the limit,
// found by ID from any team, deleted by their own team only; a topic is
// pinned once.
func testIntakeEndpoints(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	at := time.Now().UTC().Truncate(time.Millisecond)
	a := store.Intake{ID: uuid.NewString(), Team: tm, Provider: api.ProviderResend, Name: "prod", Credential: "whsec_x", CreatedAt: at}
	b := store.Intake{ID: uuid.NewString(), Team: tm, Provider: api.ProviderSES, Credential: "", CreatedAt: at.Add(time.Millisecond)}
	for _, in := range []store.Intake{a, b} {
		if err := st.CreateIntake(ctx(t), in, 2); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.CreateIntake(ctx(t), store.Intake{ID: uuid.NewString(), Team: tm, Provider: api.ProviderMailgun, Credential: "k", CreatedAt: at}, 2); !errors.Is(err, store.ErrTooMany) {
		t.Errorf("a third endpoint past a limit of 2: %v, want ErrTooMany", err)
	}
	list, err := st.ListIntakes(ctx(t), tm)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID || list[0].Credential != "whsec_x" || !list[0].CreatedAt.Equal(at) {
		t.Errorf("ListIntakes = %+v, %v; want both, oldest first, as stored", list, err)
	}
	if list, _ := st.ListIntakes(ctx(t), other); len(list) != 0 {
		t.Errorf("another team lists %+v", list)
	}
	got, err := st.IntakeByID(ctx(t), a.ID)
	if err != nil || got.Team != tm || got.Provider != api.ProviderResend || got.Name != "prod" {
		t.Errorf("IntakeByID = %+v, %v", got, err)
	}
	for _, id := range []string{uuid.NewString(), "not-an-id"} {
		if _, err := st.IntakeByID(ctx(t), id); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("IntakeByID(%s): %v, want ErrNotFound", id, err)
		}
	}
	topic, err := st.PinTopic(ctx(t), b.ID, "arn:aws:sns:us-east-1:1:first")
	if err != nil || topic != "arn:aws:sns:us-east-1:1:first" {
		t.Errorf("PinTopic = %q, %v", topic, err)
	}
	if topic, _ := st.PinTopic(ctx(t), b.ID, "arn:aws:sns:us-east-1:1:second"); topic != "arn:aws:sns:us-east-1:1:first" {
		t.Errorf("a second PinTopic moved the topic to %q", topic)
	}
	if err := st.DeleteIntake(ctx(t), other, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another team deletes the endpoint: %v, want ErrNotFound", err)
	}
	if err := st.DeleteIntake(ctx(t), tm, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := st.IntakeByID(ctx(t), a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a deleted endpoint is still found: %v", err)
	}
}

// ev is an event of the test's provider.
func ev(id, email, action string) store.IntakeEvent {
	e := store.IntakeEvent{Provider: api.ProviderMailgun, EventID: id, Email: email, Action: action, Origin: api.OriginBounce,
		Evidence: api.Evidence{Provider: api.ProviderMailgun, EventID: id, Kind: api.EvidenceBounce, Status: "5.1.1"}, Reason: "why " + id}
	if action == store.ActCount {
		e.Evidence.Status = "4.2.2"
	}
	return e
}

func decisions(rs []store.IntakeResult) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Email + " " + r.Decision
	}
	return out
}

// testTakeIn: each action does what it says; a replay, in a later call or
// in the same one, is a duplicate that writes nothing (no second trail
// entry, no second webhook event); temporary failures list the address
// once the team's policy is met, with the policy's expiry, counting one
// message once; a listing of a protected address goes to review.
func testTakeIn(t *testing.T, st store.Store) {
	tm := team(t)
	hook := newWebhook(t, st, tm, api.AuditAdded)
	if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{"@own.test"}, ComplaintRemoval: store.ComplaintConfirm,
		Intake: store.IntakePolicy{Threshold: 2, Window: time.Hour, Expiry: 48 * time.Hour}}); err != nil {
		t.Fatal(err)
	}
	author := store.Change{Reference: "intake:test"}
	first := []store.IntakeEvent{
		ev("1", "hard@example.com", store.ActList),
		ev("2", "soft@example.com", store.ActCount),
		ev("3", "policy@example.com", store.ActReview),
		ev("4", "away@example.com", store.ActIgnore),
		ev("5", "boss@own.test", store.ActList),
		ev("1", "hard@example.com", store.ActList), // the same event twice in one call
	}
	got, err := st.TakeIn(ctx(t), tm, author, first)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"hard@example.com listed", "soft@example.com counted", "policy@example.com review", "away@example.com ignored",
		"boss@own.test review", "hard@example.com duplicate"}
	if !slices.Equal(decisions(got), want) {
		t.Fatalf("TakeIn decided %q; want %q", decisions(got), want)
	}
	hard, err := st.GetByEmail(ctx(t), tm, "hard@example.com")
	if err != nil || got[0].EntryID != hard.ID || hard.Origin != api.OriginBounce || hard.Evidence == nil || hard.Evidence.EventID != "1" || !hard.ExpiresAt.IsZero() {
		t.Errorf("listed entry %+v, %v; want origin bounce, the evidence, no expiry, the ID answered (%s)", hard, err, got[0].EntryID)
	}
	if got[4].ReviewID == "" || got[4].Reason == "" {
		t.Errorf("a protected address's event went to review as %+v; want an item and the reason", got[4])
	}
	for _, e := range []string{"soft@example.com", "policy@example.com", "away@example.com", "boss@own.test"} {
		if _, err := st.GetByEmail(ctx(t), tm, e); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s is listed (%v)", e, err)
		}
	}

	// The same events again: all duplicates, nothing written.
	again, err := st.TakeIn(ctx(t), tm, author, first[:5])
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range again {
		if r.Decision != api.DecisionDuplicate {
			t.Errorf("replay of %s: %s, want duplicate", r.EventID, r.Decision)
		}
	}
	// A second temporary failure of the same message counts once; one of
	// another message meets the threshold of 2.
	sameMsg, otherMsg := ev("6", "soft@example.com", store.ActCount), ev("7", "soft@example.com", store.ActCount)
	sameMsg.MessageKey, otherMsg.MessageKey = "2", "m-7"
	got, err = st.TakeIn(ctx(t), tm, author, []store.IntakeEvent{sameMsg})
	if err != nil || got[0].Decision != api.DecisionCounted {
		t.Fatalf("a second failure of one message: %+v, %v; want counted", got, err)
	}
	before := time.Now()
	got, err = st.TakeIn(ctx(t), tm, author, []store.IntakeEvent{otherMsg})
	if err != nil || got[0].Decision != api.DecisionListed {
		t.Fatalf("the threshold's failure: %+v, %v; want listed", got, err)
	}
	soft, err := st.GetByEmail(ctx(t), tm, "soft@example.com")
	if err != nil || soft.ExpiresAt.Before(before.Add(47*time.Hour)) || soft.ExpiresAt.After(time.Now().Add(49*time.Hour)) || soft.Evidence == nil || soft.Evidence.Status != "4.2.2" {
		t.Errorf("listed by the threshold: %+v, %v; want an expiry 48 h on and the failure's evidence", soft, err)
	}

	// A one-time key taken in before makes another event a replay.
	withToken, sameToken := ev("8", "token1@example.com", store.ActList), ev("9", "token2@example.com", store.ActList)
	withToken.ReplayKeys, sameToken.ReplayKeys = []string{"token:T"}, []string{"token:T"}
	if got, err := st.TakeIn(ctx(t), tm, author, []store.IntakeEvent{withToken}); err != nil || got[0].Decision != api.DecisionListed {
		t.Fatalf("an event with a one-time key: %+v, %v", got, err)
	}
	if got, err := st.TakeIn(ctx(t), tm, author, []store.IntakeEvent{sameToken}); err != nil || got[0].Decision != api.DecisionDuplicate {
		t.Errorf("another event with the same one-time key: %+v, %v; want duplicate", got, err)
	}
	if _, err := st.GetByEmail(ctx(t), tm, "token2@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the replayed key's event listed its address (%v)", err)
	}

	trail, _, err := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(trail) != 3 {
		t.Errorf("the trail has %d entries; want 3 (hard, soft, token1): replays write none", len(trail))
	}
	for _, a := range trail {
		if a.Reference != "intake:test" || a.KeyID != "" {
			t.Errorf("trail entry %+v; want the author's reference and no key", a)
		}
	}
	if n := len(events(t, st, tm, hook.ID)); n != 3 {
		t.Errorf("%d webhook events; want 3", n)
	}
	if n, err := st.CountReview(ctx(t), tm); err != nil || n != 2 {
		t.Errorf("CountReview = %d, %v; want 2", n, err)
	}
}

// testTakeInConcurrentReplays: the same event delivered many times at
// once is taken in once.
func testTakeInConcurrentReplays(t *testing.T, st store.Store) {
	tm := team(t)
	var wg sync.WaitGroup
	results := make([]string, 8)
	errs := make([]error, 8)
	for i := range results {
		wg.Go(func() {
			got, err := st.TakeIn(ctx(t), tm, store.Change{}, []store.IntakeEvent{ev("same", "race@example.com", store.ActList), ev("r2", "race2@example.com", store.ActReview)})
			if err == nil {
				results[i] = got[0].Decision + " " + got[1].Decision
			}
			errs[i] = err
		})
	}
	wg.Wait()
	listed := 0
	for i, r := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		switch r {
		case "listed review":
			listed++
		case "duplicate duplicate":
		default:
			t.Errorf("one delivery was decided %q", r)
		}
	}
	if listed != 1 {
		t.Errorf("%d deliveries took the event in; want 1", listed)
	}
	if n, _ := st.CountReview(ctx(t), tm); n != 1 {
		t.Errorf("%d review items; want 1", n)
	}
	if trail, _, _ := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 10}); len(trail) != 1 {
		t.Errorf("%d trail entries; want 1", len(trail))
	}
}

// testIntakePolicy: a team's policy reads back as set; a team that set
// none has the defaults, as zero.
func testIntakePolicy(t *testing.T, st store.Store) {
	tm := team(t)
	if got, _ := st.TeamSettings(ctx(t), tm); got.Intake != (store.IntakePolicy{}) {
		t.Errorf("a new team's policy = %+v; want zero (the defaults)", got.Intake)
	}
	p := store.IntakePolicy{Threshold: 5, Window: 36 * time.Hour, Expiry: 3 * 24 * time.Hour}
	if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{}, ComplaintRemoval: store.ComplaintConfirm, Intake: p}); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.TeamSettings(ctx(t), tm); got.Intake != p {
		t.Errorf("policy read back = %+v; want %+v", got.Intake, p)
	}
	if d := (store.IntakePolicy{}).Effective(); d.Threshold != 3 || d.Window != 7*24*time.Hour || d.Expiry != 7*24*time.Hour {
		t.Errorf("the default policy = %+v; want 3 within 7 days, for 7 days", d)
	}
}

// testReviewQueue: items wait newest first until decided; suppress lists
// the address by the decision's author with the event's evidence, in the
// trail; ignore lists nothing; a decision again the same way is the same
// answer, the other way ErrDecided; a protected address cannot be
// suppressed and its item keeps waiting.
func testReviewQueue(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	got, err := st.TakeIn(ctx(t), tm, store.Change{}, []store.IntakeEvent{
		ev("a", "policy@example.com", store.ActReview), ev("b", "odd@example.com", store.ActReview), ev("c", "boss@own.test", store.ActReview),
	})
	if err != nil {
		t.Fatal(err)
	}
	page, more, err := st.ReviewItems(ctx(t), tm, store.ReviewQuery{Page: store.Page{Limit: 10}})
	if err != nil || more || len(page) != 3 || page[0].Email != "boss@own.test" || page[2].Email != "policy@example.com" {
		t.Fatalf("ReviewItems = %+v, %v, %v; want the three, newest first", page, more, err)
	}
	if it := page[2]; it.ID != got[0].ReviewID || it.Reason != "why a" || it.Evidence.EventID != "a" || it.Provider != api.ProviderMailgun || it.Decision != "" {
		t.Errorf("item %+v; want its ID, reason, evidence, provider, waiting", it)
	}
	if page, _, _ := st.ReviewItems(ctx(t), other, store.ReviewQuery{Page: store.Page{Limit: 10}}); len(page) != 0 {
		t.Errorf("another team sees %+v", page)
	}
	agent := store.Change{AgentID: "ag", AgentName: "jane", Reference: "review"}
	item, err := st.Decide(ctx(t), tm, got[0].ReviewID, agent, api.ReviewSuppress, "5.7.1 from a real block, checked")
	if err != nil || item.Decision != api.ReviewSuppress || item.DecidedBy != "agent jane" || item.EntryID == "" || item.DecidedAt.IsZero() {
		t.Fatalf("Decide suppress = %+v, %v", item, err)
	}
	e, err := st.GetByEmail(ctx(t), tm, "policy@example.com")
	if err != nil || e.ID != item.EntryID || e.Origin != api.OriginBounce || e.Evidence == nil || e.Evidence.EventID != "a" || e.Note != "5.7.1 from a real block, checked" {
		t.Errorf("suppressed entry %+v, %v", e, err)
	}
	trail, _, _ := st.Audit(ctx(t), tm, store.AuditQuery{Limit: 10, Email: "policy@example.com"})
	if len(trail) != 1 || trail[0].AgentName != "jane" || trail[0].Reference != "review" {
		t.Errorf("the decision's trail = %+v; want one addition by agent jane", trail)
	}
	if again, err := st.Decide(ctx(t), tm, got[0].ReviewID, agent, api.ReviewSuppress, ""); err != nil || again.EntryID != item.EntryID {
		t.Errorf("the same decision again = %+v, %v; want the item as it is", again, err)
	}
	if _, err := st.Decide(ctx(t), tm, got[0].ReviewID, agent, api.ReviewIgnore, ""); !errors.Is(err, store.ErrDecided) {
		t.Errorf("the other decision: %v, want ErrDecided", err)
	}
	if item, err := st.Decide(ctx(t), tm, got[1].ReviewID, store.Change{KeyID: "k1", KeyName: "ops"}, api.ReviewIgnore, ""); err != nil || item.DecidedBy != "ops" {
		t.Errorf("Decide ignore = %+v, %v", item, err)
	}
	if _, err := st.GetByEmail(ctx(t), tm, "odd@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("an ignored event's address is listed: %v", err)
	}
	if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{"@own.test"}, ComplaintRemoval: store.ComplaintConfirm}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Decide(ctx(t), tm, got[2].ReviewID, agent, api.ReviewSuppress, ""); !errors.As(err, new(*store.ProtectedError)) {
		t.Errorf("suppressing a protected address: %v, want a *ProtectedError", err)
	}
	for _, id := range []string{uuid.NewString(), "nope"} {
		if _, err := st.Decide(ctx(t), tm, id, agent, api.ReviewIgnore, ""); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Decide(%s): %v, want ErrNotFound", id, err)
		}
	}
	if _, err := st.Decide(ctx(t), other, got[2].ReviewID, agent, api.ReviewIgnore, ""); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("another team decides the item: %v, want ErrNotFound", err)
	}
	waiting, _, _ := st.ReviewItems(ctx(t), tm, store.ReviewQuery{Page: store.Page{Limit: 10}})
	decided, _, _ := st.ReviewItems(ctx(t), tm, store.ReviewQuery{Page: store.Page{Limit: 10}, Decided: true})
	if len(waiting) != 1 || waiting[0].Email != "boss@own.test" || len(decided) != 2 {
		t.Errorf("after the decisions: %d waiting (%+v), %d decided; want the protected one waiting, 2 decided", len(waiting), waiting, len(decided))
	}
	if n, _ := st.CountReview(ctx(t), tm); n != 1 {
		t.Errorf("CountReview = %d; want 1", n)
	}
	if it, err := st.ReviewItem(ctx(t), tm, got[1].ReviewID); err != nil || it.Decision != api.ReviewIgnore {
		t.Errorf("ReviewItem = %+v, %v", it, err)
	}
}
