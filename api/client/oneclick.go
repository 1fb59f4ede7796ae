package client

import (
	"context"
	"net/http"

	"github.com/shushlist/shush/api"
)

// UnsubscribeKey reads the team's unsubscribe key (GET
// /team/unsubscribe-key; a read-write key only), with which a sender
// mints one-click unsubscribe tokens offline (api.MintOneClick). It is a
// secret. A service without one-click unsubscribe answers 404:
// IsUnsupported tells.
func (c *Client) UnsubscribeKey(ctx context.Context) (api.UnsubscribeKey, error) {
	var out api.UnsubscribeKey
	err := c.do(ctx, http.MethodGet, "/team/unsubscribe-key", nil, nil, &out, idempotent)
	return out, err
}

// DomainEntries reads the team's domain entries (GET
// /suppressions/domains): the @domain and *.domain blocks, newest first.
// A service without domain entries answers 404: IsUnsupported tells.
func (c *Client) DomainEntries(ctx context.Context) (api.ListResponse, error) {
	var out api.ListResponse
	err := c.do(ctx, http.MethodGet, "/suppressions/domains", nil, nil, &out, idempotent)
	return out, err
}
