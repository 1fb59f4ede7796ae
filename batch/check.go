package batch

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// fallbackChunk is how many addresses a Checker looks up one by one
// between two reports of its progress, once the service has shown it has
// no bulk check.
const fallbackChunk = 50

// Checker says which addresses are listed: with the service's bulk check
// (POST /suppressions/batch/check, up to api.MaxCheck a request), or,
// against a service without it, with one look-up per address (Lookup,
// paced by the client), which it then keeps to. The CLI's check and the
// UI's check and review use it, a chunk at a time, to show progress. It is
// safe for use by several goroutines.
type Checker struct {
	Client *client.Client
	// Concurrency is how many look-ups are in flight at once without the
	// bulk check (default 4).
	Concurrency int
	noBulk      atomic.Bool
	// scan is the walk of the list that answers without a look-up each,
	// where that takes fewer requests (walk.go).
	scan listScan
}

// Bulk reports whether the checker still uses the bulk check: false once
// the service answered it 404 or 405.
func (k *Checker) Bulk() bool { return !k.noBulk.Load() }

// ChunkSize is how many addresses the next Check call should be given for
// its progress to be reported at a steady pace: a bulk request's worth, or
// fallbackChunk look-ups.
func (k *Checker) ChunkSize() int {
	if k.Bulk() {
		return api.MaxCheck
	}
	return fallbackChunk
}

// Check says of each value (normalized addresses) whether it is listed,
// in the order of values; a value whose check failed carries Err. Bulk
// answers are matched by the address each item names, never by position:
// a value the answer leaves out is an error of its own. The error is for a
// cancelled ctx, or errNoLookup when the service has neither the bulk
// check nor look-ups.
func (k *Checker) Check(ctx context.Context, values []string) ([]Found, error) {
	out := make([]Found, 0, len(values))
	err := k.CheckAll(ctx, values, func(_ int, found []Found) error {
		out = append(out, found...)
		return nil
	})
	return out, err
}

// chunk checks part: with the bulk check while the service has it (ok
// false when it just answered that it has not, with nothing checked), else
// by look-ups.
func (k *Checker) chunk(ctx context.Context, part []string) (found []Found, ok bool, err error) {
	if !k.Bulk() {
		found, err = k.lookUp(ctx, part)
		return found, true, err
	}
	items, err := k.Client.Check(ctx, part)
	switch {
	case client.IsUnsupported(err):
		k.noBulk.Store(true)
		return nil, false, nil
	case err != nil && ctx.Err() != nil:
		return nil, true, ctx.Err()
	}
	return matchChecked(part, items, err), true, nil
}

// errNotAnswered is a value a bulk answer did not mention.
var errNotAnswered = errors.New("the service's answer did not mention this address")

// matchChecked pairs each value with the answer's item that names it; a
// failed request fails every value with its error.
func matchChecked(values []string, items []api.CheckItem, err error) []Found {
	out := make([]Found, len(values))
	// The service answers in the request's order: the item at a value's
	// position is taken when it names the value, else the item that
	// does, wherever it is.
	var by map[string]*api.CheckItem
	find := func(i int, v string) (*api.CheckItem, bool) {
		if i < len(items) && items[i].Email == v {
			return &items[i], true
		}
		if by == nil {
			by = make(map[string]*api.CheckItem, len(items))
			for j := range items {
				by[items[j].Email] = &items[j]
			}
		}
		it, ok := by[v]
		return it, ok
	}
	for i, v := range values {
		it, ok := find(i, v)
		switch {
		case err != nil:
			out[i] = Found{Input: v, Err: err}
		case !ok:
			out[i] = Found{Input: v, Err: errNotAnswered}
		case it.Listed:
			e := it.Entry
			e.Email = it.Email
			out[i] = Found{Input: v, Listed: true, Entry: e, ListedBy: it.ListedBy}
		default:
			out[i] = Found{Input: v}
		}
	}
	return out
}

// CheckAll checks every value, a chunk at a time (ChunkSize), handing
// each chunk's answers to fn in order as they come (start is the index of
// the chunk's first value). It stops at fn's error or ctx's end.
func (k *Checker) CheckAll(ctx context.Context, values []string, fn func(start int, found []Found) error) error {
	for lo := 0; lo < len(values); {
		part := values[lo:min(lo+k.ChunkSize(), len(values))]
		got, ok, err := k.chunk(ctx, part)
		if !ok {
			continue // the service has no bulk check: look up, in smaller chunks
		}
		if len(got) > 0 {
			if ferr := fn(lo, got); ferr != nil {
				return ferr
			}
		}
		if err != nil {
			return err
		}
		if len(got) != len(part) {
			return fmt.Errorf("checked %d of %d addresses", len(got), len(part))
		}
		lo += len(part)
	}
	return ctx.Err()
}

// lookUp says of each address of part whether it is listed without the
// bulk check: from the walk of the list where it pays, else with a look-up
// each.
func (k *Checker) lookUp(ctx context.Context, part []string) ([]Found, error) {
	found, known := k.scan.walk(ctx, k.Client, part)
	var ask []string
	var at []int
	for i, ok := range known {
		if !ok {
			ask = append(ask, part[i])
			at = append(at, i)
		}
	}
	if len(ask) == 0 {
		return found, ctx.Err()
	}
	got, err := Lookup(ctx, k.Client, ask, max(k.Concurrency, 4))
	for n, i := range at {
		found[i] = got[n]
		if found[i].Input == "" {
			// Not reached: the run stopped, or the service has no
			// look-ups either.
			found[i] = Found{Input: part[i], Err: err}
		}
	}
	return found, err
}
