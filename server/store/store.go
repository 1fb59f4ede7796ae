// Package store defines what the service needs from a database: the Store
// interface, the records it keeps, and the errors every implementation
// returns. The implementations live in the packages below it (sqlite,
// postgres) and all pass the conformance suite of package storetest.
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
}

// ListQuery selects a page of a team's list, newest first. After and Before
// are entry IDs (at most one is set) and exclude that entry. Limit is
// 1-100. An empty Origin selects every origin.
type ListQuery struct {
	Limit  int
	After  string
	Before string
	Origin api.Origin
}

// Key is an API key as stored: never the key itself, only a hash of its
// secret part.
type Key struct {
	ID        string
	Team      string
	ReadOnly  bool
	Hash      []byte
	CreatedAt time.Time
	// RevokedAt is nil while the key is usable.
	RevokedAt *time.Time
}

// Store keeps the suppression lists of every team and the API keys. Every
// method that takes a team sees only that team's list. Every method that
// changes the list is atomic: on error nothing changed.
type Store interface {
	// Add puts each address on the team's list. The addresses are already
	// normalized and distinct. It returns one entry per address, in the
	// order given; an address already on the list comes back as its
	// existing entry (origin and creation time unchanged).
	Add(ctx context.Context, team string, emails []string, origin api.Origin, sourceID *string) ([]Entry, error)

	// RemoveEmails takes the entries with these addresses off the team's
	// list and returns those it removed, in the order given. Addresses not
	// on the list are left out.
	RemoveEmails(ctx context.Context, team string, emails []string) ([]Entry, error)

	// RemoveIDs is RemoveEmails by entry ID.
	RemoveIDs(ctx context.Context, team string, ids []string) ([]Entry, error)

	// Get returns the team's entry with this ID, or ErrNotFound.
	Get(ctx context.Context, team, id string) (Entry, error)

	// GetByEmail returns the team's entry for this address, or ErrNotFound.
	GetByEmail(ctx context.Context, team, email string) (Entry, error)

	// List returns a page of the team's list, newest first, and whether
	// more entries lie beyond it in the direction of the query. A cursor is
	// a position in ID order: it need not name an existing entry, so a page
	// whose cursor entry was removed meanwhile still works.
	List(ctx context.Context, team string, q ListQuery) (page []Entry, hasMore bool, err error)

	// CreateKey stores a new key.
	CreateKey(ctx context.Context, k Key) error

	// KeyByID returns the key with this ID, revoked or not, or ErrNotFound.
	KeyByID(ctx context.Context, id string) (Key, error)

	// ListKeys returns every key, oldest first.
	ListKeys(ctx context.Context) ([]Key, error)

	// RevokeKey marks a key revoked; revoking twice is not an error.
	// Unknown IDs are ErrNotFound.
	RevokeKey(ctx context.Context, id string) error

	// Ping reports whether the database answers.
	Ping(ctx context.Context) error

	// Close releases the database.
	Close() error
}

// ErrReadOnly is wrapped by errors that mean the database does not accept
// writes right now (a read-only file or file system, a read-only
// PostgreSQL session or standby). It also wraps ErrUnavailable: the
// service answers 503, and writes resume once the database is writable.
var ErrReadOnly error = readOnly{}

type readOnly struct{}

func (readOnly) Error() string { return "the database is read-only" }
func (readOnly) Unwrap() error { return ErrUnavailable }

// WriteChecker is implemented by stores that can tell whether a write
// would succeed now; the service's readiness check uses it.
type WriteChecker interface {
	// CheckWritable returns nil when the store accepts writes, else why
	// not (ErrReadOnly or ErrUnavailable wrapped).
	CheckWritable(ctx context.Context) error
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
