package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRunManWritesAPagePerCommand(t *testing.T) {
	ta := newTestApp(t, nil)
	dir := filepath.Join(t.TempDir(), "man", "man1")
	if err := runMan(context.Background(), &manOptions{app: ta.app, Dir: dir, Root: ta.rootCommand()}); err != nil {
		t.Fatal(err)
	}
	for _, page := range []string{"shush.1", "shush-serve.1", "shush-suppressions-batch-add.1", "shush-version.1"} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil {
			t.Errorf("no page %s: %v", page, err)
			continue
		}
		if !strings.Contains(string(b), `.TH "SHUSH" "1"`) {
			t.Errorf("%s is no section 1 page of shush:\n%.200s", page, b)
		}
	}
	pages, _ := filepath.Glob(filepath.Join(dir, "*.1"))
	if want := fmt.Sprintf("Wrote %d manual pages to %s.\n", len(pages), dir); ta.err.String() != want || ta.out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want stderr %q", ta.err.String(), ta.out.String(), want)
	}
}

func TestRunManRefusesADirectoryItCannotMake(t *testing.T) {
	ta := newTestApp(t, nil)
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := runMan(context.Background(), &manOptions{app: ta.app, Dir: filepath.Join(file, "man1"), Root: ta.rootCommand()})
	wantErr(t, err, ExitUsage, "cannot make", "man1")
}
