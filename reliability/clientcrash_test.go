package reliability

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestClientCrashResume imports 100,000 addresses with the CLI, kills the
// CLI with SIGKILL part-way, and finishes the import with --resume: the
// list then holds exactly the input set, nothing more, nothing less.
func TestClientCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 100,000 addresses; skipped with -short")
	}
	const n = 100_000
	dir := t.TempDir()
	dsn := filepath.Join(dir, "shush.db")
	key := createKey(t, dsn, "import", false)
	p := serve(t, dsn, "--rate", "100000")
	p.waitHealthy()

	// Mixed case and padding: the list holds the normalized form.
	input := filepath.Join(dir, "addresses.txt")
	f, err := os.Create(input)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	want := make(map[string]bool, n)
	for i := range n {
		fmt.Fprintf(w, "  User%06d@Resume.Example.COM\n", i)
		want[fmt.Sprintf("user%06d@resume.example.com", i)] = true
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	f.Close()

	env := append(isolatedEnv(t), "SHUSH_BASE_URL="+p.url, "SHUSH_API_KEY="+key)
	run := func(args ...string) *exec.Cmd {
		cmd := exec.Command(shushBin, append([]string{"suppressions", "batch", "add", "--file", input}, args...)...)
		cmd.Env = env
		return cmd
	}
	c := newClient(p.url, key)
	first := run()
	var firstOut strings.Builder
	first.Stdout, first.Stderr = &firstOut, &firstOut
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- first.Wait() }()
	// Kill once a tenth of the input is on the list.
	probe := fmt.Sprintf("user%06d@resume.example.com", n/10)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, ok := c.get(t, probe); ok {
			break
		}
		select {
		case err := <-exited:
			t.Fatalf("the import ended (%v) before it could be killed:\n%s", err, firstOut.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("the import did not reach %s within 2 minutes:\n%s", probe, firstOut.String())
		}
	}
	_ = first.Process.Signal(syscall.SIGKILL)
	<-exited
	partial := len(c.list(t))
	if partial >= n {
		t.Fatalf("the import had finished (%d entries) when it was killed", partial)
	}
	report(t, "CLI import of %d addresses killed with SIGKILL with %d on the list", n, partial)

	second := run("--resume")
	out, err := second.CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "unknown flag") {
			t.Skipf("the CLI has no --resume yet: %s", out)
		}
		t.Fatalf("--resume: %v\n%s", err, out)
	}
	got := c.list(t)
	extra := 0
	seen := make(map[string]bool, len(got))
	for _, e := range got {
		if seen[e.Email] {
			t.Errorf("%s is on the list twice", e.Email)
		}
		seen[e.Email] = true
		if !want[e.Email] {
			extra++
		}
	}
	missing := 0
	for e := range want {
		if !seen[e] {
			missing++
		}
	}
	if extra > 0 || missing > 0 || len(got) != n {
		t.Fatalf("after --resume the list holds %d entries: %d not in the input, %d of the input missing", len(got), extra, missing)
	}
	report(t, "after --resume the list equals the input set (%d addresses); the CLI said: %s", n, lineWith(string(out), "Resuming"))
}

// lineWith returns the first line of s that contains sub, or s's last line.
func lineWith(s, sub string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return strings.TrimSpace(l)
		}
	}
	return lines[len(lines)-1]
}
