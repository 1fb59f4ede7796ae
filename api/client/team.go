package client

import (
	"context"
	"net/http"

	"github.com/shushlist/shush/api"
)

// Team reads the team's rules (GET /team): its protected addresses and
// domains and how complaints may be removed. A service without team rules
// answers 404: IsUnsupported tells.
func (c *Client) Team(ctx context.Context) (api.Team, error) {
	var out api.Team
	err := c.do(ctx, http.MethodGet, "/team", nil, nil, &out, idempotent)
	return out, err
}
