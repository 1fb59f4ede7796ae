package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeConfig(t *testing.T, body string, mode os.FileMode) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), FileName)
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
	return path
}

func load(t *testing.T, path string) *File {
	t.Helper()
	f, err := Load(path)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return f
}

const twoProfiles = `
profile = "work"

[profiles.work]
base_url = "https://work.example.com/"
api_key = "shush_workworkworkworkwork1234"

[profiles.other]
base_url = "http://127.0.0.1:8080"
api_key = "shush_otherotherotherother5678"
`

func TestPrecedence(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	path := writeConfig(t, twoProfiles, 0o600)
	f := load(t, path)

	cases := []struct {
		name              string
		flags             Flags
		env               map[string]string
		profile, url, key string
		urlSrc, keySrc    string
	}{
		{"file's profile", Flags{}, nil, "work", "https://work.example.com", "shush_workworkworkworkwork1234", `profile "work" in ` + path, `profile "work" in ` + path},
		{"env profile beats file", Flags{}, map[string]string{EnvProfile: "other"}, "other", "http://127.0.0.1:8080", "shush_otherotherotherother5678", `profile "other" in ` + path, `profile "other" in ` + path},
		{"flag profile beats env", Flags{Profile: "work"}, map[string]string{EnvProfile: "other"}, "work", "https://work.example.com", "shush_workworkworkworkwork1234", `profile "work" in ` + path, `profile "work" in ` + path},
		{"env beats file", Flags{}, map[string]string{EnvBaseURL: "http://env.example", EnvAPIKey: "envkey"}, "work", "http://env.example", "envkey", EnvBaseURL, EnvAPIKey},
		{"flags beat env", Flags{BaseURL: "http://flag.example", APIKey: "flagkey"}, map[string]string{EnvBaseURL: "http://env.example", EnvAPIKey: "envkey"}, "work", "http://flag.example", "flagkey", "--base-url flag", "--api-key flag"},
		// The profile's own service named again: its key goes with it.
		{"the profile's service by flag", Flags{BaseURL: "HTTPS://Work.Example.com"}, nil, "work", "HTTPS://Work.Example.com", "shush_workworkworkworkwork1234", "--base-url flag", `profile "work" in ` + path},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Resolve(f, c.flags, envOf(c.env))
			if err != nil {
				t.Fatal(err)
			}
			if s.Profile.Value != c.profile || s.BaseURL.Value != c.url || s.APIKey.Value != c.key {
				t.Errorf("got profile %q url %q key %q, want %q %q %q", s.Profile.Value, s.BaseURL.Value, s.APIKey.Value, c.profile, c.url, c.key)
			}
			if s.BaseURL.Source != c.urlSrc || s.APIKey.Source != c.keySrc {
				t.Errorf("got sources %q, %q; want %q, %q", s.BaseURL.Source, s.APIKey.Source, c.urlSrc, c.keySrc)
			}
			if s.Local() {
				t.Error("Local() with a base URL set")
			}
		})
	}
}

func TestEmbeddedDefaultWithoutFile(t *testing.T) {
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	f := load(t, filepath.Join(t.TempDir(), "missing", FileName))
	if f.Found {
		t.Fatal("Found is true for a missing file")
	}
	s, err := Resolve(f, Flags{}, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if !s.Local() || s.Profile.Value != DefaultProfile || s.BaseURL.Source != SourceLocal {
		t.Errorf("settings %+v, want the embedded default", s)
	}
	if want := filepath.Join(data, "shush", "shush.db"); s.DB.Value != want {
		t.Errorf("DB %q, want %q", s.DB.Value, want)
	}
	s, err = Resolve(f, Flags{}, envOf(map[string]string{EnvDB: "/tmp/x.db"}))
	if err != nil || s.DB.Value != "/tmp/x.db" || s.DB.Source != EnvDB {
		t.Errorf("SHUSH_DB: %+v, %v", s.DB, err)
	}
}

func TestResolveErrors(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	f := load(t, writeConfig(t, twoProfiles, 0o600))
	none := load(t, filepath.Join(t.TempDir(), FileName))
	cases := []struct {
		name  string
		f     *File
		flags Flags
		env   map[string]string
		want  string
	}{
		{"unknown profile flag", f, Flags{Profile: "nope"}, nil, `profile "nope" (from --profile flag) is not defined in`},
		{"unknown profile env", f, Flags{}, map[string]string{EnvProfile: "nope"}, "it defines other, work"},
		{"profile without file", none, Flags{Profile: "work"}, nil, "there is no config file"},
		{"bad profile name", f, Flags{Profile: "a b"}, nil, `profile name "a b" is not`},
		{"bad base URL", none, Flags{BaseURL: "localhost:8080"}, nil, `base URL "localhost:8080" is not an http:// or https:// URL with a host (from --base-url flag)`},
		{"key without URL", none, Flags{}, map[string]string{EnvAPIKey: "k"}, "an API key is set (from SHUSH_API_KEY) but no base URL"},
		// Audit L-3: the profile's key went to whatever --base-url named.
		{"another service by flag", f, Flags{BaseURL: "http://127.0.0.1:18803"}, nil,
			`no API key for http://127.0.0.1:18803 (from --base-url flag): the key of profile "work" belongs to https://work.example.com/ and is not sent elsewhere`},
		{"another service by env", f, Flags{}, map[string]string{EnvBaseURL: "https://work.example.com.evil.test"}, `the key of profile "work" belongs to`},
		{"another path", f, Flags{Profile: "other"}, map[string]string{EnvBaseURL: "http://127.0.0.1:8080/other"}, `the key of profile "other" belongs to http://127.0.0.1:8080`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Resolve(c.f, c.flags, envOf(c.env))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

func TestFileProfileMustExist(t *testing.T) {
	f := load(t, writeConfig(t, "profile = \"gone\"\n", 0o600))
	_, err := Resolve(f, Flags{}, envOf(nil))
	if err == nil || !strings.Contains(err.Error(), `profile "gone" (from profile in `) {
		t.Fatalf("error %v", err)
	}
}

func TestLoadRefusesReadableKeyFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not checked on Windows")
	}
	path := writeConfig(t, twoProfiles, 0o644)
	_, err := Load(path)
	if err == nil || !strings.Contains(err.Error(), "run chmod 600 "+path) {
		t.Fatalf("error %v, want the chmod advice", err)
	}
	// Without a key the file holds no secret and may be readable.
	open := writeConfig(t, "[profiles.x]\nbase_url = \"http://a.example\"\n", 0o644)
	if _, err := Load(open); err != nil {
		t.Fatalf("keyless readable file: %v", err)
	}
}

func TestLoadRejectsBadFiles(t *testing.T) {
	cases := map[string]string{
		"[profiles.x]\nbase_url = \n":              "line 2",
		"[profiles.x]\nbaseurl = \"http://a.b\"\n": `unknown setting "profiles.x.baseurl"`,
		"[profiles.\"a b\"]\nbase_url = \"x\"\n":   `profile name "a b"`,
		"own = [\"@ours.test\", \"nodot\"]\n":      `own, entry 2 ("nodot"): it is neither`,
		"own = [\"@\"]\n":                          `own, entry 1`,
		"own = [\"x@\"]\n":                         `own, entry 1 ("x@"): an address needs`,
	}
	for body, want := range cases {
		_, err := Load(writeConfig(t, body, 0o600))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("file %q: error %v, want %q", body, err, want)
		}
	}
}

func TestLoadOwnAddresses(t *testing.T) {
	f, err := Load(writeConfig(t, "own = [\"@ourcompany.test\", \"help@partner.example\"]\n", 0o644))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Own) != 2 || f.Own[0] != "@ourcompany.test" || f.Own[1] != "help@partner.example" {
		t.Errorf("own = %q", f.Own)
	}
}

// keep_runs_days says how long finished runs are kept; 90 days without it.
func TestKeepRunsDays(t *testing.T) {
	f, err := Load(writeConfig(t, "keep_runs_days = 7\n", 0o644))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Resolve(f, Flags{}, envOf(nil))
	if err != nil || s.KeepRuns != 7*24*time.Hour {
		t.Errorf("keep_runs_days = 7: %v %v", s.KeepRuns, err)
	}
	s, _ = Resolve(load(t, filepath.Join(t.TempDir(), FileName)), Flags{}, envOf(nil))
	if s.KeepRuns != DefaultKeepRunsDays*24*time.Hour {
		t.Errorf("default: %v", s.KeepRuns)
	}
	if _, err := Load(writeConfig(t, "keep_runs_days = -1\n", 0o644)); err == nil || !strings.Contains(err.Error(), "keep_runs_days must be a number of days") {
		t.Errorf("negative: %v", err)
	}
}

func TestSaveRoundTripAndMode(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	f := load(t, filepath.Join(dir, FileName))
	f.Profile = "prod"
	f.Profiles = map[string]Profile{"prod": {BaseURL: "https://p.example", APIKey: "shush_secretsecretsecret"}}
	if err := f.Save(); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		st, _ := os.Stat(f.Path)
		if st.Mode().Perm() != 0o600 {
			t.Errorf("file mode %04o, want 0600", st.Mode().Perm())
		}
		st, _ = os.Stat(dir)
		if st.Mode().Perm() != 0o700 {
			t.Errorf("dir mode %04o, want 0700", st.Mode().Perm())
		}
	}
	g := load(t, f.Path)
	if g.Profile != "prod" || g.Profiles["prod"] != f.Profiles["prod"] {
		t.Errorf("read back %+v", g)
	}
}

func TestMaskKey(t *testing.T) {
	key := "shush_0123456789abcdefghijklmnopqrstuvwxyz"
	got := MaskKey(key)
	if got != "shush_01…wxyz" {
		t.Errorf("MaskKey = %q", got)
	}
	for _, k := range []string{"short", "abcdefghijkl", key} {
		m := MaskKey(k)
		visible := strings.ReplaceAll(m, "…", "")
		if len(visible)*2 > len(k) || !strings.Contains(m, "…") {
			t.Errorf("MaskKey(%q) = %q shows too much", k, m)
		}
	}
}

// RESEND_API_KEY works on its own, against the hosted API or
// RESEND_BASE_URL; shush's own settings win over it, and it never goes to
// a service configured for shush.
func TestResendFallbacks(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", t.TempDir())
	empty := load(t, filepath.Join(t.TempDir(), "missing", FileName))
	s, err := Resolve(empty, Flags{}, envOf(map[string]string{EnvResendAPIKey: "re_abc"}))
	if err != nil || s.BaseURL.Value != ResendBaseURL || s.APIKey.Value != "re_abc" || s.APIKey.Source != EnvResendAPIKey {
		t.Fatalf("RESEND_API_KEY alone: %+v %v", s, err)
	}
	s, _ = Resolve(empty, Flags{}, envOf(map[string]string{EnvResendAPIKey: "re_abc", EnvResendBaseURL: "https://eu.resend.example"}))
	if s.BaseURL.Value != "https://eu.resend.example" || s.BaseURL.Source != EnvResendBaseURL {
		t.Errorf("RESEND_BASE_URL: %+v", s.BaseURL)
	}
	s, _ = Resolve(empty, Flags{}, envOf(map[string]string{EnvResendAPIKey: "re_abc", EnvBaseURL: "http://127.0.0.1:8080", EnvAPIKey: "shush_k"}))
	if s.APIKey.Value != "shush_k" || s.BaseURL.Value != "http://127.0.0.1:8080" {
		t.Errorf("shush's settings must win: %+v", s)
	}
	s, err = Resolve(empty, Flags{}, envOf(map[string]string{EnvResendAPIKey: "re_abc", EnvBaseURL: "http://127.0.0.1:8080"}))
	if err != nil || s.APIKey.Value == "re_abc" {
		t.Errorf("the Resend key went to shush's service: %+v %v", s, err)
	}
}

func TestConfigDirOverrides(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvConfigDir, dir)
	t.Setenv("XDG_CONFIG_HOME", "/elsewhere")
	if got, _ := ConfigDir(); got != dir {
		t.Errorf("%s: %s; want %s", EnvConfigDir, got, dir)
	}
	t.Setenv(EnvConfigDir, "")
	if got, _ := ConfigDir(); got != filepath.Join("/elsewhere", "shush") {
		t.Errorf("XDG_CONFIG_HOME on %s: %s", runtime.GOOS, got)
	}
}
