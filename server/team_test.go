package server_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// agentKey is a new SSH public key, as in an authorized_keys line.
func agentKey(t testing.TB) string {
	t.Helper()
	pub, _, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := gossh.NewPublicKey(pub)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk))) + " someone@laptop"
}

// rsaKey is a new RSA public key of bits, as in an authorized_keys line.
func rsaKey(t testing.TB, bits int) string {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, bits)
	if err != nil {
		t.Fatal(err)
	}
	pk, err := gossh.NewPublicKey(&k.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pk)))
}

// TestTeamRules: the protected list refuses an add naming one of its
// addresses or domains, naming the index, and applies nothing; GET /team
// says the rules; only full keys change them.
func TestTeamRules(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key, ro := s.key("acme", false), s.key("acme", true)
		other := s.key("other", false)

		var team api.Team
		s.get("/team", ro).decode(t, &team)
		if team.Object != "team" || team.Name != "acme" || len(team.Protected) != 0 || team.ComplaintRemoval != "confirm" {
			t.Errorf("GET /team of a new team = %+v; want none protected and confirm", team)
		}
		patch := func(key, body string) reply {
			return s.do("PATCH", "/team", key, "application/json", []byte(body))
		}
		patch(ro, `{"protected":["x@acme.test"]}`).wantError(t, 403, "restricted_api_key")
		e := patch(key, `{"protected":["Support@Acme.test","@ACME.test","not-an-address"]}`).wantError(t, 422, "validation_error")
		if !strings.Contains(e.Message, `protected[2] ("not-an-address")`) {
			t.Errorf("a bad protected entry: %q; want it named by index", e.Message)
		}
		r := patch(key, `{"protected":["Support@Acme.test","@OWN.test"]}`)
		r.decode(t, &team)
		if r.status != 200 || strings.Join(team.Protected, " ") != "support@acme.test @own.test" {
			t.Fatalf("PATCH /team: %d %s; want the normalized list", r.status, r.body)
		}

		s.add(key, "first@example.com")
		e = s.post("/suppressions/batch/add", key, `{"emails":["ok@example.com","x@example.com","SUPPORT@acme.test"]}`).wantError(t, 422, "validation_error")
		if !strings.HasPrefix(e.Message, `emails[2] ("support@acme.test") is protected by the team`) {
			t.Errorf("a protected address in a batch: %q", e.Message)
		}
		e = s.post("/suppressions/batch/add", key, `{"entries":[{"email":"ok@example.com"},{"email":"anyone@own.test","origin":"bounce"}]}`).wantError(t, 422, "validation_error")
		if !strings.HasPrefix(e.Message, `entries[1].email ("anyone@own.test") is protected by the team (@own.test)`) {
			t.Errorf("a protected domain in entries: %q", e.Message)
		}
		s.post("/suppressions", key, `{"email":"me@own.test"}`).wantError(t, 422, "validation_error")
		for _, addr := range []string{"ok@example.com", "x@example.com", "support@acme.test", "anyone@own.test", "me@own.test"} {
			if s.lookup(key, addr) != "" {
				t.Errorf("%s is listed after the refused batches", addr)
			}
		}
		// Another team's rules are its own; a look-alike domain is not
		// a subdomain.
		s.add(other, "support@acme.test")
		s.add(key, "someone@mailown.test")
	})
}

// TestProtectedDomainCoversSubdomains (audit M-1): a protected @domain
// protects its subdomains on every path that adds, by the one rule of
// api.Protected: batch add by emails and by entries, single add, and a
// domain entry inside it; an address of a look-alike or parent domain is
// not protected. Before, x@sub.corp.test was listed (201) on all three
// paths while the terminal UI left it out.
func TestProtectedDomainCoversSubdomains(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		s := startService(t, open(t), server.Options{})
		key := s.key("corp", false)
		if r := s.do("PATCH", "/team", key, "application/json", []byte(`{"protected":["@corp.test"]}`)); r.status != 200 {
			t.Fatalf("PATCH /team: %d %s", r.status, r.body)
		}
		for _, c := range []struct{ path, body, want string }{
			{"/suppressions/batch/add", `{"emails":["ok@example.com","x@sub.corp.test"]}`, `emails[1] ("x@sub.corp.test") is protected by the team (@corp.test)`},
			{"/suppressions/batch/add", `{"entries":[{"email":"Y@Deep.Mail.Corp.test","origin":"bounce"}]}`, `entries[0].email ("y@deep.mail.corp.test") is protected by the team (@corp.test)`},
			{"/suppressions", `{"email":"z@mail.corp.test"}`, "`email` (\"z@mail.corp.test\") is protected by the team (@corp.test)"},
		} {
			e := s.post(c.path, key, c.body).wantError(t, 422, "validation_error")
			if !strings.HasPrefix(e.Message, c.want) {
				t.Errorf("POST %s %s: %q; want it to start %q", c.path, c.body, e.Message, c.want)
			}
		}
		for _, addr := range []string{"ok@example.com", "x@sub.corp.test", "y@deep.mail.corp.test", "z@mail.corp.test"} {
			if s.lookup(key, addr) != "" {
				t.Errorf("%s is listed after the refused adds", addr)
			}
		}
		// Not inside the domain: listed.
		s.add(key, "a@corp.test.example", "b@notcorp.test", "c@test.example")
	})
}

// TestComplaintGuard: with the team's override rule, removing a complaint
// needs the override permission: others get 403 naming the entry, and
// nothing of the request is removed; lifting the rule needs it too.
func TestComplaintGuard(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		plain := s.key("acme", false)
		_, override, err := server.CreateNamedKeyWith(context.Background(), st, "acme", "lead", server.KeyPermissions{Override: true})
		if err != nil {
			t.Fatal(err)
		}
		r := s.post("/suppressions/batch/add", plain, `{"entries":[{"email":"angry@example.com","origin":"complaint","source_id":"msg-1"},{"email":"plain@example.com"}]}`)
		if r.status != 201 {
			t.Fatalf("add: %d %s", r.status, r.body)
		}
		// confirm (the default): the service removes it; clients ask.
		if r := s.post("/suppressions/batch/remove", plain, `{"emails":["angry@example.com"]}`); r.status != 200 {
			t.Fatalf("removal under confirm: %d %s", r.status, r.body)
		}
		s.post("/suppressions/batch/add", plain, `{"entries":[{"email":"angry@example.com","origin":"complaint","source_id":"msg-1"}]}`)
		if r := s.do("PATCH", "/team", plain, "application/json", []byte(`{"complaint_removal":"override"}`)); r.status != 200 {
			t.Fatalf("PATCH: %d %s", r.status, r.body)
		}
		e := s.post("/suppressions/batch/remove", plain, `{"emails":["plain@example.com","angry@example.com"]}`).wantError(t, 403, "restricted_api_key")
		if !strings.HasPrefix(e.Message, `emails[1] ("angry@example.com") was listed by a complaint (source "msg-1")`) {
			t.Errorf("refusal: %q; want the entry named", e.Message)
		}
		id := s.lookup(plain, "angry@example.com")
		e = s.post("/suppressions/batch/remove", plain, `{"ids":["`+id+`"]}`).wantError(t, 403, "restricted_api_key")
		if !strings.Contains(e.Message, id) {
			t.Errorf("refusal by ID: %q; want the ID", e.Message)
		}
		s.do("DELETE", "/suppressions/angry@example.com", plain, "", nil).wantError(t, 403, "restricted_api_key")
		if s.lookup(plain, "plain@example.com") == "" || s.lookup(plain, "angry@example.com") == "" {
			t.Fatal("a refused removal took something off the list")
		}
		s.do("PATCH", "/team", plain, "application/json", []byte(`{"complaint_removal":"confirm"}`)).wantError(t, 403, "restricted_api_key")
		if r := s.post("/suppressions/batch/remove", override, `{"emails":["angry@example.com"]}`); r.status != 200 || !strings.Contains(string(r.body), "angry@example.com") {
			t.Errorf("removal with the override permission: %d %s", r.status, r.body)
		}
		if r := s.do("PATCH", "/team", override, "application/json", []byte(`{"complaint_removal":"confirm"}`)); r.status != 200 {
			t.Errorf("lifting the rule with the permission: %d %s", r.status, r.body)
		}
	})
}

// TestAgentsAPI: admins add, list and remove their team's agents; an
// agent's changes name it in the trail with no key; a removed agent is
// refused at its next request.
func TestAgentsAPI(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key, ro, other := s.key("acme", false), s.key("acme", true), s.key("other", false)
		pub := agentKey(t)
		body := jsonBody(t, api.NewAgent{Name: "Jane Doe", PublicKey: pub})
		s.post("/agents", ro, body).wantError(t, 403, "restricted_api_key")
		var jane api.Agent
		r := s.post("/agents", key, body)
		r.decode(t, &jane)
		if r.status != 201 || jane.Name != "Jane Doe" || jane.Team != "acme" || !strings.HasPrefix(jane.Fingerprint, "SHA256:") || jane.ReadOnly {
			t.Fatalf("POST /agents: %d %s", r.status, r.body)
		}
		s.post("/agents", key, jsonBody(t, api.NewAgent{Name: "Jane Doe", PublicKey: agentKey(t)})).wantError(t, 409, "validation_error")
		// Jane's key again, in this team or another: the answer of any
		// refused key (audit L-2: it was a 409 saying the key was in use).
		weak := rsaKey(t, 1024)
		refusedWeak := s.post("/agents", other, jsonBody(t, api.NewAgent{Name: "Eve", PublicKey: weak})).wantError(t, 422, "validation_error")
		for _, k := range []string{key, other} {
			e := s.post("/agents", k, jsonBody(t, api.NewAgent{Name: "Bob", PublicKey: pub})).wantError(t, 422, "validation_error")
			if e.Message != refusedWeak.Message {
				t.Errorf("a key already an agent's: %q; want the answer of any refused key, %q", e.Message, refusedWeak.Message)
			}
		}
		e := s.post("/agents", key, jsonBody(t, api.NewAgent{Name: "Bob\x1b[31m", PublicKey: agentKey(t)})).wantError(t, 422, "validation_error")
		if strings.ContainsRune(e.Message, 0x1b) {
			t.Errorf("the refusal of a name with an escape carries it: %q", e.Message)
		}
		s.post("/agents", key, jsonBody(t, api.NewAgent{Name: "Bob", PublicKey: "ssh-rsa notakey"})).wantError(t, 422, "validation_error")
		s.post("/agents", key, jsonBody(t, api.NewAgent{Name: "Bob", PublicKey: agentKey(t), Override: true})).wantError(t, 403, "restricted_api_key")

		var list api.AgentList
		s.get("/agents", ro).decode(t, &list)
		if len(list.Data) != 1 || list.Data[0].ID != jane.ID {
			t.Errorf("GET /agents = %+v; want Jane", list.Data)
		}
		s.get("/agents", other).decode(t, &list)
		if len(list.Data) != 0 {
			t.Errorf("another team's GET /agents = %+v; want none", list.Data)
		}

		// Jane's session: in process, no key.
		srv := server.New(st, server.Options{Rate: 1000})
		hc := &http.Client{Transport: srv.AgentTransport(jane.ID)}
		req, _ := http.NewRequest("POST", "http://agent.invalid/suppressions/batch/add", strings.NewReader(`{"emails":["by-jane@example.com"]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(api.ReferenceHeader, "#48213")
		resp, err := hc.Do(req)
		if err != nil || resp.StatusCode != 201 {
			t.Fatalf("an agent's add: %v %v", resp, err)
		}
		resp.Body.Close()
		r = s.get("/audit?email=by-jane%40example.com", key)
		var raw struct {
			Data []map[string]json.RawMessage `json:"data"`
		}
		r.decode(t, &raw)
		if len(raw.Data) != 1 || string(raw.Data[0]["key"]) != "null" ||
			string(raw.Data[0]["agent"]) != `{"id":"`+jane.ID+`","name":"Jane Doe"}` {
			t.Errorf("the trail of an agent's add: %s", r.body)
		}
		s.do("DELETE", "/agents/Jane%20Doe", other, "", nil).wantError(t, 404, "not_found")
		// An agent cannot manage agents.
		req, _ = http.NewRequest("DELETE", "http://agent.invalid/agents/"+jane.ID, nil)
		if resp, err := hc.Do(req); err != nil || resp.StatusCode != 403 {
			t.Errorf("an agent removing an agent: %v %v", resp, err)
		}
		if r := s.do("DELETE", "/agents/Jane%20Doe", key, "", nil); r.status != 200 || !strings.Contains(string(r.body), jane.ID) {
			t.Fatalf("DELETE /agents: %d %s", r.status, r.body)
		}
		req, _ = http.NewRequest("GET", "http://agent.invalid/suppressions", nil)
		resp, err = hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 403 || !strings.Contains(string(b), "removed") {
			t.Errorf("a removed agent's request: %d %s", resp.StatusCode, b)
		}
	})
}

// An export reaches the UI and the embedded default in process, whole:
// the in-process answer takes the export's flushes (a failed flush cuts
// an export off).
func TestExportInProcess(t *testing.T) {
	forEachStore(t, func(t *testing.T, open func(t *testing.T) store.Store) {
		st := open(t)
		s := startService(t, st, server.Options{})
		key := s.key("local", false)
		// Past 10,000 entries the export flushes.
		const n = 10_001
		for i := 0; i < n; i += api.MaxBatch {
			var batch []string
			for k := i; k < min(i+api.MaxBatch, n); k++ {
				batch = append(batch, fmt.Sprintf("u%05d@example.com", k))
			}
			s.add(key, batch...)
		}
		srv := server.New(st, server.Options{Rate: 1000})
		hc := &http.Client{Transport: srv.Transport()}
		req, _ := http.NewRequest("GET", "http://local.invalid/suppressions/export?format=ndjson", nil)
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Count(string(body), "@example.com") != n {
			t.Fatalf("an export in process: %d, %d entries", resp.StatusCode, strings.Count(string(body), "@example.com"))
		}
	})
}
