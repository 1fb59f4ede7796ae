package ticket_test

import (
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/ticket"
)

func TestOwnMatchesAddressesAndDomains(t *testing.T) {
	own := ticket.NewOwn([]string{"@OurCompany.test", "x@y.z", "partner.example", " "})
	for addr, want := range map[string]bool{
		"a@ourcompany.test":      true,
		"a@eu.ourcompany.test":   true,
		"a@notourcompany.test":   false,
		"x@y.z":                  true,
		"w@y.z":                  false,
		"p@partner.example":      true,
		"p@partner.example.evil": false,
	} {
		if got := own.Has(addr); got != want {
			t.Errorf("Has(%q) = %v; want %v", addr, got, want)
		}
	}
}

// TestOwnIsTheServiceRule: what the terminal UI leaves out of an add for
// the team's protected list is exactly what the service refuses
// (api.Protected), subdomains included.
func TestOwnIsTheServiceRule(t *testing.T) {
	list := []string{"support@acme.test", "@corp.test"}
	own, rule := ticket.NewOwn(list), api.NewProtected(list)
	for _, addr := range []string{"support@acme.test", "sales@acme.test", "x@corp.test", "x@sub.corp.test", "x@notcorp.test", "x@corp.test.example"} {
		_, refused := rule.Match(addr)
		if got := own.Has(addr); got != refused {
			t.Errorf("%s: left out by the UI %v, refused by the service %v", addr, got, refused)
		}
	}
}
