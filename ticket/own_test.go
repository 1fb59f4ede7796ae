package ticket_test

import (
	"testing"

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
