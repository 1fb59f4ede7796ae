package cli

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shushlist/shush/config"
)

// keyFile writes key to a file only its owner may read.
func keyFile(t *testing.T, key string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "key")
	if err := os.WriteFile(p, []byte(key), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAPIKeyFromAFile(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, nil)
	file := keyFile(t, "\n  "+svc.Key+"  \n", 0o600)
	if err := ta.exec(t, "--base-url", svc.URL, "--api-key-file", file, "suppressions", "get", "a@example.com"); err != nil {
		t.Fatalf("get with --api-key-file: %v", err)
	}
	ta.reset()
	if err := ta.exec(t, "--base-url", svc.URL, "--api-key-file", file, "config"); err != nil {
		t.Fatal(err)
	}
	var v configView
	ta.decode(t, &v)
	if v.APIKey.Source != "--api-key flag" || v.APIKey.Value == "" || strings.Contains(ta.out.String(), svc.Key) {
		t.Errorf("config with --api-key-file: %+v", v.APIKey)
	}
}

func TestAPIKeyFlagsRefuseBadKeys(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, nil)
	dir := t.TempDir()
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--api-key-file", filepath.Join(dir, "none")}, "--api-key-file: " + filepath.Join(dir, "none") + " does not exist"},
		{[]string{"--api-key-file", keyFile(t, "  \n", 0o600)}, "the API key read from "},
		{[]string{"--api-key-file", keyFile(t, "two words\n", 0o600)}, "is empty or holds white space"},
		{[]string{"--api-key", svc.Key, "--api-key-file", keyFile(t, svc.Key, 0o600)}, "give the API key one way: --api-key, --api-key-file or --api-key-stdin"},
		{[]string{"--api-key-stdin", "--api-key", svc.Key}, "give the API key one way"},
	}
	if runtime.GOOS != "windows" {
		cases = append(cases, struct {
			args []string
			want string
		}{[]string{"--api-key-file", keyFile(t, svc.Key, 0o644)}, "--api-key-file: "})
	}
	for _, c := range cases {
		ta.reset()
		err := ta.exec(t, append(append([]string{"--base-url", svc.URL}, c.args...), "suppressions", "list")...)
		wantErr(t, err, ExitUsage, c.want)
		if err != nil && strings.Contains(err.Error(), svc.Key) {
			t.Errorf("the error shows the key: %v", err)
		}
		if ta.out.Len() != 0 {
			t.Errorf("%v printed %q", c.args, ta.out.String())
		}
	}

	// A terminal on stdin has no key to give.
	ta.reset()
	ta.io.StdinTTY = true
	wantErr(t, ta.exec(t, "--base-url", svc.URL, "--api-key-stdin", "suppressions", "list"), ExitUsage,
		"--api-key-stdin reads the key from stdin, but nothing is piped to it")
}

// TestAPIKeyFromStdinBeforeTheInput: with --api-key-stdin and --file -,
// the key is stdin's first line and the entries the rest.
func TestAPIKeyFromStdinBeforeTheInput(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, nil)
	ta.stdin(svc.Key + "\na@example.com\nb@example.com\n")
	if err := ta.exec(t, "--base-url", svc.URL, "--api-key-stdin", "suppressions", "batch", "add", "--file", "-"); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	if got := doc.outcomes(); len(got) != 2 || got["a@example.com"] != "added" || got["b@example.com"] != "added" {
		t.Errorf("outcomes %v", got)
	}
	if strings.Contains(ta.out.String()+ta.err.String(), svc.Key) {
		t.Error("the key was taken for an entry or shown")
	}
	if l := svc.listed(t); len(l) != 2 {
		t.Errorf("listed %v", l)
	}
}

func TestSettingsFromTheEnvironment(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, nil)
	t.Setenv(config.EnvBaseURL, svc.URL)
	t.Setenv(config.EnvAPIKey, svc.Key)
	if err := ta.exec(t, "config"); err != nil {
		t.Fatal(err)
	}
	var v configView
	ta.decode(t, &v)
	if v.BaseURL.Value != svc.URL || v.BaseURL.Source != config.EnvBaseURL || v.APIKey.Source != config.EnvAPIKey || v.Target != svc.URL || v.DB != nil {
		t.Errorf("config from the environment: %+v", v)
	}

	// A key with no base URL is a mistake, not the local list.
	ta.reset()
	t.Setenv(config.EnvBaseURL, "")
	wantErr(t, ta.exec(t, "suppressions", "list"), ExitUsage, "an API key is set (from SHUSH_API_KEY) but no base URL")
	if ta.out.Len() != 0 {
		t.Errorf("printed %q", ta.out.String())
	}

	// A base URL with no key says how to give one.
	ta.reset()
	t.Setenv(config.EnvBaseURL, svc.URL)
	t.Setenv(config.EnvAPIKey, "")
	wantErr(t, ta.exec(t, "suppressions", "list"), ExitUsage, "no API key for "+svc.URL+": pass --api-key, set SHUSH_API_KEY")

	ta.reset()
	t.Setenv(config.EnvBaseURL, "ftp://example.com")
	wantErr(t, ta.exec(t, "config"), ExitUsage, "SHUSH_BASE_URL")
}

// TestResendVariablesSayWhichServiceIsUsed: RESEND_API_KEY alone (nothing
// set for shush) works on the hosted API's base URL, and a person is told
// at once that it is not the local list.
func TestResendVariablesSayWhichServiceIsUsed(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, nil)
	t.Setenv(config.EnvResendAPIKey, svc.Key)
	t.Setenv(config.EnvResendBaseURL, svc.URL)
	if err := ta.exec(t, "suppressions", "get", "a@example.com"); err != nil {
		t.Fatal(err)
	}
	want := "shush: working on " + svc.URL + ", not the local list: RESEND_API_KEY is set and no service is configured for shush (unset it, or set SHUSH_BASE_URL or a profile)\n"
	if ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
}

func TestConfigOfTheLocalList(t *testing.T) {
	ta := newTestApp(t, nil).human()
	if err := ta.exec(t, "config"); err != nil {
		t.Fatal(err)
	}
	out := ta.out.String()
	db := os.Getenv(config.EnvDB)
	if miss := lacks(out, "(none: the local list)", "made on first use in ", db, "(not found)"); len(miss) > 0 {
		t.Errorf("config of the local list lacks %q:\n%s", miss, out)
	}

	// Once the local list was used, its key is there, masked.
	ta.reset()
	if err := ta.exec(t, "suppressions", "add", "a@example.com"); err != nil {
		t.Fatal(err)
	}
	ta.reset()
	ta.io.StdoutTTY = false
	if err := ta.exec(t, "config"); err != nil {
		t.Fatal(err)
	}
	var v configView
	ta.decode(t, &v)
	key, err := os.ReadFile(strings.TrimPrefix(v.APIKey.Source, "local key in "))
	if err != nil {
		t.Fatalf("the local key's source %q: %v", v.APIKey.Source, err)
	}
	if v.DB == nil || v.DB.Value != db || v.APIKey.Value == "" || strings.Contains(ta.out.String(), strings.TrimSpace(string(key))) {
		t.Errorf("config after the first use: %+v", v)
	}
	if !strings.HasPrefix(v.Target, "the local list") {
		t.Errorf("target %q", v.Target)
	}
}

func TestQuietPrintsJSONAndNothingElse(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	file := writeFile(t, "list.txt", "a@example.com\nbob@\n")
	if err := ta.exec(t, "-q", "suppressions", "batch", "add", "--file", file); err != nil {
		t.Fatal(err)
	}
	var doc runDoc
	ta.decode(t, &doc)
	if len(doc.Data) != 1 || len(doc.Invalid) != 1 {
		t.Errorf("-q printed %+v", doc)
	}
	if ta.err.Len() != 0 {
		t.Errorf("-q wrote to stderr: %q", ta.err.String())
	}
	// -q asks nothing: a removal needs --yes even on a terminal.
	ta.reset()
	ta.terminal("y\n")
	wantErr(t, ta.exec(t, "-q", "suppressions", "remove", "a@example.com"), ExitUsage, "pass --yes")
	if l := svc.listed(t); len(l) != 1 {
		t.Errorf("-q removed without --yes: %v", l)
	}
}

func TestDebugTracesRequestsWithoutTheKey(t *testing.T) {
	svc := newTestService(t)
	svc.add(t, "a@example.com")
	ta := newTestApp(t, svc)
	t.Setenv("SHUSH_DEBUG", "api")
	if err := ta.exec(t, "-q", "suppressions", "get", "a@example.com"); err != nil {
		t.Fatal(err)
	}
	e := ta.err.String()
	if !strings.Contains(e, "GET") || !strings.Contains(e, "/suppressions/a@example.com") || !strings.Contains(e, "200") {
		t.Errorf("the trace on stderr:\n%s", e)
	}
	if strings.Contains(e, svc.Key) || strings.Contains(e, svc.Key[23:]) {
		t.Error("the trace shows the key")
	}
}
