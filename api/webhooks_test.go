package api_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
)

// The webhook rules are the contract's: the CLI checks flags with them and
// the service refuses a request body with them, so both say the same.
func TestWebhookRules(t *testing.T) {
	for _, ok := range []string{"https://hooks.example.com/x", "http://127.0.0.1:8080/hook?team=a", "https://h/" + strings.Repeat("x", api.MaxEndpoint-len("https://h/"))} {
		if err := api.ValidEndpoint(ok); err != nil {
			t.Errorf("endpoint %q: %v", ok, err)
		}
	}
	for bad, reason := range map[string]string{
		"":                    "http://",
		"hooks.example.com/x": "http://",
		"ftp://example.com":   "http://",
		"https://":            "host",
		"/relative":           "http://",
		"https://h/" + strings.Repeat("x", api.MaxEndpoint-len("https://h/")+1): "longer than 2048 bytes",
	} {
		if err := api.ValidEndpoint(bad); err == nil || !strings.Contains(err.Error(), reason) {
			t.Errorf("endpoint %.40q: %v, want a reason with %q", bad, err, reason)
		}
	}
	for _, ok := range []string{"suppression.added", "email.delivery_delayed", "contact.created", "a1.b2", "x." + strings.Repeat("y", api.MaxEventName-2)} {
		if err := api.ValidEventName(ok); err != nil {
			t.Errorf("event %q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "added", "suppression.", ".added", "Suppression.Added", "suppression.add-ed", "inbox.thread.created", "2fa.enabled", "a._b", "x." + strings.Repeat("y", api.MaxEventName-1)} {
		if err := api.ValidEventName(bad); err == nil {
			t.Errorf("event %.40q accepted", bad)
		}
	}
}
