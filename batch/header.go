package batch

import (
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
	"github.com/shushlist/shush/internal/atomicfile"
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
// last rewrite (State stays Running), and Runs.Get reads the journals.

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
	// Stopped: the run ended with entries failed or unsent (cancelled, or
	// a batch failed); it can be resumed.
	Stopped RunState = "stopped"
	// Paused: the service stopped taking the run's batches (no answer,
	// 5xx, a long Retry-After); it can be resumed once the service is back.
	Paused RunState = "paused"
	// Refused: the service refused the key (401, 403). It is not resumed:
	// the same key would be refused again.
	Refused RunState = "refused"
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
	// Profile and KeyPrint name the profile and the key (a fingerprint,
	// never the key) the run was started with: only they are offered to
	// resume it (Runs.Interrupted).
	Profile  string `json:"profile,omitempty"`
	KeyPrint string `json:"key_fingerprint,omitempty"`
	// Input names where the entries came from (a file name, "pasted").
	Input      string    `json:"input,omitempty"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Entries    int       `json:"entries"`
	Invalid    int       `json:"invalid,omitempty"`
	LeftOut    int       `json:"left_out,omitempty"`
	Duplicates int       `json:"duplicates,omitempty"`
	Segments   int       `json:"segments"`
	// Sum identifies the plan's values (SHA-256 of them, one a line), so
	// that --resume can tell whether a file is the run's without reading
	// the journals.
	Sum    string          `json:"values_sha256"`
	State  RunState        `json:"state"`
	Counts map[Outcome]int `json:"counts"`
	// RefusedAsSent counts the failed entries whose batch the service
	// refused for what it held (Result.Refused): sent again as they are,
	// they would be refused again, so they are not what a resume sends.
	RefusedAsSent int    `json:"refused_as_sent,omitempty"`
	Note          string `json:"note,omitempty"`
	UndoOf        string `json:"undo_of,omitempty"`
	// EntryNote and EntryExpiresAt are the note and the expiry an
	// addition gives the entries it sends (RunMeta).
	EntryNote      string    `json:"entry_note,omitempty"`
	EntryExpiresAt time.Time `json:"entry_expires_at,omitzero"`
	// KeepIDs says the addition sends each entry's own ID and creation
	// time where its input gives them (RunMeta).
	KeepIDs bool `json:"keep_ids,omitempty"`
	dir     string
}

// Sent is how many entries have an answer (their batch was not failed or
// unsent), by the header's counts.
func (ri RunInfo) Sent() int {
	return ri.Entries - ri.Counts[Failed] - ri.Counts[Unsent]
}

// Resumable reports whether the run has entries left to send with a key
// the service takes, other than those it refused as they were sent. A run
// still marked running was cut off, and its header's counts may be older
// than its journals: it is resumable.
func (ri RunInfo) Resumable() bool {
	switch ri.State {
	case Finished, Refused:
		return false
	case Running:
		return true
	}
	return ri.Counts[Failed]-ri.RefusedAsSent+ri.Counts[Unsent] > 0
}

// Batches is the number of requests the whole run takes.
func (ri RunInfo) Batches() int { return BatchCount(ri.Entries) }

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
	// Reference is the ticket (sent as Shush-Reference).
	Reference string
	// Input names where the entries came from: a file name, "pasted".
	Input string
	// Note and ExpiresAt, for an addition, are the note and the expiry
	// (zero: never) of every entry it sends (our service's extension:
	// another service refuses them). A re-added entry keeps its note and
	// a later expiry.
	Note      string
	ExpiresAt time.Time
	// KeepIDs, for an addition, sends each entry's own ID and creation
	// time where its input gives them (an export read back): only a key
	// with the import right may, and the service keeps an ID only where
	// no other entry has it.
	KeepIDs bool
}

// sumOf identifies a list of values (see RunInfo.Sum).
func sumOf(values []string) string {
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

// save rewrites the header whole and durably (internal/atomicfile): after
// a crash the run is still listed, with the header of its last save (the
// journals have what was sent since).
func (ri *RunInfo) save() error {
	ri.Updated = time.Now().UTC()
	b, err := json.Marshal(ri)
	if err != nil {
		return err
	}
	if err := atomicfile.WriteFile(ri.headerPath(), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("record the run: %w", err)
	}
	return nil
}

// listRuns lists the recorded runs in dir, newest first, reading only
// their headers. Journals of earlier versions (one file per run, no
// header) get a header the first time they are listed. A missing dir has
// none.
func listRuns(dir string) ([]RunInfo, error) {
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
		Sum: sumOf(js.run.plan.Values), dir: dir}
	rep := js.run.report()
	ri.Counts, ri.RefusedAsSent = rep.Count(), countRefused(rep.Results)
	ri.State = Finished
	if !js.finished {
		ri.State = Stopped
	}
	if err := atomicfile.Rename(path, ri.segmentPath(0)); err != nil {
		return RunInfo{}, err
	}
	return ri, ri.save()
}

// findRun returns the header of the run whose ID is id or starts with it
// (as long as one run matches).
func findRun(dir, id string) (RunInfo, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return RunInfo{}, errors.New("no run ID given")
	}
	if ri, err := readHeader(filepath.Join(dir, id+headerExt)); err == nil {
		return ri, nil
	}
	runs, err := listRuns(dir)
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
// forget deletes a recorded run: its header and journals.
func forget(ri RunInfo) error {
	for i := range ri.Segments {
		if err := os.Remove(ri.segmentPath(i)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return os.Remove(ri.headerPath())
}
