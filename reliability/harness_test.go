// Package reliability holds the evidence behind the README's claims about
// staying up, losing nothing and refusing bad input: tests that build the
// real shush binary, run `shush serve` processes over SQLite and
// PostgreSQL, and drive them over HTTP. docs/reliability.md records their
// output.
package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
)

// shushBin is the binary TestMain builds for the tests to run.
var shushBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "shush-reliability-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// SHUSH_TEST_BINARY runs the tests against a binary built elsewhere
	// (for example a release build) instead of this tree.
	shushBin = os.Getenv("SHUSH_TEST_BINARY")
	if shushBin == "" {
		shushBin = filepath.Join(dir, "shush")
		build := exec.Command("go", "build", "-o", shushBin, "github.com/shushlist/shush")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "build shush:", err)
			os.RemoveAll(dir)
			os.Exit(1)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// isolatedEnv keeps the binary away from the user's configuration and data.
func isolatedEnv(t *testing.T) []string {
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_DATA_HOME=" + filepath.Join(home, "data"), "XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"PATH=" + os.Getenv("PATH"), "CI=true"}
	return env
}

// createKey runs `shush keys create` on the database and returns the key.
func createKey(t *testing.T, dsn, team string, readOnly bool) string {
	t.Helper()
	args := []string{"keys", "create", "--team", team, "--db", dsn, "--json"}
	if readOnly {
		args = append(args, "--read-only")
	}
	cmd := exec.Command(shushBin, args...)
	cmd.Env = isolatedEnv(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("shush keys create: %v: %s", err, stderr.String())
	}
	var k struct {
		ID  string `json:"id"`
		Key string `json:"key"`
	}
	if err := json.Unmarshal(out, &k); err != nil || k.Key == "" {
		t.Fatalf("shush keys create --json printed something that is not a key (%v)", err)
	}
	return k.Key
}

// revokeKey runs `shush keys revoke`.
func revokeKey(t *testing.T, dsn, key string) {
	t.Helper()
	id := strings.SplitN(strings.TrimPrefix(key, "shush_"), "_", 2)[0]
	cmd := exec.Command(shushBin, "keys", "revoke", id, "--db", dsn)
	cmd.Env = isolatedEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("shush keys revoke: %v: %s", err, out)
	}
}

// proc is a running `shush serve`.
type proc struct {
	t       *testing.T
	cmd     *exec.Cmd
	url     string
	log     string
	started time.Time
	done    chan struct{}
	mu      sync.Mutex
	exitErr error
}

var servingRE = regexp.MustCompile(`serving on (http://[^ ]+)`)

// serve starts `shush serve` on a free loopback port over the database and
// waits until it prints its address. The process is killed when the test
// ends if it still runs.
func serve(t *testing.T, dsn string, extra ...string) *proc {
	t.Helper()
	return serveEnv(t, dsn, nil, extra...)
}

// serveEnv is serve with more variables in the service's environment.
func serveEnv(t *testing.T, dsn string, env []string, extra ...string) *proc {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "serve.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", dsn}, extra...)
	cmd := exec.Command(shushBin, args...)
	cmd.Env = append(isolatedEnv(t), env...)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	p := &proc{t: t, cmd: cmd, log: logPath, done: make(chan struct{}), started: time.Now()}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start shush serve: %v", err)
	}
	logFile.Close()
	go func() {
		err := cmd.Wait()
		p.mu.Lock()
		p.exitErr = err
		p.mu.Unlock()
		close(p.done)
	}()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		b, _ := os.ReadFile(logPath)
		if m := servingRE.FindSubmatch(b); m != nil {
			p.url = string(m[1])
			return p
		}
		select {
		case <-p.done:
			t.Fatalf("shush serve exited at start: %v\n%s", p.exitErr, b)
		case <-time.After(10 * time.Millisecond):
		}
	}
	b, _ := os.ReadFile(logPath)
	t.Fatalf("shush serve did not say where it listens within 30s:\n%s", b)
	return nil
}

// kill sends SIGKILL and waits for the process to go.
func (p *proc) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// stop sends SIGTERM and waits for a graceful exit.
func (p *proc) stop() {
	p.t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(40 * time.Second):
		p.t.Errorf("shush serve did not stop within 40s of SIGTERM")
		p.kill()
	}
}

// logTail is the end of the process's log, for failure messages.
func (p *proc) logTail() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// waitHealthy polls /healthz until it answers 200 and returns how long
// after the process started that was.
func (p *proc) waitHealthy() time.Duration {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(p.url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return time.Since(p.started)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	p.t.Fatalf("%s/healthz did not answer 200 within 30s:\n%s", p.url, p.logTail())
	return 0
}

// client talks to a service with one key.
type client struct {
	base string
	key  string
	http *http.Client
}

func newClient(base, key string) *client {
	return &client{base: base, key: key, http: &http.Client{
		Timeout:   30 * time.Second,
		Transport: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16},
	}}
}

// answer is a response: status and body, or the transport error.
type answer struct {
	status int
	body   []byte
	err    error
}

func (a answer) apiError() api.Error {
	var e api.Error
	_ = json.Unmarshal(a.body, &e)
	return e
}

func (c *client) do(ctx context.Context, method, path string, body any) answer {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return answer{err: err}
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return answer{err: err}
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{status: resp.StatusCode, body: b, err: err}
}

// add sends a batch add and returns the IDs in the order of the request's
// (distinct, normalized) addresses.
func (c *client) add(ctx context.Context, emails []string) ([]string, answer) {
	a := c.do(ctx, "POST", "/suppressions/batch/add", api.BatchAddRequest{Emails: emails})
	if a.err != nil || a.status != http.StatusCreated {
		return nil, a
	}
	var r api.BatchResponse
	if err := json.Unmarshal(a.body, &r); err != nil {
		a.err = err
		return nil, a
	}
	if len(r.Data) != len(emails) {
		a.err = fmt.Errorf("batch add of %d addresses returned %d items", len(emails), len(r.Data))
		return nil, a
	}
	ids := make([]string, len(r.Data))
	for i, d := range r.Data {
		ids[i] = d.ID
	}
	return ids, a
}

// remove sends a batch remove (by email or by ID) and returns the removed
// IDs.
func (c *client) remove(ctx context.Context, req api.BatchRemoveRequest) ([]string, answer) {
	a := c.do(ctx, "POST", "/suppressions/batch/remove", req)
	if a.err != nil || a.status != http.StatusOK {
		return nil, a
	}
	var r api.BatchResponse
	if err := json.Unmarshal(a.body, &r); err != nil {
		a.err = err
		return nil, a
	}
	ids := make([]string, len(r.Data))
	for i, d := range r.Data {
		if !d.Deleted {
			a.err = fmt.Errorf("remove item %d lacks deleted: true", i)
		}
		ids[i] = d.ID
	}
	return ids, a
}

// list reads the team's whole list, page by page.
func (c *client) list(t *testing.T) []api.Entry {
	t.Helper()
	var all []api.Entry
	after := ""
	for {
		q := url.Values{"limit": {"100"}}
		if after != "" {
			q.Set("after", after)
		}
		a := c.do(context.Background(), "GET", "/suppressions?"+q.Encode(), nil)
		for tries := 0; a.err == nil && a.status == 429 && tries < 50; tries++ {
			time.Sleep(100 * time.Millisecond)
			a = c.do(context.Background(), "GET", "/suppressions?"+q.Encode(), nil)
		}
		if a.err != nil || a.status != 200 {
			t.Fatalf("list: %v %d %s", a.err, a.status, a.body)
		}
		var page api.ListResponse
		if err := json.Unmarshal(a.body, &page); err != nil {
			t.Fatalf("list: %v", err)
		}
		all = append(all, page.Data...)
		if !page.HasMore {
			return all
		}
		if len(page.Data) == 0 {
			t.Fatal("list: has_more with an empty page")
		}
		after = page.Data[len(page.Data)-1].ID
	}
}

// get looks one entry up by ID or address; ok is false on 404.
func (c *client) get(t *testing.T, ref string) (api.Entry, bool) {
	t.Helper()
	a := c.do(context.Background(), "GET", "/suppressions/"+url.PathEscape(ref), nil)
	if a.err != nil {
		t.Fatalf("get %s: %v", ref, a.err)
	}
	if a.status == 404 {
		return api.Entry{}, false
	}
	if a.status != 200 {
		t.Fatalf("get %s: %d %s", ref, a.status, a.body)
	}
	var e api.Entry
	if err := json.Unmarshal(a.body, &e); err != nil {
		t.Fatal(err)
	}
	return e, true
}

// isConnErr reports a request that failed because the service went away.
func isConnErr(err error) bool {
	if err == nil {
		return false
	}
	var ue *url.Error
	return errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF)
}

// report appends a line to the file named by SHUSH_RELIABILITY_REPORT, if
// set, so that a run can be pasted into docs/reliability.md; it also logs
// it.
func report(t *testing.T, format string, args ...any) {
	t.Helper()
	line := fmt.Sprintf(format, args...)
	t.Log(line)
	if path := os.Getenv("SHUSH_RELIABILITY_REPORT"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%s: %s\n", t.Name(), line)
			f.Close()
		}
	}
}

func jsonInto(b []byte, v any) error { return json.Unmarshal(b, v) }
