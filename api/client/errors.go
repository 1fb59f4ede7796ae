package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/go-resty/resty/v2"
	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/redact"
)

// IsNotFound reports whether err is the service's 404: the ID or address
// is not on the list (or, on a service without the endpoint, the endpoint
// is missing; Supports tells the two apart).
func IsNotFound(err error) bool {
	var e *api.Error
	return errors.As(err, &e) && e.StatusCode == http.StatusNotFound
}

// IsUnsupported reports whether err says the endpoint does not exist on this
// service: 405, or a 404 that is not about a suppression. Use it on List;
// on Get a 404 normally means "not on the list".
func IsUnsupported(err error) bool {
	var e *api.Error
	if !errors.As(err, &e) {
		return false
	}
	return e.StatusCode == http.StatusMethodNotAllowed ||
		e.StatusCode == http.StatusNotFound && !strings.Contains(strings.ToLower(e.Message), "suppression")
}

// NetworkError is a request that got no answer from the service: refused
// connection, DNS failure, timeout, reset.
type NetworkError struct {
	BaseURL, Method, Path string
	Err                   error
}

// Error names the service and the request, not the key.
func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach the service at %s (%s %s): %v", redact.URL(e.BaseURL), e.Method, e.Path, e.Err)
}

// Unwrap returns the underlying network error.
func (e *NetworkError) Unwrap() error { return e.Err }

// cause strips the url.Error wrapper, whose text repeats the full URL, so
// that a NetworkError says each thing once.
func cause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// check turns a non-2xx answer into an *Error and decodes a 2xx one.
func (c *Client) check(resp *resty.Response, rl api.RateLimit, out any) error {
	code := resp.StatusCode()
	body := resp.Body()
	if code >= 200 && code < 300 {
		if out == nil || len(body) == 0 && code == http.StatusNoContent {
			return nil
		}
		var err error
		switch o := out.(type) {
		case *batchAnswer:
			err = decodeBatch(body, o.out, o.sent)
		case *api.BatchResponse:
			err = decodeBatch(body, o, 0)
		case *api.CheckResponse:
			*o, err = api.DecodeCheckResponse(body)
		default:
			err = json.Unmarshal(body, out)
		}
		if err != nil {
			return fmt.Errorf("the service at %s answered %d with a body that is not the expected JSON (%v): %s",
				c.base, code, err, snippet(body))
		}
		return nil
	}
	e := &api.Error{}
	if err := json.Unmarshal(body, e); err != nil || e.Message == "" && e.Name == "" {
		e = &api.Error{Message: fmt.Sprintf("%s (not a JSON error body: %s)", http.StatusText(code), snippet(body))}
	}
	e.StatusCode = code
	e.RateLimit = rl
	e.RetryAfter = retryAfter(resp.Header())
	return e
}

// snippet shows the start of a body that is not what we expected.
func snippet(b []byte) string {
	const max = 120
	s := string(b)
	if !utf8.ValidString(s) {
		return fmt.Sprintf("%d bytes of binary data", len(b))
	}
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "empty"
	}
	return api.Quote(s[:min(len(s), max)])
}
