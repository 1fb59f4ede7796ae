package batch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// runner sends the batches of one run (Runs.Start and Runs.Resume make
// one per call: what it learns of the service holds for that run).
//
// What a run sends per mode:
//   - Add: POST /suppressions/batch/add. Which ID each address has and
//     whether the run created it come only from what the service says
//     (see truth.go): the answer's email/created on shush's service,
//     look-ups of the list before and after the batch on any other. What
//     cannot be established is Unverified, never guessed.
//   - RemoveIDs: POST /suppressions/batch/remove with ids; an ID in the
//     answer is "removed", one missing from it "not on the list".
//   - RemoveEmails: the answer of a removal by address need not say which
//     address each ID was, so the run first finds each address's entry,
//     then removes the found ones by ID: exact results, and the origin of
//     each removed entry is kept for an undo. For 200 addresses or more it
//     first reads the list (100 entries per request, at most half as many
//     requests as addresses); what that does not settle is looked up one by
//     one (GET /suppressions/{email}); Input.Found, when given, is used as
//     is. On a service without the lookup endpoint the batch is removed by
//     address instead: exact when the service names the removed addresses
//     or all or none of a batch was listed, otherwise Unverified (see
//     remove.go).
type runner struct {
	client *client.Client
	// concurrency is how many batches are in flight at once (at least 1),
	// or AutoConcurrency.
	concurrency int
	// onEvent receives progress; it must return quickly.
	onEvent func(Event)

	// caps is what the run learned of the service (capUnknown, capNames,
	// capBare), read and set atomically by the batches in flight.
	caps int32
	// chosen is the concurrency an AutoConcurrency run chose after its
	// first answer (0 before), kept for its later segments.
	chosen atomic.Int32
	// keep is the note and expiry an addition gives its entries.
	keep keep

	// next is the mark a batch's walk left for a later batch against a
	// service with bare answers (truth.go), nil when there is none.
	markMu sync.Mutex
	next   *mark

	// pairs is the run's walk of the list for the addresses its batches
	// found listed, against a service with bare answers (walk.go).
	pairs pairing

	// runKey names the run in its batches' request IDs (batchRequestID),
	// the same when it resumes; resumed says the run was started before,
	// so a batch it sends may have been applied already (by a try whose
	// answer was lost to a crash).
	runKey  string
	resumed bool
}

// keep is what an addition says of each entry it sends beyond its origin:
// a note and an expiry ("" and zero for none).
type keep struct {
	note      string
	expiresAt time.Time
	// ids sends each entry's own ID and creation time where the plan's
	// Restore gives them.
	ids bool
}

func (k keep) set() bool { return k.note != "" || !k.expiresAt.IsZero() }

// pauseAfter is how many batches in a row may fail for the service's sake
// (no answer, 5xx) before the run pauses rather than spend its retries on
// every batch left. A Retry-After longer than the client waits out pauses
// the run at once.
const pauseAfter = 3

// stopGrace is how long, after a stop, a batch already on the wire may
// take to be answered before it is cut off, so that a stop takes effect
// within a second.
const stopGrace = 500 * time.Millisecond

// AutoConcurrency, as Runs.Concurrency, starts a run with one batch in
// flight and, once the service has answered the first, goes on with as
// many as ConcurrencyFor says of the rate limit the answer announced.
const AutoConcurrency = -1

// MaxConcurrency is the most batches a run keeps in flight, chosen or
// given.
const MaxConcurrency = 16

// roundTrip is the round trip ConcurrencyFor provides for: a batch to a
// service across the internet and its answer.
const roundTrip = 100 * time.Millisecond

// ConcurrencyFor is how many batches an AutoConcurrency run keeps in
// flight, given the rate limit the service announced (the ratelimit-limit
// over the ratelimit-reset, at least a second). At 10 requests a second or
// fewer, 1: the hosted service allows about 2 a second and shush serve 10
// by default, one batch at a time keeps up with that at any ordinary round
// trip, keeps the input's order, and more would only wait for the limit. A
// service that announces no limit gets 1 too: nothing would pace more.
// Above that, enough to use the allowance at a round trip of 100 ms (the
// rate times the round trip), at least 4 and at most MaxConcurrency: a
// nearby service answers sooner, and one that commits concurrent batches
// together does them faster the more it is given at once.
func ConcurrencyFor(rl api.RateLimit) int {
	if !rl.Known {
		return 1
	}
	limit := rl.Limit
	if limit <= 0 {
		limit = rl.Remaining + 1
	}
	perSecond := float64(limit) / max(rl.Reset.Seconds(), 1)
	if perSecond <= 10 {
		return 1
	}
	n := math.Ceil(perSecond * roundTrip.Seconds())
	return int(min(max(n, 4), MaxConcurrency))
}

// run is the state of one run: the plan, its batches and what is known.
type run struct {
	plan    plan
	target  string
	batches [][]string
	// results holds, by 0-based batch index, the results of the batches
	// settled or failed and not yet handed on (see sending.handOn): a
	// run holds those of the batches in flight and of those that ended
	// before an earlier one, not a segment's.
	results map[int][]Result
	journal *journal
	// seg places a segment of a recorded run within the whole: the batches
	// and entries before it, and the whole's totals (zero for a run of its
	// own). Events and results number batches across the whole run.
	seg segPlace
}

type segPlace struct {
	batches, entries           int // before this segment
	totalBatches, totalEntries int
}

// newRun is the state of a run of plan against target, nothing sent yet.
func newRun(p plan, target string) *run {
	return &run{plan: p, target: target, batches: p.batches(), results: map[int][]Result{}}
}

// execute sends what st has left: partition (the batches not yet
// settled), resolve (a removal by address finds its entries), pool (the
// batches over Concurrency workers, each journaled as it ends). Every
// batch's results, settled before or now, failed or unsent, go to hand in
// plan order, in pieces (see sending.handOn). Nothing settled is sent
// again; that is what makes a resume safe.
func (r *runner) execute(ctx context.Context, st *run, hand func(Report)) (err error) {
	defer func() {
		// The run says what it did only once the journal has it durably.
		if cerr := st.journal.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	s := r.newSending(ctx, st, hand)
	defer s.pause()
	r.pairs.segment(st.plan.Values)
	pending := s.partition()
	// What the journal has settled before is handed on at once, up to the
	// first batch left to send.
	s.handOn(false)
	rs, err := r.resolve(ctx, st, pending, s.emit, s.progress)
	if err != nil {
		s.handOn(true)
		return err
	}
	s.rs = rs
	workers := max(r.concurrency, 1)
	if r.concurrency == AutoConcurrency {
		workers = max(int(r.chosen.Load()), 1)
	}
	p := newPool(s.batch)
	if r.concurrency == AutoConcurrency && r.chosen.Load() == 0 {
		s.widen = func() {
			n := ConcurrencyFor(r.client.Allowance())
			r.chosen.Store(int32(n))
			p.grow(min(n, len(pending)) - 1)
		}
	}
	p.run(s.sendCtx, min(workers, max(len(pending), 1)), pending, s.stopped)
	return s.end(len(pending))
}

// sending is the state of one execute while its batches are in flight.
type sending struct {
	r       *runner
	st      *run
	ctx     context.Context // the caller's: a cancel stops the run
	sendCtx context.Context // ctx, or earlier: a pause stops the run
	pause   context.CancelFunc
	rs      *resolver
	evMu    sync.Mutex // onEvent is never called concurrently
	// widen, when set, is called once, after the first batch that went
	// out: an AutoConcurrency run then chooses how many go at once.
	widen     func()
	widenOnce sync.Once

	mu       sync.Mutex // guards what follows and orders the events
	done     int        // entries whose batch has ended
	jerr     error      // the first journal write that failed
	inARow   int        // batches failed in a row for the service's sake
	pausedBy error      // why the run paused or stopped; nil while it runs
	refused  bool       // the service refused the key (pausedBy says how)

	// handMu orders the handing on of results (handOn): hand gets the
	// pieces one at a time, in plan order. handed counts the batches
	// handed on, unsettled those of them failed or unsent; both change
	// under handMu and mu.
	handMu    sync.Mutex
	hand      func(Report)
	handed    int
	unsettled int
}

func (r *runner) newSending(ctx context.Context, st *run, hand func(Report)) *sending {
	// A pause stops what still waits to go out (pacing, retries), as a
	// cancel does; what is already on the wire finishes.
	sendCtx, pause := context.WithCancel(ctx)
	return &sending{r: r, st: st, ctx: ctx, sendCtx: sendCtx, pause: pause, hand: hand}
}

// pieceBatches is the most batches a piece handed on holds: a resume's
// batches settled before are handed on a thousand entries at a time, not
// as one copy of them all.
const pieceBatches = 10

// handOn hands on, in plan order, the batches from the first not yet
// handed on up to the first still without results (with final, up to the
// end: those are unsent), in pieces of at most pieceBatches, and lets go
// of their results: a run holds the results of the batches in flight and
// of those that ended before an earlier one, never a segment's. The
// pieces are made under mu and handed on outside it, so that the batches
// in flight are not held up by what hand does with them.
func (s *sending) handOn(final bool) {
	s.handMu.Lock()
	defer s.handMu.Unlock()
	st := s.st
	s.mu.Lock()
	lo, hi := s.handed, s.handed
	if final {
		hi = len(st.batches)
	} else {
		for hi < len(st.batches) && st.has(hi) {
			hi++
		}
	}
	var pieces []Report
	for i := lo; i < hi; i += pieceBatches {
		p := st.piece(i, min(i+pieceBatches, hi))
		s.unsettled += len(p.Failed) + len(p.Unsent)
		pieces = append(pieces, p)
	}
	for i := lo; i < hi; i++ {
		delete(st.results, i)
	}
	s.handed = hi
	s.mu.Unlock()
	for _, p := range pieces {
		s.hand(p)
	}
}

// emit hands an event to onEvent with the run's totals.
func (s *sending) emit(e Event) {
	if s.r.onEvent == nil {
		return
	}
	s.evMu.Lock()
	defer s.evMu.Unlock()
	e.Batches, e.Total = len(s.st.batches), len(s.st.plan.Values)
	if p := s.st.seg; p.totalBatches > 0 {
		e.Batches, e.Total = p.totalBatches, p.totalEntries
		e.Done += p.entries
		if e.Batch > 0 {
			e.Batch += p.batches
		}
	}
	s.r.onEvent(e)
}

// progress is the entries done so far, for events outside a batch.
func (s *sending) progress() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.done
}

// partition returns the batches left to send; a settled one counts as
// done and is not sent again.
func (s *sending) partition() []int {
	var pending []int
	for i, b := range s.st.batches {
		if res, ok := s.st.results[i]; ok && res[0].Settled() {
			s.done += len(b)
			continue
		}
		delete(s.st.results, i)
		pending = append(pending, i)
	}
	return pending
}

// stopped says the pool should hand out no more batches: the journal
// failed, or the run paused.
func (s *sending) stopped() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.jerr != nil || s.pausedBy != nil
}

// batch sends batch i, judges its failure, records and journals it.
func (s *sending) batch(i int) {
	b := s.st.batches[i]
	s.mu.Lock()
	if s.sendCtx.Err() != nil {
		// The pool and a cancel (or a pause) can race; a batch handed
		// over after it stays unsent.
		s.mu.Unlock()
		return
	}
	s.emit(Event{Kind: BatchStarted, Batch: i + 1, Size: len(b), Done: s.done})
	s.mu.Unlock()
	res, sent, err := s.r.sendInFlight(s.ctx, s.sendCtx, s.st, i, s.rs, s.emit)
	if !sent {
		return // stopped while waiting, before the request went out
	}
	s.settle(i, res, err)
	s.handOn(false)
	// Widening waits for the judgement: a first batch that stops the run
	// (a refused key) must not let more batches out beside it.
	if s.widen != nil && !s.stopped() {
		s.widenOnce.Do(s.widen)
	}
}

// settle judges batch i's answer, records and journals it.
func (s *sending) settle(i int, res []Result, err error) {
	b := s.st.batches[i]
	s.mu.Lock()
	defer s.mu.Unlock()
	s.judge(err)
	s.st.results[i] = res
	s.done += len(b)
	if werr := s.st.journal.batch(i, res, err); werr != nil && s.jerr == nil {
		s.jerr = werr
	}
	kind := BatchDone
	if err != nil {
		kind = BatchFailed
	}
	s.emit(Event{Kind: kind, Batch: i + 1, Size: len(b), Done: s.done, Err: err, Results: res})
}

// judge pauses the run when a failure is the service's: a Retry-After
// longer than the client waits, or pauseAfter failures in a row; it stops
// the run at once when the service refuses the key (401, 403), which no
// other batch would change. Called with s.mu held.
func (s *sending) judge(err error) {
	switch {
	case err == nil:
		s.inARow = 0
	case s.pausedBy != nil:
	case keyRefused(err):
		s.pausedBy, s.refused = err, true
		s.pause()
	case isLongWait(err):
		s.pausedBy = err
		s.pause()
	case serviceFailure(err):
		if s.inARow++; s.inARow >= pauseAfter {
			s.pausedBy = err
			s.pause()
		}
	}
}

// end hands on what is left (the batches not sent, as unsent), writes the
// journal's end when everything is settled and says how the run ended.
func (s *sending) end(pending int) error {
	s.handOn(true)
	complete := s.unsettled == 0
	if s.jerr != nil {
		return s.jerr
	}
	if complete && pending > 0 {
		if err := s.st.journal.finish(); err != nil {
			return err
		}
	}
	if err := s.ctx.Err(); err != nil && !complete {
		return err
	}
	switch {
	case s.refused:
		return &refusedError{Cause: s.pausedBy}
	case s.pausedBy != nil:
		return &PausedError{Cause: s.pausedBy, InARow: s.inARow}
	}
	return nil
}

// sendInFlight sends batch i. The request once sent is let finish after
// a cancel, so that its outcome is known, but only for stopGrace: then it
// is cut off, and the batch fails with errAbandoned (the service may or
// may not have applied it; a resume sends it again, which is safe, both
// endpoints being idempotent). sent is false when the batch was stopped
// while it still waited to go out (pacing, retries): it stays unsent.
func (r *runner) sendInFlight(ctx, sendCtx context.Context, st *run, i int, rs *resolver, emit func(Event)) (res []Result, sent bool, err error) {
	b := st.batches[i]
	inFlight, cut := context.WithCancel(client.Detach(sendCtx))
	defer cut()
	var abandoned atomic.Bool
	stopCut := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(stopGrace, func() { abandoned.Store(true); cut() })
		context.AfterFunc(inFlight, func() { t.Stop() })
	})
	bctx := client.WithWaits(inFlight, func(w client.WaitInfo) {
		emit(Event{Kind: Waiting, Batch: i + 1, Size: len(b), Wait: w.Delay, Reason: w.Reason, Err: w.Err})
	})
	res, err = r.send(bctx, st, i, rs)
	stopCut()
	switch {
	case err != nil && abandoned.Load():
		for k := range res {
			res[k].Message = errAbandoned.Error()
		}
		return res, true, errAbandoned
	case err != nil && sendCtx.Err() != nil && errors.Is(err, sendCtx.Err()):
		return nil, false, err
	}
	return res, true, err
}

// errAbandoned is the failure of a batch whose request was cut off by a
// stop while on the wire: the service may or may not have applied it.
var errAbandoned = errors.New("stopped while its request was on the wire: the service may or may not have applied it; resuming sends it again")

// PausedError ends a run that stopped sending because the service was not
// taking its batches: several in a row failed without an answer or with a
// 5xx, or the service asked to wait longer than the client waits. The
// batches not sent are Unsent; a resume sends them when the service is
// back.
type PausedError struct {
	Cause  error
	InARow int
}

func (e *PausedError) Error() string {
	if d, ok := client.LongRetryAfter(e.Cause); ok {
		return fmt.Sprintf("paused: the service asks to wait %s before the next request (Retry-After)", d.Round(time.Second))
	}
	return fmt.Sprintf("paused after %d batches in a row failed: %v", e.InARow, e.Cause)
}

func (e *PausedError) Unwrap() error { return e.Cause }

// refusedError ends a run whose batch the service refused for its key: a
// 401 or 403 (no key, an unknown or revoked key, a read-only key). Nothing
// more is sent, and the run is not offered for resuming: the same key
// would be refused again. A key that may write sends the list anew.
type refusedError struct {
	Cause error
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("the service refused this key, so nothing more was sent: %v", e.Cause)
}

func (e *refusedError) Unwrap() error { return e.Cause }

// keyRefused reports a 401 or 403: the service refuses the key.
func keyRefused(err error) bool {
	var ae *api.Error
	return errors.As(err, &ae) && (ae.StatusCode == http.StatusUnauthorized || ae.StatusCode == http.StatusForbidden)
}

// refusedAsSent reports a batch the service refused for what it holds
// (400, 413, 422), which the same batch sent again would meet again.
func refusedAsSent(err error) bool {
	var ae *api.Error
	if !errors.As(err, &ae) {
		return false
	}
	switch ae.StatusCode {
	case http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnprocessableEntity:
		return true
	}
	return false
}

// serviceFailure reports a batch failure that is the service's, not the
// batch's: no answer, or a 5xx after the retries.
func serviceFailure(err error) bool {
	var ne *client.NetworkError
	if errors.As(err, &ne) {
		return true
	}
	var ae *api.Error
	return errors.As(err, &ae) && ae.StatusCode >= 500
}

func isLongWait(err error) bool {
	_, ok := client.LongRetryAfter(err)
	return ok
}

// send sends batch i and returns one result per value; on failure every
// result is Failed with the error's message.
func (r *runner) send(ctx context.Context, st *run, i int, rs *resolver) ([]Result, error) {
	values := st.batches[i]
	var (
		res []Result
		err error
	)
	switch st.plan.Mode {
	case Add:
		res, err = r.add(ctx, values, st.plan.Restore, batchRequestID(r.runKey, st.seg.batches+i+1))
	case RemoveIDs:
		res, err = r.removeIDs(ctx, values, st.plan.Found)
	case Erase:
		res, err = r.erase(ctx, values)
	case RemoveEmails:
		if rs != nil && rs.lookup {
			res, err = r.removeLookedUp(ctx, values, rs)
		} else {
			res, err = r.removeEmails(ctx, values)
		}
	default:
		err = fmt.Errorf("unknown mode %d", int(st.plan.Mode))
	}
	if err != nil {
		res = make([]Result, len(values))
		refused := refusedAsSent(err)
		for k, v := range values {
			res[k] = Result{Input: v, Outcome: Failed, Message: err.Error(), Refused: refused}
		}
	}
	for k := range res {
		res[k].Batch = st.seg.batches + i + 1
	}
	return res, err
}
