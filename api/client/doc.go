// Package client calls a Suppression List Batch API service over HTTP: our
// own service or the hosted one, with one key. It owns the Client and its
// options, the retry policy (which calls are repeated on which answers),
// the pacer that keeps concurrent requests within the service's rate limit,
// the refusal of redirects (the key goes only where it was configured for)
// and what an answer says besides its body (Observe, ClockSkew, Allowance).
//
// The wire types, rules and the *api.Error a refusal comes back as are the
// contract's, in package api.
package client
