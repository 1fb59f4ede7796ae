package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// The commands' tests call their run functions with buffers for streams
// and the real service in process: the server package's handler over
// httptest (loopback) on a temporary SQLite database.

// isolate points every directory shush reads or writes at the test's
// own, and clears the variables that would pick another service.
func isolate(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range []string{"SHUSH_PROFILE", "SHUSH_BASE_URL", "SHUSH_API_KEY", "RESEND_API_KEY", "RESEND_BASE_URL", "SHUSH_DEBUG", "SHUSH_EXPORT_DIR"} {
		t.Setenv(v, "")
	}
	t.Setenv("SHUSH_CONFIG_DIR", filepath.Join(dir, "config"))
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config-home"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(dir, "data"))
	t.Setenv("SHUSH_DB", filepath.Join(dir, "data", "default.db"))
	return dir
}

// testService is shush's service on a temporary database, reached over
// loopback HTTP, with a read-write key of team "support".
type testService struct {
	URL, Key, DB string
	Store        store.Store
}

func newTestService(t *testing.T) *testService {
	t.Helper()
	return newServiceBehind(t, func(next http.Handler) http.Handler { return next })
}

// key makes another key of team on the service.
func (s *testService) key(t *testing.T, team string, p server.KeyPermissions) string {
	t.Helper()
	_, key, err := server.CreateNamedKeyWith(context.Background(), s.Store, team, "", p)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

// client is an API client of the service, for a test's own set-up and
// checks.
func (s *testService) client() *client.Client { return client.New(s.URL, s.Key) }

// add lists addresses on the service, for a test's set-up.
func (s *testService) add(t *testing.T, emails ...string) []api.Suppression {
	t.Helper()
	got, err := s.client().BatchAdd(context.Background(), emails)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// testApp is an app whose streams are buffers: stdout a pipe (JSON) until
// human() says it is a terminal.
type testApp struct {
	*app
	out, err *bytes.Buffer
}

// newTestApp is the app of a command run on svc (nil: no service, for the
// commands that open a database themselves).
func newTestApp(t *testing.T, svc *testService) *testApp {
	t.Helper()
	if svc == nil {
		isolate(t)
	}
	ta := bareApp()
	if svc != nil {
		ta.globals.baseURL, ta.globals.apiKey = svc.URL, svc.Key
	}
	return ta
}

// bareApp is an app on the directories and variables as they are: no
// flags, nothing isolated again.
func bareApp() *testApp {
	var out, errOut bytes.Buffer
	a := &app{io: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}}
	return &testApp{app: a, out: &out, err: &errOut}
}

// human makes stdout a terminal: the command prints for a person.
func (ta *testApp) human() *testApp {
	ta.io.StdoutTTY = true
	return ta
}

// stdin gives the command s on its standard input.
func (ta *testApp) stdin(s string) *testApp {
	ta.io.In = strings.NewReader(s)
	return ta
}

// reset empties the buffers between two runs.
func (ta *testApp) reset() {
	ta.out.Reset()
	ta.err.Reset()
}

// decode reads the JSON the command printed into v.
func (ta *testApp) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(ta.out.Bytes(), v); err != nil {
		t.Fatalf("stdout is not the JSON expected: %v\n%s", err, ta.out.String())
	}
}

// lines is the command's stdout, line by line, without the final newline.
func (ta *testApp) lines() []string {
	s := strings.TrimRight(ta.out.String(), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// wantErr checks that err is what a user is told: its exit status and a
// sentence containing each of words.
func wantErr(t *testing.T, err error, code int, words ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want exit %d saying %q", code, words)
	}
	if got := exitCode(err); got != code {
		t.Errorf("exit %d for %q; want %d", got, err, code)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
}

// fields splits a table row on runs of spaces.
func fields(line string) []string { return strings.Fields(line) }
