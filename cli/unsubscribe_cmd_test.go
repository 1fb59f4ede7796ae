package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// unsubscribe posts RFC 8058's one-click request to link, as a recipient's
// mail provider does, and returns the status.
func unsubscribe(t *testing.T, link string) int {
	t.Helper()
	resp, err := http.Post(link, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

func TestUnsubscribeKeyPrintsTheTeamsKey(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := ta.exec(t, "unsubscribe-key"); err != nil {
		t.Fatal(err)
	}
	key := strings.TrimSpace(ta.out.String())
	if team, _, err := api.ParseUnsubscribeKey(key); err != nil || team != "support" {
		t.Fatalf("unsubscribe-key printed %q: team %q, %v", ta.out.String(), team, err)
	}

	// The same key every time, and as the API's object under --json.
	ta.reset()
	ta.io.StdoutTTY = false
	if err := ta.exec(t, "unsubscribe-key"); err != nil {
		t.Fatal(err)
	}
	var k api.UnsubscribeKey
	ta.decode(t, &k)
	if k.Object != api.ObjectUnsubscribeKey || k.Team != "support" || k.Key != key {
		t.Errorf("unsubscribe-key --json: %+v; want the key %s", k, key)
	}
}

func TestUnsubscribeKeyToAFileShowsNoSecret(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	file := filepath.Join(t.TempDir(), "unsubscribe.key")
	if err := ta.exec(t, "unsubscribe-key", "--output", file); err != nil {
		t.Fatal(err)
	}
	if want := "Wrote team support's unsubscribe key to " + file + " (mode 0600).\n"; ta.out.String() != want {
		t.Errorf("said %q; want %q", ta.out.String(), want)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := api.ParseUnsubscribeKey(string(b)); err != nil {
		t.Errorf("the file holds %q: %v", b, err)
	}
	if strings.Contains(ta.out.String()+ta.err.String(), strings.TrimSpace(string(b))) {
		t.Error("the key was shown as well as written")
	}
	if fi, err := os.Stat(file); err == nil && runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file's mode is %v; want 0600", fi.Mode().Perm())
	}

	ta.reset()
	ta.io.StdoutTTY = false
	if err := ta.exec(t, "unsubscribe-key", "-o", file); err != nil {
		t.Fatal(err)
	}
	var doc map[string]string
	ta.decode(t, &doc)
	if doc["object"] != api.ObjectUnsubscribeKey || doc["team"] != "support" || doc["file"] != file || doc["key"] != "" {
		t.Errorf("--output --json: %v", doc)
	}
}

func TestUnsubscribeKeyNeedsAReadWriteKey(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	ta.globals.apiKey = svc.key(t, "support", server.KeyPermissions{ReadOnly: true})
	err := ta.exec(t, "unsubscribe-key")
	wantErr(t, err, ExitRefused)
	if ta.out.Len() != 0 {
		t.Errorf("printed %q for a read-only key", ta.out.String())
	}
	wantErr(t, ta.exec(t, "unsubscribe-key", "extra"), ExitUsage, "takes no arguments")
}

func TestUnsubscribeLinkListsTheAddressWhenPosted(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc).human()
	if err := ta.exec(t, "unsubscribe-link", "Bob <BOB@example.com>"); err == nil {
		t.Error("a display name was taken as an address")
	}
	ta.reset()
	if err := ta.exec(t, "unsubscribe-link", "BOB@example.com"); err != nil {
		t.Fatal(err)
	}
	lines := ta.lines()
	if len(lines) != 3 || !strings.HasPrefix(lines[0], svc.URL+"/u/") || lines[1] != "List-Unsubscribe: <"+lines[0]+">" ||
		lines[2] != "List-Unsubscribe-Post: List-Unsubscribe=One-Click" {
		t.Fatalf("unsubscribe-link printed:\n%s", ta.out.String())
	}
	if _, err := svc.client().Get(ctx, "bob@example.com"); err == nil {
		t.Fatal("minting a link listed the address")
	}

	if got := unsubscribe(t, lines[0]); got != http.StatusOK {
		t.Fatalf("the provider's POST: %d", got)
	}
	e, err := svc.client().Get(ctx, "bob@example.com")
	if err != nil {
		t.Fatalf("the address is not listed after the one-click POST: %v", err)
	}
	if e.Origin != api.OriginManual || e.Evidence == nil || e.Evidence.Kind != api.EvidenceOneClick {
		t.Errorf("the entry the link made: %+v", e)
	}

	// A link altered by one character lists nothing.
	ta.reset()
	if err := ta.exec(t, "unsubscribe-link", "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	link := ta.lines()[0]
	forged := link[:len(link)-2] + map[bool]string{true: "A", false: "B"}[link[len(link)-2] != 'A'] + link[len(link)-1:]
	if got := unsubscribe(t, forged); got != http.StatusNotFound {
		t.Errorf("a forged token: %d; want 404", got)
	}
	if _, err := svc.client().Get(ctx, "ann@example.com"); err == nil {
		t.Error("a forged token listed the address")
	}
}

func TestUnsubscribeLinkFromAKeyFileOffline(t *testing.T) {
	ctx := context.Background()
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	file := filepath.Join(t.TempDir(), "unsubscribe.key")
	if err := ta.exec(t, "unsubscribe-key", "--output", file); err != nil {
		t.Fatal(err)
	}

	// With the key file and a public URL, no service is needed at all.
	off := newTestApp(t, nil)
	if err := off.exec(t, "unsubscribe-link", "carol@example.com", "--key-file", file, "--public-url", svc.URL+"/"); err != nil {
		t.Fatal(err)
	}
	var link unsubscribeLink
	off.decode(t, &link)
	if link.Object != "unsubscribe_link" || link.Email != "carol@example.com" || link.Team != "support" || !strings.HasPrefix(link.URL, svc.URL+"/u/") ||
		link.Headers["List-Unsubscribe"] != "<"+link.URL+">" || link.Headers["List-Unsubscribe-Post"] != "List-Unsubscribe=One-Click" {
		t.Fatalf("unsubscribe-link --json: %+v", link)
	}
	if got := unsubscribe(t, link.URL); got != http.StatusOK {
		t.Fatalf("the provider's POST: %d", got)
	}
	if _, err := svc.client().Get(ctx, "carol@example.com"); err != nil {
		t.Errorf("the key file's link did not list the address: %v", err)
	}
}

func TestUnsubscribeLinkRefusesBadInput(t *testing.T) {
	svc := newTestService(t)
	ta := newTestApp(t, svc)
	dir := t.TempDir()
	notKey := filepath.Join(dir, "not.key")
	if err := os.WriteFile(notKey, []byte("shush_0123456789abcdef_secretsecretsecret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{}, []string{"an email address"}},
		{[]string{"bob@"}, []string{`"bob@" is not a valid email address`}},
		{[]string{"bob@example.com", "--public-url", "ftp://shush.example"}, []string{"--public-url must be an absolute http(s) URL", `"ftp://shush.example"`}},
		{[]string{"bob@example.com", "--public-url", "https://shush.example/?a=1"}, []string{"--public-url", "without query"}},
		{[]string{"bob@example.com", "--public-url", "https://u:hunter2@shush.example"}, []string{"--public-url", "credentials"}},
		{[]string{"bob@example.com", "--public-url", "shush.example"}, []string{"--public-url must be an absolute"}},
		{[]string{"bob@example.com", "--key-file", filepath.Join(dir, "none.key")}, []string{"--key-file: ", "none.key does not exist"}},
		{[]string{"bob@example.com", "--key-file", notKey}, []string{"--key-file: ", "not.key holds no unsubscribe key"}},
	} {
		ta.reset()
		err := ta.exec(t, append([]string{"unsubscribe-link"}, c.args...)...)
		wantErr(t, err, ExitUsage, c.want...)
		if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "secretsecret") {
			t.Errorf("the error shows a secret: %v", err)
		}
		if ta.out.Len() != 0 {
			t.Errorf("%v printed %q", c.args, ta.out.String())
		}
	}

	if runtime.GOOS != "windows" {
		open := filepath.Join(dir, "open.key")
		if err := os.WriteFile(open, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ta.reset()
		wantErr(t, ta.exec(t, "unsubscribe-link", "bob@example.com", "--key-file", open), ExitUsage, "--key-file")
	}
}

func TestUnsubscribeLinkOnTheLocalListNeedsAPublicURL(t *testing.T) {
	ta := newTestApp(t, nil)
	wantErr(t, ta.exec(t, "unsubscribe-link", "bob@example.com"), ExitUsage,
		"the link needs the address the recipients' mail providers reach the service at: give --public-url https://")

	// With one, the local list's own key mints it.
	ta.reset()
	if err := ta.exec(t, "unsubscribe-link", "bob@example.com", "--public-url", "https://shush.example"); err != nil {
		t.Fatal(err)
	}
	var link unsubscribeLink
	ta.decode(t, &link)
	if link.Team != localTeam || !strings.HasPrefix(link.URL, "https://shush.example/u/") {
		t.Errorf("a link of the local list: %+v", link)
	}
}
