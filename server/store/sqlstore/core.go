// Package sqlstore is the one implementation of store.Store over SQL: the
// Core holds every rule of the store (who gets a webhook event, what a
// change writes to the trail, how a page is bounded and what its cursor
// means, how origins are normalized, how IDs are minted, how errors are
// mapped) and runs it over a Driver, which holds a dialect's statements
// and what is truly its own (how a change is made atomic, how errors are
// classified). The dialects live in the packages sqlite and postgres.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Core implements store.Store over a Driver. It is safe for concurrent use
// as far as its Driver is.
type Core struct {
	d Driver
	// noTrail leaves out the trail's and the outbox's writes; only the
	// benchmark that measures what the trail costs sets it.
	noTrail bool
	// revocations counts RevokeKey calls; see store.RevocationCounter.
	revocations atomic.Uint64
	// queued counts the changes that queued webhook events; see
	// store.EventCounter.
	queued atomic.Uint64
}

// Options are the Core's settings.
type Options struct {
	// NoTrail leaves out what a change writes besides the list itself
	// (the trail and the webhook outbox). It exists for the benchmark
	// that measures what the trail costs a batch add; the service never
	// sets it.
	NoTrail bool
}

// New returns the Core over d.
func New(d Driver, o Options) *Core {
	return &Core{d: d, noTrail: o.NoTrail}
}

// Revocations is how many RevokeKey calls have returned; see
// store.RevocationCounter.
func (c *Core) Revocations() uint64 { return c.revocations.Load() }

// EventsQueued is how many changes through this Core queued webhook
// events; see store.EventCounter.
func (c *Core) EventsQueued() uint64 { return c.queued.Load() }

// now is the time a change stamps on what it writes: UTC, cut to the
// milliseconds the wire shows, so that what is stored is what a client
// sees.
func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// newID mints the ID of a row the store creates: a UUIDv7 in canonical
// form, so that IDs sort by creation and pages are ranges of them.
func newID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// canonicalID returns the canonical form of an ID given from outside (a
// path, a cursor), and false when it is not a UUID and so names no row.
func canonicalID(id string) (string, bool) {
	if len(id) != 36 {
		return "", false
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return "", false
	}
	return u.String(), true
}

// fail puts an error of the database into the store's terms: the
// dialect's classification (store.ErrUnavailable, store.ErrReadOnly)
// under what the call was doing. ErrNotFound and nil pass unchanged.
func (c *Core) fail(what string, err error) error {
	if err == nil || errors.Is(err, store.ErrNotFound) {
		return err
	}
	return fmt.Errorf("%s: %w", what, c.d.Err(err))
}

// readErr is fail for a read of one row: no row is ErrNotFound.
func (c *Core) readErr(what string, err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return c.fail(what, err)
}

// one is the answer of a change that must touch one row: none means
// ErrNotFound.
func one(n int64, err error) error {
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

// changeOne makes a change of one statement that must touch a row.
func (c *Core) changeOne(ctx context.Context, what string, fn func(ctx context.Context, tx Tx) (int64, error)) error {
	return c.fail(what, c.d.Change(ctx, func(ctx context.Context, tx Tx) error {
		return one(fn(ctx, tx))
	}))
}

// origin normalizes a new entry's origin: an empty one is manual, and a
// manual entry has no source.
func origin(n store.NewEntry) (api.Origin, *string) {
	if n.Origin == "" || n.Origin == api.OriginManual {
		return api.OriginManual, nil
	}
	return n.Origin, n.SourceID
}

// Reference is a change's reference as stored: NULL (nil) when the change
// gives none, so that the trail tells "no reference" from any given one.
func Reference(author store.Change) *string {
	if author.Reference == "" {
		return nil
	}
	return &author.Reference
}
