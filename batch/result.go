package batch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// Outcome is what happened to one entry. Its value is the word a script
// reads (`--json`, CSV, journals); Text is how people read it.
type Outcome string

// The outcomes of an entry.
const (
	// Added: this run put the address on the list; the service says so
	// (our service's `created`, or the entry appears among those made
	// after the batch was sent).
	Added Outcome = "added"
	// AlreadyListed: the address was on the list before the batch.
	AlreadyListed Outcome = "already_listed"
	// Removed: the entry was taken off the list (deleted: true).
	Removed Outcome = "removed"
	// NotListed: the entry was not on the list, so nothing was removed.
	NotListed Outcome = "not_listed"
	// Unverified: the batch was accepted, but what it did to this entry
	// (its ID, or whether it was new or removed) could not be established
	// from what the service says; Message says what is missing. Never a
	// guess.
	Unverified Outcome = "unverified"
	// Failed: the batch was refused or its retries ran out; Message says why.
	Failed Outcome = "failed"
	// Unsent: the run stopped before the entry's batch was sent.
	Unsent Outcome = "unsent"
	// Erased: the service keeps the address as its keyed hash only
	// (Result.Erased), still listed; Message says when it was erased
	// before or was not listed.
	Erased Outcome = "erased"
)

// Text is the outcome as a person reads it.
func (o Outcome) Text() string {
	switch o {
	case AlreadyListed:
		return "already listed"
	case NotListed:
		return "not on the list"
	}
	return string(o)
}

// UnmarshalJSON reads an outcome, including the words of journals written
// before outcomes had their script names.
func (o *Outcome) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	switch s {
	case "already listed":
		s = string(AlreadyListed)
	case "not on the list":
		s = string(NotListed)
	case "removed or not on the list":
		s = string(Unverified)
	}
	*o = Outcome(s)
	return nil
}

// outcomes returns every outcome, in the order a summary of a run lists
// them: what changed the list first, then what did not, then what is left
// to send.
func outcomes() []Outcome {
	return []Outcome{Added, AlreadyListed, Removed, Erased, NotListed, Unverified, Failed, Unsent}
}

// CountsText says how many entries have each outcome, in the order of
// outcomes, joined by sep: "3 added, 1 already listed". It is "" when
// there are none.
func CountsText(counts map[Outcome]int, sep string) string {
	var parts []string
	for _, o := range outcomes() {
		if n := counts[o]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, o.Text()))
		}
	}
	return strings.Join(parts, sep)
}

// Result is the outcome of one entry: the normalized address (or ID) that
// was sent, the suppression ID the service returned (empty when none or
// not established), the outcome, a message for failures and unverified
// entries, and the 1-based batch number.
//
// Email, Origin and SourceID are what the run learned of the entry beyond
// that: for a removal by ID the address when the service named it, and
// for a removal the origin the entry had (from the look-up before it), so
// that an undo can restore the entry as it was.
//
// Note and ExpiresAt are the entry's note and expiry as the service said
// it holds them (our service names them): after an addition, or before a
// removal (its look-up).
type Result struct {
	Input     string     `json:"input"`
	ID        string     `json:"id,omitempty"`
	Outcome   Outcome    `json:"outcome"`
	Message   string     `json:"message,omitempty"`
	Batch     int        `json:"batch"`
	Email     string     `json:"email,omitempty"`
	Origin    api.Origin `json:"origin,omitempty"`
	SourceID  string     `json:"source_id,omitempty"`
	Note      string     `json:"note,omitempty"`
	ExpiresAt time.Time  `json:"expires_at,omitzero"`
	// Erased is what stands for the address on the service after an
	// erasure ("erased:v1:…").
	Erased string `json:"erased,omitempty"`
	// Refused marks a Failed result whose batch the service refused as it
	// was sent (400, 413, 422: what the batch holds, not the moment):
	// sending the same batch again would be refused again.
	Refused bool `json:"refused,omitempty"`
}

// had notes the note and expiry of the entry a removal found.
func (r *Result) had(e api.Entry) {
	if e.Note != nil {
		r.Note = *e.Note
	}
	if e.ExpiresAt != nil {
		r.ExpiresAt = e.ExpiresAt.UTC()
	}
}

// keeps notes the note and expiry a batch answer's item says the entry
// has.
func (r *Result) keeps(s api.Suppression) {
	if s.Note != nil {
		r.Note = *s.Note
	}
	if s.ExpiresAt != nil {
		r.ExpiresAt = s.ExpiresAt.UTC()
	}
}

// Address is the entry's address: the input, or for a removal by ID the
// address the service named ("" when it did not).
func (r Result) Address() string {
	if r.Email != "" {
		return r.Email
	}
	if api.IsID(r.Input) {
		return ""
	}
	return r.Input
}

// Settled reports whether the entry needs no further sending.
func (r Result) Settled() bool { return r.Outcome != Failed && r.Outcome != Unsent }

// Found is the lookup of one address (or ID): whether it is on the list,
// and its entry when it is. Err is set when the lookup itself failed.
type Found struct {
	Input  string
	Listed bool
	Entry  api.Entry
	// ListedBy is the domain entry (@domain, *.domain) that lists the
	// address when it has no entry of its own ("" otherwise); Entry is
	// then the domain entry's, with the address as its Email.
	ListedBy string
	Err      error
}

// errNoLookup says the service has no GET /suppressions/{id-or-email}: it
// only offers the batch endpoints, so addresses cannot be previewed.
var errNoLookup = errors.New("the service does not offer looking up an address (GET /suppressions/{email})")

// Lookup looks up each value with GET /suppressions/{value}, with up to
// concurrency requests at once (the client's pacing keeps them under the
// rate limit). The answer is in the order of values. A value that is not on
// the list is Found{Listed: false}; one whose lookup failed carries Err.
// The error is for a cancelled ctx, or errNoLookup when the service lacks
// the endpoint.
func Lookup(ctx context.Context, c *client.Client, values []string, concurrency int) ([]Found, error) {
	out := make([]Found, len(values))
	if len(values) == 0 {
		return out, nil
	}
	var unsupported atomic.Bool
	items := make([]int, len(values))
	for i := range items {
		items[i] = i
	}
	pool(ctx, min(max(concurrency, 1), len(values)), items, unsupported.Load, func(i int) {
		e, err := c.Get(ctx, values[i])
		f := Found{Input: values[i], Entry: e}
		switch {
		case err == nil:
			f.Listed = true
		case client.IsNotFound(err) && !client.IsUnsupported(err):
		case client.IsUnsupported(err):
			unsupported.Store(true)
			f.Err = errNoLookup
		default:
			f.Err = err
		}
		out[i] = f
	})
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if unsupported.Load() {
		return out, errNoLookup
	}
	return out, nil
}
