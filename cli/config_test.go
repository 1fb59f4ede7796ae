package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/config"
)

func TestSetProfileThenCommandsUseIt(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	svc.add(t, "a@example.com")

	// Created from the global flags, the key from stdin.
	ta := newTestApp(t, nil)
	ta.globals.baseURL = svc.URL
	ta.stdin(svc.Key + "\n")
	if err := runSetProfile(&setProfileOptions{app: ta.app, Name: "work", KeyStdin: true, Use: true}); err != nil {
		t.Fatal(err)
	}
	path, _ := config.Path()
	if want := `Profile "work" created in ` + path + ".\n"; ta.err.String() != want {
		t.Errorf("stderr %q, want %q", ta.err.String(), want)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", fi, err)
	}

	// A fresh app finds the service through the profile alone.
	plain := bareApp()
	if err := runGet(ctx, &getOptions{app: plain.app, Ref: "a@example.com"}); err != nil {
		t.Fatalf("get through the profile: %v", err)
	}

	// config shows the profile, the key masked.
	plain.reset()
	if err := plain.showConfig(); err != nil {
		t.Fatal(err)
	}
	var v configView
	plain.decode(t, &v)
	if v.Profile.Value != "work" || v.BaseURL.Value != svc.URL || v.File != path || !v.FileFound || v.Target != svc.URL {
		t.Errorf("config %+v", v)
	}
	if strings.Contains(plain.out.String(), svc.Key) || v.APIKey.Value == "" {
		t.Errorf("config shows the key, or nothing of it: %q", v.APIKey.Value)
	}

	// Changing it keeps what is not given.
	ta.reset()
	ta.globals.baseURL = ""
	ta.globals.apiKey = "shush_0000000000000000_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	if err := runSetProfile(&setProfileOptions{app: ta.app, Name: "work"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ta.err.String(), `Profile "work" changed`) {
		t.Errorf("stderr %q", ta.err.String())
	}
	f, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Profiles["work"]; p.BaseURL != svc.URL || p.APIKey != ta.globals.apiKey || f.Profile != "work" {
		t.Errorf("profile after change %+v", p)
	}
}

func TestSetProfileRefusesAndWritesNothing(t *testing.T) {
	ta := newTestApp(t, nil)
	for _, c := range []struct {
		o       setProfileOptions
		baseURL string
		key     string
		stdin   string
		want    string
	}{
		{setProfileOptions{Name: "new"}, "", "", "", "a new profile needs --base-url"},
		{setProfileOptions{Name: "bad name!"}, "http://127.0.0.1:1", "", "", "profile"},
		{setProfileOptions{Name: "p", KeyStdin: true}, "http://127.0.0.1:1", "k", "", "give the key with --api-key or --api-key-stdin, not both"},
		{setProfileOptions{Name: "p", KeyStdin: true}, "http://127.0.0.1:1", "", "\n", "no key on stdin"},
		{setProfileOptions{Name: "p"}, "ftp://example.com", "", "", "ftp"},
	} {
		o := c.o
		o.app = ta.app
		ta.globals.baseURL, ta.globals.apiKey = c.baseURL, c.key
		ta.stdin(c.stdin)
		wantErr(t, runSetProfile(&o), ExitUsage, c.want)
	}
	path, _ := config.Path()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a refused set-profile wrote %s", path)
	}
}

func TestConfigForAPerson(t *testing.T) {
	dir := isolate(t)
	ta := bareApp().human()
	t.Setenv("SHUSH_DB", filepath.Join(dir, "list.db"))
	if err := ta.showConfig(); err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, l := range ta.lines()[1:] {
		k, v, _ := strings.Cut(l, "  ")
		rows[k] = strings.TrimSpace(v)
	}
	if !strings.HasPrefix(rows["base URL"], "(none: the local list)") || !strings.HasPrefix(rows["database"], filepath.Join(dir, "list.db")) ||
		!strings.Contains(rows["API key"], "made on first use in ") || !strings.Contains(rows["config file"], "(not found)") {
		t.Errorf("config for a person:\n%s", ta.out.String())
	}
}
