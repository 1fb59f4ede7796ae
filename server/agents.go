package server

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"
	gossh "golang.org/x/crypto/ssh"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// Agents over the API, for admins (contract: agents and team rules): the
// team's agents are listed with any of its keys, and added and removed
// with a full one. An agent cannot manage agents.

func (s *Server) agentRoutes() {
	s.handle("GET /agents", false, s.listAgents)
	s.handle("POST /agents", true, s.addAgent)
	s.handle("DELETE /agents/{ref}", true, s.removeAgent)
}

// agentObject is an agent on the wire.
func agentObject(a store.Agent) api.Agent {
	return api.Agent{Object: api.ObjectAgent, ID: a.ID, Name: a.Name, Team: a.Team, Fingerprint: a.Fingerprint,
		ReadOnly: a.ReadOnly, Override: a.Override, CreatedAt: api.Timestamp{Time: a.CreatedAt}}
}

func (s *Server) listAgents(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	all, err := s.store.ListAgents(r.Context())
	if err != nil {
		return 0, nil, err
	}
	out := api.AgentList{Object: api.ObjectList, Data: []api.Agent{}}
	for _, a := range all {
		if a.Team == team {
			out.Data = append(out.Data, agentObject(a))
		}
	}
	return http.StatusOK, out, nil
}

// admin refuses an agent: agents are managed by admins, with a key.
func admin(r *http.Request) error {
	if c, _ := callerOf(r); c.agent != nil {
		return newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
			"An agent cannot manage agents; an admin can, with an API key or shush agents.")
	}
	return nil
}

func (s *Server) addAgent(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	if err := admin(r); err != nil {
		return 0, nil, err
	}
	f, err := readObject(w, r, "name", "public_key", "read_only", "override")
	if err != nil {
		return 0, nil, err
	}
	var n api.NewAgent
	for _, fld := range []struct {
		name string
		dst  *string
	}{{"name", &n.Name}, {"public_key", &n.PublicKey}} {
		raw, ok := f[fld.name]
		if !ok {
			return 0, nil, missing("Missing `%s` field; send {\"name\": \"...\", \"public_key\": \"ssh-ed25519 AAAA...\"}.", fld.name)
		}
		if *fld.dst, err = stringField(raw, fld.name, "a string", func(s string) (string, error) { return s, nil }); err != nil {
			return 0, nil, err
		}
	}
	for _, fld := range []struct {
		name string
		dst  *bool
	}{{"read_only", &n.ReadOnly}, {"override", &n.Override}} {
		if raw, ok := f[fld.name]; ok {
			if *fld.dst, err = boolField(raw, fld.name); err != nil {
				return 0, nil, err
			}
		}
	}
	if c, _ := callerOf(r); n.Override && !c.override() {
		return 0, nil, newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
			"Only an API key with the override permission can give an agent that permission.")
	}
	a, err := CreateAgent(r.Context(), s.store, team, n)
	switch {
	case errors.Is(err, ErrKeyRefused):
		// One answer for every refused key: whether a key is some
		// agent's, of this team or another, is not told.
		return 0, nil, invalid("%s.", upperFirst(ErrKeyRefused.Error()))
	case errors.Is(err, store.ErrExists):
		return 0, nil, newProblem(http.StatusConflict, api.ErrValidation,
			"An agent named %s exists already; remove it first or choose another name.", api.Quote(n.Name))
	case errors.As(err, new(*AgentError)):
		return 0, nil, invalid("%s.", upperFirst(err.Error()))
	case err != nil:
		return 0, nil, err
	}
	return http.StatusCreated, agentObject(a), nil
}

func (s *Server) removeAgent(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	if err := admin(r); err != nil {
		return 0, nil, err
	}
	a, err := FindAgent(r.Context(), s.store, r.PathValue("ref"))
	if errors.Is(err, store.ErrNotFound) || err == nil && a.Team != team {
		// Another team's agent is as unknown as one that never was.
		return 0, nil, newProblem(http.StatusNotFound, api.ErrNotFound, "Agent not found")
	}
	if err != nil {
		return 0, nil, err
	}
	if _, err := s.store.RemoveAgent(r.Context(), a.ID); err != nil {
		return 0, nil, or404(err, func() *problem { return newProblem(http.StatusNotFound, api.ErrNotFound, "Agent not found") })
	}
	return http.StatusOK, api.DeletedAgent{Object: api.ObjectAgent, ID: a.ID, Deleted: true}, nil
}

// AgentError is a new agent that cannot be made: its name or its key is
// not valid. It says why in a sentence's words.
type AgentError struct{ msg string }

func (e *AgentError) Error() string { return e.msg }

// ErrKeyRefused is the refusal of a well-formed public key that cannot be
// an agent's: of a type or size too weak, or the key of an agent already
// (of any team). The service gives every one of them the same answer, so
// that nobody learns from it whether a key is some agent's.
var ErrKeyRefused = errors.New("the public key cannot be an agent's: give the agent's own SSH key (ed25519, ECDSA, or RSA of at least 2048 bits), one that no agent has yet")

// ErrKeyTaken is the refusal of a key that is another agent's; it is an
// ErrKeyRefused. Only an admin on the database (shush agents add) is told
// which.
var ErrKeyTaken = fmt.Errorf("%w (it is the key of an agent already)", ErrKeyRefused)

// minRSABits is the smallest RSA key an agent may have.
const minRSABits = 2048

// ParseAgentKey reads an agent's public key from the text of a public key
// file or an authorized_keys line (blank and comment lines skipped): one
// key, of a type an SSH server takes and strong enough (ErrKeyRefused
// otherwise). It returns the key in the authorized_keys form without its
// comment, with its options (see AgentKeyOptions: from= is kept and
// honoured, restrictions that always hold are dropped, any other is
// refused), and its SHA256 fingerprint.
func ParseAgentKey(text string) (authorized, fingerprint string, err error) {
	var keys []gossh.PublicKey
	var options []string
	rest := []byte(text)
	for len(strings.TrimSpace(string(rest))) > 0 {
		pk, _, opts, r, err := gossh.ParseAuthorizedKey(rest)
		if err != nil {
			if len(keys) == 0 {
				return "", "", &AgentError{"the public key is not one an SSH server takes (" + err.Error() + "); give the agent's .pub file, such as ~/.ssh/id_ed25519.pub"}
			}
			break
		}
		keys, options = append(keys, pk), opts
		rest = r
	}
	switch {
	case len(keys) == 0:
		return "", "", &AgentError{"there is no public key; give the agent's .pub file, such as ~/.ssh/id_ed25519.pub"}
	case len(keys) > 1:
		return "", "", &AgentError{fmt.Sprintf("there are %d public keys; give the agent exactly one", len(keys))}
	}
	if !strongKey(keys[0]) {
		return "", "", ErrKeyRefused
	}
	kept, err := AgentKeyOptions(options)
	if err != nil {
		return "", "", err
	}
	authorized = strings.TrimSpace(string(gossh.MarshalAuthorizedKey(keys[0])))
	if len(kept) > 0 {
		authorized = strings.Join(kept, ",") + " " + authorized
	}
	return authorized, gossh.FingerprintSHA256(keys[0]), nil
}

// strongKey reports whether an agent may log in with a key of this type
// and size: ed25519 and ECDSA (also on security keys), RSA of at least
// minRSABits; not DSA, not a certificate.
func strongKey(pk gossh.PublicKey) bool {
	switch pk.Type() {
	case gossh.KeyAlgoED25519, gossh.KeyAlgoSKED25519, gossh.KeyAlgoECDSA256, gossh.KeyAlgoECDSA384, gossh.KeyAlgoECDSA521, gossh.KeyAlgoSKECDSA256:
		return true
	case gossh.KeyAlgoRSA:
		ck, ok := pk.(gossh.CryptoPublicKey)
		if !ok {
			return false
		}
		rk, ok := ck.CryptoPublicKey().(*rsa.PublicKey)
		return ok && rk.N.BitLen() >= minRSABits
	}
	return false
}

// CreateAgent checks a new agent of team and stores it: a valid team
// and name, one public key that no agent has. Its errors are an
// *AgentError, ErrKeyRefused (ErrKeyTaken for another agent's key),
// store.ErrExists when the name is taken, or the store's.
func CreateAgent(ctx context.Context, st store.Agents, team string, n api.NewAgent) (store.Agent, error) {
	if err := ValidateTeam(team); err != nil {
		return store.Agent{}, &AgentError{err.Error()}
	}
	if err := api.ValidAgentName(n.Name); err != nil {
		return store.Agent{}, &AgentError{err.Error()}
	}
	key, print, err := ParseAgentKey(n.PublicKey)
	if err != nil {
		return store.Agent{}, err
	}
	taken := func() (bool, error) {
		_, err := st.AgentByFingerprint(ctx, print)
		if errors.Is(err, store.ErrNotFound) {
			return false, nil
		}
		return err == nil, err
	}
	if t, err := taken(); t || err != nil {
		return store.Agent{}, cmp.Or(err, ErrKeyTaken)
	}
	id, err := uuid.NewV7()
	if err != nil {
		return store.Agent{}, err
	}
	a := store.Agent{ID: id.String(), Team: team, Name: n.Name, PublicKey: key, Fingerprint: print,
		ReadOnly: n.ReadOnly, Override: n.Override, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	if err := st.CreateAgent(ctx, a); err != nil {
		if errors.Is(err, store.ErrExists) {
			// The name, or the key given to another agent meanwhile.
			if t, terr := taken(); t || terr != nil {
				return store.Agent{}, cmp.Or(terr, ErrKeyTaken)
			}
		}
		return store.Agent{}, err
	}
	return a, nil
}

// FindAgent finds the agent not removed that ref names: its ID, or its
// name.
func FindAgent(ctx context.Context, st store.Agents, ref string) (store.Agent, error) {
	if _, err := uuid.Parse(ref); err == nil && len(ref) == 36 {
		a, err := st.AgentByID(ctx, strings.ToLower(ref))
		if err == nil && a.RemovedAt != nil {
			return store.Agent{}, store.ErrNotFound
		}
		return a, err
	}
	all, err := st.ListAgents(ctx)
	if err != nil {
		return store.Agent{}, err
	}
	for _, a := range all {
		if a.Name == ref {
			return a, nil
		}
	}
	return store.Agent{}, store.ErrNotFound
}

// boolField reads a JSON boolean field.
func boolField(raw []byte, name string) (bool, error) {
	switch string(bytes.TrimSpace(raw)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, badRequest("`%s` must be true or false, not %s.", name, jsonKind(raw))
}

// upperFirst starts a sentence made of an error's words.
func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
