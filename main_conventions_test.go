package main

// The conventions scripts ported from gh and the Resend CLI rely on, each
// driven through the built binary: a global --json and -q, the Resend
// CLI's verbs, --jq strings raw, - as stdout, suggestions for typos, the
// environment topic, an Output line and complete exit codes in the help,
// unverified entries failing the run, and the trace of SHUSH_DEBUG=api.

import (
	"fmt"
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
