package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// The team's rules (contract: agents and team rules): GET and PATCH
// /team, the protected addresses every add obeys, and the guard on the
// removal of complaints.

func (s *Server) teamRoutes() {
	s.handle("GET /team", false, s.getTeam)
	s.handle("PATCH /team", true, s.patchTeam)
}

// TeamObject is a team's rules on the wire.
func TeamObject(t store.TeamSettings) api.Team {
	return api.Team{Object: api.ObjectTeam, Name: t.Team, Protected: t.Protected, ComplaintRemoval: t.ComplaintRemoval,
		Intake: PolicyWire(t.Intake), ErasureKeepsDomain: t.ErasureKeepsDomain}
}

// PolicyWire is a team's intake policy on the wire, the defaults filled
// in.
func PolicyWire(p store.IntakePolicy) *api.IntakePolicy {
	p = p.Effective()
	return &api.IntakePolicy{Threshold: p.Threshold, Window: api.FormatSpan(p.Window), Expiry: api.FormatSpan(p.Expiry)}
}

func (s *Server) getTeam(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	t, err := s.store.TeamSettings(r.Context(), team)
	if err != nil {
		return 0, nil, err
	}
	return http.StatusOK, TeamObject(t), nil
}

// patchTeam changes the team's rules: full keys only (an agent works the
// list, an admin sets its rules), and lifting the override rule for
// complaints takes a key that has the permission the rule asks for.
func (s *Server) patchTeam(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	c, _ := callerOf(r)
	if c.agent != nil {
		return 0, nil, newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
			"An agent cannot change the team's rules; an admin can, with an API key or shush team set.")
	}
	f, err := readObject(w, r, "protected", "complaint_removal", "intake", "erasure_keeps_domain")
	if err != nil {
		return 0, nil, err
	}
	t, err := s.store.TeamSettings(r.Context(), team)
	if err != nil {
		return 0, nil, err
	}
	if raw, ok := f["protected"]; ok {
		if t.Protected, err = protectedList(raw); err != nil {
			return 0, nil, err
		}
	}
	if raw, ok := f["complaint_removal"]; ok {
		rule, err := stringField(raw, "complaint_removal", "confirm or override", complaintRule)
		if err != nil {
			return 0, nil, err
		}
		if t.ComplaintRemoval == store.ComplaintOverride && rule != store.ComplaintOverride && !c.override() {
			return 0, nil, newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
				"Only an API key with the override permission can lift the team's override rule for removing complaints.")
		}
		t.ComplaintRemoval = rule
	}
	if raw, ok := f["intake"]; ok {
		if t.Intake, err = policyPatch(raw, t.Intake); err != nil {
			return 0, nil, err
		}
	}
	if raw, ok := f["erasure_keeps_domain"]; ok {
		if t.ErasureKeepsDomain, err = boolField(raw, "erasure_keeps_domain"); err != nil {
			return 0, nil, err
		}
	}
	if err := s.store.SetTeamSettings(r.Context(), t); err != nil {
		return 0, nil, err
	}
	return http.StatusOK, TeamObject(t), nil
}

// protectedList reads a protected list: 0 to api.MaxProtected addresses
// and @domains, normalized, each once.
func protectedList(raw []byte) ([]string, error) {
	if bytes.Equal(bytes.Join(bytes.Fields(raw), nil), []byte("[]")) {
		return []string{}, nil
	}
	return stringListOf(raw, "protected", "an address or @domain", api.MaxProtected, api.NormalizeProtected)
}

func complaintRule(s string) (string, error) {
	switch s {
	case store.ComplaintConfirm, store.ComplaintOverride:
		return s, nil
	}
	return "", errors.New("it must be confirm or override")
}

// protectedRefusal is the answer to an add the team's rules refused (a
// *store.ProtectedError): a validation error naming the first protected
// item of field (its index, as the request gave it); nothing of the batch
// was applied. Other errors pass unchanged.
func protectedRefusal(err error, field string) error {
	var pe *store.ProtectedError
	if !errors.As(err, &pe) {
		return err
	}
	where := fmt.Sprintf("%s[%d]", field, pe.Index)
	switch field {
	case "email":
		where = "`email`"
	case "entries":
		where += ".email"
	}
	by := ""
	if pe.Rule != pe.Email {
		by = " (" + pe.Rule + ")"
	}
	return invalid("%s (%s) is protected by the team%s; nothing was added. Take it out of the request.", where, api.Quote(pe.Email), by)
}

// removal is the author of a removal: it may not take complaints off the
// list when the team asks for the override permission and the caller
// lacks it. The store reads the team's rule inside the removal's change.
func (s *Server) removal(r *http.Request, team string) (store.Change, error) {
	ch := authorOf(r)
	if c, _ := callerOf(r); !c.override() {
		ch.ComplaintRule = true
	}
	return ch, nil
}

// complaintRefusal is the answer to a removal the team's rule refused
// (a *store.ComplaintError); where names the entry as the request gave it.
func complaintRefusal(r *http.Request, err error, where func(store.Entry) string) error {
	var ce *store.ComplaintError
	if !errors.As(err, &ce) {
		return err
	}
	c, _ := callerOf(r)
	source := ""
	if ce.Entry.SourceID != nil {
		source = " (source " + api.Quote(*ce.Entry.SourceID) + ")"
	}
	return newProblem(http.StatusForbidden, api.ErrRestrictedAPIKey,
		"%s was listed by a complaint%s; this team lets only a key or agent with the override permission remove it, and this %s has none. Nothing was removed.",
		where(ce.Entry), source, c.kind())
}

// policyPatch applies an `intake` object to a team's policy: the fields
// it gives replace the policy's (a threshold of 1 to 100, a window and an
// expiry from a minute to a year: "7d", "36h").
func policyPatch(raw []byte, p store.IntakePolicy) (store.IntakePolicy, error) {
	if kind := jsonKind(raw); kind != "an object" {
		return p, badRequest("`intake` must be an object, not %s.", kind)
	}
	f, dup, err := objectFields(raw)
	if err != nil {
		return p, badRequest("`intake` is not valid JSON: %s.", jsonReason(err))
	}
	if dup != "" {
		return p, badRequest("`intake.%s` is given more than once; send it once.", dup)
	}
	if raw, ok := f["soft_bounce_threshold"]; ok {
		var n int
		if err := json.Unmarshal(raw, &n); err != nil || n < 1 || n > api.MaxSoftThreshold {
			return p, invalid("`intake.soft_bounce_threshold` must be a whole number from 1 to %d.", api.MaxSoftThreshold)
		}
		p.Threshold = n
	}
	for _, c := range []struct {
		name string
		dst  *time.Duration
	}{{"soft_bounce_window", &p.Window}, {"soft_bounce_expiry", &p.Expiry}} {
		if raw, ok := f[c.name]; ok {
			d, err := stringField(raw, "intake."+c.name, "a span of time like 7d or 36h", func(v string) (string, error) {
				_, err := api.ParseSpan(v)
				return v, err
			})
			if err != nil {
				return p, err
			}
			*c.dst, _ = api.ParseSpan(d)
		}
	}
	return p, nil
}
