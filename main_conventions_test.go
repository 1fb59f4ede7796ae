package main

// The conventions scripts ported from gh and the Resend CLI rely on, each
// driven through the built binary: a global --json and -q, the Resend
// CLI's verbs, --jq strings raw, - as stdout, suggestions for typos, the
// environment topic, an Output line and complete exit codes in the help,
// unverified entries failing the run, and the trace of SHUSH_DEBUG=api.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
)

func TestGlobalJSONAndQuiet(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "a@example.com").want(t, 0)
	// --json before the command, as the Resend CLI takes it.
	r := sb.run(t, nil, "--json", "suppressions", "list").want(t, 0)
	if page := decode[struct{ Data []struct{ Email string } }](t, r); len(page.Data) != 1 || page.Data[0].Email != "a@example.com" {
		t.Errorf("shush --json suppressions list: %s", r)
	}
	// -q: JSON, and nothing on stderr but errors.
	in := writeFile(t, sb.home, "in.txt", "b@example.com\nnot-an-address\n")
	r = sb.run(t, nil, "-q", "suppressions", "batch", "add", "--file", in).want(t, 0)
	if r.stderr != "" || !strings.Contains(r.stdout, `"outcome":"added"`) {
		t.Errorf("-q wrote to stderr, or no JSON: %s", r)
	}
	loud := sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 0)
	if !strings.Contains(loud.stderr, "not-an-address") {
		t.Errorf("without -q the invalid entry is not noted on stderr: %s", loud)
	}
	// A removal under -q asks nobody: it needs --yes, and says so as JSON.
	r = sb.run(t, nil, "--quiet", "suppressions", "delete", "b@example.com").want(t, 2)
	if !strings.Contains(r.stderr, `"name": "usage_error"`) || !strings.Contains(r.stderr, "--yes") {
		t.Errorf("a removal under --quiet without --yes: %s", r)
	}
}

func TestResendVerbs(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "gone@example.com").want(t, 0)
	r := sb.run(t, nil, "suppressions", "delete", "gone@example.com", "--yes").want(t, 0)
	if !strings.Contains(r.stdout, `"deleted": true`) || len(svc.emails(t)) != 0 {
		t.Errorf("suppressions delete: %s", r)
	}

	type webhook struct {
		ID            string `json:"id"`
		Endpoint      string `json:"endpoint"`
		SigningSecret string `json:"signing_secret"`
	}
	hook := decode[webhook](t, sb.run(t, nil, "webhooks", "create", "https://example.com/in").want(t, 0))
	if hook.ID == "" {
		t.Fatal("webhooks create gave no ID")
	}
	if got := decode[webhook](t, sb.run(t, nil, "webhooks", "get", hook.ID).want(t, 0)); got.Endpoint != "https://example.com/in" {
		t.Errorf("webhooks get: %+v", got)
	}
	sb.run(t, nil, "webhooks", "events", hook.ID).want(t, 0)
	rotated := decode[webhook](t, sb.run(t, nil, "webhooks", "rotate-signing-secret", hook.ID).want(t, 0))
	if rotated.SigningSecret == "" || rotated.SigningSecret == hook.SigningSecret {
		t.Errorf("webhooks rotate-signing-secret gave no new secret")
	}
	sb.run(t, nil, "webhooks", "delete", hook.ID, "--yes").want(t, 0)
	sb.run(t, nil, "webhooks", "get", hook.ID).want(t, 1)

	db := filepath.Join(sb.home, "keys.db")
	key := decode[struct{ ID string }](t, sb.run(t, nil, "keys", "create", "--team", "t", "--json", "--db", db).want(t, 0))
	r = sb.run(t, nil, "keys", "delete", key.ID, "--db", db).want(t, 0)
	if !strings.Contains(r.stdout, `"revoked": true`) {
		t.Errorf("keys delete: %s", r)
	}
	if !strings.Contains(sb.run(t, nil, "keys", "ls", "--db", db).want(t, 0).stdout, `"revoked_at"`) {
		t.Error("keys ls does not show the revoked key")
	}
}

func TestJQStringsAreRaw(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "a@example.com").want(t, 0)
	r := sb.run(t, nil, "suppressions", "list", "--jq", `.data[] | [.email, .origin] | @tsv`).want(t, 0)
	if r.stdout != "a@example.com\tmanual\n" {
		t.Errorf("--jq @tsv printed %q, want the fields with a real tab", r.stdout)
	}
	r = sb.run(t, nil, "suppressions", "list", "--jq", `.data[0].email`).want(t, 0)
	if r.stdout != "a@example.com\n" {
		t.Errorf("--jq of a string printed %q, want it bare", r.stdout)
	}
}

func TestOutputDashIsStdout(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	sb.run(t, nil, "suppressions", "add", "a@example.com").want(t, 0)
	r := sb.run(t, nil, "suppressions", "export", "--output", "-").want(t, 0)
	if !strings.HasPrefix(r.stdout, "id,email,origin,source_id,created_at,note,expires_at,evidence_provider,") || !strings.Contains(r.stdout, ",a@example.com,manual,") {
		t.Errorf("export --output - did not write the CSV to stdout: %s", r)
	}
	if _, err := os.Stat(filepath.Join(sb.home, "-")); err == nil {
		t.Error("export --output - wrote a file named -")
	}
}

func TestMistypedCommandsGetSuggestions(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for typed, want := range map[string]string{
		"suppresions":             "did you mean suppressions?",
		"suppressions delet":      "did you mean remove?",
		"suppressions batch ad":   "did you mean add?",
		"webhooks rotat":          "did you mean rotate?",
		"runs lst":                "did you mean list?",
		"help":                    "", // a real command: no error
		"suppressions frobnicate": "(see shush suppressions --help)",
	} {
		r := sb.run(t, nil, strings.Fields(typed)...)
		if want == "" {
			r.want(t, 0)
			continue
		}
		r.want(t, 2)
		if !strings.Contains(r.stderr, want) {
			t.Errorf("shush %s: %s, want %q", typed, r, want)
		}
	}
}

// envRead finds the environment variables the binary's own code reads:
// the names in its non-test sources that are passed to Getenv, LookupEnv
// or the UI's env lookup, or spelled as SHUSH_, RESEND_ or XDG_ constants.
func envRead(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", `{{if not .Standard}}{{.ImportPath}} {{.Dir}}{{range .GoFiles}} {{.}}{{end}}{{end}}`, ".").Output()
	if err != nil {
		t.Fatal(err)
	}
	calls := regexp.MustCompile(`(?:Getenv|LookupEnv|\.env|lookup)\("([A-Za-z_][A-Za-z0-9_]*)"\)`)
	consts := regexp.MustCompile(`"((?:SHUSH|RESEND|XDG)_[A-Z0-9_]+)"`)
	found := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if !strings.HasPrefix(f[0], "github.com/shushlist/shush") {
			continue
		}
		for _, name := range f[2:] {
			b, err := os.ReadFile(filepath.Join(f[1], name))
			if err != nil {
				t.Fatal(err)
			}
			for _, re := range []*regexp.Regexp{calls, consts} {
				for _, m := range re.FindAllStringSubmatch(string(b), -1) {
					found[m[1]] = true
				}
			}
		}
	}
	return found
}

func TestHelpEnvironmentListsWhatTheCodeReads(t *testing.T) {
	t.Parallel()
	r := newSandbox(t).run(t, nil, "help", "environment").want(t, 0)
	listed := map[string]bool{}
	for _, line := range strings.Split(r.stdout, "\n") {
		if name, ok := strings.CutPrefix(line, "  "); ok && !strings.HasPrefix(name, " ") && name != "" {
			listed[name] = true
		}
	}
	read := envRead(t)
	for name := range read {
		if !listed[name] {
			t.Errorf("the code reads %s, but shush help environment does not list it", name)
		}
	}
	// NO_COLOR is read by the terminal libraries the UI draws with, and
	// SHUSH_<FLAG> of serve by name from each flag.
	for name := range listed {
		if !read[name] && name != "NO_COLOR" && !strings.Contains(r.stdout, "  "+name+"\n      --") {
			t.Errorf("shush help environment lists %s, which nothing reads", name)
		}
	}
	for _, name := range []string{"SHUSH_API_KEY", "RESEND_API_KEY", "XDG_CONFIG_HOME", "NO_COLOR", "SHUSH_DEBUG", "SHUSH_RATE"} {
		if !listed[name] {
			t.Errorf("shush help environment does not list %s:\n%s", name, r.stdout)
		}
	}
}

// commands lists every command below shush, by reading the help as a
// user does ("Available Commands:").
func commands(t *testing.T, sb *sandbox, path []string) map[string]string {
	t.Helper()
	help := sb.run(t, nil, append(path, "--help")...).want(t, 0).stdout
	out := map[string]string{strings.Join(path, " "): help}
	_, rest, ok := strings.Cut(help, "Available Commands:\n")
	if !ok {
		return out
	}
	for _, line := range strings.Split(rest, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			break
		}
		if f[0] == "help" {
			continue
		}
		for k, v := range commands(t, sb, append(slices.Clone(path), f[0])) {
			out[k] = v
		}
	}
	return out
}

func TestEveryCommandsHelpGivesItsOutputAndExitCodes(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	all := commands(t, sb, nil)
	// Commands that print no JSON: a file, a script, a log or a sentence.
	none := map[string]bool{"": true, "serve": true, "man": true, "config set-profile": true, "completion": true,
		"completion bash": true, "completion zsh": true, "completion fish": true, "completion powershell": true}
	groups := 0
	for path, help := range all {
		if strings.Contains(help, "Available Commands:") {
			groups++
			continue // a group: its commands have the line
		}
		has := strings.Contains(help, "\nOutput (--json, -q, or when stdout is a pipe or a file):\n  ")
		if has == none[path] {
			t.Errorf("shush %s --help: Output line present %v, want %v", path, has, !none[path])
		}
		if strings.Contains(strings.ToLower(help), "exit status") {
			for _, code := range []string{"0 ", "1 ", "2 ", "3 ", "4 ", "130 "} {
				if !strings.Contains(help, code) {
					t.Errorf("shush %s --help lists exit statuses without %s", path, code)
				}
			}
		}
	}
	if len(all) < 40 || groups < 6 {
		t.Errorf("found %d commands and %d groups in the help; the walk is broken", len(all), groups)
	}
	r := sb.run(t, nil, "help", "exit-codes").want(t, 0)
	for _, want := range []string{"  0 ", "  1 ", "unverified", "  2 ", "  3 ", "  4 ", "  130 "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("help exit-codes lacks %q:\n%s", want, r.stdout)
		}
	}
	if h := all["suppressions"]; !strings.Contains(h, "3 not on the") || !strings.Contains(h, "4 the service refused the key") {
		t.Errorf("suppressions --help lists its exit statuses incompletely:\n%s", h)
	}
}

// A service whose batch answers are bare IDs and which offers nothing to
// look entries up with (as a strict implementation of the spec would):
// the run cannot establish which ID is whose, and must not exit 0.
func TestUnverifiedEntriesFailTheRun(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !strings.HasPrefix(r.URL.Path, "/suppressions/batch/") {
				routeNotFound(w)
				return
			}
			rec := &bareIDs{ResponseWriter: w}
			h.ServeHTTP(rec, r)
			rec.flush()
		})
	})
	sb := newSandbox(t).at(svc)
	in := writeFile(t, sb.home, "in.txt", "a@example.com\nb@example.com\n")
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", in).want(t, 1)
	if !strings.Contains(r.stdout, `"outcome":"unverified"`) || !strings.Contains(r.stderr, "2 entries could not be verified") {
		t.Errorf("a run with unverified entries: %s", r)
	}
}

// bareIDs strips the names of a batch answer's items, as the hosted
// service answers.
type bareIDs struct {
	http.ResponseWriter
	status int
	body   []byte
}

func (b *bareIDs) WriteHeader(code int)        { b.status = code }
func (b *bareIDs) Write(p []byte) (int, error) { b.body = append(b.body, p...); return len(p), nil }
func (b *bareIDs) flush() {
	var doc struct {
		Data []map[string]any `json:"data"`
	}
	if json.Unmarshal(b.body, &doc) == nil && doc.Data != nil {
		for _, it := range doc.Data {
			delete(it, "email")
			delete(it, "created")
		}
		b.body, _ = json.Marshal(doc)
	}
	b.ResponseWriter.Header().Del("Content-Length")
	if b.status != 0 {
		b.ResponseWriter.WriteHeader(b.status)
	}
	b.ResponseWriter.Write(b.body)
}

func TestDebugAPITracesWithoutTheKey(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc).with("SHUSH_DEBUG=api")
	hook := writeFile(t, sb.home, "in.txt", "traced@example.com\n")
	r := sb.run(t, nil, "suppressions", "batch", "add", "--file", hook).want(t, 0)
	sec := sb.run(t, nil, "webhooks", "add", "https://example.com/in").want(t, 0)
	for _, run := range []result{r, sec} {
		if strings.Contains(run.stderr, svc.key) || strings.Contains(run.stderr, svc.key[len(svc.key)-12:]) {
			t.Fatalf("the trace shows the API key: %s", run)
		}
	}
	for _, want := range []string{`> #\d+ POST ` + regexp.QuoteMeta(svc.url) + `/suppressions/batch/add\n`, `Authorization: Bearer \[redacted\]\n`,
		`\n\{"emails":\["traced@example.com"\]\}\n`, `< #\d+ 201 Created \(\d+ms\)\n`, `Ratelimit-Limit: 1000\n`, `"email":"traced@example.com","created":true`} {
		if !regexp.MustCompile(want).MatchString(r.stderr) {
			t.Errorf("the trace lacks %s:\n%s", want, r.stderr)
		}
	}
	// The signing secret is on stdout for the user, never in the trace.
	secret := decode[struct {
		SigningSecret string `json:"signing_secret"`
	}](t, sec).SigningSecret
	if secret == "" || strings.Contains(sec.stderr, secret) || !strings.Contains(sec.stderr, `"signing_secret":"[redacted]"`) {
		t.Errorf("the trace of webhooks add shows the signing secret or no answer: %s", sec)
	}
	// A password in the base URL is never traced either.
	withPass := strings.Replace(svc.url, "http://", "http://ops:hunter2@", 1)
	r = newSandbox(t).with("SHUSH_DEBUG=api", "SHUSH_BASE_URL="+withPass, "SHUSH_API_KEY="+svc.key).run(t, nil, "suppressions", "list")
	if strings.Contains(r.stderr, "hunter2") || strings.Contains(r.stderr, svc.key) || !strings.Contains(r.stderr, "> #1 GET http://***@") {
		t.Errorf("a URL password or the key in the trace: %s", r)
	}
}

// A dry run, a removal's question and an undo's dry run list every
// address they would touch: in JSON for a script; in columns, through the
// pager when longer than the screen, for a person at a terminal.
func TestDryRunsListWhatTheyTouch(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	in := writeFile(t, sb.home, "in.txt", "b@example.com\na@example.com\nB@example.com\nbroken@\n")
	plan := decode[struct {
		Values []string `json:"values"`
	}](t, sb.run(t, nil, "suppressions", "batch", "remove", "--file", in, "--dry-run").want(t, 0))
	if !slices.Equal(plan.Values, []string{"b@example.com", "a@example.com"}) {
		t.Errorf("dry run values %v, want every address to send, in order", plan.Values)
	}
}

func TestLongListingsArePagedOnATerminal(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	t.Parallel()
	sb := newSandbox(t)
	var body strings.Builder
	for i := range 120 {
		fmt.Fprintf(&body, "person%03d@example.com\n", i)
	}
	writeFile(t, sb.home, "in.txt", body.String())
	writeFile(t, sb.home, "script.sh", strings.Join([]string{
		shushBin + " suppressions batch add --file in.txt --dry-run",
		`echo "dry run exit $?"`,
		"read _", // the screen holds still until the test has read it
		shushBin + " suppressions batch add --file in.txt > /dev/null",
		shushBin + " suppressions batch remove --file in.txt",
		`echo "remove exit $?"`,
	}, "\n")+"\n")
	pane := startPane(t, sb, 160, 12, "PAGER=less")
	// 120 addresses in seven columns are taller than 12 lines: less shows
	// the first screen of the plan, and waits.
	pane.wait("Would add 120 addresses on the local list", "It would add:", "person000@example.com")
	if strings.Contains(pane.capture(), "dry run exit") {
		t.Fatal("the long dry run was not paged")
	}
	pane.keys("q")
	pane.wait("dry run exit 0")
	pane.keys("Enter")
	// The removal shows the addresses the same way before it asks.
	pane.wait("These 120 addresses would be removed:")
	pane.keys("q")
	pane.wait("Remove 120 addresses from the local list", "[y/N]")
	pane.keys("y", "Enter")
	pane.wait("remove exit 0")
}

// pane is a tmux window running script.sh of a sandbox.
type pane struct {
	t      *testing.T
	socket string
}

func startPane(t *testing.T, sb *sandbox, width, height int, env ...string) *pane {
	t.Helper()
	p := &pane{t: t, socket: fmt.Sprintf("shush-pane-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	vars := []string{"TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	for _, kv := range sb.env {
		if strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "SHUSH_") {
			vars = append(vars, kv)
		}
	}
	vars = append(vars, env...)
	quoted := make([]string, len(vars))
	for i, kv := range vars {
		quoted[i] = shQuote(kv)
	}
	p.tmux("-f", os.DevNull, "new-session", "-d", "-s", "p", "-x", fmt.Sprint(width), "-y", fmt.Sprint(height), "-c", sb.home,
		"env -i "+strings.Join(quoted, " ")+" sh script.sh; sleep 60")
	t.Cleanup(func() { exec.Command("tmux", "-L", p.socket, "kill-server").Run() })
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (p *pane) capture() string { return p.tmux("capture-pane", "-p", "-t", "p") }

func (p *pane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "p"}, keys...)...) }

func (p *pane) wait(want ...string) string {
	p.t.Helper()
	var screen string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		screen = p.capture()
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(screen, w)
		}
		if ok {
			return screen
		}
	}
	p.t.Fatalf("the terminal never showed %q; it shows:\n%s", want, screen)
	return ""
}

// With RESEND_API_KEY exported and nothing set for shush, the UI works on
// the hosted service, and its first line says so and why; the CLI says it
// on stderr. shush config names the variable as the key's source.
func TestEnvironmentFallbackIsAnnounced(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).with("RESEND_API_KEY="+svc.key, "RESEND_BASE_URL="+svc.url)
	r := sb.run(t, nil, "suppressions", "list").want(t, 0)
	want := "working on " + svc.url + ", not the local list: RESEND_API_KEY is set and no service is configured for shush"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("the CLI did not say where it works and why: %s", r)
	}
	writeFile(t, sb.home, "script.sh", shushBin+"\n")
	pane := startPane(t, sb, 200, 20, "RESEND_API_KEY="+svc.key, "RESEND_BASE_URL="+svc.url)
	pane.wait("W" + want[1:])
	pane.keys("q")
}

// doctor checks the settings, the service, the key, its access and the
// clocks, and exits 0, 1 or 4 as a script needs.
func TestDoctor(t *testing.T) {
	t.Parallel()
	type report struct {
		OK     bool `json:"ok"`
		Checks []struct {
			Name   string `json:"name"`
			OK     bool   `json:"ok"`
			Detail string `json:"detail"`
		} `json:"checks"`
	}
	detail := func(r report, name string) string {
		for _, c := range r.Checks {
			if c.Name == name {
				return fmt.Sprintf("%v %s", c.OK, c.Detail)
			}
		}
		return "(no " + name + " check)"
	}
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).at(svc)
	r := sb.run(t, nil, "doctor").want(t, 0)
	rep := decode[report](t, r)
	if !rep.OK || !strings.HasPrefix(detail(rep, "access"), "true read-write") || !strings.HasPrefix(detail(rep, "key"), "true ") ||
		!strings.HasPrefix(detail(rep, "clock"), "true the service's clock agrees") || !strings.Contains(detail(rep, "version"), "shush ") {
		t.Errorf("doctor on a working service: %s", r)
	}
	if strings.Contains(r.stdout, svc.key) {
		t.Fatalf("doctor printed the key: %s", r)
	}
	// A read-only key works, and doctor says what it may do.
	_, roKey, err := server.CreateKey(t.Context(), svc.store, svc.team, true)
	if err != nil {
		t.Fatal(err)
	}
	rep = decode[report](t, newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+roKey).run(t, nil, "doctor").want(t, 0))
	if !strings.HasPrefix(detail(rep, "access"), "true read-only") {
		t.Errorf("doctor with a read-only key: %+v", rep)
	}
	// A refused key: exit 4.
	r = newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY=shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa").run(t, nil, "doctor").want(t, 4)
	if rep := decode[report](t, r); !strings.HasPrefix(detail(rep, "key"), "false ") || !strings.Contains(r.stderr, "doctor: key:") {
		t.Errorf("doctor with a refused key: %s", r)
	}
	// Nothing answers: exit 1.
	r = newSandbox(t).with("SHUSH_BASE_URL=http://127.0.0.1:1", "SHUSH_API_KEY=k").run(t, nil, "doctor").want(t, 1)
	if rep := decode[report](t, r); !strings.HasPrefix(detail(rep, "service"), "false http://127.0.0.1:1 does not answer") {
		t.Errorf("doctor without a service: %s", r)
	}
	// A service whose clock is two hours ahead: exit 1, and by how much.
	ahead := newService(t, server.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Date", time.Now().Add(2*time.Hour).UTC().Format(http.TimeFormat))
			h.ServeHTTP(w, r)
		})
	})
	r = newSandbox(t).at(ahead).run(t, nil, "doctor").want(t, 1)
	if rep := decode[report](t, r); !strings.HasPrefix(detail(rep, "clock"), "false the service's clock is about 2h0m0s ahead of this machine's") {
		t.Errorf("doctor against a clock two hours ahead: %s", r)
	}
}

// Nothing shush config prints shows a credential: the key masked, a base
// URL's password or token user removed, in JSON and on a terminal alike.
func TestConfigShowsNoCredential(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t).with("SHUSH_BASE_URL=https://ops:hunter2@suppressions.example.com", "SHUSH_API_KEY=shush_0123456789abcdef_secretsecretsecret")
	r := sb.run(t, nil, "config").want(t, 0)
	for _, leak := range []string{"hunter2", "ops:", "secretsecretsecret"} {
		if strings.Contains(r.stdout+r.stderr, leak) {
			t.Errorf("shush config shows %q: %s", leak, r)
		}
	}
	if !strings.Contains(r.stdout, `"value": "https://***@suppressions.example.com"`) || !strings.Contains(r.stdout, `"target": "https://***@suppressions.example.com"`) {
		t.Errorf("shush config does not show the base URL masked: %s", r)
	}
	r = newSandbox(t).with("SHUSH_BASE_URL=https://re_tokenasuser@api.example.com").run(t, nil, "config").want(t, 0)
	if strings.Contains(r.stdout, "re_tokenasuser") {
		t.Errorf("a token in the base URL's user shows: %s", r)
	}
	// Where no keychain runs, --keychain fails in one sentence and writes
	// nothing: the key is never left half-stored.
	key := "shush_0123456789abcdef_keychainkeychainkey"
	nokc := newSandbox(t).with("DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent", "PATH=/nonexistent")
	r = nokc.run(t, []byte(key+"\n"),
		"config", "set-profile", "work", "--base-url", "https://x.example.com", "--api-key-stdin", "--keychain")
	if r.code == 0 || !strings.Contains(r.stderr, "the OS keychain cannot store the key of profile") || strings.Contains(r.stderr, key) {
		t.Errorf("set-profile --keychain without a keychain: %s", r)
	}
	if _, err := os.Stat(nokc.configFile()); err == nil {
		t.Error("a config file was written")
	}
}
