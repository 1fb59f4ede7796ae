package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
	"github.com/shushlist/shush/server/store/sqlite"
)

// BenchmarkHandler measures the service's handler alone, in process (no
// network), on a keyed GET of one entry: every layer of a request runs
// (request ID, log, metrics, framing, deadline, key from the cache, rate
// limit, route), then the store's read. The floor, in the same run, reads
// the same entry from the same store and writes it as JSON with no layer
// at all, so the ratio is what the layers and routing cost.
func BenchmarkHandler(b *testing.B) {
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "shush.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	_, key, err := server.CreateKey(ctx, st, "bench", false)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := st.Add(ctx, "bench", store.Change{}, store.Manual("one@example.com")); err != nil {
		b.Fatal(err)
	}
	floor := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		e, err := st.GetByEmail(r.Context(), "bench", "one@example.com")
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(api.Entry{Object: api.ObjectSuppression, ID: e.ID, Email: e.Email, Origin: e.Origin,
			CreatedAt: api.Timestamp{Time: e.CreatedAt}})
	})
	for _, c := range []struct {
		name string
		h    http.Handler
	}{{"floor", floor}, {"service", server.New(st, server.Options{Rate: 1e9})}} {
		b.Run(c.name, func(b *testing.B) {
			req := httptest.NewRequest("GET", "/suppressions/one@example.com", nil)
			req.Header.Set("Authorization", "Bearer "+key)
			b.ReportAllocs()
			for b.Loop() {
				rec := httptest.NewRecorder()
				c.h.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
			}
		})
	}
}
