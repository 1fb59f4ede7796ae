package batch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/shushlist/shush/api"
)

// Ref reads the one entry a person types or pastes to look something up:
// a suppression ID, an address, or an address as mail writes it
// ("Jane Doe <Jane@Example.com>", "mailto:jane@example.com?subject=hi").
// It returns the normalized ID or address, or a sentence saying what is
// wrong with s.
func Ref(s string) (string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return "", errors.New("type an address or a suppression ID")
	}
	if api.IsID(t) {
		return api.NormalizeID(t)
	}
	if api.IsDomainEntry(t) {
		return api.NormalizeDomainEntry(t)
	}
	if v, err := api.NormalizeEmail(t); err == nil {
		return v, nil
	}
	var found []string
	var bad string
	for _, it := range ParseText(t, Add) {
		switch {
		case !it.Valid():
			if bad == "" {
				bad = fmt.Sprintf("%s is not a valid address: %s", api.Quote(it.Raw), it.Problem)
			}
		case len(found) == 0 || found[0] != it.Value:
			found = append(found, it.Value)
		}
	}
	switch {
	case len(found) == 1:
		return found[0], nil
	case len(found) > 1:
		return "", fmt.Errorf("%s holds %d addresses (%s, %s…); look up one at a time", api.Quote(t), len(found), found[0], found[1])
	case bad != "":
		return "", errors.New(bad)
	}
	return "", fmt.Errorf("%s is neither an address nor a suppression ID", api.Quote(t))
}
