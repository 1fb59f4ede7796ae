package store

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// Erasure: an address whose person asked to be forgotten (GDPR Art. 17)
// stays blocked without being kept. Its entry keeps only a keyed hash of
// the normalized address, HMAC-SHA256 under the team's erasure secret,
// written as its Email in the form "erased:v<version>:<64 hex digits>"
// (ErasedPrefix), with its ID, origin and dates; the note, source ID and
// evidence go. Every row that named the address (the trail, the webhook
// outbox and its attempts, the intake's events and review queue) names
// the same marker instead, in the erasure's own change.
//
// The secret lives in the database only, one per team and version,
// made on the team's first erasure. A rotation adds a version: new
// erasures hash with it, and a look-up hashes the address with every
// version the team has, because an erased entry cannot be hashed again
// without its address. An old version is kept while entries use it.

// ErasedPrefix begins the Email of an erased entry and every marker that
// stands for an erased address. No address begins with it (an address has
// no colon before its @ in normalized form that shush accepts here, and a
// marker has no @).
const ErasedPrefix = "erased:"

// ErasureSecret is one version of a team's erasure secret.
type ErasureSecret struct {
	Version   int
	Secret    []byte
	CreatedAt time.Time
}

// ErasedMarker is what stands for the address email under secret s: its
// HMAC-SHA256, hex, after ErasedPrefix and the version.
func ErasedMarker(s ErasureSecret, email string) string {
	m := hmac.New(sha256.New, s.Secret)
	m.Write([]byte(email))
	return ErasedPrefix + "v" + strconv.Itoa(s.Version) + ":" + hex.EncodeToString(m.Sum(nil))
}

// IsErased says whether an entry's Email is an erased entry's marker.
func IsErased(email string) bool { return strings.HasPrefix(email, ErasedPrefix) }

// Erased is what an erasure did to one address.
type Erased struct {
	// Email is the address as given (normalized); Marker what stands for
	// it now. Entry is the entry as it is kept (its Email the marker).
	Email  string
	Marker string
	Entry  Entry
	// Listed says the address was listed before; false when the erasure
	// listed it (an erased entry, origin manual), so that it stays
	// blocked all the same. Already says it was erased before.
	Listed  bool
	Already bool
	// Rewritten counts the other rows that named the address and name
	// the marker now (trail, outbox, attempts, intake).
	Rewritten int64
}

// ErasureVersion is one version of a team's secret as a person may see
// it: never the secret itself.
type ErasureVersion struct {
	Version   int
	CreatedAt time.Time
	// Entries counts the team's erased entries hashed with it.
	Entries int64
}

// Eraser is implemented by stores that erase addresses (package sqlstore
// does, for SQLite and PostgreSQL).
type Eraser interface {
	// Erase replaces each address (normalized, distinct) by its marker
	// on the team's list and in every row of the team that names it, and
	// writes one audit entry of type AuditErased per address (naming the
	// marker, never the address), in one change. An address not listed is
	// listed as an erased entry. An address erased before is left as it
	// is (Already), its rows swept again.
	Erase(ctx context.Context, team string, author Change, emails []string) ([]Erased, error)
	// RotateErasureSecret adds a new version of the team's secret, which
	// new erasures use from now on, and returns its version.
	RotateErasureSecret(ctx context.Context, team string) (int, error)
	// ErasureVersions returns the versions of the team's secret, oldest
	// first, with how many entries use each.
	ErasureVersions(ctx context.Context, team string) ([]ErasureVersion, error)
}

// IntakePruner is implemented by stores that prune the events their
// intake took in (shush audit prune).
type IntakePruner interface {
	// PruneIntakeEvents deletes the events of every team taken in
	// before before, and counts them.
	PruneIntakeEvents(ctx context.Context, before time.Time) (int64, error)
}

// AuditErased is the type of the audit entry of an erasure.
const AuditErased = "suppression.erased"
