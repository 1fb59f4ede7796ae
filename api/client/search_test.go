package client_test

import (
	"context"
	"errors"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/internal/hostedtest"
)

// A search is the service's: our service answers the domain's entries
// alone; a service that ignores q (the hosted one) answers its whole list,
// and the client says so rather than pass that off as the search's page.
func TestListSearch(t *testing.T) {
	ctx := context.Background()
	domain, err := api.ParseSearch("@firm.example")
	if err != nil {
		t.Fatal(err)
	}
	svc := startService(t, 1000, nil)
	c := client.New(svc.URL, svc.Key)
	if _, err := c.BatchAdd(ctx, []string{"a@firm.example", "b@example.com"}); err != nil {
		t.Fatal(err)
	}
	page, err := c.List(ctx, client.ListParams{Search: domain})
	if err != nil || len(page.Data) != 1 || page.Data[0].Email != "a@firm.example" {
		t.Errorf("our service: %+v, %v; want a@firm.example alone", page.Data, err)
	}

	h := hostedtest.Start(t)
	h.Add("a@firm.example", "b@example.com")
	hosted := client.New(h.URL, "re_test")
	if _, err := hosted.List(ctx, client.ListParams{Search: domain}); !errors.Is(err, client.ErrNoSearch) {
		t.Errorf("a service that ignores q: %v; want ErrNoSearch", err)
	}
}
