package server_test

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// The whole list in one request: CSV with formula cells escaped, or
// NDJSON; newest first; one origin when asked; another team's never.
func TestExportStreamsTheList(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("export", false)
		other := s.key("other", false)
		s.add(other, "theirs@example.com")
		s.add(key, "=1+2@example.com", "plain@example.com")
		r := s.post("/suppressions/batch/add", key, `{"entries":[{"email":"b@example.com","origin":"bounce","source_id":"+evt"}]}`)
		if r.status != http.StatusCreated {
			t.Fatalf("entries: %d %s", r.status, r.body)
		}
		r = s.get("/suppressions/export", key)
		if r.status != 200 || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
			t.Fatalf("csv: %d %s %s", r.status, r.header.Get("Content-Type"), r.body)
		}
		recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
		if err != nil || len(recs) != 4 {
			t.Fatalf("csv rows %d (%v):\n%s", len(recs), err, r.body)
		}
		if strings.Join(recs[0], ",") != strings.Join(server.ExportColumns, ",") || !strings.HasPrefix(strings.Join(recs[0], ","), "id,email,origin,source_id,created_at,note,expires_at,evidence_provider,") || recs[1][1] != "b@example.com" || recs[1][3] != "'+evt" ||
			recs[3][1] != "'=1+2@example.com" || strings.Contains(string(r.body), "theirs@") {
			t.Errorf("csv:\n%s", r.body)
		}
		r = s.get("/suppressions/export?format=ndjson&origin=manual", key)
		lines := strings.Split(strings.TrimSpace(string(r.body)), "\n")
		if r.header.Get("Content-Type") != "application/x-ndjson" || len(lines) != 2 {
			t.Fatalf("ndjson: %s\n%s", r.header.Get("Content-Type"), r.body)
		}
		var e api.Entry
		if err := json.Unmarshal([]byte(lines[1]), &e); err != nil || e.Email != "=1+2@example.com" || e.Origin != api.OriginManual {
			t.Errorf("ndjson entry %+v %v (exact in JSON)", e, err)
		}
		s.get("/suppressions/export?format=xml", key).wantError(t, 422, api.ErrValidation)
		s.get("/suppressions/export?origin=spam", key).wantError(t, 422, api.ErrValidation)
	})
}
