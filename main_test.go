package main

// These tests run the shush binary as a user does: built once, started as
// a process with its own HOME and XDG directories, against the real
// service over real HTTP (servicetest.Start: httptest.NewServer around
// server.New with a SQLite file).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
	"github.com/shushlist/shush/server/store"
)

// shushBin is the binary under test, built by TestMain.
var shushBin string

// TestMain builds the binary for the Go tests that start it, and lets
// testscript start this test binary as "shush" for the transcripts in
// testdata/script (TestScripts): run as "shush", it is the real command.
func TestMain(m *testing.M) {
	testscript.Main(builtFirst{m}, map[string]func(){"shush": main})
}

// builtFirst runs the tests once the binary is built.
type builtFirst struct{ m *testing.M }

func (b builtFirst) Run() int { return runTests(b.m) }

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "shush-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shushBin = filepath.Join(dir, "shush")
	if runtime.GOOS == "windows" {
		shushBin += ".exe"
	}
	build := exec.Command("go", "build", "-o", shushBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintf(os.Stderr, "building shush: %v\n", err)
		return 1
	}
	return m.Run()
}

// sandbox is a user's home: config, data and state directories of their
// own, and none of the SHUSH_* variables of the test's environment.
type sandbox struct {
	home string
	env  []string
}

func newSandbox(t *testing.T) *sandbox {
	home := t.TempDir()
	sb := &sandbox{home: home}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "SHUSH_") || strings.HasPrefix(k, "XDG_") || k == "HOME" {
			continue
		}
		sb.env = append(sb.env, kv)
	}
	sb.env = append(sb.env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"),
	)
	return sb
}

func (sb *sandbox) configFile() string {
	return filepath.Join(sb.home, "config", "shush", "config.toml")
}
func (sb *sandbox) dataDir() string    { return filepath.Join(sb.home, "data", "shush") }
func (sb *sandbox) journalDir() string { return filepath.Join(sb.home, "state", "shush", "journal") }

// with returns a copy of the sandbox with more environment variables.
func (sb *sandbox) with(kv ...string) *sandbox {
	c := *sb
	c.env = append(slices.Clone(sb.env), kv...)
	return &c
}

// at points the sandbox at a service with a key, through the environment.
func (sb *sandbox) at(svc *service) *sandbox {
	return sb.with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+svc.key)
}

// result is what a run of the binary left.
type result struct {
	code        int
	stdout      string
	stderr      string
	commandLine string
}

func (r result) String() string {
	return fmt.Sprintf("%s: exit %d\nstdout: %s\nstderr: %s", r.commandLine, r.code, r.stdout, r.stderr)
}

// run runs the binary with args and stdin (nil: no stdin at all).
func (sb *sandbox) run(t *testing.T, stdin []byte, args ...string) result {
	t.Helper()
	cmd := exec.Command(shushBin, args...)
	cmd.Env = sb.env
	cmd.Dir = sb.home
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String(), commandLine: "shush " + strings.Join(args, " ")}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %s: %v", r.commandLine, err)
	}
	return r
}

// want fails the test unless the run exited with code.
func (r result) want(t *testing.T, code int) result {
	t.Helper()
	if r.code != code {
		t.Fatalf("want exit %d, got %s", code, r)
	}
	return r
}

// service is the real service on a SQLite file, over HTTP on loopback.
type service struct {
	url   string
	key   string
	team  string
	store store.Store
	db    string // the SQLite file
}

// newService starts the service (servicetest.Start) at 1000 requests/s
// unless opts say otherwise; wrap, when given, wraps its handler (to count
// or refuse requests at the HTTP layer).
func newService(t testing.TB, opts server.Options, wrap func(http.Handler) http.Handler) *service {
	t.Helper()
	if opts.Rate == 0 {
		opts.Rate = 1000
	}
	svc := servicetest.Start(t, opts, wrap)
	return &service{url: svc.URL, key: svc.Key, team: svc.Team, store: svc.Store, db: svc.DB}
}

// emails returns the team's whole list, sorted.
func (s *service) emails(t testing.TB) []string {
	t.Helper()
	var out []string
	q := store.ListQuery{Limit: 100}
	for {
		page, more, err := s.store.List(context.Background(), s.team, q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page {
			out = append(out, e.Email)
		}
		if !more || len(page) == 0 {
			break
		}
		q.After = page[len(page)-1].ID
	}
	slices.Sort(out)
	return out
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func decode[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("stdout is not the expected JSON (%v): %s", err, r)
	}
	return v
}

func sorted(s ...string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// readBody reads a request's body and leaves it there for the handler.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

// routeNotFound answers as a service without the route does.
func routeNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"statusCode":404,"name":"not_found","message":"Route not found"}`)
}
