package batch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// Runs is the run service: the runs of one journal directory against one
// service. Both faces (the CLI's batch and runs commands, the UI's Send,
// Results and History screens) start, resume, read, list, undo and prune
// their runs through it, and neither builds a run or reads a journal
// itself. Every run is a resume: Start records the plan, then sends it as
// Resume would, so a new run and an interrupted one take the same path.
type Runs struct {
	// Dir is the journal directory. Empty sends runs without recording
	// them: they cannot be resumed, read or undone later.
	Dir    string
	Client *client.Client
	// Source names the face that records the runs: "cli" or "ui".
	Source string
	// Profile and KeyPrint (config.KeyPrint, never the key) name who
	// sends: runs record them, and only their own runs are offered to
	// resume (Interrupted, Mine).
	Profile  string
	KeyPrint string
	// Concurrency is how many batches are in flight at once (default 1),
	// or AutoConcurrency.
	Concurrency int
	// SegmentSize is the most entries a segment of a run holds (default
	// SegmentSize; rounded down to a multiple of api.MaxBatch).
	SegmentSize int
	// StateDir is what an erasure run rewrites once it has run (see
	// EraseLocal): the state directory that holds Dir; default Dir.
	StateDir string
}

// eraseDir is the directory an erasure run rewrites.
func (rs *Runs) eraseDir() string {
	if rs.StateDir != "" {
		return rs.StateDir
	}
	return rs.Dir
}

// recordable is what a new run sends: an *Input, or a plan that shush
// makes itself (an undo, a sync step).
type recordable interface {
	// head is what the run's header says of the plan.
	head() planHead
	// record writes the journal of each of ri's segments of size entries.
	record(ri *RunInfo, size int) error
	// whole is the plan as one plan, for a run sent without a record.
	whole() plan
	// unsent is the plan to report unsent when the run cannot be
	// recorded, if it has one.
	unsent() (plan, bool)
	// found is the plan's fresh look-ups (plan.Found), if any.
	found() map[string]Found
}

// planHead is what a run's header says of its plan.
type planHead struct {
	mode                                  Mode
	entries, invalid, leftOut, duplicates int
	sum                                   string
}

func (p plan) head() planHead {
	return planHead{mode: p.Mode, entries: len(p.Values), invalid: len(p.Invalid), leftOut: len(p.LeftOut),
		duplicates: p.Duplicates, sum: sumOf(p.Values)}
}

func (p plan) whole() plan { return p }

func (p plan) unsent() (plan, bool) { return p, true }

func (p plan) found() map[string]Found { return p.Found }

// record writes the plan's segments; the first carries the invalid
// entries, those left out and the duplicates, so that its journal tells
// the whole input.
func (p plan) record(ri *RunInfo, size int) error {
	for i := range ri.Segments {
		lo := i * size
		seg := plan{Mode: p.Mode, Values: p.Values[lo:min(lo+size, len(p.Values))], Restore: p.Restore}
		if i == 0 {
			seg.Invalid, seg.LeftOut, seg.Duplicates = p.Invalid, p.LeftOut, p.Duplicates
		}
		j, err := createJournal(ri.segmentPath(i), newRun(seg, ri.Target))
		if err != nil {
			return err
		}
		if err := j.close(); err != nil {
			return err
		}
	}
	return nil
}

// Start records in as a new run and sends it (see Resume for what it
// returns). A run that cannot be recorded sends nothing and still says so
// in full: its header, without an ID, counts every entry unsent and holds
// why, and on.Segment gets the entries of an input made by NewInput as
// unsent. With no Dir the run is sent without a record.
func (rs *Runs) Start(ctx context.Context, in *Input, meta RunMeta, on Observer) (RunInfo, error) {
	return rs.start(ctx, in, meta, "", on)
}

// Undo sends the undo u (see PlanUndo) as a new run, for the ticket of
// the run it undoes.
func (rs *Runs) Undo(ctx context.Context, u Undo, on Observer) (RunInfo, error) {
	meta := RunMeta{Reference: u.Of.Reference, Input: "undo of " + u.Of.ID}
	return rs.start(ctx, plan{Mode: u.Mode, Values: u.Values, Restore: u.Restore}, meta, u.Of.ID, on)
}

func (rs *Runs) start(ctx context.Context, src recordable, meta RunMeta, undoOf string, on Observer) (RunInfo, error) {
	if rs.Client == nil {
		return RunInfo{}, errors.New("batch: Runs has no Client")
	}
	if rs.Dir == "" {
		return rs.unrecorded(ctx, src.whole(), meta, undoOf, on)
	}
	ri, err := rs.record(src, meta, undoOf)
	if err != nil {
		ri.State, ri.Note = Stopped, err.Error()
		if p, ok := src.unsent(); ok {
			on.segment(newRun(p, ri.Target).report())
		}
		return ri, err
	}
	return rs.resume(ctx, ri.ID, src.found(), false, on)
}

// header is the header of a new run of head, not yet saved.
func (rs *Runs) header(head planHead, meta RunMeta, undoOf string) RunInfo {
	return RunInfo{Kind: headerKind, Version: 1, Mode: head.mode, Target: client.JournalTarget(rs.Client.BaseURL()),
		Reference: meta.Reference, Source: rs.Source, Profile: rs.Profile, KeyPrint: rs.KeyPrint, Input: meta.Input, UndoOf: undoOf,
		EntryNote: meta.Note, EntryExpiresAt: meta.ExpiresAt, KeepIDs: meta.KeepIDs,
		Created: time.Now().UTC(), Entries: head.entries, Invalid: head.invalid, LeftOut: head.leftOut, Duplicates: head.duplicates,
		Sum: head.sum, State: Running, Counts: map[Outcome]int{Unsent: head.entries}, dir: rs.Dir}
}

// record writes the header of a new run of src, then the journals of its
// segments; nothing is sent. A plan without values is refused. On failure
// the header returned has no ID.
func (rs *Runs) record(src recordable, meta RunMeta, undoOf string) (RunInfo, error) {
	head := src.head()
	ri := rs.header(head, meta, undoOf)
	if head.entries == 0 {
		return ri, errors.New("the run has no entries to send")
	}
	if err := os.MkdirAll(rs.Dir, 0o700); err != nil {
		return ri, fmt.Errorf("create the journal directory %s: %w", rs.Dir, err)
	}
	size := rs.segmentSize()
	ri.ID, ri.Segments = newRunID(), (head.entries+size-1)/size
	if err := ri.save(); err != nil {
		ri.ID = ""
		return ri, err
	}
	if err := src.record(&ri, size); err != nil {
		_ = forget(ri)
		ri.ID = ""
		return ri, err
	}
	return ri, nil
}

// unrecorded sends plan without a journal.
func (rs *Runs) unrecorded(ctx context.Context, p plan, meta RunMeta, undoOf string, on Observer) (RunInfo, error) {
	ri := rs.header(p.head(), meta, undoOf)
	ri.Segments = 1
	on.started(ri)
	st := newRun(p, ri.Target)
	out := newSegmentOut(on, st)
	err := rs.runner(on, ri).execute(client.WithReference(ctx, ri.Reference), st, out.take)
	out.close()
	ri.Counts, ri.RefusedAsSent = out.counts, out.refused
	ri.finish(err)
	return ri, err
}

// segmentSize is the most entries a segment of a run holds.
func (rs *Runs) segmentSize() int {
	if n := rs.SegmentSize; n > 0 {
		return max(n-n%api.MaxBatch, api.MaxBatch)
	}
	return SegmentSize
}

// runner is the machinery of one run, ri.
func (rs *Runs) runner(on Observer, ri RunInfo) *runner {
	key := ri.ID
	if key == "" {
		// An unrecorded run cannot resume; its key need only differ from
		// other runs'.
		key = "u" + ri.Created.UTC().Format("20060102T150405.000000000Z")
	}
	return &runner{client: rs.Client, concurrency: rs.Concurrency, onEvent: on.Event,
		keep: keep{note: ri.EntryNote, expiresAt: ri.EntryExpiresAt, ids: ri.KeepIDs}, runKey: key}
}

// dir is the journal directory, or why there is none.
func (rs *Runs) dir() (string, error) {
	if rs.Dir == "" {
		return "", errors.New("runs are not recorded here (no state directory)")
	}
	return rs.Dir, nil
}

// Resume sends what the recorded run id (or a unique beginning of it) has
// left: its segments in order, each skipping the batches its journal
// records as done. Every segment's report, sent now or read back, goes to
// on.Segment. The header returned holds the run's counts; the error is
// ctx's after a cancel, a *PausedError, or what kept the run from going
// on. Nothing answered is sent twice. The run must be this service's.
func (rs *Runs) Resume(ctx context.Context, id string, on Observer) (RunInfo, error) {
	return rs.resume(ctx, id, nil, true, on)
}

// resume is Resume with the plan's look-ups (Input.Found), which a journal
// does not keep: a new run has them, a resumed one looks up again.
func (rs *Runs) resume(ctx context.Context, id string, found map[string]Found, again bool, on Observer) (RunInfo, error) {
	ri, err := rs.reopen(id)
	if err != nil {
		return ri, err
	}
	// Every request of the run carries its ticket (Shush-Reference), and
	// the service keeps it in its trail.
	ctx = client.WithReference(ctx, ri.Reference)
	on.started(ri)
	r := rs.runner(on, ri)
	r.resumed = again
	t, runErr := r.segments(ctx, ri, found, on)
	if n := ri.Entries - t.entries; n > 0 {
		t.counts[Unsent] += n // segments whose journal could not be read
	}
	ri.Counts, ri.RefusedAsSent = t.counts, t.refused
	if erased := t.erased; len(erased) > 0 {
		// The run's own journal, and every other record here that names
		// an erased address, name its hash from now on.
		if _, err := EraseLocal(rs.eraseDir(), erased); err != nil && runErr == nil {
			runErr = fmt.Errorf("the service erased %d addresses, but rewriting this computer's records failed: %w", len(erased), err)
		}
	}
	ri.finish(runErr)
	if err := ri.save(); err != nil && runErr == nil {
		runErr = err
	}
	return ri, runErr
}

// reopen finds the recorded run id, checks that it is this service's and
// marks it running.
func (rs *Runs) reopen(id string) (RunInfo, error) {
	if rs.Client == nil {
		return RunInfo{}, errors.New("batch: Runs has no Client")
	}
	dir, err := rs.dir()
	if err != nil {
		return RunInfo{}, err
	}
	ri, err := findRun(dir, id)
	if err != nil {
		return RunInfo{}, err
	}
	if !client.SameTarget(ri.Target, rs.Client.BaseURL()) {
		return ri, fmt.Errorf("run %s was sent to %s, not %s", ri.ID, client.TargetName(ri.Target), client.TargetName(rs.Client.BaseURL()))
	}
	ri.State, ri.Note = Running, ""
	return ri, ri.save()
}

// segmentTotals is what a run's segments reported: the counts of every
// outcome, the failed entries refused as sent, the addresses the service
// erased, and how many entries the reports covered.
type segmentTotals struct {
	counts           map[Outcome]int
	refused, entries int
	erased           []Erasure
}

// segments sends what each of the run's segments has left, in order, and
// reports each to on, with their totals. A segment after one that failed
// is reported as its journal has it.
func (r *runner) segments(ctx context.Context, ri RunInfo, found map[string]Found, on Observer) (segmentTotals, error) {
	t := segmentTotals{counts: map[Outcome]int{}}
	place := segPlace{totalBatches: ri.Batches(), totalEntries: ri.Entries}
	var runErr error
	for i := range ri.Segments {
		js, err := readJournal(ri.segmentPath(i))
		if err != nil {
			runErr = err
			break
		}
		st := js.run
		st.seg = place
		out := newSegmentOut(on, st)
		switch {
		case js.finished || runErr != nil:
			// Done earlier, or not reached now: reported as the journal has it.
			st.handAll(out.take)
		default:
			if _, err := openJournal(ri.segmentPath(i), js); err != nil {
				runErr = err
				st.handAll(out.take)
				break
			}
			st.plan.Found = found
			runErr = r.execute(ctx, st, out.take)
		}
		out.close()
		for o, n := range out.counts {
			t.counts[o] += n
		}
		t.refused += out.refused
		t.erased = append(t.erased, out.erased...)
		place.batches += out.batches
		place.entries += out.entries
	}
	t.entries = place.entries
	return t, runErr
}

// finish sets the state a run ends in: Finished when every entry has an
// answer, Refused when the service refused the key, Paused when it
// stopped taking batches, else Stopped; with why.
func (ri *RunInfo) finish(err error) {
	var paused *PausedError
	var refused *refusedError
	switch {
	case errors.As(err, &refused):
		ri.State = Refused
	case errors.As(err, &paused):
		ri.State = Paused
	case ri.Counts[Failed]+ri.Counts[Unsent] > 0 || err != nil:
		ri.State = Stopped
	default:
		ri.State = Finished
	}
	if err != nil {
		ri.Note = err.Error()
	}
}

// List lists the recorded runs, newest first, reading only their headers
// (the counts of a run cut off by a crash are those of its last rewrite;
// Get reads its journals). No Dir has none.
func (rs *Runs) List() ([]RunInfo, error) {
	if rs.Dir == "" {
		return nil, nil
	}
	return listRuns(rs.Dir)
}

// Get returns the header of the run whose ID is id or starts with it (as
// long as one run matches), with exact counts: a run cut off by a crash
// has a header older than its journals, and they are read.
func (rs *Runs) Get(id string) (RunInfo, error) {
	dir, err := rs.dir()
	if err != nil {
		return RunInfo{}, err
	}
	ri, err := findRun(dir, id)
	if err != nil || ri.State != Running {
		return ri, err
	}
	if exact, err := rs.Read(ri.ID, nil); err == nil {
		return exact, nil
	}
	return ri, nil
}

// Read reads a recorded run's journals and gives each segment's report to
// each (when set), in order; the header returned has the counts the
// journals give. An error from each stops the reading and is returned.
func (rs *Runs) Read(id string, each func(Report) error) (RunInfo, error) {
	dir, err := rs.dir()
	if err != nil {
		return RunInfo{}, err
	}
	ri, err := findRun(dir, id)
	if err != nil {
		return RunInfo{}, err
	}
	place := segPlace{totalBatches: ri.Batches(), totalEntries: ri.Entries}
	counts, refused := map[Outcome]int{}, 0
	for i := range ri.Segments {
		js, err := readJournal(ri.segmentPath(i))
		if err != nil {
			return ri, err
		}
		js.run.seg = place
		rep := js.run.report()
		for o, n := range rep.Count() {
			counts[o] += n
		}
		refused += countRefused(rep.Results)
		if each != nil {
			if err := each(rep); err != nil {
				return ri, err
			}
		}
		place.batches += rep.Batches
	}
	ri.Counts, ri.RefusedAsSent = counts, refused
	return ri, nil
}

// Mine reports whether run ri was started against this service with this
// profile and key: only then is it offered to resume without being named
// (a run of another key could be resumed with one the service refuses,
// or by someone else). A run recorded before runs named their key is
// nobody's; it is resumed by its ID.
func (rs *Runs) Mine(ri RunInfo) bool {
	return rs.Client != nil && client.SameTarget(ri.Target, rs.Client.BaseURL()) && ri.Profile == rs.Profile && ri.KeyPrint == rs.KeyPrint
}

// Interrupted returns the newest of this profile and key's runs against
// this service (Mine) that has entries left to send, when there is one,
// with exact counts (Get).
func (rs *Runs) Interrupted() (RunInfo, bool, error) {
	runs, err := rs.List()
	if err != nil || rs.Client == nil {
		return RunInfo{}, false, err
	}
	for _, ri := range runs {
		if rs.Mine(ri) && ri.Resumable() {
			if exact, err := rs.Get(ri.ID); err == nil {
				ri = exact
			}
			return ri, true, nil
		}
	}
	return RunInfo{}, false, nil
}

// Prune deletes the finished runs created before cutoff and returns how
// many it deleted. Runs with entries left to send are kept whatever their
// age: they are work not done.
func (rs *Runs) Prune(cutoff time.Time) (int, error) {
	runs, err := rs.List()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ri := range runs {
		if ri.State != Finished || !ri.Created.Before(cutoff) {
			continue
		}
		if err := forget(ri); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Import records a run sent before runs were recorded (the UI's former
// history file) from its results, in plan order, so that it is listed
// and shown with the others. It is recorded as of created, against
// target.
func (rs *Runs) Import(target string, mode Mode, created time.Time, meta RunMeta, results []Result) (RunInfo, error) {
	dir, err := rs.dir()
	if err != nil {
		return RunInfo{}, err
	}
	if len(results) == 0 {
		return RunInfo{}, errors.New("the run has no entries")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return RunInfo{}, fmt.Errorf("create the journal directory %s: %w", dir, err)
	}
	plan := plan{Mode: mode, Values: make([]string, len(results))}
	for i, x := range results {
		plan.Values[i] = x.Input
	}
	ri := RunInfo{Kind: headerKind, Version: 1, ID: created.UTC().Format("20060102T150405.000Z") + "-imported" + fmt.Sprint(len(results)),
		Mode: mode, Target: client.JournalTarget(target), Reference: meta.Reference, Source: rs.Source, Input: meta.Input,
		Created: created.UTC(), Entries: len(results), Segments: 1, Sum: sumOf(plan.Values), dir: dir}
	if _, err := os.Stat(ri.headerPath()); err == nil {
		return readHeader(ri.headerPath()) // imported before
	}
	j, err := createJournal(ri.segmentPath(0), newRun(plan, target))
	if err != nil {
		return RunInfo{}, err
	}
	defer func() { _ = j.close() }()
	complete := true
	for i := 0; i < len(results); i += api.MaxBatch {
		res := results[i:min(i+api.MaxBatch, len(results))]
		var failure error
		if !res[0].Settled() {
			complete = false
			if res[0].Outcome == Unsent {
				continue
			}
			failure = errors.New(res[0].Message)
		}
		if err := j.batch(i/api.MaxBatch, res, failure); err != nil {
			return RunInfo{}, err
		}
	}
	ri.State = Stopped
	if complete {
		ri.State = Finished
		if err := j.finish(); err != nil {
			return RunInfo{}, err
		}
	}
	ri.Counts = map[Outcome]int{}
	for _, x := range results {
		ri.Counts[x.Outcome]++
	}
	ri.RefusedAsSent = countRefused(results)
	return ri, ri.save()
}
