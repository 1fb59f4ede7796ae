package redact_test

import (
	"testing"

	"github.com/shushlist/shush/internal/redact"
)

// Every form of password in a DSN is hidden, the rest kept.
func TestRedactDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:hunter2@db/shush":                        "postgres://u:xxxxx@db/shush",
		"postgres://u:p@ss@db/shush":                           "postgres://u:xxxxx@db/shush",
		"postgres://u@db/shush?password=hunter2&sslmode=x":     "postgres://u@db/shush?password=xxxxx&sslmode=x",
		"host=db password=hunter2 user=u":                      "host=db password=xxxxx user=u",
		"host=db password = 'hunter 2' user=u":                 "host=db password = xxxxx user=u",
		"host=db sslpassword=hunter2":                          "host=db sslpassword=xxxxx",
		"host=db PASSWORD=hunter2":                             "host=db PASSWORD=xxxxx",
		"postgresql:/u:hunter2@db.internal/shush":              "postgresql:/u:xxxxx@db.internal/shush",
		"open \"postgres:u:hunter2@db/shush\"":                 "open \"postgres:u:xxxxx@db/shush\"",
		"./shush.db":                                           "./shush.db",
		"postgres://u@db/shush":                                "postgres://u@db/shush",
		"failed to parse as URL (parse \"postgres://u:pw@h\")": "failed to parse as URL (parse \"postgres://u:xxxxx@h\")",
	} {
		if got := redact.DSN(in); got != want {
			t.Errorf("DSN(%q) = %q, want %q", in, got, want)
		}
	}
}

// A URL's user information is hidden whole; text that is not a URL keeps
// only what DSN leaves of it.
func TestRedactURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@api.example.com/x": "https://***@api.example.com/x",
		"https://token@api.example.com":     "https://***@api.example.com",
		"https://api.example.com":           "https://api.example.com",
		"postgres://u:secret@db/x":          "postgres://***@db/x",
		"not a url\x7f":                     "not a url\x7f",
		"http://u:pw@h/%zz":                 "http://u:xxxxx@h/%zz",
	} {
		if got := redact.URL(in); got != want {
			t.Errorf("URL(%q) = %q, want %q", in, got, want)
		}
	}
}
