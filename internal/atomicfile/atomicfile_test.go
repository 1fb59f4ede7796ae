package atomicfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func TestWriteFileReplacesWholeAndPrivate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(path, []byte("new\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new\n" {
		t.Errorf("the file holds %q, want the new text", b)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %04o, want 0600", fi.Mode().Perm())
	}
	onlyFile(t, dir, "config.toml")
}

func TestAbortAndFailureLeaveTheOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(path, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Create(path, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half of a n"))
	f.Abort()
	f.Abort() // deferred after an explicit one: harmless
	if b, _ := os.ReadFile(path); string(b) != "old\n" {
		t.Errorf("after Abort the file holds %q, want the old text", b)
	}
	onlyFile(t, dir, "export.csv")

	// A target that cannot be replaced (a directory): Commit fails and
	// leaves no temporary file behind.
	sub := filepath.Join(dir, "taken")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sub, "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(sub, []byte("data"), 0o600); err == nil {
		t.Error("replacing a directory succeeded")
	}
	onlyFile(t, dir, "export.csv", "taken")
}

func TestCreateInAMissingDirectorySaysWhere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "out.csv")
	_, err := Create(path, 0o600)
	if err == nil || err.Error() != "cannot write "+path+": no such file or directory" && runtime.GOOS != "windows" {
		t.Errorf("got %v, want one sentence naming %s", err, path)
	}
}

func onlyFile(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("the directory holds %v, want only %v (no temporary file left)", got, names)
	}
	for i := range names {
		if got[i] != names[i] {
			t.Fatalf("the directory holds %v, want only %v", got, names)
		}
	}
}
