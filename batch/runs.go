package batch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
)

// A recorded run is what the CLI and the UI send: a plan split into
// segments of at most SegmentSize entries, each with its own journal, and
// a header that says what the run is and how it stands. In the journal
// directory a run ID names
//
//	<id>.run.json       the header (RunInfo), rewritten as the run goes
//	<id>.s0001.jsonl …  one journal per segment, all made at the start
//
// so that a run can be resumed, shown and undone from its ID alone, by
// either face, days later. The journals are the truth; the header is a
// summary that listing reads without opening them. Its counts are exact
// once the run stops; for a run cut off by a crash they are those of its
// last rewrite (State stays Running), and Load reads the journals.

// SegmentSize is the most entries one segment of a recorded run holds. A
// run keeps a segment's results in memory while it sends it, so memory
// stays flat however large the input. It is a multiple of api.MaxBatch.
const SegmentSize = 1000 * api.MaxBatch

const (
	headerExt  = ".run.json"
	headerKind = "run"
)

// RunState says how a recorded run stands.
type RunState string

// The states of a recorded run.
const (
	// Running: the run is being sent, or was cut off (a crash, a closed
	// terminal) before it could say otherwise.
	Running RunState = "running"
	// Stopped: the run ended with entries failed or unsent (cancelled,
	// paused, refused); it can be resumed.
	Stopped RunState = "stopped"
	// Finished: every batch was answered.
	Finished RunState = "finished"
)

// RunInfo is the header of a recorded run.
type RunInfo struct {
	Kind    string `json:"kind"` // "run"
	Version int    `json:"v"`
	ID      string `json:"id"`
	Mode    Mode   `json:"mode"`
	// Target is the service's base URL (client.Client.BaseURL).
	Target string `json:"target"`
	// Reference is the ticket the run was for (its Shush-Reference).
	Reference string `json:"reference,omitempty"`
	// Source is the face that made the run: "cli" or "ui".
	Source string `json:"source,omitempty"`
	// Input names where the entries came from (a file name, "pasted").
	Input      string    `json:"input,omitempty"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Entries    int       `json:"entries"`
	Invalid    int       `json:"invalid,omitempty"`
	Duplicates int       `json:"duplicates,omitempty"`
	Segments   int       `json:"segments"`
	// Sum identifies the plan's values (SHA-256 of them, one a line), so
	// that --resume can tell whether a file is the run's without reading
	// the journals.
	Sum    string          `json:"values_sha256"`
	State  RunState        `json:"state"`
	Counts map[Outcome]int `json:"counts"`
	Note   string          `json:"note,omitempty"`
	UndoOf string          `json:"undo_of,omitempty"`
	dir    string
}

// Sent is how many entries have an answer (their batch was not failed or
// unsent), by the header's counts.
func (ri RunInfo) Sent() int {
	return ri.Entries - ri.Counts[Failed] - ri.Counts[Unsent]
}

// Resumable reports whether the run has entries left to send.
func (ri RunInfo) Resumable() bool { return ri.State != Finished }

// MarshalText writes a mode as its journal key.
func (m Mode) MarshalText() ([]byte, error) { return []byte(m.key()), nil }

// UnmarshalText reads a mode's journal key.
func (m *Mode) UnmarshalText(b []byte) error {
	v, ok := modeFromKey(string(b))
	if !ok {
		return fmt.Errorf("unknown mode %q", b)
	}
	*m = v
	return nil
}

// RunMeta is what a recorded run is about, beyond its plan.
type RunMeta struct {
	Reference string
	Source    string
	Input     string
	UndoOf    string
}

// Sum identifies a list of values (see RunInfo.Sum).
func Sum(values []string) string {
	h := sha256.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (ri *RunInfo) headerPath() string { return filepath.Join(ri.dir, ri.ID+headerExt) }

func (ri *RunInfo) segmentPath(i int) string {
	return filepath.Join(ri.dir, fmt.Sprintf("%s.s%04d%s", ri.ID, i+1, journalExt))
}

// save rewrites the header atomically (a new file renamed over the old).
// It is not synced: the journals are what survives a crash.
func (ri *RunInfo) save() error {
	ri.Updated = time.Now().UTC()
	b, err := json.Marshal(ri)
	if err != nil {
		return err
	}
	tmp := ri.headerPath() + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the run: %w", err)
	}
	if err := os.Rename(tmp, ri.headerPath()); err != nil {
		return fmt.Errorf("record the run: %w", err)
	}
	return nil
}

// segmentsOf splits a plan into segments of size entries; the first
// carries the invalid entries and duplicates, so that its journal tells
// the whole input.
func segmentsOf(plan Plan, size int) []Plan {
	var out []Plan
	for lo := 0; lo == 0 || lo < len(plan.Values); lo += size {
		seg := Plan{Mode: plan.Mode, Values: plan.Values[lo:min(lo+size, len(plan.Values))], Found: plan.Found, Restore: plan.Restore}
		if lo == 0 {
			seg.Invalid, seg.Duplicates = plan.Invalid, plan.Duplicates
		}
		out = append(out, seg)
	}
	return out
}

// Record writes a new recorded run of plan in the JournalDir (its header
// and the journals of all its segments) without sending anything, and
// returns its header; ResumeRun sends it. A plan without values is
// refused.
func (r *Runner) Record(plan Plan, meta RunMeta) (RunInfo, error) {
	if err := r.canRecord(); err != nil {
		return RunInfo{}, err
	}
	if len(plan.Values) == 0 {
		return RunInfo{}, errors.New("the run has no entries to send")
	}
	size := r.segmentSize()
	return r.record(planHead{mode: plan.Mode, entries: len(plan.Values), invalid: len(plan.Invalid),
		duplicates: plan.Duplicates, sum: Sum(plan.Values)}, size, meta, func(ri *RunInfo) error {
		for i, seg := range segmentsOf(plan, size) {
			j, err := createJournal(ri.segmentPath(i), &run{plan: seg, target: ri.Target})
			if err != nil {
				return err
			}
			if err := j.close(); err != nil {
				return err
			}
		}
		return nil
	})
}

// canRecord says why the Runner cannot record a run, if it cannot.
func (r *Runner) canRecord() error {
	if r.Client == nil {
		return errors.New("batch: Runner has no Client")
	}
	if r.JournalDir == "" {
		return errors.New("batch: Runner has no JournalDir to record the run in")
	}
	return nil
}

// segmentSize is the most entries a segment of a run holds.
func (r *Runner) segmentSize() int {
	if r.SegmentSize > 0 {
		return max(r.SegmentSize-r.SegmentSize%api.MaxBatch, api.MaxBatch)
	}
	return SegmentSize
}

// planHead is what a run's header says of its plan.
type planHead struct {
	mode                         Mode
	entries, invalid, duplicates int
	sum                          string
}

// record writes the header of a new run of head, then has journals write
// the journals of its segments of size entries.
func (r *Runner) record(head planHead, size int, meta RunMeta, journals func(ri *RunInfo) error) (RunInfo, error) {
	if err := r.canRecord(); err != nil {
		return RunInfo{}, err
	}
	dir, target := r.JournalDir, r.Client.BaseURL()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return RunInfo{}, fmt.Errorf("create the journal directory %s: %w", dir, err)
	}
	ri := RunInfo{Kind: headerKind, Version: 1, ID: newRunID(), Mode: head.mode, Target: target,
		Reference: meta.Reference, Source: meta.Source, Input: meta.Input, UndoOf: meta.UndoOf,
		Created: time.Now().UTC(), Entries: head.entries, Invalid: head.invalid,
		Duplicates: head.duplicates, Segments: (head.entries + size - 1) / size, Sum: head.sum, State: Running,
		Counts: map[Outcome]int{Unsent: head.entries}, dir: dir}
	if err := ri.save(); err != nil {
		return RunInfo{}, err
	}
	if err := journals(&ri); err != nil {
		return RunInfo{}, err
	}
	return ri, nil
}

// Send records plan as a new run in the Runner's JournalDir and sends it;
// see Resume for what it returns.
func (r *Runner) Send(ctx context.Context, plan Plan, meta RunMeta) (RunInfo, error) {
	ri, err := r.Record(plan, meta)
	if err != nil {
		return RunInfo{}, err
	}
	return r.resumeRun(ctx, ri.ID, plan.Found)
}

// ResumeRun sends what the recorded run id has left: its segments in
// order, each skipping the batches its journal records as done. Every
// segment's report, sent now or read back, goes to OnSegment. The header
// returned holds the run's counts; the error is ctx's after a cancel, a
// *PausedError, or what kept the run from going on. Nothing answered is
// sent twice.
func (r *Runner) ResumeRun(ctx context.Context, id string) (RunInfo, error) {
	return r.resumeRun(ctx, id, nil)
}

// resumeRun is ResumeRun with the plan's look-ups (Plan.Found), which a
// journal does not keep: a new run has them, a resumed one looks up again.
func (r *Runner) resumeRun(ctx context.Context, id string, found map[string]Found) (RunInfo, error) {
	if r.Client == nil {
		return RunInfo{}, errors.New("batch: Runner has no Client")
	}
	ri, err := FindRun(r.JournalDir, id)
	if err != nil {
		return RunInfo{}, err
	}
	if ri.Target != r.Client.BaseURL() {
		return ri, fmt.Errorf("run %s was sent to %s, not %s", ri.ID, client.RedactURL(ri.Target), client.RedactURL(r.Client.BaseURL()))
	}
	ri.State, ri.Note = Running, ""
	if err := ri.save(); err != nil {
		return ri, err
	}
	counts := map[Outcome]int{}
	place := segPlace{totalBatches: (ri.Entries + api.MaxBatch - 1) / api.MaxBatch, totalEntries: ri.Entries}
	var runErr error
	for i := range ri.Segments {
		path := ri.segmentPath(i)
		var rep Report
		js, err := readJournal(path)
		switch {
		case err != nil:
			runErr = err
		case js.finished || runErr != nil:
			// Done earlier, or not reached now: reported as the journal has it.
			js.run.seg = place
			rep = r.report(js.run)
			rep.Journal = path
		default:
			st, err := openJournal(path)
			if err != nil {
				runErr = err
				break
			}
			st.seg, st.plan.Found = place, found
			rep, runErr = r.execute(ctx, st)
		}
		if err != nil {
			break
		}
		for o, n := range rep.Count() {
			counts[o] += n
		}
		if r.OnSegment != nil {
			r.OnSegment(rep)
		}
		place.batches += rep.Batches
		place.entries += len(rep.Results)
	}
	if n := ri.Entries - place.entries; n > 0 {
		counts[Unsent] += n // segments whose journal could not be read
	}
	ri.Counts = counts
	ri.State = Finished
	if counts[Failed]+counts[Unsent] > 0 || runErr != nil {
		ri.State = Stopped
	}
	if runErr != nil {
		ri.Note = runErr.Error()
	}
	if err := ri.save(); err != nil && runErr == nil {
		runErr = err
	}
	return ri, runErr
}

// Runs lists the recorded runs in dir, newest first, reading only their
// headers. Journals of earlier versions (one file per run, no header) get
// a header the first time they are listed. A missing dir has none.
func Runs(dir string) ([]RunInfo, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the runs: %w", err)
	}
	var out []RunInfo
	for _, e := range names {
		name := e.Name()
		switch {
		case strings.HasSuffix(name, headerExt):
			ri, err := readHeader(filepath.Join(dir, name))
			if err == nil {
				out = append(out, ri)
			}
		case strings.HasSuffix(name, journalExt) && !isSegment(name):
			if ri, err := adopt(dir, name); err == nil {
				out = append(out, ri)
			}
		}
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].Created.Equal(out[b].Created) {
			return out[a].Created.After(out[b].Created)
		}
		return out[a].ID > out[b].ID
	})
	return out, nil
}

// isSegment reports whether a journal's file name is a segment's
// (<id>.s0001.jsonl).
func isSegment(name string) bool {
	base := strings.TrimSuffix(name, journalExt)
	dot := strings.LastIndexByte(base, '.')
	return dot > 0 && len(base)-dot == 6 && base[dot+1] == 's'
}

func readHeader(path string) (RunInfo, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return RunInfo{}, err
	}
	var ri RunInfo
	if err := json.Unmarshal(b, &ri); err != nil || ri.Kind != headerKind || ri.ID == "" {
		return RunInfo{}, fmt.Errorf("%s is not the header of a run", path)
	}
	ri.dir = filepath.Dir(path)
	return ri, nil
}

// adopt turns a journal of an earlier version (one run, one file) into a
// recorded run of one segment.
func adopt(dir, name string) (RunInfo, error) {
	path := filepath.Join(dir, name)
	js, err := readJournal(path)
	if err != nil {
		return RunInfo{}, err
	}
	ri := RunInfo{Kind: headerKind, Version: 1, ID: strings.TrimSuffix(name, journalExt), Mode: js.run.plan.Mode,
		Target: js.run.target, Source: "cli", Created: js.created, Entries: len(js.run.plan.Values),
		Invalid: len(js.run.plan.Invalid), Duplicates: js.run.plan.Duplicates, Segments: 1,
		Sum: Sum(js.run.plan.Values), dir: dir}
	ri.Counts = (&Runner{}).report(js.run).Count()
	ri.State = Finished
	if !js.finished {
		ri.State = Stopped
	}
	if err := os.Rename(path, ri.segmentPath(0)); err != nil {
		return RunInfo{}, err
	}
	return ri, ri.save()
}

// FindRun returns the header of the run whose ID is id or starts with it
// (as long as one run matches).
func FindRun(dir, id string) (RunInfo, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return RunInfo{}, errors.New("no run ID given")
	}
	if ri, err := readHeader(filepath.Join(dir, id+headerExt)); err == nil {
		return ri, nil
	}
	runs, err := Runs(dir)
	if err != nil {
		return RunInfo{}, err
	}
	var found []RunInfo
	for _, ri := range runs {
		if strings.HasPrefix(ri.ID, id) {
			found = append(found, ri)
		}
	}
	switch len(found) {
	case 0:
		return RunInfo{}, fmt.Errorf("no run %s in %s (shush runs list shows them)", api.Quote(id), dir)
	case 1:
		return found[0], nil
	}
	return RunInfo{}, fmt.Errorf("%d runs start with %s; give more of the ID", len(found), api.Quote(id))
}

// Load reads a recorded run's journals and gives each segment's report to
// each, in order; the header returned has the counts the journals give.
func Load(dir, id string, each func(Report) error) (RunInfo, error) {
	ri, err := FindRun(dir, id)
	if err != nil {
		return RunInfo{}, err
	}
	place := segPlace{totalBatches: (ri.Entries + api.MaxBatch - 1) / api.MaxBatch, totalEntries: ri.Entries}
	counts := map[Outcome]int{}
	var rn Runner
	for i := range ri.Segments {
		js, err := readJournal(ri.segmentPath(i))
		if err != nil {
			return ri, err
		}
		js.run.seg = place
		rep := rn.report(js.run)
		rep.Journal = ri.segmentPath(i)
		for o, n := range rep.Count() {
			counts[o] += n
		}
		if each != nil {
			if err := each(rep); err != nil {
				return ri, err
			}
		}
		place.batches += rep.Batches
	}
	ri.Counts = counts
	return ri, nil
}

// Interrupted returns the newest run against target that has entries left
// to send, when there is one.
func Interrupted(dir, target string) (RunInfo, bool, error) {
	runs, err := Runs(dir)
	if err != nil {
		return RunInfo{}, false, err
	}
	for _, ri := range runs {
		if ri.Target == target && ri.Resumable() {
			return ri, true, nil
		}
	}
	return RunInfo{}, false, nil
}

// Forget deletes a recorded run: its header and journals.
func Forget(dir, id string) error {
	ri, err := FindRun(dir, id)
	if err != nil {
		return err
	}
	for i := range ri.Segments {
		if err := os.Remove(ri.segmentPath(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Remove(ri.headerPath())
}

// Prune deletes the finished runs created before cutoff and returns how
// many it deleted. Runs with entries left to send are kept whatever their
// age: they are work not done.
func Prune(dir string, cutoff time.Time) (int, error) {
	runs, err := Runs(dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, ri := range runs {
		if ri.State != Finished || !ri.Created.Before(cutoff) {
			continue
		}
		if err := Forget(dir, ri.ID); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// Import records a run sent before runs were recorded (the UI's former
// history file) from its results, in plan order, so that it is listed
// and shown with the others. It is recorded as of created.
func Import(dir, target string, mode Mode, created time.Time, meta RunMeta, results []Result) (RunInfo, error) {
	if len(results) == 0 {
		return RunInfo{}, errors.New("the run has no entries")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return RunInfo{}, fmt.Errorf("create the journal directory %s: %w", dir, err)
	}
	plan := Plan{Mode: mode, Values: make([]string, len(results))}
	for i, x := range results {
		plan.Values[i] = x.Input
	}
	st := &run{plan: plan, target: target}
	ri := RunInfo{Kind: headerKind, Version: 1, ID: created.UTC().Format("20060102T150405.000Z") + "-imported" + fmt.Sprint(len(results)),
		Mode: mode, Target: target, Reference: meta.Reference, Source: meta.Source, Input: meta.Input,
		Created: created.UTC(), Entries: len(results), Segments: 1, Sum: Sum(plan.Values), dir: dir}
	if _, err := os.Stat(ri.headerPath()); err == nil {
		return readHeader(ri.headerPath()) // imported before
	}
	j, err := createJournal(ri.segmentPath(0), st)
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
	return ri, ri.save()
}
