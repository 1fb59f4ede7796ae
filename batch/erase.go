package batch

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shushlist/shush/internal/atomicfile"
)

// Erasure is one address an erasure replaced on the service, and what
// stands for it there now (api.ErasedItem).
type Erasure struct {
	Email  string
	Marker string
}

// EraseLocal rewrites every file under dir (the client's state directory:
// run journals, the UI's history and drafts) that names one of the
// addresses, in any ASCII case, plain or JSON-escaped, so that it names
// the address's marker instead, as the service's rows do after an
// erasure. Each file is replaced whole (a new file, 0600, renamed over
// the old one). It returns the files it rewrote. A missing dir is no
// error: there is nothing to rewrite.
func EraseLocal(dir string, erased []Erasure) ([]string, error) {
	if dir == "" || len(erased) == 0 {
		return nil, nil
	}
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		nb := b
		for _, e := range erased {
			nb = replaceFold(nb, e.Email, e.Marker)
			if esc := jsonEscaped(e.Email); esc != e.Email {
				nb = replaceFold(nb, esc, e.Marker)
			}
		}
		if bytes.Equal(nb, b) {
			return nil
		}
		if err := atomicfile.WriteFile(path, nb, 0o600); err != nil {
			return err
		}
		out = append(out, path)
		return nil
	})
	return out, err
}

// replaceFold replaces every occurrence of old in b, in any ASCII case,
// by repl; it returns b itself when there is none.
func replaceFold(b []byte, old, repl string) []byte {
	needle := asciiLower([]byte(old))
	lower := asciiLower(b)
	if len(needle) == 0 || !bytes.Contains(lower, needle) {
		return b
	}
	var out []byte
	for {
		i := bytes.Index(lower, needle)
		if i < 0 {
			return append(out, b...)
		}
		out = append(append(out, b[:i]...), repl...)
		b, lower = b[i+len(needle):], lower[i+len(needle):]
	}
}

func asciiLower(s []byte) []byte {
	b := bytes.Clone(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// jsonEscaped is s as encoding/json writes it inside a string.
func jsonEscaped(s string) string {
	b, err := json.Marshal(s)
	if err != nil || len(b) < 2 {
		return s
	}
	return string(b[1 : len(b)-1])
}
