package jsonstr

import (
	"bytes"
	"encoding/json"
	"testing"
)

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a@example.com", `"\`, "<&>", "\x00\x1f\x7f", "ü\u2028\u2029", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append([]byte("x"), s); !bytes.Equal(got, append([]byte("x"), want...)) {
			t.Errorf("Append(%q) = %s; want x%s", s, got, want)
		}
	})
}
