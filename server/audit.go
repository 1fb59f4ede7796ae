package server

import (
	"net/http"
	"net/url"
	"strconv"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server/store"
)

// audit answers GET /audit: a page of the team's trail, newest first.
func (s *Server) audit(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	q, err := auditQuery(r)
	if err != nil {
		return 0, nil, err
	}
	if v := r.URL.Query().Get("email"); v != "" {
		email, err := api.NormalizeEntry(v)
		if err != nil {
			return 0, nil, invalid("`email` (%s) is not a valid email address: %s.", api.Quote(v), err)
		}
		q.Email = email
	}
	return s.auditPage(r, team, q)
}

// suppressionAudit answers GET /suppressions/{ref}/audit: one address's or
// ID's trail, also after the entry was removed.
func (s *Server) suppressionAudit(r *http.Request, w http.ResponseWriter, team string) (int, any, error) {
	q, err := auditQuery(r)
	if err != nil {
		return 0, nil, err
	}
	ref := r.PathValue("ref")
	if id, err := api.NormalizeID(ref); err == nil {
		q.SuppressionID = id
	} else {
		email, err := api.NormalizeEntry(ref)
		if err != nil {
			return 0, nil, invalid("%s is neither a suppression ID nor a valid email address: %s.", api.Quote(ref), err)
		}
		q.Email = email
	}
	return s.auditPage(r, team, q)
}

func (s *Server) auditPage(r *http.Request, team string, q store.AuditQuery) (int, any, error) {
	page, more, err := s.store.Audit(r.Context(), team, q)
	if err != nil {
		return 0, nil, err
	}
	out := api.AuditList{Object: api.ObjectList, HasMore: more, Data: make([]api.AuditEntry, len(page))}
	for i, a := range page {
		e := api.AuditEntry{
			Object:      api.ObjectAuditEntry,
			ID:          a.ID,
			Type:        a.Type,
			CreatedAt:   api.Timestamp{Time: a.CreatedAt},
			Suppression: a.Suppression.Wire(""),
			RequestID:   a.RequestID,
		}
		switch {
		case a.AgentID != "":
			e.Agent = &api.AuditAgent{ID: a.AgentID, Name: a.AgentName}
		case a.KeyID != "":
			// A change the service made itself (an expiry) has no key.
			e.Key = &api.AuditKey{ID: a.KeyID, Name: a.KeyName}
		}
		if a.Reference != "" {
			ref := a.Reference
			e.Reference = &ref
		}
		out.Data[i] = e
	}
	return http.StatusOK, out, nil
}

// auditQuery reads the paging and filters both trail routes share.
func auditQuery(r *http.Request) (store.AuditQuery, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return store.AuditQuery{}, badRequest("The query string is malformed; escape its values.")
	}
	aq := store.AuditQuery{Limit: 20}
	for name, v := range q {
		if len(v) > 1 {
			return aq, invalid("`%s` is given %d times; give it once.", name, len(v))
		}
	}
	if v, ok := q["limit"]; ok {
		n, err := strconv.Atoi(v[0])
		if err != nil || n < 1 || n > api.MaxBatch {
			return aq, invalid("`limit` must be one whole number from 1 to %d, not %s.", api.MaxBatch, api.Quote(v[0]))
		}
		aq.Limit = n
	}
	for _, p := range []struct {
		name string
		dst  *string
	}{{"after", &aq.After}, {"before", &aq.Before}} {
		if v, ok := q[p.name]; ok {
			id, err := api.NormalizeID(v[0])
			if err != nil {
				return aq, invalid("`%s` (%s) is not an audit entry ID: it must be one UUID.", p.name, api.Quote(v[0]))
			}
			*p.dst = id
		}
	}
	if aq.After != "" && aq.Before != "" {
		return aq, invalid("Send either `after` or `before`, not both.")
	}
	if v, ok := q["reference"]; ok {
		if err := api.ValidReference(v[0]); err != nil {
			return aq, invalid("`reference` is not valid: %s.", err)
		}
		aq.Reference = v[0]
	}
	if v, ok := q["type"]; ok {
		if v[0] != store.AuditAdded && v[0] != store.AuditRemoved && v[0] != store.AuditErased {
			return aq, invalid("`type` (%s) must be %s, %s or %s.", api.Quote(v[0]), store.AuditAdded, store.AuditRemoved, store.AuditErased)
		}
		aq.Type = v[0]
	}
	return aq, nil
}
