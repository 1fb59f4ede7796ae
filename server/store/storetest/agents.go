package storetest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// newAgent is an agent of team tm named name, with a fingerprint of its
// own.
func newAgent(tm, name string) store.Agent {
	return store.Agent{ID: uuid.NewString(), Team: tm, Name: name, PublicKey: "ssh-ed25519 AAAA" + name,
		Fingerprint: "SHA256:" + name, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
}

// testAgents: agents are found by ID and by their key's fingerprint, a
// name or a key is held by one agent at a time, and a removed agent is
// kept by ID but found by key no more.
func testAgents(t *testing.T, st store.Store) {
	tm := team(t)
	jane, bob := newAgent(tm, tm+"-jane"), newAgent(tm, tm+"-bob")
	bob.ReadOnly, bob.Override = true, true
	bob.CreatedAt = jane.CreatedAt.Add(time.Millisecond)
	for _, a := range []store.Agent{jane, bob} {
		if err := st.CreateAgent(ctx(t), a); err != nil {
			t.Fatalf("CreateAgent(%s): %v", a.Name, err)
		}
	}
	got, err := st.AgentByFingerprint(ctx(t), bob.Fingerprint)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != bob.ID || got.Team != tm || got.Name != bob.Name || got.PublicKey != bob.PublicKey ||
		!got.ReadOnly || !got.Override || !got.CreatedAt.Equal(bob.CreatedAt) || got.RemovedAt != nil {
		t.Errorf("AgentByFingerprint = %+v, want %+v", got, bob)
	}
	sameName := newAgent(tm, jane.Name)
	sameName.Fingerprint = "SHA256:other-" + tm
	sameKey := newAgent(tm, tm+"-joe")
	sameKey.Fingerprint = jane.Fingerprint
	for _, a := range []store.Agent{sameName, sameKey} {
		if err := st.CreateAgent(ctx(t), a); !errors.Is(err, store.ErrExists) {
			t.Errorf("CreateAgent(%s, %s) beside %s: %v, want ErrExists", a.Name, a.Fingerprint, jane.Name, err)
		}
	}
	list, err := st.ListAgents(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	i1 := slices.IndexFunc(list, func(a store.Agent) bool { return a.ID == jane.ID })
	i2 := slices.IndexFunc(list, func(a store.Agent) bool { return a.ID == bob.ID })
	if i1 < 0 || i2 < 0 || i1 > i2 {
		t.Errorf("ListAgents: positions %d and %d; want both, oldest first", i1, i2)
	}

	removed, err := st.RemoveAgent(ctx(t), jane.ID)
	if err != nil || removed.RemovedAt == nil || removed.Name != jane.Name {
		t.Fatalf("RemoveAgent = %+v, %v; want the agent with RemovedAt set", removed, err)
	}
	if _, err := st.RemoveAgent(ctx(t), jane.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removing twice: %v, want ErrNotFound", err)
	}
	if _, err := st.RemoveAgent(ctx(t), uuid.NewString()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removing an unknown agent: %v, want ErrNotFound", err)
	}
	if _, err := st.AgentByFingerprint(ctx(t), jane.Fingerprint); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a removed agent's key: %v, want ErrNotFound", err)
	}
	if got, err := st.AgentByID(ctx(t), jane.ID); err != nil || got.RemovedAt == nil {
		t.Errorf("AgentByID of a removed agent = %+v, %v; want it, removed", got, err)
	}
	list, _ = st.ListAgents(ctx(t))
	if slices.ContainsFunc(list, func(a store.Agent) bool { return a.ID == jane.ID }) {
		t.Error("ListAgents lists a removed agent")
	}
	// The name and the key are free again.
	again := newAgent(tm, jane.Name)
	again.Fingerprint = jane.Fingerprint
	if err := st.CreateAgent(ctx(t), again); err != nil {
		t.Errorf("CreateAgent with a removed agent's name and key: %v", err)
	}
}

// testAgentsTrail: an agent's changes name the agent and no key, in the
// trail of additions, of removals, and of the additions of entries
// removed since.
func testAgentsTrail(t *testing.T, st store.Store) {
	tm := team(t)
	agent := store.Change{AgentID: uuid.NewString(), AgentName: "Jane Doe", Reference: "#1", RequestID: "req-a"}
	if _, err := st.Add(ctx(t), tm, agent, store.Manual("a@example.com", "b@example.com")); err != nil {
		t.Fatal(err)
	}
	if _, err := st.RemoveEmails(ctx(t), tm, agent, []string{"a@example.com"}); err != nil {
		t.Fatal(err)
	}
	got := trail(t, st, tm, store.AuditQuery{})
	if len(got) != 3 {
		t.Fatalf("trail = %v, want 3 entries", describe(got))
	}
	for _, e := range got {
		if e.AgentID != agent.AgentID || e.AgentName != agent.AgentName || e.KeyID != "" || e.KeyName != "" {
			t.Errorf("%s %s: agent %q %q, key %q %q; want the agent and no key", e.Type, e.Suppression.Email, e.AgentID, e.AgentName, e.KeyID, e.KeyName)
		}
	}
	key := store.Change{KeyID: "key_1", KeyName: "ops"}
	if _, err := st.Add(ctx(t), tm, key, store.Manual("c@example.com")); err != nil {
		t.Fatal(err)
	}
	if e := trail(t, st, tm, store.AuditQuery{Email: "c@example.com"}); len(e) != 1 || e[0].AgentID != "" || e[0].AgentName != "" || e[0].KeyID != "key_1" {
		t.Errorf("a key's change: %+v; want the key and no agent", e)
	}
}

// testTeamSettings: a team without rules has the defaults; set rules read
// back as set, for that team only.
func testTeamSettings(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	got, err := st.TeamSettings(ctx(t), tm)
	if err != nil {
		t.Fatal(err)
	}
	if got.Team != tm || len(got.Protected) != 0 || got.Protected == nil || got.ComplaintRemoval != store.ComplaintConfirm {
		t.Errorf("a new team's rules = %+v; want none protected (an empty list) and confirm", got)
	}
	set := store.TeamSettings{Team: tm, Protected: []string{"support@acme.test", "@acme.test"}, ComplaintRemoval: store.ComplaintOverride}
	if err := st.SetTeamSettings(ctx(t), set); err != nil {
		t.Fatal(err)
	}
	got, err = st.TeamSettings(ctx(t), tm)
	if err != nil || !slices.Equal(got.Protected, set.Protected) || got.ComplaintRemoval != store.ComplaintOverride {
		t.Errorf("rules read back = %+v, %v; want %+v", got, err, set)
	}
	set.Protected = []string{}
	set.ComplaintRemoval = store.ComplaintConfirm
	if err := st.SetTeamSettings(ctx(t), set); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.TeamSettings(ctx(t), tm); len(got.Protected) != 0 || got.ComplaintRemoval != store.ComplaintConfirm {
		t.Errorf("rules replaced = %+v; want none protected and confirm", got)
	}
	if got, _ := st.TeamSettings(ctx(t), other); len(got.Protected) != 0 || got.ComplaintRemoval != store.ComplaintConfirm {
		t.Errorf("another team's rules = %+v; want the defaults", got)
	}
}

// testAddObeysProtected: an add naming an address the team's rules
// protect, itself or by its @domain, fails with a *store.ProtectedError
// naming the first such entry and lists nothing of the batch; a rule
// lifted is obeyed at the next add; another team's rules are not.
func testAddObeysProtected(t *testing.T, st store.Store) {
	tm, other := team(t), team(t)
	if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{"support@acme.test", "@own.test"},
		ComplaintRemoval: store.ComplaintConfirm}); err != nil {
		t.Fatal(err)
	}
	batch := []string{"ok@example.com", "anyone@own.test", "support@acme.test"}
	_, err := st.Add(ctx(t), tm, store.Change{}, store.Manual(batch...))
	var pe *store.ProtectedError
	if !errors.As(err, &pe) || pe.Index != 1 || pe.Email != "anyone@own.test" || pe.Rule != "@own.test" {
		t.Fatalf("an add naming protected addresses: %v; want a ProtectedError for entry 1 by @own.test", err)
	}
	for _, addr := range batch {
		if _, err := st.GetByEmail(ctx(t), tm, addr); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("%s after the refused add: %v; want it not listed", addr, err)
		}
	}
	if got, err := st.Add(ctx(t), other, store.Change{}, store.Manual(batch...)); err != nil || len(got) != 3 {
		t.Errorf("another team's add of the same addresses: %d entries, %v; want all three", len(got), err)
	}
	if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{"@acme.test"},
		ComplaintRemoval: store.ComplaintConfirm}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Manual("anyone@own.test")); err != nil {
		t.Errorf("an add of an address no longer protected: %v", err)
	}
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Manual("support@acme.test")); !errors.As(err, &pe) || pe.Rule != "@acme.test" {
		t.Errorf("an add of an address the new rules protect: %v; want a ProtectedError by @acme.test", err)
	}
	// A protected domain covers its subdomains, whatever origin the add
	// gives (an import, a provider's event).
	bounce := "evt-1"
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginBounce, &bounce, "ok2@example.com", "x@eu.mail.acme.test")); !errors.As(err, &pe) || pe.Index != 1 || pe.Rule != "@acme.test" {
		t.Errorf("an add of an address of a protected domain's subdomain: %v; want a ProtectedError for entry 1 by @acme.test", err)
	}
	if _, err := st.GetByEmail(ctx(t), tm, "ok2@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("ok2@example.com after the refused add: %v; want it not listed", err)
	}
}

// testRemovalObeysComplaintRule: a removal told to obey the team's rule
// for complaints (store.Change.ComplaintRule) reads it in its change: under
// override it is refused whole with a *store.ComplaintError, under confirm
// (or with no rules set) it removes the complaint.
func testRemovalObeysComplaintRule(t *testing.T, st store.Store) {
	tm := team(t)
	src := "msg-1"
	complaints := func(emails ...string) {
		t.Helper()
		if _, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginComplaint, &src, emails...)); err != nil {
			t.Fatal(err)
		}
	}
	rule := func(r string) {
		t.Helper()
		if err := st.SetTeamSettings(ctx(t), store.TeamSettings{Team: tm, Protected: []string{}, ComplaintRemoval: r}); err != nil {
			t.Fatal(err)
		}
	}
	obey := store.Change{KeyID: "k", ComplaintRule: true}
	complaints("a@example.com", "b@example.com")
	if got, err := st.RemoveEmails(ctx(t), tm, obey, []string{"a@example.com"}); err != nil || len(got) != 1 {
		t.Fatalf("a removal of a complaint with no rules set: %d removed, %v; want it removed", len(got), err)
	}
	rule(store.ComplaintOverride)
	plain := mustAdd(t, st, tm, "plain@example.com")
	_, err := st.RemoveEmails(ctx(t), tm, obey, []string{"plain@example.com", "b@example.com"})
	var ce *store.ComplaintError
	if !errors.As(err, &ce) || ce.Entry.Email != "b@example.com" {
		t.Fatalf("a removal of a complaint under the override rule: %v; want a ComplaintError naming it", err)
	}
	if _, err := st.GetByEmail(ctx(t), tm, "plain@example.com"); err != nil {
		t.Errorf("the refused removal took %s off: %v", plain[0].Email, err)
	}
	if got, err := st.RemoveEmails(ctx(t), tm, store.Change{KeyID: "k"}, []string{"b@example.com"}); err != nil || len(got) != 1 {
		t.Errorf("a removal not told to obey the rule: %d removed, %v; want it removed", len(got), err)
	}
	complaints("c@example.com")
	rule(store.ComplaintConfirm)
	if got, err := st.RemoveEmails(ctx(t), tm, obey, []string{"c@example.com"}); err != nil || len(got) != 1 {
		t.Errorf("a removal of a complaint under confirm: %d removed, %v; want it removed", len(got), err)
	}
}

// testKeepComplaints: a removal that may not take complaints off the list
// is refused whole, naming the complaint, when it names one; without
// one, or without the rule, it removes.
func testKeepComplaints(t *testing.T, st store.Store) {
	tm := team(t)
	src := "msg-1"
	if _, err := st.Add(ctx(t), tm, store.Change{}, store.Listed(api.OriginComplaint, &src, "angry@example.com")); err != nil {
		t.Fatal(err)
	}
	plain := mustAdd(t, st, tm, "plain@example.com", "other@example.com")
	complaint, err := st.GetByEmail(ctx(t), tm, "angry@example.com")
	if err != nil {
		t.Fatal(err)
	}
	keep := store.Change{KeyID: "k", KeepComplaints: true}
	for name, remove := range map[string]func() ([]store.Entry, error){
		"by address": func() ([]store.Entry, error) {
			return st.RemoveEmails(ctx(t), tm, keep, []string{"plain@example.com", "angry@example.com"})
		},
		"by ID": func() ([]store.Entry, error) {
			return st.RemoveIDs(ctx(t), tm, keep, []string{plain[0].ID, complaint.ID})
		},
	} {
		_, err := remove()
		var ce *store.ComplaintError
		if !errors.As(err, &ce) || ce.Entry.Email != "angry@example.com" || ce.Entry.ID != complaint.ID {
			t.Errorf("%s: %v; want a ComplaintError naming angry@example.com", name, err)
		}
		if on := present(t, st, tm, []string{"plain@example.com", "angry@example.com"}); len(on) != 2 {
			t.Errorf("%s: on the list after the refusal: %v; want both", name, on)
		}
	}
	if got := trail(t, st, tm, store.AuditQuery{Type: store.AuditRemoved}); len(got) != 0 {
		t.Errorf("a refused removal wrote %v", describe(got))
	}
	if got, err := st.RemoveEmails(ctx(t), tm, keep, []string{"plain@example.com"}); err != nil || len(got) != 1 {
		t.Errorf("removing no complaint under the rule = %v, %v; want it removed", emails(got), err)
	}
	if got, err := st.RemoveEmails(ctx(t), tm, store.Change{KeyID: "k"}, []string{"angry@example.com"}); err != nil || len(got) != 1 {
		t.Errorf("removing the complaint without the rule = %v, %v; want it removed", emails(got), err)
	}
}
