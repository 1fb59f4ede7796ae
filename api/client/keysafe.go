package client

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/shushlist/shush/internal/redact"
)

// RedirectError is a service's answer that points elsewhere. The client
// never follows it: the request carries the key (and addresses), which
// belong to the service they were configured for, not to wherever it
// points.
type RedirectError struct {
	BaseURL string
	Status  int
	Target  string // where the answer points, credentials removed
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the service at %s answered %d, redirecting to %s; shush does not follow redirects with your key — if that is the service you mean, set the base URL to it",
		redact.URL(e.BaseURL), e.Status, e.Target)
}

// noRedirects is the http.Client's CheckRedirect: stop at the first
// redirect and say where it pointed.
func noRedirects(base string) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		status := 0
		if req.Response != nil {
			status = req.Response.StatusCode
		}
		return &RedirectError{BaseURL: base, Status: status, Target: redact.URL(req.URL.String())}
	}
}

// IsRedirect reports whether err is a refused redirect.
func IsRedirect(err error) bool {
	var re *RedirectError
	return errors.As(err, &re)
}

// PlainHTTPWarning returns a one-line warning when base is plain http://
// to a host that is not this machine (the key and the addresses would
// cross the network unencrypted), or "".
func PlainHTTPWarning(base string) string {
	u, err := url.Parse(base)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return ""
	}
	if isLoopback(u.Hostname()) {
		return ""
	}
	return fmt.Sprintf("warning: %s is plain http:// to another machine; the API key and the addresses travel unencrypted — use https://", redact.URL(base))
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
