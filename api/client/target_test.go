package client

import "testing"

// The embedded local list is named as people know it; any other service
// by its URL, without credentials.
func TestTargetName(t *testing.T) {
	for in, want := range map[string]string{
		LocalURL("6498b7ef"):                  "local list",
		"http://6498B7EF.SHUSH.LOCAL":         "local list",
		"https://api.example.com":             "https://api.example.com",
		"https://user:secret@api.example.com": "https://***@api.example.com",
		"https://shush.local.example.com":     "https://shush.local.example.com",
	} {
		if got := TargetName(in); got != want {
			t.Errorf("TargetName(%q) = %q; want %q", in, got, want)
		}
	}
}
