package cli

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
)

// The streamed --json answer of a run is byte for byte what writeJSON
// prints for the same merged response.
func TestWriteMergedMatchesWriteJSON(t *testing.T) {
	rep := batch.Report{Results: []batch.Result{
		{Input: "a@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a", Outcome: batch.Added},
		{Input: "b@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b", Outcome: batch.AlreadyListed},
		{Input: "c@example.com", Outcome: batch.Failed, Message: "refused"},
		{Input: "d@example.com", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6c", Outcome: batch.Removed},
		{Input: "e@example.com", Outcome: batch.NotListed},
	}}
	cases := []struct {
		mode batch.Mode
		rep  batch.Report
		want api.BatchResponse
	}{
		{batch.Add, rep, api.BatchResponse{Data: []api.Suppression{
			{Object: "suppression", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a"},
			{Object: "suppression", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6b"},
		}}},
		{batch.RemoveEmails, rep, api.BatchResponse{Data: []api.Suppression{
			{Object: "suppression", ID: "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6c", Deleted: true},
		}}},
		{batch.RemoveIDs, batch.Report{}, api.BatchResponse{Data: []api.Suppression{}}},
	}
	for _, c := range cases {
		var got, want bytes.Buffer
		if err := writeMerged(&got, c.mode, c.rep); err != nil {
			t.Fatal(err)
		}
		if err := writeJSON(&want, c.want); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\ngot  %s\nwant %s", c.mode, got.String(), want.String())
		}
	}
}

func TestInProcessTransport(t *testing.T) {
	ctx := context.Background()
	st, err := server.OpenStore(ctx, filepath.Join(t.TempDir(), "local.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	_, key, err := server.CreateKey(ctx, st, "local", false)
	if err != nil {
		t.Fatal(err)
	}
	c := api.NewClient(localTarget("local.db"), key, api.WithTransport(inProcessTransport{handler: server.New(st, server.Options{})}))
	got, err := c.BatchAdd(ctx, []string{"a@example.com", "b@example.com"})
	if err != nil || len(got) != 2 {
		t.Fatalf("BatchAdd: %v, %v", got, err)
	}
	e, err := c.Get(ctx, "b@example.com")
	if err != nil || e.ID != got[1].ID {
		t.Fatalf("Get: %+v, %v", e, err)
	}
	_, err = c.Get(ctx, "nobody@example.com")
	var ae *api.Error
	if !errors.As(err, &ae) || ae.StatusCode != http.StatusNotFound || ae.Name != api.ErrNotFound {
		t.Errorf("Get of an unlisted address: %v", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := c.BatchAdd(cancelled, []string{"c@example.com"}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled request: %v", err)
	}
	if _, err := c.Get(ctx, "c@example.com"); !api.IsNotFound(err) {
		t.Errorf("the cancelled request was served: %v", err)
	}
}

// Journals find their run by target, so two local lists must not share one.
func TestLocalTargetIsPerDatabase(t *testing.T) {
	dir := t.TempDir()
	a, b := localTarget(filepath.Join(dir, "a.db")), localTarget(filepath.Join(dir, "b.db"))
	if a == b || a != localTarget(filepath.Join(dir, ".", "a.db")) {
		t.Errorf("targets %s and %s", a, b)
	}
	if _, err := config.CheckBaseURL(a); err != nil {
		t.Errorf("local target %s is not a base URL: %v", a, err)
	}
}
