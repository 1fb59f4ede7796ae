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
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/servicetest"
	"github.com/shushlist/shush/server/store"
)

// shushBin is the binary under test, built by TestMain.
var shushBin string

func TestMain(m *testing.M) {
	os.Exit(runTests(m))
}

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
func newService(t *testing.T, opts server.Options, wrap func(http.Handler) http.Handler) *service {
	t.Helper()
	if opts.Rate == 0 {
		opts.Rate = 1000
	}
	svc := servicetest.Start(t, opts, wrap)
	return &service{url: svc.URL, key: svc.Key, team: svc.Team, store: svc.Store, db: svc.DB}
}

// emails returns the team's whole list, sorted.
func (s *service) emails(t *testing.T) []string {
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

func TestEveryInputFormat(t *testing.T) {
	t.Parallel()
	want := sorted("ann@example.com", "bob@example.org", "cy@xn--bcher-kva.example")
	files := map[string]string{
		"array.json": `["Ann@Example.com", " bob@example.org ", "cy@bücher.example", "ann@example.com"]`,
		"body.json":  `{"emails": ["ann@example.com", "BOB@example.org", "cy@bücher.example"]}`,
		"list.csv":   "name,email,plan\nAnn,ann@example.com,pro\nBob,bob@example.org,free\nCy,cy@bücher.example,free\n",
		"list.tsv":   "email\tnote\nann@example.com\tx\nbob@example.org\ty\ncy@bücher.example\tz\n",
		"lines.txt":  "\ufeffann@example.com\r\nbob@example.org\r\n\r\ncy@bücher.example\r\n",
		"ticket.txt": "Hi team,\nplease block Ann <ann@example.com> and bob@example.org.\nAlso cy@bücher.example, thanks!\n",
	}
	for name, body := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			svc := newService(t, server.Options{}, nil)
			sb := newSandbox(t).at(svc)
			path := writeFile(t, sb.home, name, body)
			r := sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--json").want(t, 0)
			resp := decode[api.BatchResponse](t, r)
			if len(resp.Data) != len(want) {
				t.Errorf("data has %d items, want %d: %s", len(resp.Data), len(want), r)
			}
			if got := svc.emails(t); !slices.Equal(got, want) {
				t.Errorf("list after %s: %v, want %v", name, got, want)
			}
		})
	}
}

func TestStdinAndHumanSummary(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	in := []byte("a@example.com\nb@example.com\nnot-an-address\na@example.com\n")
	// Piped stdout means JSON, even without --json.
	r := sb.run(t, in, "suppressions", "batch", "add", "--file", "-").want(t, 0)
	if resp := decode[api.BatchResponse](t, r); len(resp.Data) != 2 {
		t.Errorf("want 2 items: %s", r)
	}
	if !strings.Contains(r.stderr, `line 3 "not-an-address"`) {
		t.Errorf("the invalid entry is not reported with its line: %s", r)
	}
	if got := svc.emails(t); !slices.Equal(got, []string{"a@example.com", "b@example.com"}) {
		t.Errorf("list %v", got)
	}
	// Running it again changes nothing and says the addresses were listed.
	r = sb.run(t, in, "suppressions", "batch", "add", "--file", "-", "--json").want(t, 0)
	if resp := decode[api.BatchResponse](t, r); len(resp.Data) != 2 {
		t.Errorf("second run: %s", r)
	}
	// No stdin piped at all is a usage error, not a hang.
	r = sb.run(t, nil, "suppressions", "batch", "add", "--file", "-")
	if r.code != 2 {
		t.Errorf("empty stdin: %s", r)
	}
}

func TestDryRunSendsNothing(t *testing.T) {
	t.Parallel()
	var requests atomic.Int64
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			requests.Add(1)
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	var body strings.Builder
	for i := range 250 {
		fmt.Fprintf(&body, "user%d@example.com\n", i)
	}
	body.WriteString("user1@example.com\nbroken@\n")
	path := writeFile(t, sb.home, "in.txt", body.String())

	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", path, "--dry-run", "--json").want(t, 0)
	plan := decode[struct {
		DryRun     bool `json:"dry_run"`
		Target     string
		Entries    int
		Valid      int
		Duplicates int
		Batches    int
		Invalid    []struct {
			Line    int
			Raw     string
			Problem string
		}
	}](t, r)
	if !plan.DryRun || plan.Entries != 252 || plan.Valid != 250 || plan.Duplicates != 1 || plan.Batches != 3 || plan.Target != svc.url {
		t.Errorf("plan %+v", plan)
	}
	if len(plan.Invalid) != 1 || plan.Invalid[0].Line != 252 || plan.Invalid[0].Raw != "broken@" || plan.Invalid[0].Problem == "" {
		t.Errorf("invalid entries %+v", plan.Invalid)
	}
	if n := requests.Load(); n != 0 || len(svc.emails(t)) != 0 {
		t.Errorf("--dry-run sent %d requests", n)
	}
	// A dry run of a removal needs no confirmation and removes nothing.
	sb.run(t, nil, "suppressions", "batch", "remove", "--file", path, "--dry-run").want(t, 0)
	if n := requests.Load(); n != 0 {
		t.Errorf("--dry-run of a removal sent %d requests", n)
	}
}

func TestExitCodesAndSentences(t *testing.T) {
	t.Parallel()
	// The service refuses any batch holding poison@example.com, as a
	// service with stricter rules would: that batch fails, the others go.
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPost {
				b, _ := readBody(r)
				if bytes.Contains(b, []byte("poison@example.com")) {
					w.Header().Set("Content-Type", "application/json")
					w.WriteHeader(http.StatusUnprocessableEntity)
					fmt.Fprint(w, `{"statusCode":422,"name":"validation_error","message":"emails[0] is not allowed here"}`)
					return
				}
			}
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	dir := sb.home
	var body strings.Builder
	for i := range 150 {
		fmt.Fprintf(&body, "user%d@example.com\n", i)
	}
	body.WriteString("poison@example.com\n")
	mixed := writeFile(t, dir, "mixed.txt", body.String())
	good := writeFile(t, dir, "good.txt", "ok@example.com\n")
	bad := writeFile(t, dir, "bad.json", "[\"a@example.com\",\n  }")
	allInvalid := writeFile(t, dir, "invalid.txt", "bob@\ncarol@\n")
	_, readOnly, err := server.CreateKey(context.Background(), svc.store, svc.team, true)
	if err != nil {
		t.Fatal(err)
	}

	// Every error path: its exit status, and its JSON form on stderr (the
	// output is a pipe here, as in a script): the service's error name and
	// status when it refused, else a name of our own and status null.
	cases := []struct {
		name   string
		sb     *sandbox
		args   []string
		code   int
		errNam string
		status int // 0: null
		says   string
	}{
		{"success", sb, []string{"suppressions", "batch", "add", "--file", good}, 0, "", 0, ""},
		{"some batch failed", sb, []string{"suppressions", "batch", "add", "--file", mixed}, 1, "error", 0, "1 batch of 2 batches failed (batch 2 first: the service answered 422 validation_error: emails[0] is not allowed here); send them again with: shush suppressions batch add --file"},
		{"missing file", sb, []string{"suppressions", "batch", "add", "--file", filepath.Join(dir, "nope.txt")}, 2, "usage_error", 0, "cannot read"},
		{"no --file", sb, []string{"suppressions", "batch", "add"}, 2, "usage_error", 0, "--file is required"},
		{"broken JSON", sb, []string{"suppressions", "batch", "add", "--file", bad}, 2, "usage_error", 0, "bad.json: line 2"},
		{"nothing valid", sb, []string{"suppressions", "batch", "add", "--file", allInvalid}, 2, "usage_error", 0, "has no valid entries to send"},
		{"unknown flag", sb, []string{"suppressions", "list", "--nope"}, 2, "usage_error", 0, "unknown flag"},
		{"unknown command", sb, []string{"frob"}, 2, "usage_error", 0, `unknown command "frob"`},
		{"unknown subcommand", sb, []string{"suppressions", "frob"}, 2, "usage_error", 0, `unknown command "frob"`},
		{"stray argument", sb, []string{"keys", "list", "extra"}, 2, "usage_error", 0, `shush keys list takes no arguments, got "extra"`},
		{"bad limit", sb, []string{"suppressions", "list", "--limit", "500"}, 2, "usage_error", 0, "--limit must be between 1 and 100"},
		{"bad address", sb, []string{"suppressions", "add", "bob@"}, 2, "usage_error", 0, `"bob@" is not a valid email address`},
		{"bad --jq", sb, []string{"suppressions", "list", "--jq", ".data["}, 2, "usage_error", 0, "--jq:"},
		{"unknown profile", sb, []string{"--profile", "nope", "suppressions", "list"}, 2, "usage_error", 0, `profile "nope" (from --profile flag) is not defined`},
		{"wrong key", sb.with("SHUSH_API_KEY=shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"), []string{"suppressions", "list"}, 4, "invalid_api_key", 403, "403 invalid_api_key"},
		{"not on the list (get)", sb, []string{"suppressions", "get", "ghost@example.com"}, 3, "not_found", 404, "ghost@example.com is not on the list"},
		{"not on the list (remove)", sb, []string{"suppressions", "remove", "ghost@example.com", "--yes"}, 3, "not_found", 404, "ghost@example.com is not on the list"},
		{"service refuses", sb, []string{"suppressions", "add", "poison@example.com"}, 1, "validation_error", 422, "emails[0] is not allowed here"},
		{"service down", sb.with("SHUSH_BASE_URL=http://127.0.0.1:1"), []string{"suppressions", "list"}, 1, "network_error", 0, "cannot reach the service at http://127.0.0.1:1"},
		{"bad cursor", sb, []string{"suppressions", "list", "--after", "nope"}, 2, "usage_error", 0, `"nope" is not a suppression ID`},
		{"bad origin", sb, []string{"suppressions", "list", "--origin", "spam"}, 2, "usage_error", 0, "--origin:"},
		{"--all with a cursor", sb, []string{"suppressions", "list", "--all", "--after", "0190a6b2-7c3e-7d4f-8a1b-2c3d4e5f6a7b"}, 2, "usage_error", 0, "--all lists from the start"},
		{"not an address or ID", sb, []string{"suppressions", "get", "Jane Doe"}, 2, "usage_error", 0, "is neither an address nor a suppression ID"},
		{"get without an argument", sb, []string{"suppressions", "get"}, 2, "usage_error", 0, "needs an ID or an email address"},
		{"removal without --yes off a terminal", sb, []string{"suppressions", "remove", "ok@example.com"}, 2, "usage_error", 0, "--yes"},
		{"check without --file", sb, []string{"suppressions", "check"}, 2, "usage_error", 0, "--file is required"},
		{"bad --concurrency", sb, []string{"suppressions", "batch", "add", "--file", good, "--concurrency", "99"}, 2, "usage_error", 0, "--concurrency must be between 1 and 16"},
		{"bad --reference", sb, []string{"suppressions", "batch", "add", "--file", good, "--reference", "tab\there"}, 2, "usage_error", 0, "--reference:"},
		{"--dry-run and --resume", sb, []string{"suppressions", "batch", "add", "--file", good, "--dry-run", "--resume"}, 2, "usage_error", 0, "not both"},
		{"two key sources", sb, []string{"suppressions", "list", "--api-key", "x", "--api-key-stdin"}, 2, "usage_error", 0, "one way"},
		{"bad audit type", sb, []string{"audit", "--type", "deleted"}, 2, "usage_error", 0, "--type must be added or removed"},
		{"audit prune without a cut", sb, []string{"audit", "prune", "--yes"}, 2, "usage_error", 0, "needs --older-than"},
		{"unknown key to revoke", sb, []string{"keys", "revoke", "ffffffffffffffff"}, 1, "error", 0, "no API key has the ID"},
		{"the key itself to revoke", sb, []string{"keys", "revoke", "shush_abc_def"}, 2, "usage_error", 0, "not the key itself"},
		{"keys create without --team", sb, []string{"keys", "create"}, 2, "usage_error", 0, "needs --team"},
		{"bad key name", sb, []string{"keys", "create", "--team", "t", "--name", "bad\x07name"}, 2, "usage_error", 0, "--name:"},
		{"man without a directory", sb, []string{"man"}, 2, "usage_error", 0, "needs a directory"},
		{"a read-only key writes", sb.with("SHUSH_API_KEY=" + readOnly), []string{"suppressions", "add", "ro@example.com"}, 4, "restricted_api_key", 403, "403 restricted_api_key"},
	}
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				r := c.sb.run(t, nil, c.args...).want(t, c.code)
				if c.code == 0 {
					return
				}
				var doc struct {
					Error struct {
						Name    string
						Message string
						Status  *int
					}
				}
				if err := json.Unmarshal([]byte(r.stderr), &doc); err != nil {
					t.Fatalf("stderr is not the JSON error form: %v\n%s", err, r)
				}
				e := doc.Error
				if e.Name != c.errNam || !strings.Contains(e.Message, c.says) || strings.Contains(e.Message, "\n") {
					t.Errorf("error %+v; want name %s saying %q on one line: %s", e, c.errNam, c.says, r)
				}
				if (c.status == 0) != (e.Status == nil) || e.Status != nil && *e.Status != c.status {
					t.Errorf("status %v; want %d (0: null)", e.Status, c.status)
				}
				if strings.Contains(r.stderr, svc.key) {
					t.Errorf("stderr shows the key: %s", r)
				}
			})
		}
	})
	// The failed batch left the list with exactly the other batch's
	// entries, and the good file's.
	got := svc.emails(t)
	if len(got) != 101 || slices.Contains(got, "poison@example.com") {
		t.Errorf("list has %d entries after the partial failure", len(got))
	}
}

// readBody reads a request's body and leaves it there for the handler.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	return b, err
}

func TestRemovalNeedsConfirmation(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	path := writeFile(t, sb.home, "in.txt", "a@example.com\nb@example.com\nc@example.com\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path).want(t, 0)
	rm := writeFile(t, sb.home, "rm.txt", "a@example.com\nb@example.com\nnever@example.com\n")

	r := sb.run(t, nil, "suppressions", "batch", "remove", "--file", rm).want(t, 2)
	if !strings.Contains(r.stderr, "refusing to remove without confirmation: pass --yes") {
		t.Errorf("refusal: %s", r)
	}
	r = sb.run(t, []byte("a@example.com\n"), "suppressions", "batch", "remove", "--file", "-").want(t, 2)
	if !strings.Contains(r.stderr, "refusing to remove without confirmation") {
		t.Errorf("refusal with stdin input: %s", r)
	}
	r = sb.run(t, nil, "suppressions", "remove", "c@example.com").want(t, 2)
	if !strings.Contains(r.stderr, "pass --yes") {
		t.Errorf("single remove refusal: %s", r)
	}
	if got := svc.emails(t); len(got) != 3 {
		t.Fatalf("a refused removal removed something: %v", got)
	}

	r = sb.run(t, nil, "suppressions", "batch", "remove", "--file", rm, "--yes", "--json").want(t, 0)
	// One item per entry: the two removed with deleted: true and their
	// IDs, the one that was never listed as not_listed with deleted: false.
	resp := decode[struct {
		Data []struct {
			ID, Email, Outcome string
			Deleted            *bool
		}
	}](t, r)
	if len(resp.Data) != 3 || resp.Data[0].Outcome != "removed" || resp.Data[0].Deleted == nil || !*resp.Data[0].Deleted ||
		resp.Data[0].ID == "" || resp.Data[1].Outcome != "removed" || resp.Data[2].Email != "never@example.com" ||
		resp.Data[2].Outcome != "not_listed" || resp.Data[2].Deleted == nil || *resp.Data[2].Deleted {
		t.Errorf("removal answer: %s", r)
	}
	if got := svc.emails(t); !slices.Equal(got, []string{"c@example.com"}) {
		t.Errorf("list after removal: %v", got)
	}

	// By ID, from the list's own JSON.
	list := decode[api.ListResponse](t, sb.run(t, nil, "suppressions", "list", "--json").want(t, 0))
	if len(list.Data) != 1 {
		t.Fatalf("list: %+v", list)
	}
	ids := writeFile(t, sb.home, "ids.json", `{"ids": ["`+strings.ToUpper(list.Data[0].ID)+`"]}`)
	r = sb.run(t, nil, "suppressions", "batch", "remove", "--ids", "--file", ids, "--yes", "--json").want(t, 0)
	if resp := decode[api.BatchResponse](t, r); len(resp.Data) != 1 || resp.Data[0].ID != list.Data[0].ID {
		t.Errorf("remove by ID: %s", r)
	}
	if got := svc.emails(t); len(got) != 0 {
		t.Errorf("list after removal by ID: %v", got)
	}
}

func TestSingleEntryCommands(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	added := decode[api.Suppression](t, sb.run(t, nil, "suppressions", "add", " Dee@Example.COM ", "--json").want(t, 0))
	again := decode[api.Suppression](t, sb.run(t, nil, "suppressions", "add", "dee@example.com").want(t, 0))
	if added.ID == "" || again.ID != added.ID {
		t.Errorf("add twice: %+v then %+v", added, again)
	}
	got := decode[api.Entry](t, sb.run(t, nil, "suppressions", "get", "DEE@example.com").want(t, 0))
	if got.ID != added.ID || got.Email != "dee@example.com" || got.Origin != api.OriginManual {
		t.Errorf("get: %+v", got)
	}
	byID := decode[api.Entry](t, sb.run(t, nil, "suppressions", "get", added.ID, "--json").want(t, 0))
	if byID.Email != "dee@example.com" {
		t.Errorf("get by ID: %+v", byID)
	}
	for i := range 3 {
		sb.run(t, nil, "suppressions", "add", fmt.Sprintf("p%d@example.com", i)).want(t, 0)
	}
	page := decode[api.ListResponse](t, sb.run(t, nil, "suppressions", "list", "--limit", "2").want(t, 0))
	if len(page.Data) != 2 || !page.HasMore || page.Data[0].Email != "p2@example.com" {
		t.Errorf("first page: %+v", page)
	}
	all := decode[api.ListResponse](t, sb.run(t, nil, "suppressions", "list", "--limit", "2", "--all").want(t, 0))
	if len(all.Data) != 4 || all.HasMore {
		t.Errorf("--all: %+v", all)
	}
	gone := decode[api.Suppression](t, sb.run(t, nil, "suppressions", "remove", "dee@example.com", "--yes").want(t, 0))
	if gone.ID != added.ID || !gone.Deleted {
		t.Errorf("remove: %+v", gone)
	}
	sb.run(t, nil, "suppressions", "remove", "dee@example.com", "--yes").want(t, 3)
}

// routeNotFound answers as a service without the route does.
func routeNotFound(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprint(w, `{"statusCode":404,"name":"not_found","message":"Route not found"}`)
}

func TestServiceWithOnlyBatchEndpoints(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
				routeNotFound(w)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	sb := newSandbox(t).at(svc)
	for _, args := range [][]string{{"suppressions", "list"}, {"suppressions", "get", "a@example.com"}, {"suppressions", "add", "a@example.com"}} {
		r := sb.run(t, nil, args...).want(t, 1)
		if !strings.Contains(r.stderr, svc.url+" offers only the batch endpoints") {
			t.Errorf("%s", r)
		}
	}
	path := writeFile(t, sb.home, "in.txt", "a@example.com\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path).want(t, 0)
	sb.run(t, nil, "suppressions", "batch", "remove", "--file", path, "--yes").want(t, 0)
	if got := svc.emails(t); len(got) != 0 {
		t.Errorf("list %v", got)
	}
}
