package api

import (
	"fmt"
	"time"
)

// Error names of the contract.
const (
	ErrMissingAPIKey        = "missing_api_key"
	ErrInvalidAPIKey        = "invalid_api_key"
	ErrRestrictedAPIKey     = "restricted_api_key"
	ErrValidation           = "validation_error"
	ErrMissingRequiredField = "missing_required_field"
	ErrNotFound             = "not_found"
	ErrMethodNotAllowed     = "method_not_allowed"
	ErrRateLimitExceeded    = "rate_limit_exceeded"
	ErrServiceUnavailable   = "service_unavailable"
	ErrApplication          = "application_error"
)

// Error is an error the service answered with. The JSON fields are the
// contract's error body; the rest is filled in by the client from the
// response.
type Error struct {
	StatusCode int    `json:"statusCode"`
	Name       string `json:"name"`
	Message    string `json:"message"`

	// RateLimit holds the figures of the response's ratelimit-* headers, and
	// RetryAfter its retry-after header (zero when absent).
	RateLimit  RateLimit     `json:"-"`
	RetryAfter time.Duration `json:"-"`
}

// Error returns the service's message with its status and name.
func (e *Error) Error() string {
	if e.Name == "" {
		return fmt.Sprintf("the service answered %d: %s", e.StatusCode, e.Message)
	}
	return fmt.Sprintf("the service answered %d %s: %s", e.StatusCode, e.Name, e.Message)
}

// RateLimit is what the ratelimit-* headers of a response say.
type RateLimit struct {
	Limit     int
	Remaining int
	Reset     time.Duration
	// Known is false when the response carried no rate-limit headers.
	Known bool
}
