package server_test

import (
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// A read-only key lists a team's webhooks without the credentials their
// endpoints carry (user information, query values): it may not read the
// signing secret, and an endpoint's token is as good a secret. A key that
// may change webhooks sees the endpoint whole.
func TestReadOnlyKeySeesNoEndpointCredentials(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key, ro := s.key("hooks", false), s.key("hooks", true)
	s.createWebhook(key, "https://user:tok3n@example.com/hook?token=abc123&team=x", "suppression.added")
	for _, c := range []struct {
		who, key, want string
	}{
		{"read-only", ro, "https://xxxxx@example.com/hook?team=xxxxx&token=xxxxx"},
		{"read-write", key, "https://user:tok3n@example.com/hook?token=abc123&team=x"},
	} {
		var list api.WebhookList
		r := s.get("/webhooks", c.key)
		r.decode(t, &list)
		if len(list.Data) != 1 || list.Data[0].Endpoint != c.want {
			t.Errorf("GET /webhooks with a %s key: %s; want the endpoint %s", c.who, r.body, c.want)
		}
		if c.key == ro && (strings.Contains(string(r.body), "tok3n") || strings.Contains(string(r.body), "abc123")) {
			t.Errorf("a read-only key read the endpoint's credentials: %s", r.body)
		}
	}
}
