package cli

import (
	"slices"
	"strings"
	"testing"
)

func TestWebhookEventsFlag(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{[]string{"added", "removed"}, []string{"suppression.added", "suppression.removed"}},
		{[]string{" Suppression.Removed ", "suppression.removed", ""}, []string{"suppression.removed"}},
		{[]string{"email.bounced", "contact.created"}, []string{"email.bounced", "contact.created"}},
	} {
		got, err := webhookEvents(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%q: %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	tooMany := make([]string, 101)
	for i := range tooMany {
		tooMany[i] = "e.n" + strings.Repeat("x", i)
	}
	for _, bad := range [][]string{tooMany, nil, {""}, {"added", "bounced"}, {"suppression."}, {".added"}, {"suppression added"}, {"suppression.add-ed"}, {"inbox.thread.created"}, {"2fa.enabled"}} {
		if got, err := webhookEvents(bad); exitCode(err) != ExitUsage {
			t.Errorf("%q: %q, %v; want a usage error", bad, got, err)
		}
	}
}

func TestWebhookEndpointAndID(t *testing.T) {
	for _, ok := range []string{"https://hooks.example.com/x", " http://127.0.0.1:8080/hook?team=a "} {
		if _, err := endpointArg(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "hooks.example.com/x", "ftp://example.com", "https://", "/relative", "https://example.com/" + strings.Repeat("x", 2048)} {
		if _, err := endpointArg(bad); exitCode(err) != ExitUsage {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
	if _, err := webhookID("webhook", "0195f3c2-7b8e-7d30-a1c9-3e5b2f1d4c6a"); err != nil {
		t.Error(err)
	}
	for _, bad := range []string{"", "whsec_AAAA", "a/b", "../x", "a b"} {
		if _, err := webhookID("webhook", bad); exitCode(err) != ExitUsage {
			t.Errorf("%q: %v, want a usage error", bad, err)
		}
	}
}

func TestWebhookCells(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want string
	}{
		{nil, "-"},
		{[]string{"suppression.added", "suppression.removed"}, "added,removed"},
		{[]string{"email.bounced"}, "email.bounced"},
		{[]string{"a.b", "c.d", "e.f", "g.h"}, "4 events"},
	} {
		if got := webhookEventsText(c.in); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	if got := oneLine("  bad\n\tgateway  ", 80); got != "bad gateway" {
		t.Errorf("oneLine: %q", got)
	}
	if got := oneLine("ééééé", 4); got != "ééé…" {
		t.Errorf("oneLine cut: %q", got)
	}
	if got := compactJSON([]byte("{\n  \"z\": \"<b>\",\n  \"a\": 1\n}")); got != `{"z":"<b>","a":1}` {
		t.Errorf("compactJSON: %q", got)
	}
}
