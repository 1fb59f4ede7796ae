// Command testsum reads the events of go test -json on stdin and prints
// what a person needs of them: each package's result line as go test
// prints it, the whole output of every test that failed (and of a package
// that failed outside its tests, or did not build), then one line per
// package whose tests skipped, with how many and why. It exits 1 when
// anything failed, so that
//
//	go test -json ./... | go run ./scripts/testsum
//
// fails as go test ./... does (with set -o pipefail, go test's own status
// counts too).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json), and of the build
// events go test -json writes since Go 1.24.
type event struct {
	Action     string
	Package    string
	Test       string
	Output     string
	ImportPath string
	// FailedBuild names the package whose build failed a test binary.
	FailedBuild string
}

// pkg gathers one package's events.
type pkg struct {
	out     strings.Builder             // output outside any test
	tests   map[string]*strings.Builder // output of tests still running
	skips   int
	reasons map[string]int
	// testFailed: a test of it failed (and is listed by its name).
	testFailed bool
	// panicked: the test binary panicked (a timeout included). test2json
	// gives the panic and the goroutines to whichever test printed last,
	// even one it then reports passed, so from the panic on the package's
	// output is kept as its own.
	panicked bool
}

func main() {
	failed, err := summarise(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(2)
	}
	if failed {
		os.Exit(1)
	}
}

// summarise writes the summary of the events on r to w and reports
// whether anything failed.
func summarise(r io.Reader, w io.Writer) (bool, error) {
	sm := &summary{w: w, pkgs: map[string]*pkg{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		sm.line(sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		return true, err
	}
	sm.report()
	return sm.failed, nil
}

// summary is what summarise has read so far.
type summary struct {
	w        io.Writer
	pkgs     map[string]*pkg
	failures []string
	failed   bool
}

// get is the package called name, begun on first sight.
func (sm *summary) get(name string) *pkg {
	p := sm.pkgs[name]
	if p == nil {
		p = &pkg{tests: map[string]*strings.Builder{}, reasons: map[string]int{}}
		sm.pkgs[name] = p
	}
	return p
}

// line takes one line of go test -json's output.
func (sm *summary) line(line []byte) {
	var e event
	if len(line) == 0 || line[0] != '{' || json.Unmarshal(line, &e) != nil {
		// not an event: the go command's own words
		fmt.Fprintf(sm.w, "%s\n", line)
		return
	}
	switch {
	case e.Action == "build-output":
		fmt.Fprint(sm.w, e.Output)
	case e.Action == "build-fail":
		sm.failed = true
		sm.failures = append(sm.failures, e.ImportPath+" [build failed]")
	case e.Test == "":
		sm.packageEvent(e, sm.get(e.Package))
	default:
		sm.testEvent(e, sm.get(e.Package))
	}
}

// packageEvent takes an event of package p outside its tests.
func (sm *summary) packageEvent(e event, p *pkg) {
	switch e.Action {
	case "output":
		if strings.HasPrefix(e.Output, "panic: ") {
			p.panicked = true
		}
		switch {
		case isResult(e.Output):
			fmt.Fprint(sm.w, e.Output)
		case e.Output != "PASS\n" && e.Output != "FAIL\n" && !strings.HasPrefix(e.Output, "exit status "):
			p.out.WriteString(e.Output)
		}
	case "fail":
		sm.failed = true
		// A package that failed outside its tests (TestMain, a panic, a
		// timeout): its own output, and the tests it cut short.
		running := sortedKeys(p.tests)
		if p.out.Len() > 0 || len(running) > 0 {
			fmt.Fprintf(sm.w, "=== output of %s\n%s", e.Package, p.out.String())
			for _, name := range running {
				fmt.Fprint(sm.w, p.tests[name].String())
				sm.failures = append(sm.failures, e.Package+" "+name+" (did not finish)")
			}
		}
		if len(running) == 0 && !p.testFailed && e.FailedBuild == "" {
			sm.failures = append(sm.failures, e.Package)
		}
	}
}

// testEvent takes an event of one of package p's tests.
func (sm *summary) testEvent(e event, p *pkg) {
	switch e.Action {
	case "run":
		p.tests[e.Test] = &strings.Builder{}
	case "output":
		if strings.HasPrefix(e.Output, "panic: ") {
			p.panicked = true
		}
		if p.panicked {
			p.out.WriteString(e.Output)
		} else if b := p.tests[e.Test]; b != nil {
			b.WriteString(e.Output)
		}
	case "pass":
		delete(p.tests, e.Test)
	case "skip":
		p.skips++
		p.reasons[skipReason(p.tests[e.Test])]++
		delete(p.tests, e.Test)
	case "fail":
		sm.failed = true
		p.testFailed = true
		if b := p.tests[e.Test]; b != nil {
			fmt.Fprint(sm.w, b.String())
		}
		sm.failures = append(sm.failures, e.Package+" "+e.Test)
		delete(p.tests, e.Test)
	}
}

// report writes the skips per package and the failures.
func (sm *summary) report() {
	skipped, tests := 0, 0
	for _, name := range sortedKeys(sm.pkgs) {
		p := sm.pkgs[name]
		if p.skips == 0 {
			continue
		}
		skipped++
		tests += p.skips
		fmt.Fprintf(sm.w, "skip\t%s\t%d skipped: %s\n", name, p.skips, reasons(p.reasons))
	}
	if skipped > 0 {
		fmt.Fprintf(sm.w, "%d tests skipped in %d package(s); see why with go test -v -run 'TestX' ./pkg\n", tests, skipped)
	}
	if len(sm.failures) > 0 {
		fmt.Fprintf(sm.w, "FAIL: %d\n", len(sm.failures))
		for _, f := range sm.failures {
			fmt.Fprintf(sm.w, "  %s\n", f)
		}
	}
}

// isResult tells go test's line for a package (ok, FAIL, ?) from output.
func isResult(s string) bool {
	for _, p := range []string{"ok  \t", "FAIL\t", "?   \t"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// skipReason is the message of t.Skip: the last output line before
// "--- SKIP", without its file:line.
func skipReason(b *strings.Builder) string {
	if b == nil {
		return "no reason given"
	}
	reason := "no reason given"
	for _, line := range strings.Split(b.String(), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "--- SKIP") {
			break
		}
		if trimmed == "" || strings.HasPrefix(trimmed, "=== ") {
			continue
		}
		if _, msg, ok := strings.Cut(trimmed, ".go:"); ok {
			if _, after, ok := strings.Cut(msg, ": "); ok {
				trimmed = after
			}
		}
		reason = trimmed
	}
	return reason
}

// reasons puts the most frequent reason first, its count with it, and
// says how many others there are.
func reasons(m map[string]int) string {
	type r struct {
		text string
		n    int
	}
	var all []r
	for text, n := range m {
		all = append(all, r{text, n})
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].n != all[j].n {
			return all[i].n > all[j].n
		}
		return all[i].text < all[j].text
	})
	top := all[0].text
	if r := []rune(top); len(r) > 100 {
		top = string(r[:97]) + "..."
	}
	s := fmt.Sprintf("%d × %q", all[0].n, top)
	if len(all) > 1 {
		s += fmt.Sprintf(" and %d other reasons", len(all)-1)
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
