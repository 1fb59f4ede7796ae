package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// KeyPrefix starts every API key, so that a key is recognizable in a
// config file or a secret scanner's findings.
const KeyPrefix = "shush_"

// MaxTeamLen is the longest team name, in bytes.
const MaxTeamLen = 64

const (
	keyIDBytes     = 8  // 16 hex characters
	keySecretBytes = 20 // 160 bits, 32 base32 characters
)

var secretEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// ValidateTeam checks a team name: 1 to MaxTeamLen bytes of printable
// characters without white space.
func ValidateTeam(team string) error {
	switch {
	case team == "":
		return errors.New("the team name is empty")
	case len(team) > MaxTeamLen:
		return fmt.Errorf("the team name is longer than %d bytes", MaxTeamLen)
	}
	for _, r := range team {
		if r == '\uFFFD' || !unicode.IsPrint(r) || unicode.IsSpace(r) {
			return fmt.Errorf("the team name %s contains a space or a character that is not printable", api.Quote(team))
		}
	}
	return nil
}

// CreateKey makes a new API key for the team, stores its hash, and returns
// the stored key together with the full key text. The text is shown to the
// user once and never stored.
func CreateKey(ctx context.Context, st store.Store, team string, readOnly bool) (store.Key, string, error) {
	return CreateNamedKey(ctx, st, team, "", readOnly)
}

// MaxKeyName is the longest name a key may have.
const MaxKeyName = 64

// ValidateKeyName accepts a key's name: up to MaxKeyName printable
// characters (it is shown in the trail as who made a change).
func ValidateKeyName(name string) error {
	n := 0
	for _, r := range name {
		n++
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return fmt.Errorf("the key name %s holds a character that is not printable", api.Quote(name))
		}
	}
	if n > MaxKeyName {
		return fmt.Errorf("the key name is %d characters long; at most %d are allowed", n, MaxKeyName)
	}
	return nil
}

// CreateNamedKey is CreateKey for a key with a name ("jane", "ops-cron"),
// which the trail shows as who made each change.
func CreateNamedKey(ctx context.Context, st store.Store, team, name string, readOnly bool) (store.Key, string, error) {
	return CreateNamedKeyWith(ctx, st, team, name, KeyPermissions{ReadOnly: readOnly})
}

// KeyPermissions are what a key may do beyond reading its team's list.
type KeyPermissions struct {
	// ReadOnly keys may not change the list.
	ReadOnly bool
	// Override lets the key remove complaints where the team's rule asks
	// for the permission (store.ComplaintOverride).
	Override bool
	// Import lets the key's additions keep their entries' own IDs and
	// creation times.
	Import bool
}

// CreateNamedKeyWith is CreateNamedKey with the key's permissions.
func CreateNamedKeyWith(ctx context.Context, st store.Store, team, name string, p KeyPermissions) (store.Key, string, error) {
	if err := ValidateTeam(team); err != nil {
		return store.Key{}, "", err
	}
	if err := ValidateKeyName(name); err != nil {
		return store.Key{}, "", err
	}
	idb := make([]byte, keyIDBytes)
	secret := make([]byte, keySecretBytes)
	if _, err := rand.Read(idb); err != nil {
		return store.Key{}, "", err
	}
	if _, err := rand.Read(secret); err != nil {
		return store.Key{}, "", err
	}
	id := hex.EncodeToString(idb)
	sec := secretEncoding.EncodeToString(secret)
	sum := sha256.Sum256([]byte(sec))
	k := store.Key{
		ID:        id,
		Team:      team,
		Name:      name,
		ReadOnly:  p.ReadOnly,
		Override:  p.Override,
		Import:    p.Import,
		Hash:      sum[:],
		CreatedAt: time.Now().UTC().Truncate(time.Millisecond),
	}
	if err := st.CreateKey(ctx, k); err != nil {
		return store.Key{}, "", fmt.Errorf("store the new key: %w", err)
	}
	return k, KeyPrefix + id + "_" + sec, nil
}

// parseKey splits key text into its ID and secret.
func parseKey(text string) (id, secret string, ok bool) {
	rest, ok := strings.CutPrefix(text, KeyPrefix)
	if !ok {
		return "", "", false
	}
	id, secret, ok = strings.Cut(rest, "_")
	if !ok || len(id) != 2*keyIDBytes || len(secret) != secretEncoding.EncodedLen(keySecretBytes) {
		return "", "", false
	}
	if _, err := hex.DecodeString(id); err != nil || strings.ToLower(id) != id {
		return "", "", false
	}
	return id, secret, true
}

// authenticate finds the key of the request's Bearer token: from the
// cache of verified keys when it is there (see KeyCacheTTL), else from the
// store. The key text appears in no message and no log.
func (s *Server) authenticate(r *http.Request) (store.Key, error) {
	h := r.Header.Values("Authorization")
	if len(h) == 0 {
		return store.Key{}, newProblem(http.StatusUnauthorized, api.ErrMissingAPIKey,
			"Missing API key in the Authorization header; send Authorization: Bearer <API key>.")
	}
	scheme, token, _ := strings.Cut(strings.TrimSpace(h[0]), " ")
	token = strings.TrimSpace(token)
	if len(h) > 1 || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return store.Key{}, newProblem(http.StatusUnauthorized, api.ErrMissingAPIKey,
			"The Authorization header is not one Bearer token; send Authorization: Bearer <API key>.")
	}
	invalidKey := newProblem(http.StatusForbidden, api.ErrInvalidAPIKey, "API key is invalid or revoked.")
	id, secret, ok := parseKey(token)
	if !ok {
		return store.Key{}, invalidKey
	}
	sum := sha256.Sum256([]byte(secret))
	if k, ok := s.keys.get(id); ok {
		// The cached key is the stored one, hash included: the secret is
		// checked as if it had just been read.
		if subtle.ConstantTimeCompare(sum[:], k.Hash) != 1 {
			return store.Key{}, invalidKey
		}
		return k, nil
	}
	// The revocation count and the time are taken before the read, so
	// that a revocation committed while it runs is not hidden by it.
	start, revs := time.Now(), s.keys.revocations()
	k, err := s.store.KeyByID(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Key{}, invalidKey
	}
	if err != nil {
		return store.Key{}, fromStore(err)
	}
	if subtle.ConstantTimeCompare(sum[:], k.Hash) != 1 || k.RevokedAt != nil {
		return store.Key{}, invalidKey
	}
	s.keys.put(k, start, revs)
	return k, nil
}
