// Package store defines what the service needs from a database: the Store
// interface (composed of Suppressions, Trail, Keys, Agents, Teams,
// Webhooks, Outbox and Intakes, so that a consumer names the part it
// needs), the records it keeps, and the errors every implementation
// returns. Package sqlstore implements it
// once over SQL; the dialects below it (sqlite, postgres) give it their
// statements, and every store passes the conformance suite of package
// storetest.
package store

import (
	"context"
	"errors"
	"time"

	"github.com/shushlist/shush/api"
)

// ErrNotFound is returned when a suppression or key does not exist for the
// team (or at all).
var ErrNotFound = errors.New("not found")

// ErrUnavailable is wrapped by errors that mean the database cannot be
// reached or is too busy right now; the service answers them with 503.
var ErrUnavailable = errors.New("store unavailable")

// Entry is one suppression as stored. IDs are UUIDv7 in canonical lowercase
// form, so they sort by creation time.
type Entry struct {
	ID        string
	Email     string
	Origin    api.Origin
	SourceID  *string
	CreatedAt time.Time
	// Note says why the address is listed, in words; "" for none.
	Note string
	// ExpiresAt is when the service takes the entry off the list; zero
	// for never.
	ExpiresAt time.Time
	// Evidence is why an entry that came from an event is listed; nil
	// for one made by hand.
	Evidence *api.Evidence
	// Created is set by Add: true when this call put the entry on the
	// list, false when it was already there.
	Created bool
	// Erased is set when a look-up by address (Check, GetByEmail, Add)
	// found it by its erased entry: the entry's marker (see
	// ErasedMarker), Email being then the address asked for.
	Erased string
	// ErasedDomain is the domain an erased entry keeps in clear when
	// its team's policy kept it (TeamSettings.ErasureKeepsDomain); ""
	// on every other entry.
	ErasedDomain string
}

// Wire is the entry as the API shows it, with object as its "object"
// ("" for a list's items): note and expires_at are null when it has none.
func (e Entry) Wire(object string) api.Entry {
	w := api.Entry{Object: object, ID: e.ID, Email: e.Email, Origin: e.Origin, SourceID: e.SourceID,
		CreatedAt: api.Timestamp{Time: e.CreatedAt}}
	if e.Note != "" {
		note := e.Note
		w.Note = &note
	}
	if !e.ExpiresAt.IsZero() {
		w.ExpiresAt = &api.Timestamp{Time: e.ExpiresAt}
	}
	if e.Evidence != nil {
		ev := *e.Evidence
		w.Evidence = &ev
	}
	w.Erased = e.Erased != "" || IsErased(e.Email)
	if w.Erased {
		w.ErasedDomain = e.ErasedDomain
	}
	return w
}

// NewEntry is an address to add with the origin it is listed with (an
// empty Origin is manual; a manual entry has no source ID), and the note
// and expiry it is listed with ("" and zero for none).
type NewEntry struct {
	Email     string
	Origin    api.Origin
	SourceID  *string
	Note      string
	ExpiresAt time.Time
	// Evidence is the event the entry comes from; nil for none. A listed
	// entry keeps its own.
	Evidence *api.Evidence
	// ID and CreatedAt, when ID is set, are the entry's own (an import
	// that keeps them): a new entry is listed with them when no other
	// entry has the ID and the ID is one this store could have minted
	// before now (a UUIDv7 below the team's trail head), so that the
	// list stays in the order of its IDs; otherwise it gets a new ID and
	// time, as any new entry. Its trail says it was added now, by the
	// change's author.
	ID        string
	CreatedAt time.Time
}

// Manual makes the entries of plain addresses: origin manual.
func Manual(emails ...string) []NewEntry {
	return Listed(api.OriginManual, nil, emails...)
}

// Listed makes the entries of addresses that share an origin and source ID.
func Listed(origin api.Origin, sourceID *string, emails ...string) []NewEntry {
	out := make([]NewEntry, len(emails))
	for i, e := range emails {
		out[i] = NewEntry{Email: e, Origin: origin, SourceID: sourceID}
	}
	return out
}

// Change says who makes a change and why: the store writes it into the
// trail, in the change's own transaction. A change made outside a request
// (a tool, a test) says so in its own fields; one the service makes by
// itself (Expired) has no key. An agent's change (over SSH) has an agent
// and no key.
type Change struct {
	KeyID     string
	KeyName   string
	AgentID   string
	AgentName string
	Reference string // the Shush-Reference header; may be empty
	RequestID string
	// KeepComplaints refuses the removal of entries of origin complaint:
	// a removal that would take one off fails with a *ComplaintError and
	// changes nothing (the team requires the override permission, which
	// the author lacks).
	KeepComplaints bool
	// ComplaintRule makes a removal obey the team's rule for complaints
	// (TeamSettings.ComplaintRemoval), read inside the removal's own
	// change: under the override rule it keeps complaints as
	// KeepComplaints does. The service sets it for an author without the
	// override permission.
	ComplaintRule bool
}

// ComplaintError is the refusal of a removal that would take an entry of
// origin complaint off the list for an author without the override
// permission (Change.KeepComplaints).
type ComplaintError struct {
	Entry Entry
}

func (e *ComplaintError) Error() string {
	return "the entry of " + e.Entry.Email + " was listed by a complaint; removing it needs the override permission"
}

// ProtectedError is the refusal of an add that names an address the
// team's rules protect (TeamSettings.Protected): Index is the first such
// entry, as the add gave it, and Rule the protected address or @domain
// that matched it. Nothing of the add is applied.
type ProtectedError struct {
	Index int
	Email string
	Rule  string
}

func (e *ProtectedError) Error() string {
	return e.Email + " is protected by the team (" + e.Rule + ")"
}

// ExpiredReference is the reference of the removals the service makes
// itself when entries expire; they have no key.
const ExpiredReference = "expired"

// Expired is the author of the removals of expired entries.
var Expired = Change{Reference: ExpiredReference}

// The types of audit entries.
const (
	AuditAdded   = "suppression.added"
	AuditRemoved = "suppression.removed"
)

// AuditEntry is one line of the trail: a suppression that a change put on
// or took off a team's list, who did it (the key) and why (the reference).
// IDs are UUIDv7, so they sort by time.
type AuditEntry struct {
	ID          string
	Type        string
	CreatedAt   time.Time
	Suppression Entry
	KeyID       string
	KeyName     string
	// AgentID and AgentName name the agent who made the change over SSH
	// ("" for a key's change or the service's own).
	AgentID   string
	AgentName string
	Reference string
	RequestID string
}

// AuditQuery selects a page of a team's trail, newest first, paged by
// audit entry ID like ListQuery. Email, Reference and Type narrow it.
type AuditQuery struct {
	Limit     int
	After     string
	Before    string
	Email     string
	Reference string
	Type      string
	// SuppressionID selects one suppression's entries (with or without Email).
	SuppressionID string
}

// ListQuery selects a page of a team's list, newest first. After and Before
// are entry IDs (at most one is set) and exclude that entry. Limit is
// 1-100. An empty Origin selects every origin; Search narrows the list to
// a domain, a prefix or one address, and CreatedAfter and CreatedBefore
// (when not zero) to the entries created after or before them.
type ListQuery struct {
	Limit         int
	After         string
	Before        string
	Origin        api.Origin
	Search        api.Search
	CreatedAfter  time.Time
	CreatedBefore time.Time
}

// ListPage is a page of a team's list, newest first.
type ListPage struct {
	Entries []Entry
	// HasMore says that more entries lie beyond the page in the direction
	// of the query.
	HasMore bool
	// Next, when not "", is the position the page's read reached when it
	// stopped at its bound before the page was full: a prefix's page
	// passes over a bounded number of entries, whatever the number of
	// matches. The page holds every match up to that position (fewer than
	// its limit, perhaps none), and the next page in the same direction
	// goes on from it, as its cursor.
	Next string
}

// Key is an API key as stored: never the key itself, only a hash of its
// secret part.
type Key struct {
	ID   string
	Team string
	// Name says whose key it is ("ops-cron", "jane"); it is shown in the
	// trail. It may be empty.
	Name     string
	ReadOnly bool
	// Override lets the key remove entries of origin complaint where its
	// team requires the permission (TeamSettings.ComplaintRemoval).
	Override bool
	// Import lets the key's additions keep their entries' own IDs and
	// creation times (NewEntry.ID).
	Import    bool
	Hash      []byte
	CreatedAt time.Time
	// RevokedAt is nil while the key is usable.
	RevokedAt *time.Time
}

// Agent is a named person of a team who works the list in the terminal
// UI over SSH, known by one public key. A removed agent is kept (the
// trail names it) but never authenticates again.
type Agent struct {
	ID   string
	Team string
	// Name is unique among the agents not removed; the trail shows it.
	Name string
	// PublicKey is the agent's SSH public key in the authorized_keys
	// form ("ssh-ed25519 AAAA…"), Fingerprint its SHA256 fingerprint
	// ("SHA256:…"), by which a login finds the agent.
	PublicKey   string
	Fingerprint string
	ReadOnly    bool
	Override    bool
	CreatedAt   time.Time
	// RemovedAt is nil while the agent may log in.
	RemovedAt *time.Time
}

// The complaint removal rules of a team (TeamSettings.ComplaintRemoval).
const (
	// ComplaintConfirm lets anyone who may change the list remove an
	// entry of origin complaint; clients ask a second confirmation.
	ComplaintConfirm = "confirm"
	// ComplaintOverride lets only keys and agents with the override
	// permission remove one.
	ComplaintOverride = "override"
)

// TeamSettings are a team's rules for its list.
type TeamSettings struct {
	Team string
	// Protected are addresses and @domains that must never be suppressed
	// (the team's own mailboxes), normalized, in the order set.
	Protected []string
	// ComplaintRemoval is ComplaintConfirm or ComplaintOverride.
	ComplaintRemoval string
	// Intake is the team's rule for temporary failures; zero fields are
	// the defaults.
	Intake IntakePolicy
	// ErasureKeepsDomain has an erasure keep the address's domain in
	// clear beside its hash (Entry.ErasedDomain); off, nothing of the
	// address is kept.
	ErasureKeepsDomain bool
}

// ErrExists is returned when a new record would take a name or key that
// another one holds.
var ErrExists = errors.New("already exists")

// ErrTooMany is returned when a new record would pass a team's limit.
var ErrTooMany = errors.New("too many")

// Store keeps the suppression lists of every team, their trail, the API
// keys, and the teams' webhooks with the outbox of their events. Every
// method that takes a team sees only that team's data. Every method that
// changes something is atomic: on error nothing changed. Consumers name
// the part they need (Suppressions, Trail, Keys, Webhooks, Outbox).
type Store interface {
	Suppressions
	Trail
	Keys
	Agents
	Teams
	Webhooks
	Outbox
	Intakes
	OneClickKeys

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error

	// Close releases the database.
	Close() error
}

// Suppressions are the teams' lists. A change of the list writes its
// trail (by author, the Change it is given) and its webhook events in its
// own transaction.
type Suppressions interface {
	// Add puts each entry on the team's list. The addresses are already
	// normalized and distinct. It returns one entry per address, in the
	// order given, with Created set; an address already on the list comes
	// back as its existing entry (origin and creation time unchanged,
	// Created false), whose expiry the new entry extends (to its later
	// expiry, or to none when it has none) and never shortens, and whose
	// note it gives when the entry has none. The entries it creates are
	// one change of the trail, by author; extending one is no change of
	// the trail. An add that names an address the team's rules protect
	// fails with a *ProtectedError and changes nothing; the rules are read
	// inside the add's own change, so an add that starts after a change
	// of the rules has committed obeys it, in every process.
	Add(ctx context.Context, team string, author Change, entries []NewEntry) ([]Entry, error)

	// RemoveEmails takes the entries with these addresses off the team's
	// list and returns those it removed, in the order given. Addresses not
	// on the list are left out. Each removal writes one audit entry, by
	// author.
	RemoveEmails(ctx context.Context, team string, author Change, emails []string) ([]Entry, error)

	// RemoveIDs is RemoveEmails by entry ID.
	RemoveIDs(ctx context.Context, team string, author Change, ids []string) ([]Entry, error)

	// Get returns the team's entry with this ID, or ErrNotFound.
	Get(ctx context.Context, team, id string) (Entry, error)

	// GetByEmail returns the team's entry for this address, or ErrNotFound.
	GetByEmail(ctx context.Context, team, email string) (Entry, error)

	// List returns a page of the team's list, newest first, and whether
	// more entries lie beyond it in the direction of the query. A cursor is
	// a position in ID order: it need not name an existing entry, so a page
	// whose cursor entry was removed meanwhile still works. It is Page
	// without Next.
	List(ctx context.Context, team string, q ListQuery) (page []Entry, hasMore bool, err error)

	// Page is List with the position a bounded page reached (ListPage).
	Page(ctx context.Context, team string, q ListQuery) (ListPage, error)

	// Export calls fn with every entry of the team's list that q selects
	// (its Origin, Search and created range; not its page), newest first,
	// from one consistent snapshot, in constant memory. An error from fn
	// stops it and is returned.
	Export(ctx context.Context, team string, q ListQuery, fn func(Entry) error) error

	// Check returns the team's entries of these addresses (normalized),
	// those listed only, in any order. It changes nothing.
	Check(ctx context.Context, team string, emails []string) ([]Entry, error)

	// RemoveExpired takes off every team's list up to limit entries whose
	// expiry is at or before now, and says how many it removed. Each
	// removal is made by Expired: one audit entry and its webhook events,
	// in the same change. Several callers on one database (several serve
	// processes) never remove an entry twice.
	RemoveExpired(ctx context.Context, now time.Time, limit int) (int, error)
}

// Trail is the record of the lists' changes.
type Trail interface {
	// Audit returns a page of the team's trail, newest first, and whether
	// more entries lie beyond it in the direction of the query.
	Audit(ctx context.Context, team string, q AuditQuery) (page []AuditEntry, hasMore bool, err error)

	// PruneAudit deletes the trail's entries (of every team) older than
	// before and says how many it deleted.
	PruneAudit(ctx context.Context, before time.Time) (int64, error)
}

// Keys are the API keys.
type Keys interface {
	// CreateKey stores a new key.
	CreateKey(ctx context.Context, k Key) error

	// KeyByID returns the key with this ID, revoked or not, or ErrNotFound.
	KeyByID(ctx context.Context, id string) (Key, error)

	// ListKeys returns every key, oldest first.
	ListKeys(ctx context.Context) ([]Key, error)

	// RevokeKey marks a key revoked; revoking twice is not an error.
	// Unknown IDs are ErrNotFound.
	RevokeKey(ctx context.Context, id string) error
}

// Agents are the people of the teams who work over SSH.
type Agents interface {
	// CreateAgent stores a new agent; ErrExists when an agent not removed
	// has its name or its key's fingerprint.
	CreateAgent(ctx context.Context, a Agent) error

	// AgentByID returns the agent with this ID, removed or not, or
	// ErrNotFound.
	AgentByID(ctx context.Context, id string) (Agent, error)

	// AgentByFingerprint returns the agent not removed whose key has this
	// fingerprint, or ErrNotFound.
	AgentByFingerprint(ctx context.Context, fingerprint string) (Agent, error)

	// ListAgents returns the agents not removed, oldest first.
	ListAgents(ctx context.Context) ([]Agent, error)

	// RemoveAgent marks the agent removed and returns it; an agent
	// removed already, or unknown, is ErrNotFound.
	RemoveAgent(ctx context.Context, id string) (Agent, error)
}

// Teams are the teams' rules.
type Teams interface {
	// TeamSettings returns the team's rules: none protected and
	// ComplaintConfirm for a team that never set any.
	TeamSettings(ctx context.Context, team string) (TeamSettings, error)

	// SetTeamSettings replaces the team's rules.
	SetTeamSettings(ctx context.Context, t TeamSettings) error
}

// OneClickKeys are the teams' keys for one-click unsubscribe tokens
// (RFC 8058): each team's own HMAC key, which its senders use to mint the
// tokens of their mail's List-Unsubscribe links offline. A key is a
// secret: it is never logged, and answered only to a read-write key.
type OneClickKeys interface {
	// OneClickKey returns the team's key (32 bytes). A team without one
	// gets one made now when create is set (several callers at once get
	// the same key), else ErrNotFound.
	OneClickKey(ctx context.Context, team string, create bool) ([]byte, error)
}

// ErrReadOnly is wrapped by errors that mean the database does not accept
// writes right now (a read-only file or file system, a read-only
// PostgreSQL session or standby). It also wraps ErrUnavailable: the
// service answers 503, and writes resume once the database is writable.
var ErrReadOnly error = readOnly{}

type readOnly struct{}

func (readOnly) Error() string { return "the database is read-only" }
func (readOnly) Unwrap() error { return ErrUnavailable }

// ErrNoSpace is wrapped by errors that mean the database's disk (or its
// quota) is full: writes resume once there is room. It also wraps
// ErrUnavailable: the service answers 503.
var ErrNoSpace error = noSpace{}

type noSpace struct{}

func (noSpace) Error() string { return "the database's disk is full" }
func (noSpace) Unwrap() error { return ErrUnavailable }

// WriteChecker is implemented by stores that can tell whether a write
// would succeed now; the service's readiness check uses it.
type WriteChecker interface {
	// CheckWritable returns nil when the store accepts writes, else why
	// not (ErrReadOnly or ErrUnavailable wrapped).
	CheckWritable(ctx context.Context) error
}

// RevocationCounter is implemented by stores that count the key
// revocations made through them, so that the service's cache of verified
// keys drops a key revoked through the same store at once rather than
// when its entry expires.
type RevocationCounter interface {
	// Revocations is how many RevokeKey calls on this store have
	// returned. It goes up only after the revocation is visible to reads.
	Revocations() uint64
}

// EventCounter is implemented by stores that count the changes made
// through them that queued webhook events, so that the service wakes its
// deliverer after those changes only, rather than reading the outbox
// after every change of the list.
type EventCounter interface {
	// EventsQueued is how many changes through this store have queued
	// webhook events. It goes up before such a change returns (and may
	// for one that then failed).
	EventsQueued() uint64
}

// PoolStats is a snapshot of a store's connection pool.
type PoolStats struct {
	Open, InUse, Max int
	Waits            int64
}

// PoolStatser is implemented by stores with a connection pool.
type PoolStatser interface {
	PoolStats() PoolStats
}
