package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Completion offers flag values and files by extension, through cobra's
// __complete (what the shell scripts of `shush completion` call).
func TestCompletionOffersValues(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "suppressions", "list", "--origin", "b"}, []string{"bounce"}},
		{[]string{"__complete", "suppressions", "list", "--origin", ""}, []string{"bounce", "complaint", "manual"}},
		{[]string{"__complete", "serve", "--log-format", ""}, []string{"text", "json"}},
		{[]string{"__complete", "suppressions", "batch", "add", "--file", ""}, []string{"txt", "csv", "json", ":8"}},
	} {
		r := sb.run(t, nil, c.args...).want(t, 0)
		for _, w := range c.want {
			if !strings.Contains(r.stdout, w+"\n") {
				t.Errorf("%v: no %q in %q", c.args, w, r.stdout)
			}
		}
	}
	// Profiles come from the config file.
	os.MkdirAll(filepath.Dir(sb.configFile()), 0o700)
	writeFile(t, filepath.Dir(sb.configFile()), "config.toml", "[profiles.work]\nbase_url = \"https://a.example\"\n[profiles.wolf]\nbase_url = \"https://b.example\"\n")
	r := sb.run(t, nil, "__complete", "suppressions", "list", "--profile", "wo").want(t, 0)
	if !strings.Contains(r.stdout, "work\n") || !strings.Contains(r.stdout, "wolf\n") {
		t.Errorf("profiles: %q", r.stdout)
	}
	// Key IDs for keys revoke, from the default database.
	key := sb.run(t, nil, "keys", "create", "--team", "support", "--json").want(t, 0)
	id := decode[struct{ ID string }](t, key).ID
	r = sb.run(t, nil, "__complete", "keys", "revoke", "").want(t, 0)
	if !strings.Contains(r.stdout, id+"\tteam support") {
		t.Errorf("key IDs: %q; want %s", r.stdout, id)
	}
}

// The version comes from the build: a VCS build names its revision; a
// release build (-ldflags) its stamped version; both in --version, shush
// version and the User-Agent.
func TestVersionFromTheBuild(t *testing.T) {
	t.Parallel()
	rev, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if st, serr := os.Stat(".git"); err != nil || serr != nil || !st.IsDir() {
		t.Skip("not a plain git checkout (go stamps no VCS data in a linked worktree): the VCS-stamped build cannot be checked")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "shush-vcs")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"revision": "`+strings.TrimSpace(string(rev))+`"`) || strings.Contains(string(out), `"version": "dev"`) {
		t.Errorf("version of a VCS build: %s", out)
	}
	stamped := filepath.Join(dir, "shush-release")
	build = exec.Command("go", "build", "-ldflags", "-X github.com/shushlist/shush/cli.Version=v9.8.7", "-o", stamped, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build -ldflags: %v\n%s", err, out)
	}
	v, _ := exec.Command(stamped, "--version").Output()
	if strings.TrimSpace(string(v)) != "shush version v9.8.7" {
		t.Errorf("--version of a release build: %q", v)
	}
}

// The release recipe makes an archive per target (one here, every target
// in a release) holding the stamped binary, LICENSE, README and the manual
// it links to, completions, manual pages and the third-party notices of the
// modules linked into it, and SHA256SUMS over the archives.
func TestReleaseScript(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: skipping the release build")
	}
	for _, tool := range []string{"sha256sum", "tar", "zip"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skip(tool + " is not installed")
		}
	}
	dist := t.TempDir()
	cmd := exec.Command("bash", "scripts/release.sh", "v1.2.3-rc1")
	cmd.Env = append(os.Environ(), "DIST="+dist, "TARGETS=linux/amd64")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("release.sh: %v\n%s", err, out)
	}
	const name = "shush_1.2.3-rc1_linux_amd64"
	sums, _ := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	check := exec.Command("sha256sum", "-c", "SHA256SUMS")
	check.Dir = dist
	if out, err := check.CombinedOutput(); err != nil || !strings.Contains(string(sums), name+".tar.gz") {
		t.Errorf("SHA256SUMS %q does not check: %v %s", sums, err, out)
	}
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dist, name+".tar.gz"), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("unpack: %v\n%s", err, out)
	}
	root := filepath.Join(unpacked, name)
	if v, err := exec.Command(filepath.Join(root, "shush"), "--version").Output(); err != nil || strings.TrimSpace(string(v)) != "shush version v1.2.3-rc1" {
		t.Errorf("the released binary says %q (%v)", v, err)
	}
	read := func(rel string) string {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Errorf("the archive lacks %s", rel)
		}
		return string(b)
	}
	for rel, want := range map[string]string{
		"LICENSE":                              "MIT License",
		"README.md":                            "# shush",
		"docs/cli.md":                          "# The command line",
		"docs/screens/screens.md":              "shush terminal UI: screens",
		"completions/shush.bash":               "__start_shush",
		"completions/_shush":                   "#compdef shush",
		"completions/shush.fish":               "complete -c shush",
		"completions/shush.ps1":                "Register-ArgumentCompleter",
		"man/man1/shush.1":                     `.TH "SHUSH" "1"`,
		"man/man1/shush-suppressions-list.1":   "shush-suppressions-list",
		"man/man1/shush-suppressions-export.1": "shush v1.2.3-rc1",
		"THIRD_PARTY_NOTICES.txt":              "Third-party notices of shush v1.2.3-rc1 (linux/amd64)",
	} {
		if got := read(rel); !strings.Contains(got, want) {
			t.Errorf("%s does not hold %q", rel, want)
		}
	}
	// The notices hold each linked module's licence, and the NOTICE files
	// Apache-2.0 asks to pass on (Prometheus's).
	notices := read("THIRD_PARTY_NOTICES.txt")
	for _, want := range []string{
		"github.com/spf13/cobra v", "Apache License", "github.com/prometheus/client_golang v",
		"NOTICE\n\nPrometheus instrumentation library for Go applications", "modernc.org/sqlite v", "LICENSE-SQLITE",
		"Go go1.", "Copyright 2009 The Go Authors",
	} {
		if !strings.Contains(notices, want) {
			t.Errorf("THIRD_PARTY_NOTICES.txt lacks %q", want)
		}
	}
	if out, err := exec.Command("bash", "scripts/release.sh", "1.2").CombinedOutput(); err == nil || !strings.Contains(string(out), "usage:") {
		t.Errorf("a bad version was accepted: %s", out)
	}
}
