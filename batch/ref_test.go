package batch_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/batch"
)

func TestRefAcceptsWhatMailWrites(t *testing.T) {
	for in, want := range map[string]string{
		"jane@example.com":                            "jane@example.com",
		"  Jane@Example.COM ":                         "jane@example.com",
		"Jane Doe <Jane@Example.com>":                 "jane@example.com",
		`"Doe, Jane" <jane@example.com>`:              "jane@example.com",
		"mailto:jane@example.com?subject=unsubscribe": "jane@example.com",
		"<jane@example.com>":                          "jane@example.com",
		"jane@example.com, jane@example.com":          "jane@example.com",
		"0190A6B2-7C3E-7D4F-8A1B-2C3D4E5F6A7B":        "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b",
		"  0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b\n":    "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b",
	} {
		got, err := batch.Ref(in)
		if err != nil || got != want {
			t.Errorf("Ref(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":                            "type an address",
		"Jane Doe":                    "neither an address nor a suppression ID",
		"a@example.com b@example.com": "holds 2 addresses",
		"Jane <jane@>":                "is not a valid address",
		"x\x1b]52;c;aGk=\x07":         `neither an address`,
	} {
		_, err := batch.Ref(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Ref(%q) error %v; want it to say %q", in, err, want)
		}
	}
}
