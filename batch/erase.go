package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/shushlist/shush/api"
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

// erase sends a batch to POST /suppressions/erase. Each result is the
// service's item for its address, found by the address it names, never
// by position; an address the answer leaves out is Unverified.
func (r *runner) erase(ctx context.Context, values []string) ([]Result, error) {
	items, err := r.client.Erase(ctx, values)
	if err != nil {
		return nil, err
	}
	by := make(map[string]api.ErasedItem, len(items))
	for _, it := range items {
		by[it.Email] = it
	}
	res := make([]Result, len(values))
	for k, v := range values {
		it, ok := by[v]
		if !ok {
			res[k] = Result{Input: v, Outcome: Unverified, Message: "the service's answer does not name this address"}
			continue
		}
		res[k] = Result{Input: v, ID: it.ID, Outcome: Erased, Erased: it.Erased}
		switch {
		case it.Already:
			res[k].Message = "already erased"
		case !it.Listed:
			res[k].Message = "was not listed: listed as erased, so it stays blocked"
		}
	}
	return res, nil
}
