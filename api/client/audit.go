package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/shushlist/shush/api"
)

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
func (c *Client) Audit(ctx context.Context, p AuditParams) (api.AuditList, error) {
	var out api.AuditList
	err := c.do(ctx, http.MethodGet, "/audit", p.query(), nil, &out, idempotent)
	return out, err
}

// SuppressionAudit reads one address's or ID's trail, also after its
// removal (GET /suppressions/{id-or-email}/audit).
func (c *Client) SuppressionAudit(ctx context.Context, idOrEmail string, p AuditParams) (api.AuditList, error) {
	var out api.AuditList
	err := c.do(ctx, http.MethodGet, "/suppressions/"+url.PathEscape(idOrEmail)+"/audit", p.query(), nil, &out, idempotent)
	return out, err
}
