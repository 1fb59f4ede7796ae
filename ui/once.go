package ui

import (
	"strings"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
)

// Each entry shows once. A ticket often names a person twice, by address
// and by suppression ID ("jane@example.com, ID 0195…"): in a removal by
// ID the address is not an ID, in a removal by address the ID is not an
// address, so one of the two is invalid in the mode, while the other
// reaches the very entry it names. That invalid row is not a second entry
// left unsent: it goes with the row that names the same entry, which
// shows its outcome.

// named is the entries a run (or its preview) reaches, by their addresses
// and IDs, lowercased.
type named map[string]bool

// add notes an entry's address and ID (either may be "").
func (n named) add(address, id string) {
	for _, v := range []string{address, id} {
		if v != "" {
			n[strings.ToLower(v)] = true
		}
	}
}

// names reports whether raw names one of the entries: read as an address
// or as an ID.
func (n named) names(raw string) bool {
	if v, err := api.NormalizeEmail(raw); err == nil && n[strings.ToLower(v)] {
		return true
	}
	if v, err := api.NormalizeID(raw); err == nil && n[strings.ToLower(v)] {
		return true
	}
	return false
}

// apart splits invalid entries into those that name none of the entries
// (left unsent) and those that name one again (shown with it).
func (n named) apart(invalid []batch.Item) (alone, again []batch.Item) {
	if len(n) == 0 {
		return invalid, nil
	}
	for _, it := range invalid {
		if n.names(it.Raw) {
			again = append(again, it)
		} else {
			alone = append(alone, it)
		}
	}
	return alone, again
}

// listed is the entries the preview found on the list.
func (p *preview) listed() named {
	n := named{}
	if p == nil {
		return n
	}
	for _, f := range p.lookups {
		if f.Listed && f.Err == nil {
			n.add(f.Entry.Email, f.Entry.ID)
		}
	}
	return n
}

// reached is the entries a run's results name.
func (r *Run) reached() named {
	n := named{}
	for _, x := range r.Results {
		n.add(r.address(x), x.ID)
	}
	return n
}
