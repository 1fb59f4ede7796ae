package server

import "net/url"

// hiddenEndpoint is a webhook's endpoint as a read-only key sees it: the
// credentials a URL may carry (the user information, and every query
// value, where tokens travel) replaced by "xxxxx". A read-only key may
// not read the signing secret; it may not read the endpoint's own secret
// either. An endpoint that does not parse shows only its scheme and host.
func hiddenEndpoint(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return "(an endpoint that is not a valid URL)"
	}
	if u.User != nil {
		u.User = url.User("xxxxx")
	}
	if u.RawQuery != "" {
		q := u.Query()
		for k := range q {
			for i := range q[k] {
				q[k][i] = "xxxxx"
			}
		}
		u.RawQuery = q.Encode()
	}
	if u.Fragment != "" {
		u.Fragment, u.RawFragment = "xxxxx", ""
	}
	return u.String()
}
