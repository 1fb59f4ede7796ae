package cli

import (
	"crypto/rand"
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
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
)

// segmentSize is how many entries one run of the batch engine gets. A run
// keeps every entry's result in memory until it ends, so a larger input is
// sent as consecutive runs of this size (each with its own journal), and
// memory stays flat however large the input. It is a multiple of
// api.MaxBatch, so batch numbers run on across segments.
const segmentSize = 1000 * api.MaxBatch

// segmentBatches is the number of batches of a full segment.
const segmentBatches = segmentSize / api.MaxBatch

// segments splits a plan into runs of at most segmentSize values. The first
// carries the plan's invalid entries and duplicates, so that its journal
// tells the whole story of the input.
func segments(plan batch.Plan) []batch.Plan {
	var out []batch.Plan
	for lo := 0; lo == 0 || lo < len(plan.Values); lo += segmentSize {
		seg := batch.Plan{Mode: plan.Mode, Values: plan.Values[lo:min(lo+segmentSize, len(plan.Values))]}
		if lo == 0 {
			seg.Invalid, seg.Duplicates = plan.Invalid, plan.Duplicates
		}
		out = append(out, seg)
	}
	return out
}

// job is one segment to send: a new run of plan, or the resumption of the
// run in journal.
type job struct {
	plan    batch.Plan
	journal string
}

// manifest records a run of several segments, so that --resume knows which
// segment journals belong to it: those of its segments made after it.
// It sits beside the journals as <id>.segments.json.
type manifest struct {
	Kind     string    `json:"kind"` // "segments"
	Version  int       `json:"v"`
	Target   string    `json:"target"`
	Mode     string    `json:"mode"`
	Created  time.Time `json:"created"`
	Entries  int       `json:"entries"`
	Segment  int       `json:"segment_size"`
	Sum      string    `json:"values_sha256"`
	Finished bool      `json:"finished"`

	path string
}

const manifestExt = ".segments.json"

// valuesSum identifies a plan's values without keeping them.
func valuesSum(values []string) string {
	h := sha256.New()
	for _, v := range values {
		h.Write([]byte(v))
		h.Write([]byte{'\n'})
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newManifest(dir, target string, plan batch.Plan) (*manifest, error) {
	var id [4]byte
	_, _ = rand.Read(id[:])
	now := time.Now().UTC()
	m := &manifest{Kind: "segments", Version: 1, Target: target, Mode: plan.Mode.String(), Created: now,
		Entries: len(plan.Values), Segment: segmentSize, Sum: valuesSum(plan.Values),
		path: filepath.Join(dir, now.Format("20060102T150405.000Z")+"-"+hex.EncodeToString(id[:])+manifestExt)}
	return m, m.save()
}

func (m *manifest) save() error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	return config.WritePrivate(m.path, append(b, '\n'))
}

// manifests lists the run manifests in dir, newest first; a missing dir
// has none, and unreadable files are skipped.
func manifests(dir string) ([]*manifest, error) {
	names, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the journals: %w", err)
	}
	var out []*manifest
	for _, e := range names {
		if e.IsDir() || !strings.HasSuffix(e.Name(), manifestExt) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		b, err := os.ReadFile(path)
		m := &manifest{path: path}
		if err != nil || json.Unmarshal(b, m) != nil || m.Kind != "segments" {
			continue
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created.After(out[j].Created) })
	return out, nil
}

// planJobs decides what a run sends: every segment afresh, or with
// --resume the interrupted run of this file. A run of more than one
// segment gets a manifest (returned, to be marked finished at the end).
func (a *app) planJobs(conn *connection, plan batch.Plan, f batchFlags) ([]job, *manifest, error) {
	segs := segments(plan)
	jobs := make([]job, len(segs))
	for i, s := range segs {
		jobs[i].plan = s
	}
	target := conn.Client.BaseURL()
	if len(segs) == 1 {
		if f.resume {
			path, err := a.interruptedRun(conn, plan.Mode, plan.Values, f.file)
			if err != nil {
				return nil, nil, err
			}
			jobs[0].journal = path
		}
		return jobs, nil, nil
	}
	if f.resume {
		m, err := a.interruptedSegments(conn, plan, f.file)
		if err != nil {
			return nil, nil, err
		}
		if m != nil {
			if err := a.matchSegments(conn, m, jobs); err != nil {
				return nil, nil, err
			}
			return jobs, m, nil
		}
	}
	m, err := newManifest(conn.JournalDir, target, plan)
	if err != nil {
		return nil, nil, err
	}
	return jobs, m, nil
}

// interruptedSegments finds the newest unfinished run of several segments
// of this file, like interruptedRun does for a run of one.
func (a *app) interruptedSegments(conn *connection, plan batch.Plan, file string) (*manifest, error) {
	ms, err := manifests(conn.JournalDir)
	if err != nil {
		return nil, err
	}
	sum := valuesSum(plan.Values)
	var newest *manifest
	for _, m := range ms {
		if m.Target != conn.Client.BaseURL() || m.Mode != plan.Mode.String() || m.Finished {
			continue
		}
		if newest == nil {
			newest = m
		}
		if m.Entries == len(plan.Values) && m.Segment == segmentSize && m.Sum == sum {
			return m, nil
		}
	}
	if newest != nil {
		return nil, usagef("the last interrupted %s run on %s was of other entries (%d) than %s holds (%d); resume it with the same file (run %s)",
			plan.Mode, conn.Target, newest.Entries, inputName(file), len(plan.Values), newest.path)
	}
	fmt.Fprintf(a.io.Err, "No interrupted %s run on %s; starting a new one.\n", plan.Mode, conn.Target)
	return nil, nil
}

// matchSegments finds each segment's journal of the run of m: the newest
// journal of the segment's values made since the run began. A segment
// without one was not reached and runs afresh.
func (a *app) matchSegments(conn *connection, m *manifest, jobs []job) error {
	runs, err := batch.Journals(conn.JournalDir)
	if err != nil {
		return err
	}
	done := 0
	for i := range jobs {
		seg := jobs[i].plan
		for _, j := range runs {
			if j.Target != m.Target || j.Mode != seg.Mode || j.Created.Before(m.Created) || j.Entries != len(seg.Values) {
				continue
			}
			if samePlan(j.Path, seg.Values) {
				jobs[i].journal = j.Path
				done += j.Done
				break
			}
		}
	}
	fmt.Fprintf(a.io.Err, "Resuming the run of %s: %d of %d entries were sent.\n", m.Created.Local().Format(time.DateTime), done, m.Entries)
	return nil
}

// summary adds up the reports of a run's segments.
type summary struct {
	plan    batch.Plan
	batches int // of the whole plan
	counts  map[batch.Outcome]int
	failed  []failedBatch
	ok      int // batches that succeeded
	results int // entries with a result (sent or failed)
	// shown holds the first maxShownResults results, for the human
	// table of a small run.
	shown []batch.Result
}

type failedBatch struct {
	number  int
	message string
}

func newSummary(plan batch.Plan) *summary {
	return &summary{plan: plan, batches: len(plan.Batches()), counts: map[batch.Outcome]int{}}
}

// add counts the report of the segment whose first batch is number base+1.
func (s *summary) add(rep batch.Report, base int) {
	for o, n := range rep.Count() {
		s.counts[o] += n
	}
	failed := map[int]bool{}
	for _, b := range rep.Failed {
		failed[b] = true
		msg := ""
		for _, r := range rep.Results {
			if r.Batch == b {
				msg = r.Message
				break
			}
		}
		s.failed = append(s.failed, failedBatch{base + b, msg})
	}
	s.ok += rep.Batches - len(rep.Failed) - len(rep.Unsent)
	s.results += len(rep.Results)
	if room := maxShownResults - len(s.shown); room > 0 {
		s.shown = append(s.shown, rep.Results[:min(room, len(rep.Results))]...)
	}
}

// unsent is how many batches were not sent, in segments run or not.
func (s *summary) unsent() int { return s.batches - s.ok - len(s.failed) }

// complete reports whether every batch of the plan succeeded.
func (s *summary) complete() bool { return s.ok == s.batches }

// outcomes counts the entries by outcome, the entries of segments never
// reached among the unsent.
func (s *summary) outcomes() map[batch.Outcome]int {
	m := make(map[batch.Outcome]int, len(s.counts)+1)
	for o, n := range s.counts {
		m[o] = n
	}
	if rest := len(s.plan.Values) - s.results; rest > 0 {
		m[batch.Unsent] += rest
	}
	return m
}
