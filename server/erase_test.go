package server_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/outbox"
	"github.com/shushlist/shush/server/store"
)

var markerRE = regexp.MustCompile(`^erased:v1:[0-9a-f]{64}$`)

// TestEraseEndpoint: POST /suppressions/erase over real HTTP, on both
// stores: a read-only key is refused, a bad item is named by its index,
// more than 100 are refused, nothing half-applied; an erased address is
// still listed through check, batch add and GET by address, and no answer
// names it in the list or the trail.
func TestEraseEndpoint(t *testing.T) {
	for name, open := range map[string]func(*testing.T) store.Store{"sqlite": openSQLite, "postgres": openPostgres} {
		t.Run(name, func(t *testing.T) { testEraseEndpoint(t, open(t)) })
	}
}

func testEraseEndpoint(t *testing.T, st store.Store) {
	s := startService(t, st, server.Options{})
	key, ro := s.key("acme", false), s.key("acme", true)
	const addr = "gone@example.com"
	ids := s.add(key, addr, "stays@example.com")

	s.post("/suppressions/erase", ro, `{"emails":["gone@example.com"]}`).wantError(t, http.StatusForbidden, api.ErrRestrictedAPIKey)
	e := s.post("/suppressions/erase", key, `{"emails":["gone@example.com","bob@"]}`).wantError(t, http.StatusUnprocessableEntity, api.ErrValidation)
	if !strings.Contains(e.Message, "emails[1]") {
		t.Errorf("the refusal of a bad item: %q; want it named by its index", e.Message)
	}
	many := make([]string, 101)
	for i := range many {
		many[i] = fmt.Sprintf("p%d@example.com", i)
	}
	s.post("/suppressions/erase", key, jsonBody(t, api.EraseRequest{Emails: many})).wantError(t, http.StatusUnprocessableEntity, api.ErrValidation)
	s.post("/suppressions/erase", key, `{}`).wantError(t, http.StatusUnprocessableEntity, api.ErrMissingRequiredField)
	if r := s.get("/suppressions/"+addr, key); r.status != http.StatusOK || strings.Contains(string(r.body), "erased") {
		t.Fatalf("after refused erasures the entry is %d %s; want it as it was", r.status, r.body)
	}

	r := s.post("/suppressions/erase", key, `{"emails":[" Gone@Example.com "]}`)
	if r.status != http.StatusOK {
		t.Fatalf("erase: %d %s", r.status, r.body)
	}
	var got api.EraseResponse
	r.decode(t, &got)
	if len(got.Data) != 1 || got.Data[0].Email != addr || got.Data[0].ID != ids[0] || !markerRE.MatchString(got.Data[0].Erased) ||
		!got.Data[0].Listed || got.Data[0].Already {
		t.Fatalf("erase answered %s; want the entry, its marker, listed before", r.body)
	}
	marker := got.Data[0].Erased

	var check api.CheckResponse
	s.post("/suppressions/batch/check", ro, `{"emails":["gone@example.com"]}`).decode(t, &check)
	if len(check.Data) != 1 || !check.Data[0].Listed || check.Data[0].Entry.ID != ids[0] || !check.Data[0].Entry.Erased {
		t.Errorf("check of the erased address: %+v; want listed, the erased entry", check.Data)
	}
	r = s.post("/suppressions/batch/add", key, `{"emails":["gone@example.com"]}`)
	var added api.BatchResponse
	r.decode(t, &added)
	if r.status != http.StatusCreated || len(added.Data) != 1 || added.Data[0].ID != ids[0] || added.Data[0].Created == nil ||
		*added.Data[0].Created || !added.Data[0].Erased || added.Data[0].Email != addr {
		t.Errorf("batch add of the erased address: %d %s; want already listed, its ID, erased", r.status, r.body)
	}
	if r := s.get("/suppressions/"+addr, ro); r.status != http.StatusOK || !strings.Contains(string(r.body), `"erased":true`) {
		t.Errorf("GET by the erased address: %d %s; want the erased entry", r.status, r.body)
	}
	if r := s.get("/suppressions/"+ids[0], ro); r.status != http.StatusOK || strings.Contains(string(r.body), addr) || !strings.Contains(string(r.body), marker) {
		t.Errorf("GET by ID: %d %s; want the marker, not the address", r.status, r.body)
	}
	for _, path := range []string{"/suppressions?limit=100", "/audit?limit=100", "/suppressions/export?format=ndjson"} {
		r := s.get(path, ro)
		if r.status != http.StatusOK || strings.Contains(strings.ToLower(string(r.body)), addr) {
			t.Errorf("GET %s: %d, names the address: %s", path, r.status, r.body)
		}
		if !strings.Contains(string(r.body), marker) {
			t.Errorf("GET %s does not show the marker: %s", path, r.body)
		}
	}
	var trail struct {
		Data []struct {
			Type        string    `json:"type"`
			Reference   *string   `json:"reference"`
			Suppression api.Entry `json:"suppression"`
		} `json:"data"`
	}
	s.get("/audit?type=suppression.erased", ro).decode(t, &trail)
	if len(trail.Data) != 1 || trail.Data[0].Suppression.Email != marker || trail.Data[0].Suppression.ID != ids[0] {
		t.Errorf("the trail's erasures: %+v; want one, naming the marker", trail.Data)
	}
}

// TestServiceRetentionPrunesIntakeEvents: the runtime's pruner deletes the
// provider events the intake took in once they are older than the trail's
// retention: a replay of one is then taken in again.
func TestServiceRetentionPrunesIntakeEvents(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		runService(t, st, server.Config{
			Retention: outbox.PrunerConfig{AuditRetention: 300 * time.Millisecond, Interval: 20 * time.Millisecond},
		})
		e := store.IntakeEvent{Provider: api.ProviderMailgun, EventID: "ev-1", Email: "kept@example.com", Action: store.ActIgnore,
			Evidence: api.Evidence{Provider: api.ProviderMailgun, EventID: "ev-1", Kind: api.EvidenceBounce}}
		first, err := st.TakeIn(context.Background(), "acme", store.Change{}, []store.IntakeEvent{e})
		if err != nil || first[0].Decision == api.DecisionDuplicate {
			t.Fatalf("first take-in: %+v, %v", first, err)
		}
		if again, err := st.TakeIn(context.Background(), "acme", store.Change{}, []store.IntakeEvent{e}); err != nil || again[0].Decision != api.DecisionDuplicate {
			t.Fatalf("a replay at once: %+v, %v; want a duplicate", again, err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := st.TakeIn(context.Background(), "acme", store.Change{}, []store.IntakeEvent{e})
			if err != nil {
				t.Fatal(err)
			}
			if got[0].Decision != api.DecisionDuplicate {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the event was never pruned: its replay is still a duplicate")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
}

// TestEraseKeepsDomainRule: the team rule erasure_keeps_domain over real
// HTTP on both stores: off by default (an erasure keeps nothing of the
// address), set by PATCH /team (a non-boolean refused, nothing changed),
// then an erasure keeps the domain and get, check, the list and the export
// answer it, never the local part.
func TestEraseKeepsDomainRule(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key, ro := s.key("acme", false), s.key("acme", true)
		patch := func(key, body string) reply {
			return s.do("PATCH", "/team", key, "application/json", []byte(body))
		}
		var team api.Team
		if r := s.get("/team", ro); r.status != http.StatusOK || !strings.Contains(string(r.body), `"erasure_keeps_domain":false`) {
			t.Fatalf("GET /team of a new team: %d %s; want erasure_keeps_domain false", r.status, r.body)
		}
		s.post("/suppressions/erase", key, `{"emails":["first@before.example"]}`)
		patch(ro, `{"erasure_keeps_domain":true}`).wantError(t, http.StatusForbidden, api.ErrRestrictedAPIKey)
		e := patch(key, `{"erasure_keeps_domain":"yes"}`).wantError(t, http.StatusBadRequest, api.ErrValidation)
		if !strings.Contains(e.Message, "erasure_keeps_domain") {
			t.Errorf("a non-boolean rule: %q; want the field named", e.Message)
		}
		r := patch(key, `{"erasure_keeps_domain":true}`)
		r.decode(t, &team)
		if r.status != http.StatusOK || !team.ErasureKeepsDomain || team.ComplaintRemoval != "confirm" {
			t.Fatalf("PATCH /team: %d %s; want the rule on, the others as they were", r.status, r.body)
		}
		s.get("/team", ro).decode(t, &team)
		if !team.ErasureKeepsDomain {
			t.Fatalf("GET /team after the PATCH: %+v; want the rule on", team)
		}

		ids := s.add(key, "secret.person@Kept.Example")
		var got api.EraseResponse
		s.post("/suppressions/erase", key, `{"emails":["secret.person@kept.example"]}`).decode(t, &got)
		if len(got.Data) != 1 || got.Data[0].ID != ids[0] {
			t.Fatalf("erase: %+v", got)
		}
		if r := s.get("/suppressions/"+ids[0], ro); !strings.Contains(string(r.body), `"erased_domain":"kept.example"`) || strings.Contains(string(r.body), "secret.person") {
			t.Errorf("GET by ID: %d %s; want the domain, not the local part", r.status, r.body)
		}
		if r := s.get("/suppressions/secret.person@kept.example", ro); !strings.Contains(string(r.body), `"erased_domain":"kept.example"`) {
			t.Errorf("GET by address: %d %s; want the domain", r.status, r.body)
		}
		var check api.CheckResponse
		s.post("/suppressions/batch/check", ro, `{"emails":["secret.person@kept.example","first@before.example"]}`).decode(t, &check)
		if len(check.Data) != 2 || check.Data[0].Entry.ErasedDomain != "kept.example" || !check.Data[1].Entry.Erased || check.Data[1].Entry.ErasedDomain != "" {
			t.Errorf("check: %+v; want the domain of the entry erased with the rule on, none for the one erased before", check.Data)
		}
		for _, path := range []string{"/suppressions?limit=100", "/audit?limit=100", "/suppressions/export?format=ndjson", "/suppressions/export?format=csv"} {
			r := s.get(path, ro)
			if r.status != http.StatusOK || strings.Contains(strings.ToLower(string(r.body)), "secret.person") {
				t.Errorf("GET %s: %d, names the local part: %s", path, r.status, r.body)
			}
			if shown := strings.Contains(string(r.body), "kept.example"); shown != (path != "/audit?limit=100") {
				t.Errorf("GET %s shows the kept domain: %v; want it shown by the list and the export only: %s", path, shown, r.body)
			}
		}
		csv := s.get("/suppressions/export?format=csv", ro)
		if lines := strings.Split(strings.TrimSpace(string(csv.body)), "\n"); !strings.HasSuffix(lines[0], ",erased_domain") || !strings.HasSuffix(lines[1], ",kept.example") {
			t.Errorf("the CSV export: %s; want the column erased_domain, the domain in it", csv.body)
		}
		patch(key, `{"erasure_keeps_domain":false}`).decode(t, &team)
		if team.ErasureKeepsDomain {
			t.Errorf("PATCH false: %+v; want the rule off", team)
		}
	})
}
