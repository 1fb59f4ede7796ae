package sqlstore

import (
	"context"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Driver is what a dialect gives the Core: its reads, each a method with
// what it needs as parameters, and Change, which makes a change atomic.
// A driver returns its database's errors as they are (sql.ErrNoRows, or
// an error that wraps it, for a missing row); the Core classifies them
// with Err.
type Driver interface {
	// Change runs fn as one atomic change: everything fn does through
	// tx commits together, or nothing does. fn may be run more than once
	// (a dialect runs a change again that lost a race with another
	// process), so it must start afresh each time. The statements fn
	// runs do not stop at ctx's end (a dialect may carry other callers'
	// changes in the same transaction); fn checks ctx between them.
	Change(ctx context.Context, fn func(ctx context.Context, tx Tx) error) error
	// TeamChange is Change for a change of the team's list (an add, a
	// removal), which holds the team's trail head until it commits. A
	// dialect whose changes run side by side runs this process's changes
	// of one team one after another, in the order they came, and may
	// commit several in one transaction; each still commits whole or not
	// at all.
	TeamChange(ctx context.Context, team string, fn func(ctx context.Context, tx Tx) error) error
	// Err wraps the errors that mean the database cannot answer now with
	// store.ErrUnavailable (or store.ErrReadOnly); it returns others as
	// they are, and nil for nil.
	Err(err error) error

	EntryReads
	TrailReads
	KeyReads
	AgentReads
	TeamReads
	WebhookReads
	IntakeReads
	ErasureReads
}

// EntryReads are the reads of the list.
type EntryReads interface {
	// EntryByID reads the team's entry with this ID.
	EntryByID(ctx context.Context, team, id string) (store.Entry, error)
	// EntryByEmail reads the team's entry for this address.
	EntryByEmail(ctx context.Context, team, email string) (store.Entry, error)
	// Entries reads p.Window of the entries p selects.
	Entries(ctx context.Context, p *EntriesParams) ([]store.Entry, error)
	// ExportEntries calls fn with every entry p selects (its Window
	// unset), newest first, from one snapshot; an error from fn stops it
	// and is returned.
	ExportEntries(ctx context.Context, p *EntriesParams, fn func(store.Entry) error) error
	// EntriesByEmail reads the team's entries of these addresses, in any
	// order.
	EntriesByEmail(ctx context.Context, team string, emails []string) ([]store.Entry, error)
	// RangeCount counts the team's addresses in p's prefix range (its
	// other conditions and its window aside), at most max: what reading
	// its matches from the address index costs.
	RangeCount(ctx context.Context, p *EntriesParams, max int) (int, error)
	// ScanEntries reads, among at most rows entries of the team's list
	// from p's cursor in p's direction (ID order), the first p.Limit that
	// p selects; and, when it stopped at rows without reaching the end of
	// the list, the ID of the last entry it passed ("" otherwise).
	ScanEntries(ctx context.Context, p *EntriesParams, rows int) ([]store.Entry, string, error)
}

// EntriesParams select entries of a team's list; empty fields do not
// narrow it. At most one of Domain, Exact and the prefix range is set.
type EntriesParams struct {
	Team   string
	Origin api.Origin
	// Domain selects the addresses of one domain (the part after @).
	Domain string
	// Exact selects one address.
	Exact string
	// PrefixFrom and PrefixTo select the addresses from PrefixFrom
	// (included) to PrefixTo (excluded), in byte order: those that start
	// with a prefix.
	PrefixFrom, PrefixTo string
	// CreatedAfter and CreatedBefore, when not zero, select the entries
	// created after, and before, them.
	CreatedAfter, CreatedBefore time.Time
	Window
}

// Tx is the statements a change is made of. Each runs inside the change
// Driver.Change runs; those that report a count say how many rows they
// touched.
type Tx interface {
	EntryWrites
	TrailWrites
	KeyWrites
	AgentWrites
	TeamWrites
	WebhookWrites
	IntakeWrites
	ErasureWrites
}

// EntryWrites are the statements of the changes of the list.
type EntryWrites interface {
	// InsertEntries puts the new entries on the team's list, skipping the
	// addresses already listed, and writes p.Change (when set) if and
	// only if an entry is new, the new entries naming it. It returns the
	// entries it inserted and the listed entries it found of the other
	// addresses, in any order (Created is not set: the Core knows a new
	// entry by its ID); an address that another change listed or removed
	// meanwhile may be neither, or both (the Core tries it again, or takes
	// the new one). With p.Head set it first takes the team's trail head
	// (see HoldTrail) and inserts only when the head is below
	// p.Head.First, moving it to p.Head.Last in the same statement;
	// otherwise it inserts nothing and returns a *HeadAhead, the head
	// still held.
	InsertEntries(ctx context.Context, p *InsertEntriesParams) ([]store.Entry, error)
	// DeleteEntries takes the team's entries with these keys off the
	// list and returns them, in any order, each with the change that
	// listed it: the removal's audit row names that change, and the
	// entry's "added" entry of the trail is read from the two, so that
	// the trail a reader saw while the address was listed stays.
	DeleteEntries(ctx context.Context, p *DeleteEntriesParams) ([]RemovedEntry, error)
	// ExtendEntries changes listed entries of the team as p.Rows say and
	// returns them as they are after, in any order. The statement itself
	// never shortens an expiry nor replaces a note or an evidence, so that a change that
	// read an entry before another extended it cannot undo that.
	ExtendEntries(ctx context.Context, p *ExtendEntriesParams) ([]store.Entry, error)
	// InsertKept puts entries on the team's list with their own IDs and
	// creation times, no change naming them, skipping any whose address
	// is listed or whose ID another entry has; it returns those it
	// inserted, in any order.
	InsertKept(ctx context.Context, team string, entries []store.Entry) ([]store.Entry, error)
	// DueEntries finds up to limit entries of every team whose expiry is
	// at or before now, earliest first, and holds them for this change:
	// a concurrent change (another process's) skips them rather than
	// waiting, and never gets them too.
	DueEntries(ctx context.Context, now time.Time, limit int) ([]TeamEntry, error)
}

// ExtendEntriesParams are the changes of listed entries a re-add makes.
type ExtendEntriesParams struct {
	Team string
	Rows []Extension
}

// Extension is how a re-add changes one listed entry.
type Extension struct {
	ID string
	// Note, when not "", becomes the entry's note if it has none.
	Note string
	// Evidence, when not nil, becomes the entry's evidence if it has
	// none.
	Evidence *api.Evidence
	// Extend says to extend the entry's expiry: to ExpiresAt when it is
	// later, or to none (the entry stays) when ExpiresAt is zero. An
	// entry without an expiry keeps none.
	Extend    bool
	ExpiresAt time.Time
}

// TeamEntry is an entry with the team whose list holds it.
type TeamEntry struct {
	Team string
	store.Entry
}

// TrailReads are the reads of the trail.
type TrailReads interface {
	// Trail reads a window of the team's trail, of three sources merged
	// in ID order: the audit table (removals, and the additions of
	// entries listed before the changes table, or removed before
	// removals named the change that listed them), and, with p.Added,
	// the listed entries with the change that added them, and the
	// removals that name such a change (an entry's added audit entry has
	// the entry's ID and time).
	Trail(ctx context.Context, p *TrailParams) ([]store.AuditEntry, error)
}

// TrailWrites are the statements of the trail.
type TrailWrites interface {
	// InsertAudit writes audit rows of one change.
	InsertAudit(ctx context.Context, p *InsertAuditParams) error
	// PruneTrail deletes up to limit audit rows and up to limit changes
	// created before before, and counts them and the listed entries whose
	// added audit entries went with their changes.
	PruneTrail(ctx context.Context, before time.Time, limit int) (Pruned, error)
	// HoldTrail takes the team's trail head until the change ends, so
	// that the team's changes that mint IDs for the trail and the list
	// commit one at a time, and returns the last ID minted ("" when
	// none). With wait false, when another change holds the head, it
	// returns ok false at once rather than waiting.
	HoldTrail(ctx context.Context, team string, wait bool) (last string, ok bool, err error)
	// SetTrailHead records the last ID the change minted for the team.
	SetTrailHead(ctx context.Context, team, last string) error
}

// KeyReads are the reads of API keys.
type KeyReads interface {
	// Key reads the key with this ID.
	Key(ctx context.Context, id string) (store.Key, error)
	// Keys reads every key, oldest first.
	Keys(ctx context.Context) ([]store.Key, error)
}

// KeyWrites are the statements of the changes of API keys.
type KeyWrites interface {
	InsertKey(ctx context.Context, k store.Key) error
	// RevokeKey sets the key's revocation time unless it has one.
	RevokeKey(ctx context.Context, id string, at time.Time) (int64, error)
}

// AgentReads are the reads of agents.
type AgentReads interface {
	// Agent reads the agent with this ID, removed or not.
	Agent(ctx context.Context, id string) (store.Agent, error)
	// AgentByFingerprint reads the agent not removed whose key has this
	// fingerprint.
	AgentByFingerprint(ctx context.Context, fingerprint string) (store.Agent, error)
	// Agents reads the agents not removed, oldest first.
	Agents(ctx context.Context) ([]store.Agent, error)
}

// AgentWrites are the statements of the changes of agents.
type AgentWrites interface {
	// AgentTaken says whether an agent not removed has this name or
	// this fingerprint.
	AgentTaken(ctx context.Context, name, fingerprint string) (bool, error)
	InsertAgent(ctx context.Context, a store.Agent) error
	// RemoveAgent sets the removal time of the agent not removed with
	// this ID and returns the agent as it is after.
	RemoveAgent(ctx context.Context, id string, at time.Time) (store.Agent, error)
}

// TeamReads are the reads of the teams' rules.
type TeamReads interface {
	// Team reads the team's rules (sql.ErrNoRows for a team that never
	// set any).
	Team(ctx context.Context, team string) (store.TeamSettings, error)
	// OneClickKey reads the team's one-click key (sql.ErrNoRows for a
	// team that has none yet).
	OneClickKey(ctx context.Context, team string) ([]byte, error)
}

// TeamWrites are the statements of the changes of the teams' rules.
type TeamWrites interface {
	// PutTeam writes the team's rules, replacing those it had.
	PutTeam(ctx context.Context, t store.TeamSettings) error
	// TeamRules reads the team's rules inside the change (sql.ErrNoRows
	// for a team that never set any), for an add to obey them as they
	// are when it commits.
	TeamRules(ctx context.Context, team string) (store.TeamSettings, error)
	// PutOneClickKey stores the team's one-click key unless it has one.
	PutOneClickKey(ctx context.Context, team string, key []byte, at time.Time) error
}

// WebhookReads are the reads of webhooks and their outbox. IDs reach them
// in canonical form.
type WebhookReads interface {
	// Webhook reads the team's webhook.
	Webhook(ctx context.Context, team, id string) (store.Webhook, error)
	// Webhooks reads the window of the team's webhooks.
	Webhooks(ctx context.Context, team string, w Window) ([]store.Webhook, error)
	// Event reads one event of the team's webhook.
	Event(ctx context.Context, p EventKey) (store.WebhookEvent, error)
	// Events reads the window of the team's webhook's events.
	Events(ctx context.Context, team, webhookID string, w Window) ([]store.WebhookEvent, error)
	// Attempts reads the window of an event's attempts.
	Attempts(ctx context.Context, eventID string, w Window) ([]store.Attempt, error)
	// OutboxStats counts the events still due (next attempt set) and
	// finds the oldest one's creation.
	OutboxStats(ctx context.Context) (store.OutboxStats, error)
	// AnyDue says whether an event is due at now, without a change.
	AnyDue(ctx context.Context, now time.Time) (bool, error)
}

// WebhookWrites are the statements of the changes of webhooks and their
// outbox.
type WebhookWrites interface {
	// TeamWebhooks reads the team's webhooks (their ID, events and
	// status at least) inside a change, for the Core to choose whom an
	// event goes to.
	TeamWebhooks(ctx context.Context, team string) ([]store.Webhook, error)
	// InsertEvents writes outbox rows, each due at once.
	InsertEvents(ctx context.Context, p *InsertEventsParams) error
	// InsertWebhook stores the webhook unless its team already has limit
	// webhooks, counted and inserted as one step (so that concurrent
	// creations never pass it); it returns the rows inserted, 0 or 1.
	InsertWebhook(ctx context.Context, w store.Webhook, limit int) (int64, error)
	UpdateWebhook(ctx context.Context, p *UpdateWebhookParams) (int64, error)
	// DeleteWebhook deletes the team's webhook with its events and their
	// attempts.
	DeleteWebhook(ctx context.Context, team, id string) (int64, error)
	RotateSecret(ctx context.Context, p *RotateSecretParams) (int64, error)
	// ReplayEvent makes the event due at p.Now for one last attempt
	// (status attempting, no retry after it).
	ReplayEvent(ctx context.Context, p *ReplayEventParams) (int64, error)
	// DueEvents reads up to p.Limit events due at p.Now, of enabled
	// webhooks, at most p.PerWebhook of each webhook and p.PerTeam of each
	// team, in turns: every team's oldest first, then every team's
	// second, and so on (oldest due first within a turn).
	DueEvents(ctx context.Context, p *DueEventsParams) ([]DueEvent, error)
	// LeaseEvents leases those of the events that are still due at p.Now
	// until p.Until (their next attempt and lease end), such that no
	// other change claims them meanwhile, and returns them with their
	// webhooks (endpoint and secrets at least).
	LeaseEvents(ctx context.Context, p *LeaseEventsParams) ([]Claim, error)
	// SettleEvent writes an attempt's outcome into its event and counts
	// the attempt.
	SettleEvent(ctx context.Context, eventID string, o store.Outcome) (int64, error)
	InsertAttempt(ctx context.Context, a store.Attempt) error
	// PruneEvents deletes up to limit settled events (next attempt unset)
	// created before before, oldest first, with their attempts.
	PruneEvents(ctx context.Context, before time.Time, limit int) (int64, error)
}

// EventKey names one event of one of a team's webhooks.
type EventKey struct {
	Team, WebhookID, EventID string
}

// InsertEventsParams are the outbox rows of one change: one per event
// and webhook, of one type, made at At.
type InsertEventsParams struct {
	Team string
	Type string
	At   time.Time
	Rows []EventRow
}

// EventRow is one outbox row: its ID, webhook and body.
type EventRow struct {
	ID, WebhookID string
	Payload       []byte
}

// UpdateWebhookParams change the team's webhook; nil fields stay.
type UpdateWebhookParams struct {
	Team, ID string
	store.WebhookPatch
}

// RotateSecretParams make Secret the webhook's secret; the old one keeps
// signing until KeepOldUntil.
type RotateSecretParams struct {
	Team, ID     string
	Secret       string
	KeepOldUntil time.Time
}

// ReplayEventParams name the event to replay and when.
type ReplayEventParams struct {
	EventKey
	Now time.Time
}

// DueEventsParams select due events for a claim.
type DueEventsParams struct {
	Now                        time.Time
	PerWebhook, PerTeam, Limit int
}

// DueEvent is a due event's ID, webhook and team.
type DueEvent struct {
	ID, WebhookID, Team string
}

// LeaseEventsParams lease the events IDs names.
type LeaseEventsParams struct {
	IDs        []string
	Now, Until time.Time
}

// Claim is a claimed event with its webhook.
type Claim struct {
	Event   store.WebhookEvent
	Webhook store.Webhook
}

// InsertEntriesParams are the new entries of one change.
type InsertEntriesParams struct {
	Team string
	// Entries are new entries: IDs minted, origins normalized, created
	// now; their addresses are distinct.
	Entries []store.Entry
	// Change is the trail's row of the change, nil without a trail.
	Change *ChangeRow
	// Head, when set, moves the team's trail head with the insert: the
	// IDs were minted before the head was held, above the last ID this
	// change knew of, and the insert checks them against it.
	Head *HeadMove
}

// HeadMove is the span of IDs a change minted for its new entries, to
// be checked against the team's trail head and recorded as its last.
type HeadMove struct{ First, Last string }

// HeadAhead is InsertEntries' answer when the team's trail head is not
// below the IDs minted (another change minted above them and committed
// first, or the team has no head yet: Missing). Nothing was inserted;
// the head is held by the change now, so IDs minted above Last pass.
type HeadAhead struct {
	Last    string
	Missing bool
}

func (h *HeadAhead) Error() string {
	if h.Missing {
		return "the team has no trail head yet"
	}
	return "the team's trail head is at " + h.Last + ", above the IDs minted"
}

// ChangeRow is the trail's row of a change that lists new entries: who
// made it and why, when, and the span of the IDs it minted, so that its
// entries are found by a range of the list's key.
type ChangeRow struct {
	// ID is the change's UUIDv7; a dialect whose changes number their
	// rows themselves may key them its own way.
	ID              string
	Team            string
	At              time.Time
	Author          store.Change
	FirstID, LastID string
}

// DeleteEntriesParams name the entries of one change's removal.
type DeleteEntriesParams struct {
	Team string
	// ByEmail says Keys are addresses; otherwise they are IDs, in
	// canonical form.
	ByEmail bool
	Keys    []string
}

// RemovedEntry is an entry a removal took off the list, with the key of
// the change that listed it in the dialect's own type (nil for an entry
// with none: listed before the changes table, or without a trail).
type RemovedEntry struct {
	store.Entry
	Change any
}

// InsertAuditParams are the audit rows of one change: one per entry, of
// one type and author, with the IDs the Core minted for them.
type InsertAuditParams struct {
	Team    string
	Type    string
	At      time.Time
	Author  store.Change
	IDs     []string
	Entries []store.Entry
	// Changes, for a removal, name the change that listed each entry
	// (RemovedEntry.Change), or are nil: the row of a removal then also
	// stands for the entry's "added" entry, read with that change, as a
	// listed entry's is, so that a removal writes one row, not two.
	Changes []any
}

// TrailParams select a window of a team's trail; empty fields do not
// narrow it. SuppressionID is in canonical form.
type TrailParams struct {
	Team                                  string
	Email, Reference, Type, SuppressionID string
	// Added reads the listed entries' added audit entries too.
	Added bool
	Window
}

// Pruned counts what one PruneTrail deleted.
type Pruned struct {
	Audit, Changes int64
	// Hidden counts the listed entries whose added audit entries went
	// with the changes.
	Hidden int64
}

// IntakeReads are the reads of intake endpoints and the review queue.
type IntakeReads interface {
	// Intakes reads the team's endpoints, oldest first.
	Intakes(ctx context.Context, team string) ([]store.Intake, error)
	// Intake reads the endpoint with this ID, of any team.
	Intake(ctx context.Context, id string) (store.Intake, error)
	// ReviewItems reads a window of the team's review items, waiting
	// ones or decided ones.
	ReviewItems(ctx context.Context, team string, decided bool, w Window) ([]store.ReviewItem, error)
	// ReviewItemByID reads one of the team's review items.
	ReviewItemByID(ctx context.Context, team, id string) (store.ReviewItem, error)
	// CountReview counts the team's items waiting.
	CountReview(ctx context.Context, team string) (int, error)
}

// IntakeWrites are the statements of intake's changes.
type IntakeWrites interface {
	// InsertIntake stores the endpoint unless its team has limit
	// endpoints already, counted and inserted as one step; it returns
	// the rows inserted, 0 or 1.
	InsertIntake(ctx context.Context, in store.Intake, limit int) (int64, error)
	DeleteIntake(ctx context.Context, team, id string) (int64, error)
	// PruneIntakeEvents deletes up to limit of the events taken in
	// before before, of every team, and counts them.
	PruneIntakeEvents(ctx context.Context, before time.Time, limit int) (int64, error)
	// PinTopic sets the endpoint's topic unless it has one, and returns
	// its topic after.
	PinTopic(ctx context.Context, id, arn string) (string, error)
	// ClaimEvents records the events of one change that were not
	// recorded before (by team, provider and event ID) and returns the
	// keys (ClaimKey) of those it recorded; an event recorded by a change
	// not yet committed is waited for, and then not claimed.
	ClaimEvents(ctx context.Context, p *ClaimEventsParams) ([]string, error)
	// CountFailures counts the distinct messages of the temporary
	// failures recorded for the team's address since since.
	CountFailures(ctx context.Context, team, email string, since time.Time) (int, error)
	// InsertReview writes review items, each waiting.
	InsertReview(ctx context.Context, items []store.ReviewItem) error
	// HoldReview reads one of the team's review items inside the change,
	// held until it ends.
	HoldReview(ctx context.Context, team, id string) (store.ReviewItem, error)
	// SettleReview writes the decision of a waiting item (Decision,
	// DecidedAt, DecidedBy, Note, EntryID); it returns the rows it
	// changed, 0 when the item was decided already.
	SettleReview(ctx context.Context, item store.ReviewItem) (int64, error)
}

// ClaimEventsParams are the events one change takes in.
type ClaimEventsParams struct {
	Team string
	At   time.Time
	Rows []EventClaim
}

// EventClaim is one event's record: a temporary failure counts toward
// the team's threshold (by its message), others are kept to know a
// replay.
type EventClaim struct {
	Provider, EventID, Email string
	Temporary                bool
	MessageKey               string
}

// ClaimKey is the key of a claimed event in ClaimEvents' answer.
func ClaimKey(provider, eventID string) string { return provider + "\x00" + eventID }
