package server_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/postgres"
	"github.com/shushlist/shush/server/store/postgres/pgtest"
	"github.com/shushlist/shush/server/store/sqlite"
)

// A known good key is answered from the cache of verified keys, without a
// database read; a wrong secret for a cached key ID is still refused, and
// the cache keeps each key's team and read-only mark.
func TestKeyCacheAnswersKnownKeys(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		m := server.NewMetrics()
		s := startService(t, open(t), server.Options{Metrics: m})
		key := s.key("cached", false)
		ro := s.key("cached", true)
		other := s.key("elsewhere", false)
		s.add(other, "other@example.com")
		const hit, miss = `shush_key_cache_lookups_total{result="hit"}`, `shush_key_cache_lookups_total{result="miss"}`
		before := scrape(t, m)

		const n = 10
		for i := 0; i < n; i++ {
			if r := s.get("/suppressions", key); r.status != 200 {
				t.Fatalf("request %d: status %d: %s", i, r.status, r.body)
			}
		}
		got := scrape(t, m)
		hits, misses := got[hit]-before[hit], got[miss]-before[miss]
		if hits+misses != n || hits < n-2 {
			// One read fills the entry; a second is allowed should the
			// machine stall past the entry's lifetime between requests.
			t.Errorf("%v hits and %v misses for %d requests with one key; want all but the first from the cache", hits, misses, n)
		}

		// The ID is cached; the secret is not the key's.
		s.get("/suppressions", otherSecret(key)).wantError(t, 403, api.ErrInvalidAPIKey)
		// The cached key is still the team's and no other's.
		if r := s.get("/suppressions/other@example.com", key); r.status != 404 {
			t.Errorf("another team's entry through a cached key: status %d", r.status)
		}
		// A cached read-only key still may not change the list.
		s.get("/suppressions", ro)
		s.post("/suppressions/batch/add", ro, `{"emails":["a@example.com"]}`).wantError(t, 403, api.ErrRestrictedAPIKey)
		s.post("/suppressions/batch/add", ro, `{"emails":["a@example.com"]}`).wantError(t, 403, api.ErrRestrictedAPIKey)
	})
}

// Two processes over one database: a key revoked through one is refused
// by the other within server.KeyCacheTTL, though the other had it cached,
// and at once by the one it was revoked through. Each store here is
// opened on its own, as a second `shush serve` would open it.
func TestRevocationReachesEveryProcess(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shush.db")
		revocationAcrossProcesses(t, func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		revocationAcrossProcesses(t, func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func revocationAcrossProcesses(t *testing.T, open func(t *testing.T) store.Store) {
	stA, stB := open(t), open(t)
	a := startService(t, stA, server.Options{})
	b := startService(t, stB, server.Options{})
	k, key, err := server.CreateKey(context.Background(), stA, "twoprocs", false)
	if err != nil {
		t.Fatal(err)
	}
	keep := a.key("twoprocs", false)
	for _, s := range []*service{a, b} {
		for i := 0; i < 3; i++ { // the first read caches it
			if r := s.get("/suppressions", key); r.status != 200 {
				t.Fatalf("before the revocation: status %d: %s", r.status, r.body)
			}
		}
	}

	if err := stA.RevokeKey(context.Background(), k.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	a.get("/suppressions", key).wantError(t, 403, api.ErrInvalidAPIKey)

	// The other process reads the key again once its entry expires. The
	// wait allows for a slow machine; what is checked is that the refusal
	// comes, and no later than the bound plus that allowance.
	const allowance = 3 * time.Second
	for {
		r := b.get("/suppressions", key)
		if r.status == 403 {
			r.wantError(t, 403, api.ErrInvalidAPIKey)
			break
		}
		if r.status != 200 {
			t.Fatalf("status %d: %s", r.status, r.body)
		}
		if time.Since(revoked) > server.KeyCacheTTL+allowance {
			t.Fatalf("the other process still takes the revoked key %v after the revocation (bound %v)", time.Since(revoked).Round(time.Millisecond), server.KeyCacheTTL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the other process refused the revoked key %v after the revocation", time.Since(revoked).Round(time.Millisecond))
	// Revoking one key leaves the others working in both.
	for _, s := range []*service{a, b} {
		if r := s.get("/suppressions", keep); r.status != 200 {
			t.Errorf("another key after the revocation: status %d", r.status)
		}
	}
}

// Two processes over one database: an address protected through one is
// refused by the other at its very next add, with no wait, and so is the
// removal of a complaint once the team asks for the override permission:
// the rules are read inside the change, never from a cache that could let
// a protected address onto the list.
func TestProtectedReachesEveryProcessAtOnce(t *testing.T) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "shush.db")
		protectedAcrossProcesses(t, func(t *testing.T) store.Store {
			st, err := sqlite.Open(context.Background(), path)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := pgtest.DSN(t)
		protectedAcrossProcesses(t, func(t *testing.T) store.Store {
			st, err := postgres.Open(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			return st
		})
	})
}

func protectedAcrossProcesses(t *testing.T, open func(t *testing.T) store.Store) {
	a := startService(t, open(t), server.Options{})
	b := startService(t, open(t), server.Options{})
	team := "protect-" + time.Now().Format("150405.000000")
	keyA, keyB := a.key(team, false), b.key(team, false)
	for i := range 3 { // both processes have served adds of the team
		a.add(keyA, fmt.Sprintf("a%d@example.com", i))
		b.add(keyB, fmt.Sprintf("b%d@example.com", i))
	}
	for round, addr := range []string{"ceo@acme.test", "cfo@acme.test", "coo@acme.test"} {
		if r := a.do("PATCH", "/team", keyA, "application/json", []byte(`{"protected":["`+addr+`"]}`)); r.status != 200 {
			t.Fatalf("PATCH /team: %d %s", r.status, r.body)
		}
		e := b.post("/suppressions/batch/add", keyB, `{"emails":["fine@example.com","`+addr+`"]}`).wantError(t, 422, "validation_error")
		if !strings.Contains(e.Message, "emails[1]") || !strings.Contains(e.Message, "is protected by the team") {
			t.Errorf("round %d: the other process's answer to an add of %s: %q; want it refused as protected", round, addr, e.Message)
		}
		if b.lookup(keyB, addr) != "" || a.lookup(keyA, addr) != "" {
			t.Fatalf("round %d: %s was listed by the other process right after the team protected it", round, addr)
		}
	}
	// The rule for complaints is read the same way.
	if r := b.post("/suppressions/batch/add", keyB, `{"entries":[{"email":"angry@example.com","origin":"complaint"}]}`); r.status != 201 {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	if r := a.do("PATCH", "/team", keyA, "application/json", []byte(`{"complaint_removal":"override"}`)); r.status != 200 {
		t.Fatalf("PATCH /team: %d %s", r.status, r.body)
	}
	b.post("/suppressions/batch/remove", keyB, `{"emails":["angry@example.com"]}`).wantError(t, 403, api.ErrRestrictedAPIKey)
	if b.lookup(keyB, "angry@example.com") == "" {
		t.Fatal("the other process removed a complaint right after the team asked for the override permission")
	}
}
