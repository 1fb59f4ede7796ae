package batch_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

// An erasure run against the real service: each result is its address's
// item (erased, its hash, already erased or listed by the erasure), the
// journals of the run and of an earlier add name the hashes, not the
// addresses, and still read; the run cannot be undone.
func TestEraseRun(t *testing.T) {
	svc := startService(t, 10000)
	c := svc.client()
	state := t.TempDir()
	dir := filepath.Join(state, "journal")
	rs := &batch.Runs{Client: c, Dir: dir, Source: "cli", StateDir: state}
	listed := addresses("gone", 150)
	if _, _, err := sendPlan(context.Background(), rs, planOf(batch.Add, listed), nil); err != nil {
		t.Fatal(err)
	}
	values := append(append([]string{}, listed...), "never@example.com")
	rep, ri, err := sendPlan(context.Background(), rs, planOf(batch.Erase, values), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ri.Counts[batch.Erased] != 151 || len(rep.Results) != 151 {
		t.Fatalf("erase run: %+v", ri.Counts)
	}
	markers := map[string]bool{}
	for _, x := range rep.Results {
		if x.Outcome != batch.Erased || !strings.HasPrefix(x.Erased, "erased:v1:") || markers[x.Erased] {
			t.Fatalf("result %+v; want erased with a hash of its own", x)
		}
		markers[x.Erased] = true
		if x.Input == "never@example.com" && !strings.Contains(x.Message, "not listed") {
			t.Errorf("the address that was not listed: %+v", x)
		}
	}
	err = filepath.WalkDir(state, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		for _, v := range values {
			if bytes.Contains(b, []byte(v)) {
				t.Errorf("%s names %s after the erasure", path, v)
				break
			}
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := rs.List()
	if err != nil || len(runs) != 2 {
		t.Fatalf("runs after the erasure: %d, %v", len(runs), err)
	}
	for _, r := range runs {
		if _, err := rs.Read(r.ID, func(batch.Report) error { return nil }); err != nil {
			t.Errorf("run %s no longer reads: %v", r.ID, err)
		}
	}
	if _, err := rs.PlanUndo(context.Background(), ri.ID); err == nil || !strings.Contains(err.Error(), "cannot be undone") {
		t.Errorf("undo of an erasure: %v; want refused", err)
	}
	// A second erasure says so.
	rep, _, err = sendPlan(context.Background(), rs, planOf(batch.Erase, listed[:1]), nil)
	if err != nil || len(rep.Results) != 1 || rep.Results[0].Message != "already erased" {
		t.Errorf("a second erasure: %+v, %v", rep.Results, err)
	}
}
