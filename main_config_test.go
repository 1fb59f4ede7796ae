package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

func TestConfigPrecedence(t *testing.T) {
	t.Parallel()
	a := newService(t, server.Options{}, nil)
	b := newService(t, server.Options{}, nil)
	c := newService(t, server.Options{}, nil)
	sb := newSandbox(t)
	if err := os.MkdirAll(filepath.Dir(sb.configFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Dir(sb.configFile()), "config.toml", `profile = "a"

[profiles.a]
base_url = "`+a.url+`"
api_key = "`+a.key+`"

[profiles.b]
base_url = "`+b.url+`"
api_key = "`+b.key+`"
`)
	add := func(sb *sandbox, email string, args ...string) {
		t.Helper()
		sb.run(t, nil, append(args, "suppressions", "add", email)...).want(t, 0)
	}
	add(sb, "file@example.com")
	add(sb.with("SHUSH_PROFILE=b"), "env-profile@example.com")
	add(sb, "flag-profile@example.com", "--profile", "b")
	envC := sb.with("SHUSH_BASE_URL="+c.url, "SHUSH_API_KEY="+c.key)
	add(envC, "env@example.com")
	add(envC, "flags@example.com", "--base-url", a.url, "--api-key", a.key)

	for _, w := range []struct {
		svc  *service
		want []string
	}{
		{a, []string{"file@example.com", "flags@example.com"}},
		{b, []string{"env-profile@example.com", "flag-profile@example.com"}},
		{c, []string{"env@example.com"}},
	} {
		if got := w.svc.emails(t); !slices.Equal(got, w.want) {
			t.Errorf("service %s has %v, want %v", w.svc.url, got, w.want)
		}
	}

	type setting struct{ Value, Source string }
	r := envC.run(t, nil, "config", "--json").want(t, 0)
	v := decode[struct {
		Profile setting
		BaseURL setting `json:"base_url"`
		APIKey  setting `json:"api_key"`
	}](t, r)
	if v.Profile.Value != "a" || !strings.HasPrefix(v.Profile.Source, "profile in ") ||
		v.BaseURL.Value != c.url || v.BaseURL.Source != "SHUSH_BASE_URL" || v.APIKey.Source != "SHUSH_API_KEY" {
		t.Errorf("config shows %+v", v)
	}
	if strings.Contains(r.stdout, c.key) || !strings.Contains(v.APIKey.Value, "…") || !strings.HasPrefix(c.key, strings.Split(v.APIKey.Value, "…")[0]) {
		t.Errorf("the key is not masked: %q", v.APIKey.Value)
	}

	if runtime.GOOS != "windows" {
		if err := os.Chmod(sb.configFile(), 0o644); err != nil {
			t.Fatal(err)
		}
		r = sb.run(t, nil, "suppressions", "list").want(t, 2)
		if !strings.Contains(r.stderr, "run chmod 600 "+sb.configFile()) || strings.Contains(r.stderr, a.key) {
			t.Errorf("readable key file: %s", r)
		}
		os.Chmod(sb.configFile(), 0o600)

		// A directory anyone may write to: anyone may replace the file.
		dir := filepath.Dir(sb.configFile())
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		r = sb.run(t, nil, "suppressions", "list").want(t, 2)
		if !strings.Contains(r.stderr, "can be written by other users") || !strings.Contains(r.stderr, "chmod go-w "+dir) || strings.Contains(r.stderr, a.key) {
			t.Errorf("a key file in a world-writable directory: %s", r)
		}
		os.Chmod(dir, 0o700)
		sb.run(t, nil, "suppressions", "list").want(t, 0)
	}
}

func TestSetProfile(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t)
	sb.run(t, []byte(svc.key+"\n"), "config", "set-profile", "work", "--base-url", svc.url+"/", "--api-key-stdin", "--use").want(t, 0)
	if runtime.GOOS != "windows" {
		st, err := os.Stat(sb.configFile())
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("config file: %v, mode %v", err, st.Mode())
		}
	}
	sb.run(t, nil, "suppressions", "add", "via-profile@example.com").want(t, 0)
	if got := svc.emails(t); !slices.Equal(got, []string{"via-profile@example.com"}) {
		t.Errorf("list %v", got)
	}
	r := sb.run(t, nil, "config", "set-profile", "other").want(t, 2)
	if !strings.Contains(r.stderr, "a new profile needs --base-url") {
		t.Errorf("%s", r)
	}
}

func TestEmbeddedDefaultOnAFreshHome(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	keyFile := filepath.Join(sb.dataDir(), "local.key")

	// The first command works with no server, key or network.
	added := decode[api.Suppression](t, sb.run(t, nil, "suppressions", "add", "first@example.com").want(t, 0))
	key, err := os.ReadFile(keyFile)
	if err != nil || len(strings.TrimSpace(string(key))) < 20 {
		t.Fatalf("local key: %q, %v", key, err)
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(keyFile)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("local key mode %04o, want 0600", st.Mode().Perm())
		}
	}
	if _, err := os.Stat(filepath.Join(sb.dataDir(), "shush.db")); err != nil {
		t.Errorf("no database in the data directory: %v", err)
	}

	// Later commands use the same list and key.
	path := writeFile(t, sb.home, "more.txt", "second@example.com\nthird@example.com\nfirst@example.com\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", path).want(t, 0)
	list := decode[api.ListResponse](t, sb.run(t, nil, "suppressions", "list").want(t, 0))
	var emails []string
	for _, e := range list.Data {
		emails = append(emails, e.Email)
		if e.Email == "first@example.com" && e.ID != added.ID {
			t.Errorf("first@example.com changed ID: %s, was %s", e.ID, added.ID)
		}
	}
	if slices.Sort(emails); !slices.Equal(emails, []string{"first@example.com", "second@example.com", "third@example.com"}) {
		t.Errorf("local list %v", emails)
	}
	if again, _ := os.ReadFile(keyFile); string(again) != string(key) {
		t.Error("the local key changed between commands")
	}
	r := sb.run(t, nil, "config", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"target": "the local list (`) || strings.Contains(r.stdout, strings.TrimSpace(string(key))) {
		t.Errorf("config on the embedded default: %s", r)
	}

	// A replaced database gets a new key; the list starts empty.
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(filepath.Join(sb.dataDir(), "shush.db"+suffix))
	}
	list = decode[api.ListResponse](t, sb.run(t, nil, "suppressions", "list").want(t, 0))
	if len(list.Data) != 0 {
		t.Errorf("list of a new database: %+v", list.Data)
	}
	if again, _ := os.ReadFile(keyFile); string(again) == string(key) {
		t.Error("the local key was not replaced for the new database")
	}

	// SHUSH_DB points the embedded default at another file.
	other := filepath.Join(sb.home, "elsewhere", "list.db")
	sb.with("SHUSH_DB="+other).run(t, nil, "suppressions", "add", "elsewhere@example.com").want(t, 0)
	if _, err := os.Stat(other); err != nil {
		t.Errorf("SHUSH_DB was not used: %v", err)
	}

	if runtime.GOOS != "windows" {
		os.Chmod(keyFile, 0o644)
		r = sb.run(t, nil, "suppressions", "list").want(t, 2)
		if !strings.Contains(r.stderr, "chmod 600 "+keyFile) {
			t.Errorf("readable local key: %s", r)
		}
	}
}

func TestAPIKeyWithoutBaseURLIsRefused(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t).with("SHUSH_API_KEY=shush_x_y")
	r := sb.run(t, nil, "suppressions", "list").want(t, 2)
	if !strings.Contains(r.stderr, "an API key is set (from SHUSH_API_KEY) but no base URL") || strings.Contains(r.stderr, "shush_x_y") {
		t.Errorf("%s", r)
	}
}

// TestProfileKeyStaysWithItsService (audit L-3): the profile's key goes
// only to the profile's own base URL. A --base-url or SHUSH_BASE_URL that
// names another service gets no key: the command says so and sends
// nothing; with that service's own key it works.
func TestProfileKeyStaysWithItsService(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	var got atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			got.Add(1)
		}
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	sb := newSandbox(t)
	sb.run(t, []byte(svc.key+"\n"), "config", "set-profile", "default", "--base-url", svc.url, "--api-key-stdin", "--use").want(t, 0)
	for _, r := range []result{
		sb.run(t, nil, "suppressions", "list", "--base-url", other.URL),
		sb.with("SHUSH_BASE_URL="+other.URL).run(t, nil, "suppressions", "list"),
	} {
		r.want(t, 2)
		if !strings.Contains(r.stderr, "belongs to "+svc.url) || !strings.Contains(r.stderr, "is not sent elsewhere") || strings.Contains(r.stderr, svc.key) {
			t.Errorf("the profile's key with another base URL: %s", r)
		}
	}
	if n := got.Load(); n != 0 {
		t.Errorf("the other service got %d requests with a key; want none", n)
	}
	sb.run(t, nil, "suppressions", "list", "--base-url", svc.url+"/").want(t, 0)
}

// TestDirectoriesOthersCanReplaceAreRefused (audit L-5): a config or data
// directory under a parent that other users can write to (and that is not
// sticky) is refused, naming the directory and the command that fixes it,
// as OpenSSH's StrictModes refuses such a home; a sticky parent (as /tmp)
// is fine. Before, a 0777 $XDG_CONFIG_HOME was accepted: anyone could put
// a config of their own (another base_url) in its place.
func TestDirectoriesOthersCanReplaceAreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("directory modes are not checked on Windows")
	}
	t.Parallel()
	sb := newSandbox(t)
	if err := os.MkdirAll(filepath.Dir(sb.configFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	sb.run(t, nil, "suppressions", "add", "first@example.com").want(t, 0)
	for _, c := range []struct{ dir, what string }{
		{filepath.Join(sb.home, "config"), "the config directory"},
		{filepath.Join(sb.home, "data"), "the data directory"},
	} {
		if err := os.Chmod(c.dir, 0o777); err != nil {
			t.Fatal(err)
		}
		r := sb.run(t, nil, "suppressions", "list")
		r.want(t, 2)
		want := c.dir + ", which holds " + c.what + " " + filepath.Join(c.dir, "shush") + ","
		if !strings.Contains(r.stderr, want) || !strings.Contains(r.stderr, "(mode 0777)") || !strings.Contains(r.stderr, "run chmod go-w "+c.dir) {
			t.Errorf("a 0777 parent of %s: %s; want it named with the fix", c.what, r)
		}
		if err := os.Chmod(c.dir, os.ModeSticky|0o777); err != nil {
			t.Fatal(err)
		}
		sb.run(t, nil, "suppressions", "list").want(t, 0)
		if err := os.Chmod(c.dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
