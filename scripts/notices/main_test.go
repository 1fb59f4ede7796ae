package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestLegalFilesAndTheirAbsence(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"LICENSE.txt", "NOTICE", "PATENTS", "LICENSE-SQLITE", "README.md", "licensing.go", "COPYING"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := legalFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"COPYING", "LICENSE-SQLITE", "LICENSE.txt", "NOTICE", "PATENTS"}; !slices.Equal(got, want) {
		t.Errorf("legal files %v, want %v", got, want)
	}

	// A module with no licence file stops the notices, unless its README
	// is known to state the licence (and still does).
	bare := module{Path: "example.com/unlicensed", Version: "v1.0.0", Dir: t.TempDir()}
	var out strings.Builder
	if err := readmeSection(&out, bare); err == nil || !strings.Contains(err.Error(), "example.com/unlicensed v1.0.0 has no licence file") {
		t.Errorf("a module without a licence passed: %v", err)
	}
	known := module{Path: "github.com/mattn/go-localereader", Version: "v0.0.1", Dir: t.TempDir()}
	os.WriteFile(filepath.Join(known.Dir, "README.md"), []byte("# x\n\n## License\n\nApache\n"), 0o600)
	if err := readmeSection(&out, known); err == nil || !strings.Contains(err.Error(), "no longer says MIT") {
		t.Errorf("a README that changed its licence passed: %v", err)
	}
}
