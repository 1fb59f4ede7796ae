package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
)

// gate stands between the client and the real service. It records every
// batch request the service received, and holds the request numbered
// holdAt (1-based) until release is called: the test can then stop the
// client while that batch is in flight.
type gate struct {
	holdAt int

	mu       sync.Mutex
	seen     int
	passed   [][]string // batches the service applied, in order
	held     chan struct{}
	released chan struct{}
	// pass says whether the held request goes on to the service when it
	// is released (true) or is answered 503 (false, as a dying proxy would).
	pass bool
}

func newGate(holdAt int) *gate {
	return &gate{holdAt: holdAt, held: make(chan struct{}), released: make(chan struct{})}
}

func (g *gate) release(pass bool) {
	g.mu.Lock()
	g.pass = pass
	g.mu.Unlock()
	close(g.released)
}

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
			h.ServeHTTP(w, r)
			return
		}
		b, _ := readBody(r)
		var req struct{ Emails []string }
		json.Unmarshal(b, &req)
		g.mu.Lock()
		g.seen++
		n := g.seen
		g.mu.Unlock()
		if n == g.holdAt {
			close(g.held)
			<-g.released
			g.mu.Lock()
			pass := g.pass
			g.mu.Unlock()
			if !pass {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				fmt.Fprint(w, `{"statusCode":503,"name":"service_unavailable","message":"the service is restarting"}`)
				return
			}
		}
		rec := &statusWriter{ResponseWriter: w}
		h.ServeHTTP(rec, r)
		if rec.status < 300 {
			g.mu.Lock()
			g.passed = append(g.passed, req.Emails)
			g.mu.Unlock()
		}
	})
}

func (g *gate) applied() [][]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.passed)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// addresses writes n distinct addresses to a file and returns it with the
// sorted set.
func addresses(t *testing.T, dir string, n int) (string, []string) {
	var body strings.Builder
	want := make([]string, 0, n)
	for i := range n {
		e := fmt.Sprintf("user%05d@example.com", i)
		want = append(want, e)
		body.WriteString(e + "\n")
	}
	slices.Sort(want)
	return writeFile(t, dir, "addresses.txt", body.String()), want
}

// journaledDone reads the journals in dir (want of them) and returns the
// addresses of the batches they record as done.
func journaledDone(t *testing.T, dir string, want int) map[string]bool {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) != want {
		t.Fatalf("want %d journals in %s, found %v", want, dir, files)
	}
	done := map[string]bool{}
	for _, file := range files {
		readJournalDone(t, file, done)
	}
	return done
}

func readJournalDone(t *testing.T, path string, done map[string]bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var rec struct {
			Kind    string
			OK      bool
			Results []struct{ Input string }
		}
		if json.Unmarshal(sc.Bytes(), &rec) != nil || rec.Kind != "batch" || !rec.OK {
			continue
		}
		for _, r := range rec.Results {
			done[r.Input] = true
		}
	}
}

// startImport starts a batch add of path against svc in the background.
func startImport(t *testing.T, sb *sandbox, path string) (*exec.Cmd, *bytes.Buffer) {
	cmd := exec.Command(shushBin, "suppressions", "batch", "add", "--file", path, "--concurrency", "1", "--json")
	cmd.Stdout = io.Discard
	cmd.Env = sb.env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &errOut
}

// killImport starts an import of path, kills it with SIGKILL while the gate
// holds a batch in flight, and then lets the held request go on unanswered.
func killImport(t *testing.T, sb *sandbox, g *gate, path string) {
	t.Helper()
	cmd, errOut := startImport(t, sb, path)
	waitHeld(t, g, cmd, errOut)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	g.release(false)
}

func waitHeld(t *testing.T, g *gate, cmd *exec.Cmd, errOut *bytes.Buffer) {
	t.Helper()
	select {
	case <-g.held:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the import never reached batch %d; stderr: %s", g.holdAt, errOut)
	}
}

// checkResumed asserts that the list is exactly the input, that every
// batch was applied once, and that no batch the journal had recorded as
// done before the resume was sent again.
func checkResumed(t *testing.T, svc *service, g *gate, want []string, doneBefore map[string]bool, appliedBefore int) {
	t.Helper()
	if got := svc.emails(t); !slices.Equal(got, want) {
		t.Errorf("list has %d entries, want exactly the %d of the input", len(got), len(want))
	}
	applied := g.applied()
	seen := map[string]int{}
	for _, b := range applied {
		for _, e := range b {
			seen[e]++
		}
	}
	for _, e := range want {
		if seen[e] != 1 {
			t.Errorf("%s was applied %d times, want once", e, seen[e])
			break
		}
	}
	for _, b := range applied[appliedBefore:] {
		for _, e := range b {
			if doneBefore[e] {
				t.Fatalf("%s was sent again although the journal had its batch as done", e)
			}
		}
	}
}

func TestResumeAfterKill(t *testing.T) {
	t.Parallel()
	g := newGate(5)
	svc := newService(t, server.Options{}, g.wrap)
	sb := newSandbox(t).at(svc)
	path, want := addresses(t, sb.home, 1000)

	// Batch 5 is in flight: the client has journaled batches 1-4.
	killImport(t, sb, g, path)

	doneBefore := journaledDone(t, sb.journalDir(), 1)
	appliedBefore := len(g.applied())
	if len(doneBefore) != 400 || appliedBefore != 4 {
		t.Fatalf("after the kill: journal has %d entries done, the service applied %d batches; want 400 and 4", len(doneBefore), appliedBefore)
	}

	// Another file of as many entries is not the interrupted run.
	var other strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&other, "other%d@example.com\n", i)
	}
	otherPath := writeFile(t, sb.home, "other.txt", other.String())
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", otherPath, "--resume").want(t, 2)
	if !strings.Contains(r.stderr, "was of other entries") {
		t.Errorf("resume with another file: %s", r)
	}
	if len(g.applied()) != appliedBefore {
		t.Fatal("a refused resume sent something")
	}

	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--resume", "--json").want(t, 0)
	if !strings.Contains(r.stderr, "Resuming the run of") || !strings.Contains(r.stderr, "400 of 1000 entries were sent") {
		t.Errorf("resume did not say what it resumes: %s", r)
	}
	var resp struct{ Data []struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || len(resp.Data) != 1000 {
		t.Errorf("resumed run's JSON has %d items (%v), want all 1000", len(resp.Data), err)
	}
	checkResumed(t, svc, g, want, doneBefore, appliedBefore)

	// The run is finished: --resume now starts a new run, and says so.
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--resume")
	if r.code != 0 || !strings.Contains(r.stderr, "No interrupted add run on "+svc.url+"; starting a new one") {
		t.Errorf("--resume after the run finished: %s", r)
	}
}

func TestInterruptThenResume(t *testing.T) {
	t.Parallel()
	if runtime.GOOS == "windows" {
		t.Skip("no SIGINT to another process on Windows")
	}
	g := newGate(3)
	svc := newService(t, server.Options{}, g.wrap)
	sb := newSandbox(t).at(svc)
	path, want := addresses(t, sb.home, 1000)

	cmd, errOut := startImport(t, sb, path)
	waitHeld(t, g, cmd, errOut)
	// Ctrl-C while the service sits on batch 3: the run stops within a
	// second without waiting for its answer, and journals it as failed.
	signalled := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(signalled)
	g.release(false)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 130 {
		t.Fatalf("after SIGINT: %v, stderr: %s", err, errOut)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("the run took %s to stop after Ctrl-C", took.Round(time.Millisecond))
	}
	if !strings.Contains(errOut.String(), "finish the run with: shush suppressions batch add --file "+path+" --resume") ||
		!strings.Contains(errOut.String(), `"name": "interrupted"`) {
		t.Errorf("no resume advice in the JSON error: %s", errOut)
	}
	doneBefore := journaledDone(t, sb.journalDir(), 1)
	appliedBefore := len(g.applied())
	if len(doneBefore) != 200 || appliedBefore != 2 {
		t.Fatalf("after Ctrl-C: journal has %d entries done, service applied %d batches; want 200 and 2", len(doneBefore), appliedBefore)
	}
	r := sb.run(t, nil, "runs", "list", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"state": "stopped"`) || !strings.Contains(r.stdout, `"failed": 100`) {
		t.Errorf("runs list after Ctrl-C: %s", r.stdout)
	}
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--resume").want(t, 0)
	checkResumed(t, svc, g, want, doneBefore, appliedBefore)
}

// --resume finishes the run of the file given, even when another run was
// left unfinished after it; failed batches are sent again.
func TestResumePicksTheRunOfTheFile(t *testing.T) {
	t.Parallel()
	var refuse atomic.Bool
	refuse.Store(true)
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := readBody(r)
			if refuse.Load() && bytes.Contains(b, []byte("poison")) {
				w.Header().Set("Content-Type", "application/json")
				// A refusal of the moment (409), which a resume may get
				// past; a 422 is a refusal of what the batch holds.
				w.WriteHeader(http.StatusConflict)
				fmt.Fprint(w, `{"statusCode":409,"name":"conflict","message":"not now"}`)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	var want []string
	files := map[string]string{}
	for _, name := range []string{"a", "b"} {
		var body strings.Builder
		for i := range 150 {
			e := fmt.Sprintf("%s%d@example.com", name, i)
			if i == 120 {
				e = "poison-" + e
			}
			want = append(want, e)
			body.WriteString(e + "\n")
		}
		files[name] = writeFile(t, sb.home, name+".txt", body.String())
		r := sb.run(t, nil, "suppressions", "batch", "add", "--file", files[name]).want(t, 1)
		if !strings.Contains(r.stderr, "--file "+files[name]+" --resume") {
			t.Errorf("no resume advice: %s", r)
		}
	}
	refuse.Store(false)
	for _, name := range []string{"a", "b"} {
		r := sb.run(t, nil, "suppressions", "batch", "add", "--file", files[name], "--resume").want(t, 0)
		if !strings.Contains(r.stderr, "100 of 150 entries were sent") {
			t.Errorf("resume of %s: %s", name, r)
		}
	}
	slices.Sort(want)
	if got := svc.emails(t); !slices.Equal(got, want) {
		t.Errorf("list has %d entries, want the %d of both files", len(got), len(want))
	}
}

// An input larger than one segment (100,000 entries) is one run with a
// journal per segment; killed in the second, it resumes there.
func TestResumeAfterKillAcrossSegments(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("-short or -race: skipping the import of 120,000 addresses (go test without -race runs it)")
	}
	t.Parallel()
	g := newGate(1100) // batch 100 of the second segment
	svc := newService(t, server.Options{}, g.wrap)
	sb := newSandbox(t).at(svc)
	path, want := addresses(t, sb.home, 120_000)

	killImport(t, sb, g, path)

	doneBefore := journaledDone(t, sb.journalDir(), 2)
	appliedBefore := len(g.applied())
	if len(doneBefore) != 109_900 || appliedBefore != 1099 {
		t.Fatalf("after the kill: journals have %d entries done, the service applied %d batches; want 109900 and 1099", len(doneBefore), appliedBefore)
	}
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--resume").want(t, 0)
	if !strings.Contains(r.stderr, "109900 of 120000 entries were sent") {
		t.Errorf("resume did not say what it resumes: %s", r)
	}
	var resp struct{ Data []struct{ ID string } }
	if err := json.Unmarshal([]byte(r.stdout), &resp); err != nil || len(resp.Data) != 120_000 {
		t.Errorf("resumed run's JSON has %d items (%v), want all 120000", len(resp.Data), err)
	}
	checkResumed(t, svc, g, want, doneBefore, appliedBefore)

	// The run is recorded once, finished, so a later --resume has nothing
	// to finish.
	headers, _ := filepath.Glob(filepath.Join(sb.journalDir(), "*.run.json"))
	if len(headers) != 1 {
		t.Fatalf("run records: %v", headers)
	}
	b, _ := os.ReadFile(headers[0])
	var h struct {
		State    string
		Segments int
	}
	if json.Unmarshal(b, &h) != nil || h.State != "finished" || h.Segments != 2 {
		t.Errorf("the run is not recorded as finished: %s", b)
	}
}
