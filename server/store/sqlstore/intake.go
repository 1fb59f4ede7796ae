package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// CreateIntake stores a new endpoint within the team's limit; see
// store.Intakes.
func (c *Core) CreateIntake(ctx context.Context, in store.Intake, limit int) error {
	in.CreatedAt = in.CreatedAt.UTC().Truncate(time.Millisecond)
	if limit <= 0 {
		limit = math.MaxInt32
	}
	return c.fail("create the intake endpoint", c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		n, err := tx.InsertIntake(ctx, in, limit)
		if err == nil && n == 0 {
			err = store.ErrTooMany
		}
		return err
	}))
}

// ListIntakes returns the team's endpoints; see store.Intakes.
func (c *Core) ListIntakes(ctx context.Context, team string) ([]store.Intake, error) {
	out, err := c.d.Intakes(ctx, team)
	if out == nil {
		out = []store.Intake{}
	}
	return out, c.fail("read the intake endpoints", err)
}

// IntakeByID returns the endpoint with this ID; see store.Intakes.
func (c *Core) IntakeByID(ctx context.Context, id string) (store.Intake, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.Intake{}, store.ErrNotFound
	}
	in, err := c.d.Intake(ctx, id)
	return in, c.readErr("read the intake endpoint", err)
}

// DeleteIntake removes the team's endpoint; see store.Intakes.
func (c *Core) DeleteIntake(ctx context.Context, team, id string) error {
	id, ok := canonicalID(id)
	if !ok {
		return store.ErrNotFound
	}
	return c.changeOne(ctx, "delete the intake endpoint", func(ctx context.Context, tx Tx) (int64, error) {
		return tx.DeleteIntake(ctx, team, id)
	})
}

// PinTopic makes arn the endpoint's only topic unless it has one; see
// store.Intakes.
func (c *Core) PinTopic(ctx context.Context, id, arn string) (string, error) {
	var topic string
	err := c.d.Change(ctx, func(ctx context.Context, tx Tx) (err error) {
		topic, err = tx.PinTopic(ctx, id, arn)
		return err
	})
	return topic, c.readErr("pin the endpoint's topic", err)
}

// TakeIn records the events and does what their actions say, in one
// change of the team's list; see store.Intakes.
func (c *Core) TakeIn(ctx context.Context, team string, author store.Change, events []store.IntakeEvent) ([]store.IntakeResult, error) {
	if len(events) == 0 {
		return []store.IntakeResult{}, nil
	}
	var out []store.IntakeResult
	err := c.d.TeamChange(ctx, team, func(ctx context.Context, tx Tx) (err error) {
		out, err = c.takeIn(ctx, tx, team, author, events)
		return err
	})
	if err != nil {
		return nil, c.fail("take in the events", err)
	}
	return out, nil
}

// intaking is one TakeIn inside its change: the results so far, the
// events to list (by index) and those to put before an agent.
type intaking struct {
	team    string
	at      time.Time
	events  []store.IntakeEvent
	out     []store.IntakeResult
	list    []int
	expires map[int]time.Time
	review  []int
	notes   map[int]string
	policy  store.IntakePolicy
}

func (c *Core) takeIn(ctx context.Context, tx Tx, team string, author store.Change, events []store.IntakeEvent) ([]store.IntakeResult, error) {
	events, err := eraseIncoming(ctx, tx, team, events)
	if err != nil {
		return nil, err
	}
	k := &intaking{team: team, at: now(), events: events, out: make([]store.IntakeResult, len(events)), expires: map[int]time.Time{}, notes: map[int]string{}}
	claimed, err := k.claim(ctx, tx)
	if err != nil {
		return nil, err
	}
	if slices.ContainsFunc(events, func(e store.IntakeEvent) bool { return e.Action == store.ActCount }) {
		// The policy matters to counts only.
		if k.policy, err = policyIn(ctx, tx, team); err != nil {
			return nil, err
		}
	}
	for i, e := range events {
		k.out[i] = store.IntakeResult{Email: e.Email, EventID: e.EventID, Reason: e.Reason}
		if !takeKeys(claimed, e) {
			k.out[i].Decision, k.out[i].Reason = api.DecisionDuplicate, ""
			continue
		}
		if err := k.place(ctx, tx, i); err != nil {
			return nil, err
		}
	}
	if err := c.listIn(ctx, tx, author, k); err != nil {
		return nil, err
	}
	return k.out, k.queue(ctx, tx)
}

// takeKeys says whether every key of e was claimed by this change and not
// by an event before it in the request, and takes them: a second event
// of the request with one of its keys is a replay.
func takeKeys(claimed map[string]bool, e store.IntakeEvent) bool {
	keys := append([]string{ClaimKey(e.Provider, e.EventID)}, replayKeys(e)...)
	ok := true
	for _, key := range keys {
		ok = ok && claimed[key]
	}
	if ok {
		for _, key := range keys {
			delete(claimed, key)
		}
	}
	return ok
}

func replayKeys(e store.IntakeEvent) []string {
	out := make([]string, len(e.ReplayKeys))
	for i, k := range e.ReplayKeys {
		out[i] = ClaimKey(e.Provider, k)
	}
	return out
}

// claim records the events not recorded before and says which they are.
func (k *intaking) claim(ctx context.Context, tx Tx) (map[string]bool, error) {
	p := &ClaimEventsParams{Team: k.team, At: k.at}
	seen := make(map[string]bool, len(k.events))
	for _, e := range k.events {
		key := ClaimKey(e.Provider, e.EventID)
		if seen[key] {
			continue
		}
		seen[key] = true
		mk := e.MessageKey
		if mk == "" {
			mk = e.EventID
		}
		p.Rows = append(p.Rows, EventClaim{Provider: e.Provider, EventID: e.EventID, Email: e.Email, Temporary: e.Action == store.ActCount, MessageKey: mk})
		for _, rk := range e.ReplayKeys {
			if key := ClaimKey(e.Provider, rk); !seen[key] {
				seen[key] = true
				p.Rows = append(p.Rows, EventClaim{Provider: e.Provider, EventID: rk, Email: e.Email, MessageKey: rk})
			}
		}
	}
	keys, err := tx.ClaimEvents(ctx, p)
	if err != nil {
		return nil, err
	}
	claimed := make(map[string]bool, len(keys))
	for _, key := range keys {
		claimed[key] = true
	}
	return claimed, nil
}

// policyIn reads the team's intake policy inside the change.
func policyIn(ctx context.Context, tx Tx, team string) (store.IntakePolicy, error) {
	t, err := tx.TeamRules(ctx, team)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return store.IntakePolicy{}, err
	}
	return t.Intake.Effective(), nil
}

// place decides a new event by its action: a count that meets the
// team's threshold lists the address until the policy's expiry.
func (k *intaking) place(ctx context.Context, tx Tx, i int) error {
	e := k.events[i]
	switch e.Action {
	case store.ActList:
		k.list = append(k.list, i)
	case store.ActReview:
		k.review = append(k.review, i)
	case store.ActCount:
		n, err := tx.CountFailures(ctx, k.team, e.Email, k.at.Add(-k.policy.Window))
		if err != nil {
			return err
		}
		if n < k.policy.Threshold {
			k.out[i].Decision = api.DecisionCounted
			k.out[i].Reason = fmt.Sprintf("%d of %d temporary failures within %s", n, k.policy.Threshold, api.FormatSpan(k.policy.Window))
			return nil
		}
		k.expires[i] = k.at.Add(k.policy.Expiry)
		k.notes[i] = fmt.Sprintf("listed after %d temporary failures within %s", n, api.FormatSpan(k.policy.Window))
		k.out[i].Reason = k.notes[i] + ", until " + k.expires[i].Format(time.RFC3339)
		k.list = append(k.list, i)
	default:
		k.out[i].Decision = api.DecisionIgnored
	}
	return nil
}

// listIn lists the addresses of the events to list, as one add by
// author. An address the team's rules protect goes to review instead: the
// add's own check of the rules refuses it before it writes anything, and
// the add is made again without it.
func (c *Core) listIn(ctx context.Context, tx Tx, author store.Change, k *intaking) error {
	for len(k.list) > 0 {
		entries := make([]store.NewEntry, len(k.list))
		for j, i := range k.list {
			e := k.events[i]
			ev := e.Evidence
			note := e.Note
			if note == "" {
				note = k.notes[i]
			}
			entries[j] = store.NewEntry{Email: e.Email, Origin: e.Origin, Note: note, ExpiresAt: k.expires[i], Evidence: &ev}
		}
		a := newAdding(k.team, author, entries)
		err := c.addIn(ctx, tx, a)
		if pe, ok := errors.AsType[*store.ProtectedError](err); ok {
			i := k.list[pe.Index]
			k.out[i].Reason = "the address is protected by the team (" + pe.Rule + ")"
			k.review = append(k.review, i)
			k.list = append(k.list[:pe.Index:pe.Index], k.list[pe.Index+1:]...)
			continue
		}
		if err != nil {
			return err
		}
		for j, e := range a.result() {
			i := k.list[j]
			k.out[i].Decision, k.out[i].EntryID = api.DecisionListed, e.ID
		}
		return nil
	}
	return nil
}

// queue writes the review items of the events the rules could not place.
func (k *intaking) queue(ctx context.Context, tx Tx) error {
	if len(k.review) == 0 {
		return nil
	}
	items := make([]store.ReviewItem, len(k.review))
	for j, i := range k.review {
		id, err := newID()
		if err != nil {
			return err
		}
		e := k.events[i]
		items[j] = store.ReviewItem{ID: id, Team: k.team, IntakeID: e.IntakeID, Provider: e.Provider, Email: e.Email,
			Evidence: e.Evidence, Reason: k.out[i].Reason, ReceivedAt: k.at}
		k.out[i].Decision, k.out[i].ReviewID = api.DecisionReview, id
	}
	return tx.InsertReview(ctx, items)
}

// ReviewItems returns a page of the team's review queue; see
// store.Intakes.
func (c *Core) ReviewItems(ctx context.Context, team string, q store.ReviewQuery) ([]store.ReviewItem, bool, error) {
	return readPage(ctx, c, "read the review queue", q.Page, func(ctx context.Context, w Window) ([]store.ReviewItem, error) {
		return c.d.ReviewItems(ctx, team, q.Decided, w)
	})
}

// ReviewItem returns one item of the team's queue; see store.Intakes.
func (c *Core) ReviewItem(ctx context.Context, team, id string) (store.ReviewItem, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.ReviewItem{}, store.ErrNotFound
	}
	item, err := c.d.ReviewItemByID(ctx, team, id)
	return item, c.readErr("read the review queue", err)
}

// CountReview counts the team's items waiting; see store.Intakes.
func (c *Core) CountReview(ctx context.Context, team string) (int, error) {
	n, err := c.d.CountReview(ctx, team)
	return n, c.fail("count the review queue", err)
}

// Decide settles a waiting item; see store.Intakes. A suppress lists the
// address in the same change as the decision, by the decision's author.
func (c *Core) Decide(ctx context.Context, team, id string, author store.Change, decision, note string) (store.ReviewItem, error) {
	id, ok := canonicalID(id)
	if !ok {
		return store.ReviewItem{}, store.ErrNotFound
	}
	var out store.ReviewItem
	err := c.d.TeamChange(ctx, team, func(ctx context.Context, tx Tx) error {
		item, err := tx.HoldReview(ctx, team, id)
		if err != nil {
			return err
		}
		switch {
		case item.Decision == decision:
			out = item
			return nil
		case item.Decision != "":
			return store.ErrDecided
		}
		item.Decision, item.DecidedAt, item.DecidedBy, item.Note = decision, now(), authorName(author), note
		if decision == api.ReviewSuppress {
			ev := item.Evidence
			a := newAdding(team, author, []store.NewEntry{{Email: item.Email, Origin: evidenceOrigin(ev.Kind), Note: note, Evidence: &ev}})
			if err := c.addIn(ctx, tx, a); err != nil {
				return err
			}
			item.EntryID = a.listed[0].ID
		}
		n, err := tx.SettleReview(ctx, item)
		if err == nil && n == 0 {
			err = store.ErrDecided
		}
		out = item
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return store.ReviewItem{}, store.ErrNotFound
	}
	if err != nil {
		return store.ReviewItem{}, c.fail("decide the review item", err)
	}
	return out, nil
}

// authorName is who made a change, as a decision names it: the agent,
// else the key's name, else the key's ID.
func authorName(a store.Change) string {
	switch {
	case a.AgentName != "":
		return "agent " + a.AgentName
	case a.KeyName != "":
		return a.KeyName
	case a.KeyID != "":
		return "key " + a.KeyID
	}
	return "the service"
}

// evidenceOrigin is the origin an entry is listed with for evidence of
// kind: an unsubscribe is listed as the recipient's own wish (manual).
func evidenceOrigin(kind string) api.Origin {
	switch kind {
	case api.EvidenceBounce:
		return api.OriginBounce
	case api.EvidenceComplaint:
		return api.OriginComplaint
	}
	return api.OriginManual
}
