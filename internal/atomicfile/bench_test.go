package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkWriteFile is what a run header's save costs now (a 600-byte
// file written whole and durably) against the floor, the plain
// os.WriteFile plus rename it replaced, in the same run:
//
//	go test -run '^$' -bench WriteFile -benchtime 200x ./internal/atomicfile
func BenchmarkWriteFile(b *testing.B) {
	data := make([]byte, 600)
	for _, bc := range []struct {
		name  string
		write func(path string) error
	}{
		{"floor-writefile-rename", func(path string) error {
			if err := os.WriteFile(path+".tmp", data, 0o600); err != nil {
				return err
			}
			return os.Rename(path+".tmp", path)
		}},
		{"atomicfile", func(path string) error { return WriteFile(path, data, 0o600) }},
	} {
		b.Run(bc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "run.json")
			for b.Loop() {
				if err := bc.write(path); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
