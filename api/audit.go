package api

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
)

// ObjectAuditEntry is the "object" of an entry of the trail.
const ObjectAuditEntry = "audit_entry"

// The types of audit entries.
const (
	AuditAdded   = "suppression.added"
	AuditRemoved = "suppression.removed"
)

// AuditEntry is one line of the trail (contract: the trail): a suppression
// that a change put on or took off the list, who made it (the key) and why
// (the reference).
type AuditEntry struct {
	Object      string    `json:"object"`
	ID          string    `json:"id"`
	Type        string    `json:"type"`
	CreatedAt   Timestamp `json:"created_at"`
	Suppression Entry     `json:"suppression"`
	Key         AuditKey  `json:"key"`
	Reference   *string   `json:"reference"`
	RequestID   string    `json:"request_id"`
}

// AuditKey names the key that made a change.
type AuditKey struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// AuditList is the answer of GET /audit and GET /suppressions/{ref}/audit.
type AuditList struct {
	Object  string       `json:"object"`
	HasMore bool         `json:"has_more"`
	Data    []AuditEntry `json:"data"`
}

// AuditParams selects a page of the trail: paged like ListParams, narrowed
// by address, reference and type.
type AuditParams struct {
	Limit     int
	After     string
	Before    string
	Email     string
	Reference string
	Type      string
}

func (p AuditParams) query() url.Values {
	q := url.Values{}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	for k, v := range map[string]string{"after": p.After, "before": p.Before, "email": p.Email, "reference": p.Reference, "type": p.Type} {
		if v != "" {
			q.Set(k, v)
		}
	}
	return q
}

// Audit reads a page of the team's trail, newest first (GET /audit). A
// service without a trail answers 404: IsUnsupported tells.
func (c *Client) Audit(ctx context.Context, p AuditParams) (AuditList, error) {
	var out AuditList
	err := c.do(ctx, http.MethodGet, "/audit", p.query(), nil, &out, idempotent)
	return out, err
}

// SuppressionAudit reads one address's or ID's trail, also after its
// removal (GET /suppressions/{id-or-email}/audit).
func (c *Client) SuppressionAudit(ctx context.Context, idOrEmail string, p AuditParams) (AuditList, error) {
	var out AuditList
	err := c.do(ctx, http.MethodGet, "/suppressions/"+url.PathEscape(idOrEmail)+"/audit", p.query(), nil, &out, idempotent)
	return out, err
}
