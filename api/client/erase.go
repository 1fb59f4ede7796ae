package client

import (
	"context"
	"net/http"

	"github.com/shushlist/shush/api"
)

// Erase asks the service to erase 1 to api.MaxBatch addresses
// (POST /suppressions/erase, docs/erasure.md): each is kept from then on
// as its keyed hash only, and stays listed. An erasure of an address
// erased before changes nothing, so the request is retried as an
// idempotent one. The items say what stands for each address now.
func (c *Client) Erase(ctx context.Context, emails []string) ([]api.ErasedItem, error) {
	var out api.EraseResponse
	err := c.do(ctx, http.MethodPost, "/suppressions/erase", nil, api.EraseRequest{Emails: nonNil(emails)}, &out, idempotent)
	return out.Data, err
}
