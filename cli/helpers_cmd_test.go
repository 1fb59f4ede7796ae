package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/intake/intaketest"
)

// newServiceBehind is shush's service on a temporary database reached
// through wrap (newTestService: nothing between): the network
// between the command and the real service, which a test may cut (an
// outage, a Ctrl-C while a request is on the wire).
func newServiceBehind(t *testing.T, wrap func(next http.Handler) http.Handler) *testService {
	t.Helper()
	dir := isolate(t)
	ctx := context.Background()
	db := filepath.Join(dir, "service.db")
	st, err := server.OpenStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	_, key, err := server.CreateNamedKeyWith(ctx, st, "support", "jane", server.KeyPermissions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(wrap(server.New(st, server.Options{Rate: 1e6})))
	t.Cleanup(func() {
		srv.Close()
		st.Close()
	})
	return &testService{URL: srv.URL, Key: key, DB: db, Store: st}
}

// everything is every address on the service's list, every page read.
func (s *testService) everything(t *testing.T) map[string]api.Entry {
	t.Helper()
	out := map[string]api.Entry{}
	after := ""
	for {
		page, err := s.client().List(context.Background(), client.ListParams{Limit: api.MaxBatch, After: after})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Data {
			out[e.Email] = e
		}
		if !page.HasMore || len(page.Data) == 0 {
			return out
		}
		after = page.Data[len(page.Data)-1].ID
	}
}

// addresses is n addresses, prefix000@example.com on.
func addresses(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d@example.com", prefix, i)
	}
	return out
}

// exec runs shush's command line args on the test app, as Main does but
// with the app's own streams and terminals: the command tree is built
// anew, so the service's URL and key the app was made with are given as
// flags (the key through SHUSH_API_KEY, as a person would, to keep it out
// of the arguments).
func (ta *testApp) exec(t *testing.T, args ...string) error {
	t.Helper()
	g := ta.globals
	var pre []string
	if g.baseURL != "" {
		pre = append(pre, "--base-url", g.baseURL)
	}
	if g.apiKey != "" {
		t.Setenv(config.EnvAPIKey, g.apiKey)
	}
	if g.json {
		pre = append(pre, "--json")
	}
	ta.resolved = nil
	root := ta.rootCommand()
	root.SetArgs(append(pre, args...))
	root.SetIn(ta.io.In)
	root.SetOut(ta.io.Out)
	root.SetErr(ta.io.ErrOut)
	err := root.ExecuteContext(context.Background())
	// What the flags set stays for the test's next run function.
	ta.globals.baseURL, ta.globals.apiKey = g.baseURL, g.apiKey
	return err
}

// terminal makes every stream a terminal: a person at the keyboard who
// answers questions with the text of answer.
func (ta *testApp) terminal(answer string) *testApp {
	ta.io.StdinTTY, ta.io.StdoutTTY, ta.io.StderrTTY = true, true, true
	return ta.stdin(answer)
}

// stateFiles is every file under the state directory shush keeps its own
// records in (run journals, the UI's history), with its text.
func stateFiles(t *testing.T) map[string]string {
	t.Helper()
	dir, err := config.StateDir()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return out
}

// reviewQueue puts events the rules cannot place before an agent: each
// address bounces through a Resend intake endpoint of the service with a
// policy block (550 5.7.1, whose remote words carry an escape sequence),
// which waits in the review queue, oldest first. It returns the
// endpoint's ID.
func reviewQueue(t *testing.T, svc *testService, emails ...string) string {
	t.Helper()
	ctx := context.Background()
	p := intaketest.NewResend()
	in, err := svc.client().CreateIntake(ctx, api.CreateIntakeRequest{Provider: api.ProviderResend, Secret: p.Secret})
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range emails {
		req := p.Request(in.URL, "msg-"+e, intaketest.ResendBounce(e, "Permanent", "General", "550 5.7.1 \x1b]0;pwned\x07 rejected by policy"), time.Now())
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Contains(body, []byte("review")) {
			t.Fatalf("event %d (%s): %d %s", i, e, resp.StatusCode, body)
		}
	}
	return in.ID
}

// lacks is the words of want that s does not hold.
func lacks(s string, want ...string) []string {
	var out []string
	for _, w := range want {
		if !strings.Contains(s, w) {
			out = append(out, w)
		}
	}
	return out
}
