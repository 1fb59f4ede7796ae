package server

import (
	"errors"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/shushlist/shush/server/store"
)

// KeyCacheTTL bounds how long a verified key is trusted without reading
// it from the database again. A key revoked through another process
// (`shush keys revoke`, or another `shush serve` over the same database)
// stops working in this one at most KeyCacheTTL after the revocation
// commits; one revoked through this process's own store stops at once.
const KeyCacheTTL = 2 * time.Second

// maxCachedKeys bounds the cache; past it the cache starts over. Only keys
// that passed verification get in, so its size follows the keys in use.
const maxCachedKeys = 10_000

// keyCache remembers the keys that passed verification, so that a request
// with a known good key costs no database read. An entry holds the key as
// stored (hash included): every request still hashes its secret and
// compares it in constant time, so a cached key never lets a wrong secret
// pass.
type keyCache struct {
	ttl  time.Duration
	revs store.RevocationCounter // nil when the store does not count
	now  func() time.Time

	mu      sync.RWMutex
	entries map[string]cachedKey

	lookups *prometheus.CounterVec
}

type cachedKey struct {
	key store.Key
	// expires is when the read that filled the entry began, plus ttl: a
	// revocation committed after that read began is seen within ttl.
	expires time.Time
	// revocations is the store's revocation count before that read; a
	// revocation through the same store since then voids the entry.
	revocations uint64
}

func newKeyCache(st store.Store, ttl time.Duration, m *Metrics) *keyCache {
	c := &keyCache{ttl: ttl, now: time.Now, entries: make(map[string]cachedKey)}
	c.revs, _ = st.(store.RevocationCounter)
	lookups := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "shush_key_cache_lookups_total",
		Help: "API key look-ups, by result: hit (answered from the cache of verified keys) or miss (read from the database).",
	}, []string{"result"})
	// Servers that share a registry share the counter.
	var are prometheus.AlreadyRegisteredError
	if err := m.Register(lookups); errors.As(err, &are) {
		lookups = are.ExistingCollector.(*prometheus.CounterVec)
	}
	c.lookups = lookups
	return c
}

// revocations is the store's revocation count now (0 when it keeps none).
func (c *keyCache) revocations() uint64 {
	if c.revs == nil {
		return 0
	}
	return c.revs.Revocations()
}

// get returns the cached key with this ID while its entry is fresh.
func (c *keyCache) get(id string) (store.Key, bool) {
	c.mu.RLock()
	e, ok := c.entries[id]
	c.mu.RUnlock()
	if ok && c.now().Before(e.expires) && e.revocations == c.revocations() {
		c.lookups.WithLabelValues("hit").Inc()
		return e.key, true
	}
	c.lookups.WithLabelValues("miss").Inc()
	return store.Key{}, false
}

// put caches a key that passed verification, as read by a read that
// began at start when the store's revocation count was revs.
func (c *keyCache) put(k store.Key, start time.Time, revs uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedKeys {
		clear(c.entries)
	}
	c.entries[k.ID] = cachedKey{key: k, expires: start.Add(c.ttl), revocations: revs}
}
