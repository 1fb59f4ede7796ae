package main

import (
	"regexp"
	"testing"

	"github.com/shushlist/shush/internal/hostedtest"
)

// get and list --json pass the service's created_at on as it came: the
// hosted service writes Postgres text, and a script comparing it with the
// service's own output must see the same string.
func TestCreatedAtKeepsTheServicesText(t *testing.T) {
	t.Parallel()
	h := hostedtest.Start(t)
	h.Add("ann@example.com")
	sb := newSandbox(t)
	pg := regexp.MustCompile(`"created_at": ?"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\+00"`)
	for _, args := range [][]string{
		{"suppressions", "get", "ann@example.com", "--json"},
		{"suppressions", "list", "--json"},
		{"suppressions", "list", "--all", "--json"},
	} {
		r := sb.run(t, nil, append(args, "--base-url", h.URL, "--api-key", "re_test")...).want(t, 0)
		if !pg.MatchString(r.stdout) {
			t.Errorf("%v: created_at is not the service's text: %s", args, r.stdout)
		}
	}
}
