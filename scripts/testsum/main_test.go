package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module writes a module of test files to a new directory.
func module(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, text := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goTestJSON runs the real go test -json ./... in dir and summarises it.
func goTestJSON(t *testing.T, dir string, flags ...string) (string, bool) {
	t.Helper()
	cmd := exec.Command("go", append(append([]string{"test", "-json"}, flags...), "./...")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=")
	events, _ := cmd.Output() // failing packages make it exit 1
	var out bytes.Buffer
	failed, err := summarise(bytes.NewReader(events), &out)
	if err != nil {
		t.Fatal(err)
	}
	return out.String(), failed
}

const (
	skipping = `package skipping
import "testing"
func TestDB(t *testing.T)    { t.Skip("PostgreSQL tests skipped: set SHUSH_TEST_POSTGRES") }
func TestDB2(t *testing.T)   { t.Skip("PostgreSQL tests skipped: set SHUSH_TEST_POSTGRES") }
func TestTmux(t *testing.T)  { t.Run("pane", func(t *testing.T) { t.Skip("tmux is not installed") }) }
func TestQuiet(t *testing.T) { t.Log("a passing test's log") }
`
	failing = `package failing
import "testing"
func TestAnswer(t *testing.T) {
	t.Log("the request went out")
	t.Run("status", func(t *testing.T) { t.Error("status 500, want 201") })
}
func TestFine(t *testing.T) { t.Log("fine and quiet") }
`
	broken = `package broken
import "testing"
func TestBroken(t *testing.T) { undefinedThing() }
`
)

// A run with a failing test and a package that does not build: the
// failures in full and named at the end, passing tests' output left out,
// one line for the package that skipped, and a failed status.
func TestFailuresInFullAndSkipsInALine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a go test run of its own")
	}
	out, failed := goTestJSON(t, module(t, map[string]string{
		"skipping/s_test.go": skipping, "failing/f_test.go": failing, "broken/b_test.go": broken,
	}))
	if !failed {
		t.Errorf("a run with failures summarised as passing:\n%s", out)
	}
	for _, want := range []string{
		"ok  \texample.com/m/skipping",
		"status 500, want 201",
		"the request went out",
		"--- FAIL: TestAnswer/status",
		"undefined: undefinedThing",
		"FAIL\texample.com/m/failing",
		"skip\texample.com/m/skipping\t3 skipped: 2 × \"PostgreSQL tests skipped: set SHUSH_TEST_POSTGRES\" and 1 other reasons\n",
		"FAIL: 3\n  example.com/m/broken [example.com/m/broken.test] [build failed]\n  example.com/m/failing TestAnswer/status\n  example.com/m/failing TestAnswer\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	for _, noise := range []string{"a passing test's log", "fine and quiet", "=== RUN   TestFine"} {
		if strings.Contains(out, noise) {
			t.Errorf("the summary shows a passing test's output %q:\n%s", noise, out)
		}
	}
}

// A run where everything passes or skips passes, and still says what
// skipped and why, per package.
func TestSkipsAloneDoNotFail(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a go test run of its own")
	}
	out, failed := goTestJSON(t, module(t, map[string]string{"skipping/s_test.go": skipping}))
	if failed {
		t.Errorf("a run with skips only summarised as failed:\n%s", out)
	}
	if !strings.Contains(out, "skip\texample.com/m/skipping\t3 skipped") || !strings.Contains(out, "3 tests skipped in 1 package(s)") || strings.Contains(out, "FAIL") {
		t.Errorf("the summary of a passing run:\n%s", out)
	}
}

// A package that runs out of time: the panic and the test it cut short
// are shown, though test2json hands the panic to another test it then
// reports passed.
func TestATimeoutIsShown(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping a go test run of its own")
	}
	out, failed := goTestJSON(t, module(t, map[string]string{"slow/s_test.go": `package slow
import ("testing"; "time")
func TestSlow(t *testing.T)   { t.Parallel(); time.Sleep(time.Minute) }
func TestChatty(t *testing.T) { t.Parallel(); for i := 0; i < 30; i++ { t.Log("tick"); time.Sleep(100 * time.Millisecond) } }
`}), "-timeout", "2s")
	if !failed {
		t.Errorf("a timed-out run summarised as passing:\n%s", out)
	}
	for _, want := range []string{"panic: test timed out after 2s", "example.com/m/slow TestSlow (did not finish)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
}

// The events of a real timeout (go test ./... under load, shortened):
// test2json handed the panic and the goroutines to a test that had printed
// last, and then reported that test passed. The panic is still shown, and
// the test that was running named.
func TestPanicHandedToAPassingTest(t *testing.T) {
	events := `{"Action":"start","Package":"example.com/m"}
{"Action":"run","Package":"example.com/m","Test":"TestRelease"}
{"Action":"output","Package":"example.com/m","Test":"TestRelease","Output":"=== RUN   TestRelease\n"}
{"Action":"run","Package":"example.com/m","Test":"TestExports"}
{"Action":"output","Package":"example.com/m","Test":"TestExports","Output":"=== RUN   TestExports\n"}
{"Action":"output","Package":"example.com/m","Test":"TestExports","Output":"panic: test timed out after 10m0s\n"}
{"Action":"output","Package":"example.com/m","Test":"TestExports","Output":"\trunning tests:\n"}
{"Action":"output","Package":"example.com/m","Test":"TestExports","Output":"\t\tTestRelease (4m6s)\n"}
{"Action":"pass","Package":"example.com/m","Test":"TestExports","Elapsed":1.39}
{"Action":"output","Package":"example.com/m","Output":"FAIL\texample.com/m\t609.902s\n"}
{"Action":"fail","Package":"example.com/m","Elapsed":609.903}
`
	var out bytes.Buffer
	failed, err := summarise(strings.NewReader(events), &out)
	if err != nil || !failed {
		t.Fatalf("failed %v, err %v", failed, err)
	}
	for _, want := range []string{"FAIL\texample.com/m\t609.902s\n", "panic: test timed out after 10m0s\n\trunning tests:\n\t\tTestRelease (4m6s)\n", "FAIL: 1\n  example.com/m TestRelease (did not finish)\n"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the summary lacks %q:\n%s", want, out.String())
		}
	}
}
