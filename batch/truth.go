package batch

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// The truth of a batch add: which ID each address has and whether this
// run created it. It is read only from what the service says, never from
// the answer's order, an ID's bits or the local clock (contract: "What the
// client does with it").
//
//   - Our service names every item (`email`, `created`): exact, one
//     request.
//   - Any other service answers with bare IDs in no promised order. Before
//     the batch the run needs the newest entry of the list (the "mark");
//     after it, it reads the list from the newest down: an address of the
//     batch found above the mark was created after the mark, by this
//     batch. The list names each entry's address and ID, so those pairs
//     are exact. The walk stops as soon as every ID the batch answered is
//     paired (what lies further down cannot be this batch's), or at the
//     mark. The batch's other addresses were listed before; each is looked
//     up by address, and its entry is "already listed" when its ID is one
//     the batch answered and it was created before the mark (by the
//     service's clock: its Date header). Whatever does not fit is
//     Unverified, with the reason.
//   - The mark is the top of the list as the run last read it before the
//     batch: the first page of the previous batch's walk, when that page
//     was the previous batch's last request (each such page marks one
//     later batch); otherwise a read of its own (GET ?limit=1). Either
//     way the read comes before the batch is sent, and what another client
//     lists between the read and the batch is indistinguishable from what
//     the batch makes — the window is the time between two requests at the
//     rate limit, as it was when every batch read its own mark.
//   - A service without the list or the look-up (only the batch
//     endpoints) leaves everything it cannot pair Unverified.
//
// Cost against another service, per batch of n new addresses and m
// already listed: 1 + ceil(n/100) (+1 when another client's entries push
// the batch's own past the first page) + m requests, instead of 1; plus
// one mark for the first batch and for a batch after one that needed more
// than its first page. 100 new addresses a batch: 2 requests (the
// information floor: the answer pairs nothing, and a page pairs at most
// 100).

// capability says what the run has learned of the service.
const (
	capUnknown int32 = iota
	capNames         // batch answers carry email and created
	capBare          // batch answers are bare IDs
)

// maxMarkPages bounds how far down the list a run reads to find its own
// new entries; beyond it the rest is looked up one by one.
func maxMarkPages(n int) int { return n/api.MaxBatch + 3 }

func (r *runner) add(ctx context.Context, values []string, restore map[string]Restore, requestID string) ([]Result, error) {
	var m mark
	known := false // every address was seen listed by the run's walk
	if atomic.LoadInt32(&r.caps) != capNames {
		if known = r.allPaired(values); known {
			// A batch after it makes the last read no mark of the top.
			r.leaveMark(nil)
		} else {
			m = r.takeMark(ctx)
		}
	}
	sent := r.pairs.tick()
	var data []api.Suppression
	var err error
	sendCtx, again := tries(client.WithRequestID(ctx, requestID))
	if len(restore) > 0 || r.keep.set() {
		data, err = r.client.BatchAddEntries(sendCtx, entriesOf(values, restore, r.keep))
	} else {
		data, err = r.client.BatchAdd(sendCtx, values)
	}
	if err != nil {
		return nil, err
	}
	if named(data) {
		atomic.StoreInt32(&r.caps, capNames)
		res := r.addNamed(ctx, values, data)
		if again.Load() || r.resumed {
			r.ownChanges(ctx, res, requestID)
		}
		return res, nil
	}
	atomic.StoreInt32(&r.caps, capBare)
	if known {
		return r.addPaired(ctx, values, data, sent), nil
	}
	if m.err != nil {
		return r.addUnmarked(values, data, fmt.Errorf("reading the list failed: %w", m.err)), nil
	}
	if !m.tried {
		// The first answer told us the service is another one only now,
		// after the batch: no mark was taken before it.
		return r.addUnmarked(values, data, fmt.Errorf("the service's answers do not name their addresses and the run had no mark of the list before this first batch")), nil
	}
	return r.addBare(ctx, values, data, m, sent), nil
}

// entriesOf gives each address its origin to be restored with (manual
// when the plan has none for it), and the run's note and expiry.
func entriesOf(values []string, restore map[string]Restore, kp keep) []api.NewEntry {
	var note *string
	if kp.note != "" {
		note = &kp.note
	}
	var until *api.Timestamp
	if !kp.expiresAt.IsZero() {
		until = &api.Timestamp{Time: kp.expiresAt}
	}
	out := make([]api.NewEntry, len(values))
	for k, v := range values {
		out[k] = api.NewEntry{Email: v, Origin: api.OriginManual, Note: note, ExpiresAt: until}
		if to, ok := restore[v]; ok && to.Origin != "" {
			to.into(&out[k], kp.ids)
		}
	}
	return out
}

// into gives e what the restore says of its entry; the entry's own ID and
// creation time only with ids.
func (to Restore) into(e *api.NewEntry, ids bool) {
	e.Origin = to.Origin
	if to.SourceID != "" {
		e.SourceID = &to.SourceID
	}
	if to.Note != "" {
		e.Note = &to.Note
	}
	if !to.ExpiresAt.IsZero() {
		e.ExpiresAt = &api.Timestamp{Time: to.ExpiresAt}
	}
	if to.Evidence != nil {
		ev := *to.Evidence
		e.Evidence = &ev
	}
	if ids && to.ID != "" {
		e.ID = to.ID
		if !to.CreatedAt.IsZero() {
			e.CreatedAt = &api.Timestamp{Time: to.CreatedAt}
		}
	}
}

// named reports whether a batch answer names the address of every item
// (our service's extension).
func named(data []api.Suppression) bool {
	if len(data) == 0 {
		return false
	}
	for _, s := range data {
		if s.Email == "" {
			return false
		}
	}
	return true
}

func (r *runner) addNamed(ctx context.Context, values []string, data []api.Suppression) []Result {
	// The index of each address's item (the last, as a map of the items
	// would keep): the items themselves are large to copy into a map.
	by := make(map[string]int, len(data))
	for i := range data {
		by[data[i].Email] = i
	}
	res := make([]Result, len(values))
	var missing []int
	for k, v := range values {
		i, ok := by[v]
		var s *api.Suppression
		if ok {
			s = &data[i]
		}
		switch {
		case !ok:
			missing = append(missing, k)
		case s.Created == nil:
			res[k] = Result{Input: v, ID: s.ID, Outcome: Unverified, Message: "the service named the entry but did not say whether it was new"}
		case *s.Created:
			res[k] = Result{Input: v, ID: s.ID, Outcome: Added}
		default:
			res[k] = Result{Input: v, ID: s.ID, Outcome: AlreadyListed}
		}
		if ok {
			res[k].keeps(*s)
		}
	}
	r.leftOut(ctx, values, missing, res, len(data))
	return res
}

// leftOut settles the addresses a batch answer did not mention: looked up,
// they are Unverified either way (listed, the run cannot tell who made the
// entry; not listed, the batch did not add them) with what was found.
func (r *runner) leftOut(ctx context.Context, values []string, missing []int, res []Result, answered int) {
	if len(missing) == 0 {
		return
	}
	ask := make([]string, len(missing))
	for n, k := range missing {
		ask[n] = values[k]
	}
	found, lerr := Lookup(ctx, r.client, ask, r.lookupConcurrency())
	for n, k := range missing {
		v := values[k]
		why := fmt.Sprintf("the service answered %d items for %d addresses and left this one out", answered, len(values))
		res[k] = Result{Input: v, Outcome: Unverified}
		switch {
		case lerr != nil && found[n].Err == nil && !found[n].Listed:
			res[k].Message = why + "; looking it up failed: " + lerr.Error()
		case found[n].Err != nil:
			res[k].Message = why + "; looking it up failed: " + found[n].Err.Error()
		case found[n].Listed:
			res[k].ID = found[n].Entry.ID
			res[k].Message = why + "; it is listed, but whether this run made the entry is not known"
		default:
			res[k].Message = why + "; it is not on the list"
		}
	}
}

// mark is the top of the list just before a batch: the newest entry's ID
// (empty on an empty list) and the service's time, from its Date header.
type mark struct {
	tried bool
	id    string
	at    time.Time
	err   error
	// clock is the run's clock when the mark was read (pairing).
	clock int64
}

// takeMark is the mark of a batch about to be sent: the one a previous
// batch's walk left (each is taken once), or a read of its own.
func (r *runner) takeMark(ctx context.Context) mark {
	r.markMu.Lock()
	m := r.next
	r.next = nil
	r.markMu.Unlock()
	if m != nil {
		return *m
	}
	return r.markNewest(ctx)
}

// leaveMark offers the top of the list as a batch's walk read it to the
// next batch, or (nil) takes back what an earlier walk left: the batch made
// requests after that read, so it is no longer the run's last view of
// the top.
func (r *runner) leaveMark(m *mark) {
	r.markMu.Lock()
	r.next = m
	r.markMu.Unlock()
}

func (r *runner) markNewest(ctx context.Context) mark {
	octx, ans := client.Observe(ctx)
	at := r.pairs.tick()
	page, err := r.client.List(octx, client.ListParams{Limit: 1})
	m := mark{tried: true, at: ans.Date(), err: err, clock: at}
	if err == nil && len(page.Data) > 0 {
		m.id = page.Data[0].ID
	}
	return m
}

// addBare establishes the truth of a batch whose answer is bare IDs.
func (r *runner) addBare(ctx context.Context, values []string, data []api.Suppression, m mark, sent int64) []Result {
	w := newBareWalk(values, data)
	w.walk(ctx, r, m)

	// The rest were listed before the mark, or were not added at all:
	// those the run's walk of the list sees are paired with their entries
	// (walk.go), the others looked up.
	ask, at := r.pairListed(ctx, values, w.answered, w.res, w.settled, sent, w.reached)
	if len(ask) == 0 && w.pages == 1 {
		r.leaveMark(w.top)
	} else {
		r.leaveMark(nil)
	}
	if len(ask) == 0 {
		return w.res
	}
	found, lerr := Lookup(ctx, r.client, ask, r.lookupConcurrency())
	for n, k := range at {
		f := Found{}
		if n < len(found) {
			f = found[n]
		}
		w.res[k] = w.lookedUp(values[k], f, lerr, len(data), m)
	}
	return w.res
}

// bareWalk is the pairing of a batch's bare IDs with its addresses, by
// reading the list from its newest entry down to the mark left before
// the batch.
type bareWalk struct {
	values   []string
	answered map[string]bool // the IDs of the answer
	index    map[string]int  // each value's place
	res      []Result
	settled  []bool
	// reached says the walk came down to the mark; byClock that it knew
	// the mark by the service's clock (the mark's entry was removed).
	reached, byClock bool
	// unpaired counts the IDs of the answer not yet found above the mark
	// with an address of the batch.
	unpaired int
	paired   map[string]bool
	// top is the list's newest entry as the first page shows it; pages
	// counts the pages read.
	top   *mark
	pages int
}

func newBareWalk(values []string, data []api.Suppression) *bareWalk {
	w := &bareWalk{values: values, answered: make(map[string]bool, len(data)), index: make(map[string]int, len(values)),
		res: make([]Result, len(values)), settled: make([]bool, len(values))}
	for _, s := range data {
		w.answered[s.ID] = true
	}
	for k, v := range values {
		w.index[v] = k
	}
	w.unpaired = len(w.answered)
	w.paired = make(map[string]bool, len(w.answered))
	return w
}

// walk reads from the newest entry down to the mark: what lies above it
// was created after the mark. The mark is found by its ID (the service's
// own order); when it was removed meanwhile, the service's clock (its
// Date header at the mark) bounds the walk instead, and entries of the
// mark's second stay unverified.
func (w *bareWalk) walk(ctx context.Context, r *runner, m mark) {
	p := client.ListParams{Limit: api.MaxBatch}
	for w.pages < maxMarkPages(len(w.values)) {
		lctx, ans := client.Observe(ctx)
		at := r.pairs.tick()
		page, err := r.client.List(lctx, p)
		if err != nil {
			return
		}
		if w.pages++; w.pages == 1 {
			w.top = &mark{tried: true, at: ans.Date(), clock: at}
			if len(page.Data) > 0 {
				w.top.id = page.Data[0].ID
			}
		}
		for i, e := range page.Data {
			if e.ID == m.id || !m.at.IsZero() && e.CreatedAt.Before(m.at) {
				// What lies from here down was listed before the
				// mark: the run's walk for listed addresses starts here.
				w.reached, w.byClock = true, e.ID != m.id
				r.pairs.start(m.clock, page.Data[i:], page.Data[len(page.Data)-1].ID, page.HasMore)
				return
			}
			w.pair(e)
		}
		if !page.HasMore || len(page.Data) == 0 {
			w.reached = true
			return
		}
		if w.unpaired == 0 {
			// Every ID the batch answered has its address: nothing
			// further down can be this batch's.
			return
		}
		p.After = page.Data[len(page.Data)-1].ID
	}
}

// pair settles the value of an entry listed after the mark: added by the
// batch when the answer gave its ID.
func (w *bareWalk) pair(e api.Entry) {
	k, ok := w.index[e.Email]
	if !ok || w.settled[k] {
		return
	}
	w.settled[k] = true
	if !w.answered[e.ID] {
		w.res[k] = Result{Input: e.Email, ID: e.ID, Outcome: Unverified,
			Message: "it was listed after the batch was sent, with an ID the batch's answer did not give"}
		return
	}
	w.res[k] = Result{Input: e.Email, ID: e.ID, Outcome: Added}
	if !w.paired[e.ID] {
		w.paired[e.ID] = true
		w.unpaired--
	}
}

// lookedUp is the result of value v, which the walk did not settle, by
// its look-up f (lerr the look-ups' error); answers is how many IDs the
// batch's answer gave.
func (w *bareWalk) lookedUp(v string, f Found, lerr error, answers int, m mark) Result {
	res := Result{Input: v, Outcome: Unverified}
	switch {
	case f.Err != nil:
		res.Message = "the service's answer does not say which ID is this address's, and looking it up failed: " + f.Err.Error()
	case lerr != nil && !f.Listed:
		res.Message = "the service's answer does not say which ID is this address's, and looking it up failed: " + lerr.Error()
	case !f.Listed:
		res.Message = fmt.Sprintf("the service answered %d IDs for %d addresses and does not list this one", answers, len(w.values))
	case !w.answered[f.Entry.ID]:
		res.ID = f.Entry.ID
		res.Message = "it is listed with an ID the batch's answer did not give"
	case !w.reached:
		res.ID = f.Entry.ID
		res.Message = "the list was too busy to tell whether this run made the entry"
	case w.byClock && !f.Entry.CreatedAt.Before(m.at):
		res.ID = f.Entry.ID
		res.Message = "its entry is as new as the batch, but it was not among the entries made after it"
	default:
		res = Result{Input: v, ID: f.Entry.ID, Outcome: AlreadyListed}
	}
	return res
}

// addUnmarked is the answer for a batch whose service offers nothing to
// pair bare IDs with addresses: one address and one ID pair up; the rest
// is Unverified.
func (r *runner) addUnmarked(values []string, data []api.Suppression, cause error) []Result {
	res := make([]Result, len(values))
	for k, v := range values {
		res[k] = Result{Input: v, Outcome: Unverified,
			Message: "the service answers with bare IDs in no promised order, so which is this address's and whether it was new cannot be established (" + cause.Error() + ")"}
		if len(values) == 1 && len(data) == 1 {
			res[k].ID = data[0].ID
		}
	}
	return res
}

// allPaired reports whether the run's walk of the list has seen every
// address of values listed (and so a batch of them needs no mark: its
// answer is checked against what the walk saw).
func (r *runner) allPaired(values []string) bool {
	next := r.pairs.tick() + 1
	for _, v := range values {
		if _, ok := r.pairs.found(v, next); !ok {
			return false
		}
	}
	return true
}

// addPaired is the truth of a batch whose every address the run's walk
// saw listed before it was sent: an address whose entry's ID the answer
// gives was listed already, with that entry (an entry's address never
// changes, and the entry existed before the batch). An address the answer
// does not confirm so was removed and listed again meanwhile, by this
// batch or another client: it is looked up, and Unverified.
func (r *runner) addPaired(ctx context.Context, values []string, data []api.Suppression, sent int64) []Result {
	answered := make(map[string]bool, len(data))
	for _, s := range data {
		answered[s.ID] = true
	}
	res := make([]Result, len(values))
	var ask []string
	var at []int
	for k, v := range values {
		if e, ok := r.pairs.found(v, sent); ok && answered[e.ID] {
			res[k] = Result{Input: v, ID: e.ID, Outcome: AlreadyListed}
			continue
		}
		ask = append(ask, v)
		at = append(at, k)
	}
	if len(ask) == 0 {
		return res
	}
	found, lerr := Lookup(ctx, r.client, ask, r.lookupConcurrency())
	for n, k := range at {
		res[k] = Result{Input: values[k], Outcome: Unverified}
		switch f := found[n]; {
		case f.Err != nil:
			res[k].Message = "it was listed when the run read the list, and is no longer with that entry; looking it up failed: " + f.Err.Error()
		case lerr != nil && !f.Listed:
			res[k].Message = "it was listed when the run read the list, and is no longer with that entry; looking it up failed: " + lerr.Error()
		case f.Listed:
			res[k].ID = f.Entry.ID
			res[k].Message = "it was taken off the list and listed again since the run read the list; whether this batch listed it is not known"
		default:
			res[k].Message = "it was listed when the run read the list, and is no longer listed"
		}
	}
	return res
}

// pairListed settles the addresses of a batch that were listed before it
// where the run's walk of the list saw their entries with an ID the batch
// answered (walking on when it pays, once the batch's own walk reached
// its mark), and returns the others, to be looked up, with their places.
func (r *runner) pairListed(ctx context.Context, values []string, answered map[string]bool, res []Result, settled []bool, sent int64, walk bool) ([]string, []int) {
	var ask []string
	var at []int
	for pass := 0; pass < 2; pass++ {
		ask, at = ask[:0], at[:0]
		for k, v := range values {
			if settled[k] {
				continue
			}
			if e, ok := r.pairs.found(v, sent); ok && answered[e.ID] {
				res[k], settled[k] = Result{Input: v, ID: e.ID, Outcome: AlreadyListed}, true
				continue
			}
			ask = append(ask, v)
			at = append(at, k)
		}
		if pass > 0 || len(ask) == 0 || !walk {
			break
		}
		r.pair(ctx, ask)
	}
	return ask, at
}
