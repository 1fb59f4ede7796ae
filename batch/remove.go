package batch

import (
	"context"
	"fmt"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// The three ways of removing (see runner): by ID, by address with the
// entries found first (the list read, or looked up one by one), and by
// address as it is, for a service without look-ups.

// resolve prepares a removal by address: it asks whether the service has
// look-ups and reads the list for the entries of the pending batches when
// that takes fewer requests (see scan). Other modes need nothing. The
// error is ctx's.
func (r *runner) resolve(ctx context.Context, st *run, pending []int, emit func(Event), done func() int) (*resolver, error) {
	if st.plan.Mode != RemoveEmails || len(pending) == 0 {
		return nil, nil
	}
	ok, err := r.client.Supports(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	// A failing check (a 5xx after retries) is no proof the lookup is
	// missing: try it, and let the batches report their failure.
	rs := &resolver{lookup: ok || err != nil, known: map[string]Found{}}
	for v, f := range st.plan.Found {
		if f.Err == nil {
			rs.known[v] = f
		}
	}
	if !ok {
		return rs, nil
	}
	var want []string
	for _, i := range pending {
		for _, v := range st.batches[i] {
			if _, ok := rs.known[v]; !ok {
				want = append(want, v)
			}
		}
	}
	wctx := client.WithWaits(ctx, func(w client.WaitInfo) {
		emit(Event{Kind: Waiting, Wait: w.Delay, Reason: w.Reason, Err: w.Err})
	})
	if err := r.scan(wctx, rs, want, func(pages int) {
		emit(Event{Kind: Listing, Pages: pages, Done: done()})
	}); err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return rs, nil
}

// removeIDs removes by ID. found, when the plan has it, is a look-up of
// the IDs (the UI's preview): it names each removed entry's address and
// origin, which the service's answer need not.
func (r *runner) removeIDs(ctx context.Context, values []string, found map[string]Found) ([]Result, error) {
	data, err := r.client.BatchRemoveIDs(ctx, values)
	if err != nil {
		return nil, err
	}
	removed := make(map[string]string, len(data))
	for _, s := range data {
		removed[s.ID] = s.Email
	}
	res := make([]Result, len(values))
	for k, v := range values {
		res[k] = Result{Input: v, ID: v, Outcome: NotListed}
		if email, ok := removed[v]; ok {
			res[k].Outcome, res[k].Email = Removed, email
			if f, ok := found[v]; ok && f.Listed && f.Entry.ID == v {
				res[k].Email, res[k].Origin = f.Entry.Email, f.Entry.Origin
				if f.Entry.SourceID != nil {
					res[k].SourceID = *f.Entry.SourceID
				}
				res[k].had(f.Entry)
			}
		}
	}
	return res, nil
}

// removeEmails removes by address without lookups.
func (r *runner) removeEmails(ctx context.Context, values []string) ([]Result, error) {
	data, err := r.client.BatchRemoveEmails(ctx, values)
	if err != nil {
		return nil, err
	}
	res := make([]Result, len(values))
	if named(data) {
		// Our service names each removed address: exact.
		byEmail := make(map[string]string, len(data))
		for _, s := range data {
			byEmail[s.Email] = s.ID
		}
		for k, v := range values {
			res[k] = Result{Input: v, Outcome: NotListed}
			if id, ok := byEmail[v]; ok {
				res[k] = Result{Input: v, ID: id, Outcome: Removed}
			}
		}
		return res, nil
	}
	for k, v := range values {
		switch {
		case len(data) == 0:
			res[k] = Result{Input: v, Outcome: NotListed}
		case len(values) == 1 && len(data) == 1:
			res[k] = Result{Input: v, ID: data[0].ID, Outcome: Removed}
		default:
			// Bare IDs in no promised order: which address each ID was is
			// not said, even when every address was removed.
			res[k] = Result{Input: v, Outcome: Unverified,
				Message: fmt.Sprintf("the service removed %d of the %d addresses of this batch and does not say which", len(data), len(values))}
		}
	}
	return res, nil
}

// removeLookedUp finds each address's ID (from the list scan or
// Input.Found, else with a lookup), then removes the listed ones by ID.
func (r *runner) removeLookedUp(ctx context.Context, values []string, rs *resolver) ([]Result, error) {
	finds := make([]Found, len(values))
	var ask []string
	var at []int
	for k, v := range values {
		if f, ok := rs.known[v]; ok {
			finds[k] = f
			continue
		}
		if rs.complete {
			finds[k] = Found{Input: v}
			continue
		}
		ask = append(ask, v)
		at = append(at, k)
	}
	if len(ask) > 0 {
		got, err := Lookup(ctx, r.client, ask, r.lookupConcurrency())
		if err != nil {
			return nil, fmt.Errorf("looking up the addresses: %w", err)
		}
		for n, f := range got {
			if f.Err != nil {
				return nil, fmt.Errorf("looking up %s: %w", f.Input, f.Err)
			}
			finds[at[n]] = f
		}
	}
	var ids []string
	for _, f := range finds {
		if f.Listed {
			ids = append(ids, f.Entry.ID)
		}
	}
	removed := map[string]bool{}
	if len(ids) > 0 {
		data, err := r.client.BatchRemoveIDs(ctx, ids)
		if err != nil {
			return nil, err
		}
		for _, s := range data {
			removed[s.ID] = true
		}
	}
	res := make([]Result, len(values))
	for k, v := range values {
		res[k] = Result{Input: v, Outcome: NotListed}
		if finds[k].Listed {
			e := finds[k].Entry
			res[k].ID, res[k].Origin = e.ID, e.Origin
			if e.SourceID != nil {
				res[k].SourceID = *e.SourceID
			}
			res[k].had(e)
			if removed[finds[k].Entry.ID] {
				res[k].Outcome = Removed
			} else {
				res[k].Message = "it was taken off the list by someone else after the lookup"
			}
		}
	}
	return res, nil
}

// resolver holds what a removal by address knows of the addresses' IDs
// before it removes them. It is filled before the batches start and only
// read while they run.
type resolver struct {
	// lookup says GET /suppressions/{email} is available.
	lookup bool
	// known holds the addresses found by the list scan or given in
	// Input.Found.
	known map[string]Found
	// complete says the scan read the whole list, so an address that is not
	// in known is not on the list.
	complete bool
}

// scan reads the list (GET /suppressions, 100 per page) to find the IDs of
// the wanted addresses, when that takes fewer requests than looking each
// up: it reads on while its pages pay (worthAnotherPage: fewer pages than
// the addresses they found plus a tenth of those still to find), so it
// reads a list shorter than the look-ups to its end and adds at most a
// tenth of the look-ups otherwise. It stops early once every address is
// found. A failed scan is no error: the lookups remain.
func (r *runner) scan(ctx context.Context, rs *resolver, want []string, onPage func(pages int)) error {
	wanted := make(map[string]bool, len(want))
	for _, v := range want {
		wanted[v] = true
	}
	found := 0
	p := client.ListParams{Limit: api.MaxBatch}
	for pages := 1; worthAnotherPage(pages-1, found, len(wanted)-found); pages++ {
		page, err := r.client.List(ctx, p)
		if err != nil {
			return err
		}
		for _, e := range page.Data {
			if wanted[e.Email] {
				if _, dup := rs.known[e.Email]; !dup {
					found++
				}
				rs.known[e.Email] = Found{Input: e.Email, Listed: true, Entry: e}
			}
		}
		onPage(pages)
		if !page.HasMore {
			rs.complete = true
			return nil
		}
		if found == len(wanted) || len(page.Data) == 0 {
			return nil
		}
		p.After = page.Data[len(page.Data)-1].ID
	}
	return nil
}

// lookupConcurrency is how many lookups run at once; pacing, not this,
// keeps them under the rate limit.
func (r *runner) lookupConcurrency() int { return max(r.concurrency, int(r.chosen.Load()), 4) }
