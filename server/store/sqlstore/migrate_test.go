package sqlstore_test

import (
	"os"
	"slices"
	"testing"
)

// Step n is the same step in both dialects: their schema directories name
// the same files.
func TestDialectsShareStepNames(t *testing.T) {
	names := func(dir string) []string {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, e := range entries {
			out = append(out, e.Name())
		}
		return out
	}
	lite, pg := names("../sqlite/schema"), names("../postgres/schema")
	if len(lite) == 0 || !slices.Equal(lite, pg) {
		t.Errorf("SQLite's steps %q and PostgreSQL's %q differ", lite, pg)
	}
}
