package batch

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// EventKind says what an Event reports.
type EventKind int

// The kinds of events of a run.
const (
	// BatchStarted: a batch is about to be sent (or looked up first). A
	// cancel that comes while it still waits (rate limit, retry) stops it
	// before its request goes out: no further event, and it is Unsent.
	BatchStarted EventKind = iota
	// BatchDone: a batch finished; Results holds its entries.
	BatchDone
	// BatchFailed: a batch was refused or its retries ran out; Err says why.
	BatchFailed
	// Waiting: a batch waits Wait for the rate limit or before a retry.
	Waiting
	// Listing: a removal by address reads the list to find the addresses'
	// IDs before its batches start; Pages pages are read so far.
	Listing
)

// Event reports the progress of a run. Events are delivered one at a time
// (OnEvent is never called concurrently).
type Event struct {
	Kind    EventKind
	Batch   int // 1-based
	Batches int
	Size    int // entries in the batch
	// Done counts entries whose batch has finished (done or failed), Total
	// all entries of the plan.
	Done, Total int
	// Wait and Reason describe a Waiting event.
	Wait   time.Duration
	Reason client.WaitReason
	// Err is the failure of a BatchFailed event, or the error that caused a
	// retry on a Waiting event.
	Err     error
	Results []Result
	// Pages counts the list pages read, on a Listing event.
	Pages int
}

// Runner sends the batches of a plan.
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
//     one (GET /suppressions/{email}); Plan.Found, when given, is used as
//     is. With NoLookup (or on a service without the lookup endpoint) the
//     batch is removed by address instead: exact when the service names
//     the removed addresses or all or none of a batch was listed,
//     otherwise Unverified.
//
// Run sends a plan with one journal; Send records a run (a header and a
// journal per segment, see runs.go) that ResumeRun, Load and PlanUndo find
// again by its ID. The CLI and the UI use Send.
type Runner struct {
	Client *client.Client
	// Concurrency is how many batches are in flight at once (default 1).
	// AutoConcurrency lets the run choose from the service's first answer
	// (see ConcurrencyFor).
	Concurrency int
	// JournalDir is where each run keeps its journal; empty for none (a
	// run without a journal cannot be resumed).
	JournalDir string
	// NoLookup removes by address without looking addresses up first.
	NoLookup bool
	// OnEvent receives progress; it must return quickly.
	OnEvent func(Event)
	// SegmentSize is the most entries a segment of a recorded run holds
	// (default SegmentSize; rounded down to a multiple of api.MaxBatch).
	SegmentSize int
	// OnSegment receives the report of each segment of a recorded run
	// (Send, ResumeRun), in order, whether sent now or read back.
	OnSegment func(Report)
	// PauseAfter is how many batches in a row may fail for the service's
	// sake (no answer, 5xx) before the run pauses rather than spend its
	// retries on every batch left (default 3). A Retry-After longer than
	// the client waits out pauses the run at once.
	PauseAfter int
	// StopGrace is how long, after ctx is cancelled, a batch already on
	// the wire may take to be answered before it is cut off (default
	// 500ms), so that a stop takes effect within a second.
	StopGrace time.Duration

	// caps is what the run learned of the service (capUnknown, capNames,
	// capBare), read and set atomically by the batches in flight.
	caps int32
	// chosen is the concurrency an AutoConcurrency run chose after its
	// first answer (0 before), kept for its later segments.
	chosen atomic.Int32
}

// AutoConcurrency, as Runner.Concurrency, starts a run with one batch in
// flight and, once the service has answered the first, goes on with as
// many as ConcurrencyFor says of the rate limit the answer announced.
const AutoConcurrency = -1

// ConcurrencyFor is how many batches an AutoConcurrency run keeps in
// flight, given the rate limit the service announced: 4 when it allows
// more than 10 requests a second (the ratelimit-limit over the
// ratelimit-reset, at least a second), since then one batch at a time
// leaves the allowance unused and a service that commits concurrent
// batches together does them faster; 1 otherwise. The hosted service
// allows about 2 a second and shush serve 10 by default: one batch at a
// time keeps up with that at any ordinary round trip, keeps the input's
// order, and more would only wait for the limit. A service that announces
// no limit gets 1 too: nothing would pace more.
func ConcurrencyFor(rl api.RateLimit) int {
	if !rl.Known {
		return 1
	}
	limit := rl.Limit
	if limit <= 0 {
		limit = rl.Remaining + 1
	}
	perSecond := float64(limit) / max(rl.Reset.Seconds(), 1)
	if perSecond > 10 {
		return 4
	}
	return 1
}

// Report is the outcome of a run.
type Report struct {
	// Journal is the run's journal file ("" without one); Resume takes it.
	Journal string
	Target  string
	Plan    Plan
	// Results has one entry per value of the plan, in plan order.
	Results []Result
	Batches int
	// Base is the number of batches before this report's in the recorded
	// run it is a segment of (0 for a run of its own).
	Base int
	// Failed and Unsent list the 1-based numbers of batches that failed or
	// were not sent (counted across the whole recorded run); Retry sends
	// them again.
	Failed []int
	Unsent []int
}

// Complete reports whether every batch was sent successfully.
func (r Report) Complete() bool { return len(r.Failed) == 0 && len(r.Unsent) == 0 }

// Count returns how many entries have each outcome.
func (r Report) Count() map[Outcome]int {
	m := map[Outcome]int{}
	for _, res := range r.Results {
		m[res.Outcome]++
	}
	return m
}

// run is the state of one run: the plan, its batches and what is known.
type run struct {
	plan    Plan
	target  string
	batches [][]string
	results map[int][]Result // by 0-based batch index, settled or failed
	// all, when set, holds the results of every entry in plan order: the
	// batches sent now write theirs into it, and the report is it rather
	// than a copy (a segment's results are the most a run holds).
	all     []Result
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

// Run sends the plan's batches and returns one result per value. A failed
// batch does not stop the others. When ctx is cancelled the run stops after
// the batches in flight; unsent batches come back with outcome Unsent and
// the error is ctx's. With a JournalDir, every finished batch is recorded
// so that Resume can finish an interrupted run.
func (r *Runner) Run(ctx context.Context, plan Plan) (Report, error) {
	if r.Client == nil {
		return Report{}, errors.New("batch: Runner has no Client")
	}
	st := &run{plan: plan, target: r.Client.BaseURL(), batches: plan.Batches(), results: map[int][]Result{}}
	if r.JournalDir != "" && len(st.batches) > 0 {
		j, err := createJournal(filepath.Join(r.JournalDir, newRunID()+journalExt), st)
		if err != nil {
			return Report{}, err
		}
		st.journal = j
	}
	return r.execute(ctx, st)
}

// Resume finishes the run recorded in the journal at path: it skips the
// batches recorded as done and sends the rest (failed ones included), so
// that the run ends with exactly the intended list and nothing that
// succeeded is sent twice. The journal must be for the client's service.
func (r *Runner) Resume(ctx context.Context, path string) (Report, error) {
	if r.Client == nil {
		return Report{}, errors.New("batch: Runner has no Client")
	}
	st, err := openJournal(path)
	if err != nil {
		return Report{}, err
	}
	if st.target != r.Client.BaseURL() {
		_ = st.journal.close()
		return Report{}, fmt.Errorf("journal %s is for %s, not %s", path, client.RedactURL(st.target), client.RedactURL(r.Client.BaseURL()))
	}
	return r.execute(ctx, st)
}

// Retry sends again the failed and unsent batches of a report (the UI's
// "retry the failed"). With a journal it is Resume of the report's journal.
func (r *Runner) Retry(ctx context.Context, rep Report) (Report, error) {
	if rep.Journal != "" {
		return r.Resume(ctx, rep.Journal)
	}
	st := &run{plan: rep.Plan, target: rep.Target, batches: rep.Plan.Batches(), results: map[int][]Result{}}
	for i := range st.batches {
		start := i * api.MaxBatch
		res := rep.Results[start : start+len(st.batches[i])]
		if res[0].Settled() {
			st.results[i] = res
		}
	}
	return r.execute(ctx, st)
}

// execute sends what st has left: partition (the batches not yet
// settled), resolve (a removal by address finds its entries), pool (the
// batches over Concurrency workers, each journaled as it ends), report.
// Nothing settled is sent again; that is what makes Resume safe.
func (r *Runner) execute(ctx context.Context, st *run) (rep Report, err error) {
	defer func() {
		// The run says what it did only once the journal has it durably.
		if cerr := st.journal.close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	s := r.newSending(ctx, st)
	defer s.pause()
	pending := s.partition()
	rs, err := r.resolve(ctx, st, pending, s.emit, s.progress)
	if err != nil {
		return r.report(st), err
	}
	s.rs = rs
	st.all = make([]Result, len(st.plan.Values))
	workers := max(r.Concurrency, 1)
	if r.Concurrency == AutoConcurrency {
		workers = max(int(r.chosen.Load()), 1)
	}
	p := newPool(s.batch)
	if r.Concurrency == AutoConcurrency && r.chosen.Load() == 0 {
		s.widen = func() {
			n := ConcurrencyFor(r.Client.Allowance())
			r.chosen.Store(int32(n))
			p.grow(min(n, len(pending)) - 1)
		}
	}
	p.run(s.sendCtx, min(workers, max(len(pending), 1)), pending, s.stopped)
	return s.end(len(pending))
}

// sending is the state of one execute while its batches are in flight.
type sending struct {
	r       *Runner
	st      *run
	ctx     context.Context // the caller's: a cancel stops the run
	sendCtx context.Context // ctx, or earlier: a pause stops the run
	pause   context.CancelFunc
	rs      *resolver
	evMu    sync.Mutex // OnEvent is never called concurrently
	// widen, when set, is called once, after the first batch that went
	// out: an AutoConcurrency run then chooses how many go at once.
	widen     func()
	widenOnce sync.Once

	mu       sync.Mutex // guards what follows and orders the events
	done     int        // entries whose batch has ended
	jerr     error      // the first journal write that failed
	inARow   int        // batches failed in a row for the service's sake
	pausedBy error      // why the run paused; nil while it runs
}

func (r *Runner) newSending(ctx context.Context, st *run) *sending {
	// A pause stops what still waits to go out (pacing, retries), as a
	// cancel does; what is already on the wire finishes.
	sendCtx, pause := context.WithCancel(ctx)
	return &sending{r: r, st: st, ctx: ctx, sendCtx: sendCtx, pause: pause}
}

// emit hands an event to OnEvent with the run's totals.
func (s *sending) emit(e Event) {
	if s.r.OnEvent == nil {
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
	s.r.OnEvent(e)
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
	if s.widen != nil {
		s.widenOnce.Do(s.widen)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.judge(err)
	if all := s.st.all; all != nil {
		start := i * api.MaxBatch
		res = all[start : start+copy(all[start:], res)]
	}
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
// longer than the client waits, or PauseAfter failures in a row. Called
// with s.mu held.
func (s *sending) judge(err error) {
	pauseAfter := s.r.PauseAfter
	if pauseAfter <= 0 {
		pauseAfter = 3
	}
	switch {
	case err == nil:
		s.inARow = 0
	case s.pausedBy != nil:
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

// end writes the journal's end when everything is settled and says how
// the run ended.
func (s *sending) end(pending int) (Report, error) {
	rep := s.r.report(s.st)
	if s.jerr != nil {
		return rep, s.jerr
	}
	if rep.Complete() && pending > 0 {
		if err := s.st.journal.finish(); err != nil {
			return rep, err
		}
	}
	if err := s.ctx.Err(); err != nil && !rep.Complete() {
		return rep, err
	}
	if s.pausedBy != nil {
		return rep, &PausedError{Cause: s.pausedBy, InARow: s.inARow}
	}
	return rep, nil
}

// sendInFlight sends batch i. The request once sent is let finish after
// a cancel, so that its outcome is known, but only for StopGrace: then it
// is cut off, and the batch fails with ErrAbandoned (the service may or
// may not have applied it; a resume sends it again, which is safe, both
// endpoints being idempotent). sent is false when the batch was stopped
// while it still waited to go out (pacing, retries): it stays unsent.
func (r *Runner) sendInFlight(ctx, sendCtx context.Context, st *run, i int, rs *resolver, emit func(Event)) (res []Result, sent bool, err error) {
	b := st.batches[i]
	inFlight, cut := context.WithCancel(client.Detach(sendCtx))
	defer cut()
	var abandoned atomic.Bool
	stopCut := context.AfterFunc(ctx, func() {
		t := time.AfterFunc(r.stopGrace(), func() { abandoned.Store(true); cut() })
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
			res[k].Message = ErrAbandoned.Error()
		}
		return res, true, ErrAbandoned
	case err != nil && sendCtx.Err() != nil && errors.Is(err, sendCtx.Err()):
		return nil, false, err
	}
	return res, true, err
}

// resolve prepares a removal by address: it asks whether the service has
// look-ups and reads the list for the entries of the pending batches when
// that takes fewer requests (see scan). Other modes need nothing. The
// error is ctx's.
func (r *Runner) resolve(ctx context.Context, st *run, pending []int, emit func(Event), done func() int) (*resolver, error) {
	if st.plan.Mode != RemoveEmails || r.NoLookup || len(pending) == 0 {
		return nil, nil
	}
	ok, err := r.Client.Supports(ctx)
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

// pool hands items, in order, to workers that run work on them; it stops
// handing out once stop says so or ctx is done, and returns when every
// item handed out is done. The Runner's batches and Lookup share it.
func pool(ctx context.Context, workers int, items []int, stop func() bool, work func(int)) {
	newPool(work).run(ctx, workers, items, stop)
}

// workPool is a pool whose work may add workers while it runs.
type workPool struct {
	next chan int
	wg   sync.WaitGroup
	work func(int)
}

func newPool(work func(int)) *workPool {
	return &workPool{next: make(chan int), work: work}
}

// grow adds n workers; it is called by the work of a running pool (so that
// the pool cannot have ended meanwhile).
func (p *workPool) grow(n int) {
	for range max(n, 0) {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			for i := range p.next {
				p.work(i)
			}
		}()
	}
}

func (p *workPool) run(ctx context.Context, workers int, items []int, stop func() bool) {
	p.grow(max(workers, 1))
feed:
	for _, i := range items {
		if stop() {
			break
		}
		select {
		case p.next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(p.next)
	p.wg.Wait()
}

// ErrAbandoned is the failure of a batch whose request was cut off by a
// stop while on the wire: the service may or may not have applied it.
var ErrAbandoned = errors.New("stopped while its request was on the wire: the service may or may not have applied it; resuming sends it again")

func (r *Runner) stopGrace() time.Duration {
	if r.StopGrace > 0 {
		return r.StopGrace
	}
	return 500 * time.Millisecond
}

// PausedError ends a run that stopped sending because the service was not
// taking its batches: several in a row failed without an answer or with a
// 5xx, or the service asked to wait longer than the client waits. The
// batches not sent are Unsent; a Resume (or Retry) sends them when the
// service is back.
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

func (r *Runner) report(st *run) Report {
	rep := Report{Target: st.target, Plan: st.plan, Batches: len(st.batches), Results: st.all}
	if rep.Results == nil {
		rep.Results = make([]Result, len(st.plan.Values))
	}
	if st.journal != nil {
		rep.Journal = st.journal.path
	}
	rep.Base = st.seg.batches
	for i, b := range st.batches {
		n := st.seg.batches + i + 1
		win := rep.Results[i*api.MaxBatch : i*api.MaxBatch+len(b)]
		res, ok := st.results[i]
		switch {
		case !ok:
			rep.Unsent = append(rep.Unsent, n)
			for k, v := range b {
				win[k] = Result{Input: v, Outcome: Unsent, Batch: n}
			}
			continue
		case !res[0].Settled():
			rep.Failed = append(rep.Failed, n)
		}
		if &res[0] != &win[0] {
			copy(win, res)
		}
	}
	return rep
}

// send sends batch i and returns one result per value; on failure every
// result is Failed with the error's message.
func (r *Runner) send(ctx context.Context, st *run, i int, rs *resolver) ([]Result, error) {
	values := st.batches[i]
	var (
		res []Result
		err error
	)
	switch st.plan.Mode {
	case Add:
		res, err = r.add(ctx, values, st.plan.Restore)
	case RemoveIDs:
		res, err = r.removeIDs(ctx, values, st.plan.Found)
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
		for k, v := range values {
			res[k] = Result{Input: v, Outcome: Failed, Message: err.Error()}
		}
	}
	for k := range res {
		res[k].Batch = st.seg.batches + i + 1
	}
	return res, err
}

// removeIDs removes by ID. found, when the plan has it, is a look-up of
// the IDs (the UI's preview): it names each removed entry's address and
// origin, which the service's answer need not.
func (r *Runner) removeIDs(ctx context.Context, values []string, found map[string]Found) ([]Result, error) {
	data, err := r.Client.BatchRemoveIDs(ctx, values)
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
			}
		}
	}
	return res, nil
}

// removeEmails removes by address without lookups.
func (r *Runner) removeEmails(ctx context.Context, values []string) ([]Result, error) {
	data, err := r.Client.BatchRemoveEmails(ctx, values)
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
// Plan.Found, else with a lookup), then removes the listed ones by ID.
func (r *Runner) removeLookedUp(ctx context.Context, values []string, rs *resolver) ([]Result, error) {
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
		got, err := Lookup(ctx, r.Client, ask, r.lookupConcurrency())
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
		data, err := r.Client.BatchRemoveIDs(ctx, ids)
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
	// Plan.Found.
	known map[string]Found
	// complete says the scan read the whole list, so an address that is not
	// in known is not on the list.
	complete bool
}

// scan reads the list (GET /suppressions, 100 per page) to find the IDs of
// the wanted addresses, when that takes fewer requests than looking each
// up: it is tried only for at least two batches' worth of addresses and
// gives up after half as many pages as addresses, so in the worst case it
// adds half a lookup per address, and on a list of up to 50 times the
// addresses it replaces all of them. It stops early once every address is
// found. A failed scan is no error: the lookups remain.
func (r *Runner) scan(ctx context.Context, rs *resolver, want []string, onPage func(pages int)) error {
	if len(want) < 2*api.MaxBatch {
		return nil
	}
	wanted := make(map[string]bool, len(want))
	for _, v := range want {
		wanted[v] = true
	}
	budget := len(want) / 2
	found := 0
	p := client.ListParams{Limit: api.MaxBatch}
	for pages := 1; pages <= budget; pages++ {
		page, err := r.Client.List(ctx, p)
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
func (r *Runner) lookupConcurrency() int { return max(r.Concurrency, int(r.chosen.Load()), 4) }
