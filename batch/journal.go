package batch

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/shushlist/shush/internal/atomicfile"
)

// A journal is one file per run, JSON lines: a plan record (mode, target,
// values, invalid entries), one record per finished batch with its
// results, and an end record once every batch succeeded. Each record is
// written with one write, so a crash leaves at most a truncated last line,
// which a resume drops. The file is 0600: it holds addresses.
//
// The plan and end records are synced before the run goes on. A batch
// record is written at once (a killed process loses nothing: the kernel
// has it) and synced by the journal's syncer, which covers every record
// written since its last sync with one fsync, outside the runner's lock,
// while the next request is already on the wire. The run returns only
// after the last sync. A machine that loses power before a sync forgets
// those batches, and a resume sends them again: safe, both endpoints being
// idempotent.

const journalExt = ".jsonl"

type planRecord struct {
	Kind       string    `json:"kind"` // "plan"
	Version    int       `json:"v"`
	Mode       string    `json:"mode"`
	Target     string    `json:"target"`
	Created    time.Time `json:"created"`
	Values     []string  `json:"values"`
	Invalid    []Item    `json:"invalid,omitempty"`
	LeftOut    []LeftOut `json:"left_out,omitempty"`
	Duplicates int       `json:"duplicates,omitempty"`
	// Restore is the plan's Restore (the undo of a removal).
	Restore map[string]Restore `json:"restore,omitempty"`
}

type batchRecord struct {
	Kind    string   `json:"kind"` // "batch"
	Batch   int      `json:"batch"`
	OK      bool     `json:"ok"`
	Error   string   `json:"error,omitempty"`
	Results []Result `json:"results"`
}

type journal struct {
	path string
	f    *os.File

	mu      sync.Mutex    // orders writes; guards syncErr, buf and enc
	buf     bytes.Buffer  // the last batch record, its room reused
	enc     *json.Encoder // encodes batch records into buf
	syncErr error         // the first failed sync
	kick    chan struct{} // wakes the syncer (one pending wake is enough)
	stopped chan struct{} // closed when the syncer has ended
}

// newJournal wraps an open journal file and starts its syncer.
func newJournal(path string, f *os.File) *journal {
	j := &journal{path: path, f: f, kick: make(chan struct{}, 1), stopped: make(chan struct{})}
	go j.syncer()
	return j
}

// syncer fsyncs the journal whenever records were written since its last
// sync, until kick is closed.
func (j *journal) syncer() {
	defer close(j.stopped)
	for range j.kick {
		if err := j.f.Sync(); err != nil {
			j.mu.Lock()
			if j.syncErr == nil {
				j.syncErr = fmt.Errorf("sync the journal %s: %w", j.path, err)
			}
			j.mu.Unlock()
		}
	}
}

func newRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return time.Now().UTC().Format("20060102T150405.000Z") + "-" + hex.EncodeToString(b[:])
}

// createJournal starts the journal of st at path (a new file).
func createJournal(path string, st *run) (*journal, error) {
	rec := planRecordOf(st.plan, st.target)
	if rec.Values == nil {
		rec.Values = []string{}
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, fmt.Errorf("journal %s: %w", path, err)
	}
	return createJournalWith(path, append(b, '\n'))
}

func planRecordOf(plan plan, target string) planRecord {
	return planRecord{Kind: "plan", Version: 1, Mode: plan.Mode.key(), Target: target, Created: time.Now().UTC(),
		Values: plan.Values, Invalid: plan.Invalid, LeftOut: plan.LeftOut, Duplicates: plan.Duplicates, Restore: plan.Restore}
}

// createJournalWith starts a journal at path (a new file) with its plan
// record, a line of JSON, and syncs it.
func createJournalWith(path string, plan []byte) (*journal, error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the journal directory %s: %w", dir, err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create the journal: %w", err)
	}
	// The directory entry must survive a crash too, or the synced records
	// would be in a file nobody can find.
	_ = atomicfile.SyncDir(dir)
	j := newJournal(path, f)
	if err := j.writeLine(plan); err != nil {
		_ = j.close()
		return nil, err
	}
	return j, nil
}

// appendPlanRecord appends the plan record rec, with values for its
// Values, and a newline: what json.Marshal makes of it with the values as
// strings, without a string per value (a segment of a large input is
// recorded from its compact form).
func appendPlanRecord(b []byte, rec planRecord, values iter.Seq[[]byte]) ([]byte, error) {
	// The outer Values hides the record's own: the head has all but them.
	head, err := json.Marshal(struct {
		planRecord
		Values struct{} `json:"values,omitzero"`
	}{planRecord: rec})
	if err != nil {
		return b, err
	}
	b = append(b, head[:len(head)-1]...) // up to the closing brace
	b = append(b, `,"values":[`...)
	n := 0
	for v := range values {
		if n > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
		n++
	}
	return append(b, "]}\n"...), nil
}

// appendRestore adds restore to the plan record that appendPlanRecord
// ended line with (nothing when restore is empty): a segment's origins are
// known only once its values have been listed.
func appendRestore(line []byte, restore map[string]Restore) ([]byte, error) {
	if len(restore) == 0 {
		return line, nil
	}
	b, err := json.Marshal(restore)
	if err != nil {
		return line, err
	}
	line = bytes.TrimSuffix(line, []byte("}\n"))
	line = append(line, `,"restore":`...)
	line = append(line, b...)
	return append(line, "}\n"...), nil
}

// appendJSONString appends s as a JSON string. s is UTF-8 (a normalized
// address or ID); quotes, backslashes and control characters are escaped.
func appendJSONString(b, s []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// write writes a record and syncs it before it returns.
func (j *journal) write(rec any) error {
	if err := j.append(rec); err != nil {
		return err
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync the journal %s: %w", j.path, err)
	}
	return nil
}

// writeLine writes a record already made (a line of JSON) with one write
// and syncs it before it returns.
func (j *journal) writeLine(b []byte) error {
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("write the journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("sync the journal %s: %w", j.path, err)
	}
	return nil
}

// append writes a record with one write; the syncer makes it durable.
func (j *journal) append(rec any) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	b = append(b, '\n')
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.syncErr != nil {
		return j.syncErr
	}
	if _, err := j.f.Write(b); err != nil {
		return fmt.Errorf("write the journal %s: %w", j.path, err)
	}
	return nil
}

// appendBatch writes a batch record as append does, encoded into the
// journal's buffer, which the next record reuses.
func (j *journal) appendBatch(rec batchRecord) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.enc == nil {
		j.enc = json.NewEncoder(&j.buf)
	}
	j.buf.Reset()
	if err := j.enc.Encode(rec); err != nil { // json.Marshal's bytes and a newline
		return fmt.Errorf("journal %s: %w", j.path, err)
	}
	if j.syncErr != nil {
		return j.syncErr
	}
	if _, err := j.f.Write(j.buf.Bytes()); err != nil {
		return fmt.Errorf("write the journal %s: %w", j.path, err)
	}
	return nil
}

// batch records the results of batch i (0-based).
func (j *journal) batch(i int, res []Result, failure error) error {
	if j == nil {
		return nil
	}
	rec := batchRecord{Kind: "batch", Batch: i + 1, OK: failure == nil, Results: res}
	if failure != nil {
		rec.Error = failure.Error()
	}
	if err := j.appendBatch(rec); err != nil {
		return err
	}
	select {
	case j.kick <- struct{}{}:
	default: // a sync is due anyway and will cover this record
	}
	return nil
}

// finish marks the journal complete: nothing of it is left to send.
func (j *journal) finish() error {
	if j == nil {
		return nil
	}
	return j.write(map[string]string{"kind": "end"})
}

// close stops the syncer, syncs what it had not, and closes the file; it
// returns a failed sync (what it says done may not be durable).
func (j *journal) close() error {
	if j == nil || j.f == nil {
		return nil
	}
	close(j.kick)
	<-j.stopped
	err := j.syncErr
	if serr := j.f.Sync(); serr != nil && err == nil {
		err = fmt.Errorf("sync the journal %s: %w", j.path, serr)
	}
	_ = j.f.Close()
	j.f = nil
	return err
}

// journalState is what a journal file says.
type journalState struct {
	run      *run
	finished bool
	created  time.Time
	goodEnd  int64 // offset after the last complete record
	newline  bool  // the last record lacks its newline
}

// readJournal parses a journal. A last line that is cut short (a crash
// during its write) is ignored; damage anywhere else is an error.
func readJournal(path string) (*journalState, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the journal: %w", err)
	}
	js := &journalState{}
	off := 0
	n := 0
	for off < len(data) {
		n++
		end := bytes.IndexByte(data[off:], '\n')
		last := end < 0
		if last {
			end = len(data) - off
		}
		line := data[off : off+end]
		rec, err := parseRecord(line)
		if err != nil {
			var damaged *damagedError
			if !errors.As(err, &damaged) {
				return nil, fmt.Errorf("journal %s: line %d: %v", path, n, err)
			}
			if last || isTail(data[off+end:]) {
				break
			}
			return nil, fmt.Errorf("journal %s: line %d is damaged: %v", path, n, damaged.err)
		}
		if last {
			// A record is one JSON object: when it parses, only its newline
			// was lost, and the record itself counts.
			js.newline = true
		}
		switch rec.kind {
		case "plan":
			p := rec.plan
			mode, ok := modeFromKey(p.Mode)
			if !ok {
				return nil, fmt.Errorf("journal %s: line %d: unknown mode %q", path, n, p.Mode)
			}
			shareValues(p.Values)
			plan := plan{Mode: mode, Values: p.Values, Invalid: p.Invalid, LeftOut: p.LeftOut, Duplicates: p.Duplicates, Restore: p.Restore}
			js.run = &run{plan: plan, target: p.Target, batches: plan.batches(), results: map[int][]Result{}}
			js.created = p.Created
		case "batch":
			if js.run == nil {
				return nil, fmt.Errorf("journal %s: line %d: a batch record before the plan", path, n)
			}
			b := rec.batch
			i := b.Batch - 1
			if i < 0 || i >= len(js.run.batches) || len(b.Results) != len(js.run.batches[i]) {
				return nil, fmt.Errorf("journal %s: line %d: batch %d does not match the plan", path, n, b.Batch)
			}
			// A later record of a batch (a retry) replaces an earlier one.
			js.run.results[i] = b.Results
		case "end":
			js.finished = true
		}
		off += end + 1
		js.goodEnd = int64(min(off, len(data)))
	}
	if js.run == nil {
		return nil, fmt.Errorf("journal %s: it has no plan record", path)
	}
	return js, nil
}

// record is one parsed line of a journal: its kind, and the plan or batch
// record it is of those kinds.
type record struct {
	kind  string
	plan  *planRecord
	batch *batchRecord
}

// damagedError is a line that is not a record at all (not a JSON object
// with a string kind), as opposed to a record whose fields are wrong.
type damagedError struct{ err error }

func (e *damagedError) Error() string { return e.err.Error() }

var (
	planPrefix  = []byte(`{"kind":"plan",`)
	batchPrefix = []byte(`{"kind":"batch",`)
)

// recordOptions make go-json-experiment/json read a journal line as
// encoding/json did: names matched without regard to case (but exactly as
// to '-' and '_'), a name given twice (the last one counts), invalid UTF-8
// (made U+FFFD), a time as time.Time's UnmarshalJSON reads it; unknown
// names are ignored, as in v1. It decodes a line in
// one pass, where encoding/json checks the whole text first and then
// decodes it; a syntax error still wins over a field of the wrong type,
// since it goes on past those.
var recordOptions = jsonv2.JoinOptions(
	jsonv2.MatchCaseInsensitiveNames(true),
	jsonv1.MatchCaseSensitiveDelimiter(true),
	jsontext.AllowDuplicateNames(true),
	jsontext.AllowInvalidUTF8(true),
	jsonv1.ParseTimeWithLooseRFC3339(true),
)

// parseRecord parses a journal line. The lines shush writes start with
// their kind, so a plan or batch record is decoded at once into its type
// (one pass, not a pass for the kind and another for the record: a plan
// record holds a segment's values); what does not decode that way, or
// names another kind further on (the last "kind" counts), takes the
// general path: the kind, then the record of that kind.
func parseRecord(line []byte) (record, error) {
	switch {
	case bytes.HasPrefix(line, planPrefix):
		// Room for the values at once, at most one per comma of the line
		// and one more, which the decoder fills rather than grow a slice
		// a segment long value by value.
		p := &planRecord{Values: make([]string, 0, bytes.Count(line, []byte{','})+1)}
		err := jsonv2.Unmarshal(line, p, recordOptions)
		if err == nil && p.Kind == "plan" {
			return record{kind: "plan", plan: p}, nil
		}
		if syntaxError(err) {
			return record{}, &damagedError{err}
		}
	case bytes.HasPrefix(line, batchPrefix):
		b := &batchRecord{}
		err := jsonv2.Unmarshal(line, b, recordOptions)
		if err == nil && b.Kind == "batch" {
			return record{kind: "batch", batch: b}, nil
		}
		if syntaxError(err) {
			return record{}, &damagedError{err}
		}
	}
	return parseAnyRecord(line)
}

// parseAnyRecord parses a journal line the general way: its kind, then
// the record of that kind.
func parseAnyRecord(line []byte) (record, error) {
	var kind struct {
		Kind string `json:"kind"`
	}
	if err := jsonv2.Unmarshal(line, &kind, recordOptions); err != nil {
		return record{}, &damagedError{err}
	}
	rec := record{kind: kind.Kind}
	switch kind.Kind {
	case "plan":
		rec.plan = &planRecord{}
		if err := jsonv2.Unmarshal(line, rec.plan, recordOptions); err != nil {
			return record{}, err
		}
	case "batch":
		rec.batch = &batchRecord{}
		if err := jsonv2.Unmarshal(line, rec.batch, recordOptions); err != nil {
			return record{}, err
		}
	}
	return rec, nil
}

// syntaxError reports whether err says the text is not JSON (a record
// whose fields are only of the wrong type is JSON: the kind alone would
// have read).
func syntaxError(err error) bool {
	var se *jsontext.SyntacticError
	return errors.As(err, &se)
}

// shareValues makes a plan's values slices of one string: a segment's
// plan holds up to SegmentSize values, live for the whole run, and one
// string is one object for the garbage collector to mark in each cycle,
// not one per value. The strings decoded become garbage at once.
func shareValues(vs []string) {
	n := 0
	for _, v := range vs {
		n += len(v)
	}
	var all strings.Builder
	all.Grow(n)
	for _, v := range vs {
		all.WriteString(v)
	}
	rest := all.String()
	for i, v := range vs {
		vs[i], rest = rest[:len(v)], rest[len(v):]
	}
}

// isTail reports whether rest (what follows a bad line) is only blank, so
// the bad line was the last one written.
func isTail(rest []byte) bool { return len(bytes.TrimSpace(rest)) == 0 }

// openJournal opens the journal at path, which readJournal read as js, to
// resume it: it cuts off a truncated last line and opens it for appending.
func openJournal(path string, js *journalState) (*run, error) {
	f, err := os.OpenFile(path, os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the journal: %w", err)
	}
	if err := f.Truncate(js.goodEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("repair the journal %s: %w", path, err)
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("open the journal: %w", err)
	}
	if js.newline {
		if _, err := f.Write([]byte{'\n'}); err != nil {
			f.Close()
			return nil, fmt.Errorf("repair the journal %s: %w", path, err)
		}
	}
	js.run.journal = newJournal(path, f)
	return js.run, nil
}
