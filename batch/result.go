package batch

import (
	"context"
	"encoding/binary"
	"errors"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/shushlist/shush/api"
)

// Outcome is what happened to one entry.
type Outcome string

// The outcomes of an entry.
const (
	// Added: the address is on the list now and was not before.
	Added Outcome = "added"
	// AlreadyListed: the address was on the list before the request.
	AlreadyListed Outcome = "already listed"
	// Removed: the entry was taken off the list (deleted: true).
	Removed Outcome = "removed"
	// NotListed: the entry was not on the list, so nothing was removed.
	NotListed Outcome = "not on the list"
	// Unresolved: a removal by address without lookups whose batch answer
	// had fewer IDs than addresses; the service does not say which of the
	// batch's addresses were removed.
	Unresolved Outcome = "removed or not on the list"
	// Failed: the batch was refused or its retries ran out; Message says why.
	Failed Outcome = "failed"
	// Unsent: the run stopped before the entry's batch was sent.
	Unsent Outcome = "unsent"
)

// Outcomes returns every outcome, in the order a summary of a run lists
// them: what changed the list first, then what did not, then what is left
// to send.
func Outcomes() []Outcome {
	return []Outcome{Added, AlreadyListed, Removed, NotListed, Unresolved, Failed, Unsent}
}

// Result is the outcome of one entry: the normalized address (or ID) that
// was sent, the suppression ID the service returned (empty when none), the
// outcome, a message for failures, and the 1-based batch number.
type Result struct {
	Input   string  `json:"input"`
	ID      string  `json:"id,omitempty"`
	Outcome Outcome `json:"outcome"`
	Message string  `json:"message,omitempty"`
	Batch   int     `json:"batch"`
}

// Settled reports whether the entry needs no further sending.
func (r Result) Settled() bool { return r.Outcome != Failed && r.Outcome != Unsent }

// createdBefore reports whether id is a UUIDv7 whose timestamp (its
// creation time on services that mint v7 IDs, like ours) is earlier than t.
// For other IDs it reports false: we cannot tell, and "added" is the
// answer the request asked for.
func createdBefore(id string, t time.Time) bool {
	u, err := uuid.Parse(id)
	if err != nil || u.Version() != 7 {
		return false
	}
	var b [8]byte
	copy(b[2:], u[:6])
	ms := int64(binary.BigEndian.Uint64(b[:]))
	return ms < t.UnixMilli()
}

// Found is the lookup of one address (or ID): whether it is on the list,
// and its entry when it is. Err is set when the lookup itself failed.
type Found struct {
	Input  string
	Listed bool
	Entry  api.Entry
	Err    error
}

// ErrNoLookup says the service has no GET /suppressions/{id-or-email}: it
// only offers the batch endpoints, so addresses cannot be previewed.
var ErrNoLookup = errors.New("the service does not offer looking up an address (GET /suppressions/{email})")

// Lookup looks up each value with GET /suppressions/{value}, with up to
// concurrency requests at once (the client's pacing keeps them under the
// rate limit). The answer is in the order of values. A value that is not on
// the list is Found{Listed: false}; one whose lookup failed carries Err.
// The error is for a cancelled ctx, or ErrNoLookup when the service lacks
// the endpoint.
func Lookup(ctx context.Context, c *api.Client, values []string, concurrency int) ([]Found, error) {
	out := make([]Found, len(values))
	if len(values) == 0 {
		return out, nil
	}
	concurrency = min(max(concurrency, 1), len(values))
	var (
		mu          sync.Mutex // guards unsupported
		unsupported bool
	)
	next := make(chan int)
	var done sync.WaitGroup
	for range concurrency {
		done.Add(1)
		go func() {
			defer done.Done()
			for i := range next {
				e, err := c.Get(ctx, values[i])
				f := Found{Input: values[i], Entry: e}
				switch {
				case err == nil:
					f.Listed = true
				case api.IsNotFound(err) && !api.IsUnsupported(err):
				case api.IsUnsupported(err):
					mu.Lock()
					unsupported = true
					mu.Unlock()
					f.Err = ErrNoLookup
				default:
					f.Err = err
				}
				out[i] = f
			}
		}()
	}
feed:
	for i := range values {
		mu.Lock()
		stop := unsupported
		mu.Unlock()
		if stop {
			break
		}
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	done.Wait()
	if err := ctx.Err(); err != nil {
		return out, err
	}
	if unsupported {
		return out, ErrNoLookup
	}
	return out, nil
}
