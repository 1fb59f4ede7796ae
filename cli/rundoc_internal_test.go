package cli

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/shushlist/shush/batch"
)

// TestRunItemAsMarshal: an item of a run's --json document is written as
// json.Marshal writes it, byte for byte.
func TestRunItemAsMarshal(t *testing.T) {
	yes, no := true, false
	items := []runItem{
		{},
		{Object: "suppression", ID: "3f1c", Email: "a@example.com", Outcome: "added", Batch: 1},
		{Object: "suppression", ID: "x", Email: "<b>&\"c\"@example.com", Outcome: "removed", Deleted: &yes, Reason: "ü\u2028\x01", Batch: -3, Note: "n", ExpiresAt: "2026-01-02T03:04:05.000Z"},
		{Object: "suppression", Outcome: "not_listed", Deleted: &no, Error: `\x`},
	}
	for _, it := range items {
		checkRunItem(t, it)
	}
}

func FuzzRunItem(f *testing.F) {
	f.Add("3f1c", "a@example.com", "added", "", 1, true)
	f.Add("<&>", "\u2028\xff", "x\"y", "\\\x00", -1, false)
	f.Fuzz(func(t *testing.T, id, email, outcome, message string, n int, deleted bool) {
		it := runItem{Object: "suppression", ID: id, Email: email, Outcome: batch.Outcome(outcome), Error: message, Reason: email, Batch: n, Note: id, ExpiresAt: message}
		if deleted {
			it.Deleted = &deleted
		}
		checkRunItem(t, it)
	})
}

func checkRunItem(t *testing.T, it runItem) {
	t.Helper()
	want, err := json.Marshal(it)
	if err != nil {
		t.Fatal(err)
	}
	if got := appendRunItem(nil, it); !bytes.Equal(got, want) {
		t.Errorf("run item:\n got %s\nwant %s", got, want)
	}
}
