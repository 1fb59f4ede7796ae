package server_test

import (
	"net/http"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

func TestBatchAddOrderDuplicatesAndExisting(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("acme", false)

		first := s.add(key, "carol@example.com")
		r := s.post("/suppressions/batch/add", key,
			`{"emails":["  Alice@Example.com","bob@example.org","ALICE@example.com ","carol@example.com","bob@example.org"]}`)
		if r.status != http.StatusCreated {
			t.Fatalf("status %d, want 201: %s", r.status, r.body)
		}
		var resp api.BatchResponse
		r.decode(t, &resp)
		if len(resp.Data) != 3 {
			t.Fatalf("got %d items, want 3 (one per distinct address): %s", len(resp.Data), r.body)
		}
		for i, want := range []string{"alice@example.com", "bob@example.org", "carol@example.com"} {
			if got := s.lookup(key, want); got != resp.Data[i].ID {
				t.Errorf("item %d has ID %s, but %s has ID %s", i, resp.Data[i].ID, want, got)
			}
		}
		if resp.Data[2].ID != first[0] {
			t.Errorf("carol re-added got ID %s, want her existing ID %s", resp.Data[2].ID, first[0])
		}
		again := s.add(key, "bob@example.org", "alice@example.com")
		if again[0] != resp.Data[1].ID || again[1] != resp.Data[0].ID {
			t.Errorf("re-adding gave IDs %v, want the existing ones", again)
		}
	})
}
