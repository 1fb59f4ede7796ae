package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"path/filepath"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
)

// A run's --json document: an item per entry with its outcome, deleted
// for removals, the error of a failure, the reason of an unverified entry,
// and the invalid entries left out; hostile text escaped, exact.
func TestRunDocument(t *testing.T) {
	rep := batch.Report{
		Invalid: []batch.Item{{Line: 4, Raw: "bob@", Problem: "the domain after @ is empty"}},
		Results: []batch.Result{
			{Input: "a@example.com", ID: "id-a", Outcome: batch.Added, Batch: 1},
			{Input: "b@example.com", ID: "id-b", Outcome: batch.AlreadyListed, Batch: 1},
			{Input: "c@example.com", Outcome: batch.Failed, Message: "refused \x1b[2J\u202e", Batch: 2},
			{Input: "d@example.com", ID: "id-d", Outcome: batch.Removed, Batch: 2},
			{Input: "e@example.com", Outcome: batch.NotListed, Batch: 2},
			{Input: "f@example.com", Outcome: batch.Unverified, Message: "not said", Batch: 2},
		}}
	var got bytes.Buffer
	if err := writeMerged(&got, batch.RemoveEmails, rep); err != nil {
		t.Fatal(err)
	}
	if bytes.ContainsAny(got.Bytes(), "\x1b") || bytes.Contains(got.Bytes(), []byte("\u202e")) && !bytes.Contains(got.Bytes(), []byte(`\u202e`)) {
		t.Errorf("raw control or format characters in the JSON: %q", got.String())
	}
	var doc struct {
		Object string `json:"object"`
		Data   []struct {
			Object, ID, Email, Error, Reason string
			Outcome                          batch.Outcome
			Deleted                          *bool
		} `json:"data"`
		Invalid []struct {
			Line           int
			Entry, Problem string
		} `json:"invalid"`
	}
	if err := json.Unmarshal(got.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, got.String())
	}
	if doc.Object != "list" || len(doc.Data) != 6 || len(doc.Invalid) != 1 || doc.Invalid[0].Line != 4 || doc.Invalid[0].Entry != "bob@" {
		t.Fatalf("document:\n%s", got.String())
	}
	d := doc.Data
	if d[0].Email != "a@example.com" || d[0].ID != "id-a" || d[0].Outcome != "added" || d[0].Object != "suppression" {
		t.Errorf("added: %+v", d[0])
	}
	if d[1].Outcome != "already_listed" || d[2].Outcome != "failed" || d[2].Error != "refused \x1b[2J\u202e" {
		t.Errorf("listed/failed: %+v %+v", d[1], d[2])
	}
	if d[3].Deleted == nil || !*d[3].Deleted || d[4].Deleted == nil || *d[4].Deleted || d[4].Outcome != "not_listed" {
		t.Errorf("removal flags: %+v %+v", d[3], d[4])
	}
	if d[5].Outcome != "unverified" || d[5].Reason != "not said" || d[5].ID != "" {
		t.Errorf("unverified: %+v", d[5])
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
	c := client.New(localTarget("local.db"), key, client.WithTransport(server.New(st, server.Options{}).Transport()))
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
	if _, err := c.Get(ctx, "c@example.com"); !client.IsNotFound(err) {
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
