package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/internal/hostedtest"
	"github.com/shushlist/shush/server"
)

// shush suppressions export writes the whole list, newest first, to a
// private file written whole or not at all, and says where.
func TestExportToAFile(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	var lines []string
	for i := range 250 {
		lines = append(lines, fmt.Sprintf("x%03d@example.com", i))
	}
	// One batch at a time, so that the last address is the newest entry
	// (a service this fast would otherwise get several at once).
	sb.run(t, nil, "suppressions", "batch", "add", "--concurrency", "1", "--file", writeFile(t, sb.home, "in.txt", strings.Join(lines, "\n"))).want(t, 0)
	out := filepath.Join(sb.home, "list.csv")
	r := sb.run(t, nil, "suppressions", "export", "--output", out).want(t, 0)
	if !strings.Contains(r.stderr, "Exported 250 entries to "+out) {
		t.Errorf("stderr: %s", r)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil || len(recs) != 251 || recs[1][1] != "x249@example.com" {
		t.Fatalf("export: %d rows, %v", len(recs), err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("the export is %v; it holds addresses, want 0600", st.Mode().Perm())
	}
	r = sb.run(t, nil, "suppressions", "export", "--format", "ndjson", "--origin", "bounce").want(t, 0)
	if r.stdout != "" {
		t.Errorf("no bounces, yet: %q", r.stdout)
	}
	sb.run(t, nil, "suppressions", "export", "--format", "xml").want(t, 2)

	// The hosted service has no export: a sentence, and no file.
	h := hostedtest.Start(t)
	bad := filepath.Join(sb.home, "hosted.csv")
	r = newSandbox(t).run(t, nil, "suppressions", "export", "--output", bad, "--base-url", h.URL, "--api-key", "re_x").want(t, 1)
	if !strings.Contains(r.stderr, "offers no export") {
		t.Errorf("hosted: %s", r)
	}
	if _, err := os.Stat(bad); err == nil {
		t.Errorf("a failed export left %s", bad)
	}
}
