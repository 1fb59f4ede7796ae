// Package docs holds the project's documents: the manual the README links
// to, the evidence (benchmarks, reliability, security) and the screens. Its
// tests keep them honest: every test a row of the security table names
// exists (docs_test.go); every shush command and flag the README and the
// manual show exists in the real command tree (commands_test.go); every
// relative link resolves, and the README stays a first page (links_test.go).
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	testFunc = regexp.MustCompile(`(?m)^func ((?:Test|Fuzz|Benchmark)\w+)\(`)
	ticked   = regexp.MustCompile("`([^`]+)`")
)

// testsInTree maps each test, fuzz and benchmark function of the module to
// the text of its file.
func testsInTree(t *testing.T) map[string]string {
	t.Helper()
	found := map[string]string{}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata" || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range testFunc.FindAllStringSubmatch(string(b), -1) {
			found[m[1]] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestSecurityTableNamesRealTests: every row of every table in
// security.md names, in its last cell, tests that exist; "TestX/sub" needs
// TestX and the subtest's name in TestX's file, and "TestScripts/name" the
// transcript testdata/script/name.txtar at the repository's root. The service section has at
// least 25 rows.
func TestSecurityTableNamesRealTests(t *testing.T) {
	b, err := os.ReadFile("security.md")
	if err != nil {
		t.Fatal(err)
	}
	tests := testsInTree(t)
	section := ""
	rows := map[string]int{}
	for i, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "## ") {
			section = strings.TrimPrefix(line, "## ")
		}
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") || strings.HasPrefix(line, "| attack") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		names := ticked.FindAllStringSubmatch(cells[len(cells)-1], -1)
		if len(cells) < 5 || len(names) == 0 {
			t.Errorf("security.md:%d: a row without its five cells or a test name: %s", i+1, line)
			continue
		}
		rows[section]++
		for _, n := range names {
			fn, sub, _ := strings.Cut(n[1], "/")
			file, ok := tests[fn]
			switch {
			case !ok:
				t.Errorf("security.md:%d: no test %s in the tree", i+1, fn)
			case fn == "TestScripts":
				if _, err := os.Stat(filepath.Join("..", "testdata", "script", sub+".txtar")); sub == "" || err != nil {
					t.Errorf("security.md:%d: no script testdata/script/%s.txtar", i+1, sub)
				}
			case sub != "" && !strings.Contains(file, `"`+sub+`"`):
				t.Errorf("security.md:%d: %s has no subtest %q", i+1, fn, sub)
			}
		}
	}
	if rows["Service"] < 25 {
		t.Errorf("the Service section has %d rows, want at least 25", rows["Service"])
	}
	t.Logf("rows by section: %v", rows)
}
