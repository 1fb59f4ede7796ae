package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
)

// startOneClickServe runs `shush serve` on a SQLite file and returns its address
// and a read-write key of team ops.
func startOneClickServe(t *testing.T, sb *sandbox) (addr, key string) {
	t.Helper()
	db := filepath.Join(sb.home, "shush.db")
	key = strings.TrimSpace(sb.run(t, nil, "keys", "create", "--team", "ops", "--db", db).want(t, 0).stdout)
	addr = freeAddr(t)
	cmd := exec.Command(shushBin, "serve", "--addr", addr, "--db", db)
	cmd.Env = sb.env
	var errOut lockedBuffer
	cmd.Stderr = &errOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFor(t, "serve to answer", func() bool {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return addr, key
}

// TestOneClickThroughServe: a sender gets the team's unsubscribe key from
// the CLI (to a file of mode 0600, the secret never on stdout), mints a
// link with unsubscribe-link, offline, from that file; the recipient's
// provider posts RFC 8058's body to it on a running `shush serve`, and
// the one-click shows in `shush audit` within a second (reference
// one-click, no key).
func TestOneClickThroughServe(t *testing.T) {
	t.Parallel()
	sb := newSandbox(t)
	addr, key := startOneClickServe(t, sb)
	base := "http://" + addr
	sb = sb.with("SHUSH_BASE_URL="+base, "SHUSH_API_KEY="+key)

	keyFile := filepath.Join(sb.home, "unsubscribe.key")
	r := sb.run(t, nil, "unsubscribe-key", "--output", keyFile).want(t, 0)
	text, err := os.ReadFile(keyFile)
	if err != nil || !strings.HasPrefix(string(text), api.UnsubscribeKeyPrefix) {
		t.Fatalf("the key file: %v", err)
	}
	if strings.Contains(r.stdout+r.stderr, strings.TrimSpace(string(text))) {
		t.Error("unsubscribe-key --output printed the key")
	}
	if fi, _ := os.Stat(keyFile); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the key file's mode is %v, want 0600", fi.Mode().Perm())
	}
	// The link is minted from the file alone: no key for the service.
	offline := newSandbox(t)
	r = offline.run(t, nil, "unsubscribe-link", "Bob@Example.com", "--key-file", keyFile, "--public-url", base, "--json").want(t, 0)
	var link struct {
		Email, URL string
		Headers    map[string]string
	}
	if err := json.Unmarshal([]byte(r.stdout), &link); err != nil {
		t.Fatalf("unsubscribe-link --json: %v\n%s", err, r.stdout)
	}
	if link.Email != "bob@example.com" || !strings.HasPrefix(link.URL, base+"/u/") ||
		link.Headers["List-Unsubscribe"] != "<"+link.URL+">" || link.Headers["List-Unsubscribe-Post"] != "List-Unsubscribe=One-Click" {
		t.Fatalf("unsubscribe-link: %s", r.stdout)
	}
	// Without --key-file the key comes from the service: the same token.
	var fetched struct{ URL string }
	if err := json.Unmarshal([]byte(sb.run(t, nil, "unsubscribe-link", "bob@example.com").want(t, 0).stdout), &fetched); err != nil || fetched.URL != link.URL {
		t.Errorf("the link minted with the service's key: %q (%v), want %q", fetched.URL, err, link.URL)
	}
	loose := filepath.Join(sb.home, "loose.key")
	if err := os.WriteFile(loose, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		offline.run(t, nil, "unsubscribe-link", "bob@example.com", "--key-file", loose, "--public-url", base).want(t, 2)
	}
	offline.run(t, nil, "unsubscribe-link", "@example.com", "--key-file", keyFile, "--public-url", base).want(t, 2)

	resp, err := http.Post(link.URL, "application/x-www-form-urlencoded", strings.NewReader("List-Unsubscribe=One-Click"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || len(resp.Header.Values("Set-Cookie")) > 0 || !bytes.Contains(body, []byte("Unsubscribed")) {
		t.Fatalf("the one-click: %d %s", resp.StatusCode, body)
	}
	posted := time.Now()
	for {
		r = sb.run(t, nil, "audit", "--email", "bob@example.com", "--json").want(t, 0)
		if strings.Contains(r.stdout, `"reference": "one-click"`) {
			break
		}
		if time.Since(posted) > time.Second {
			t.Fatalf("the one-click is not in shush audit a second later:\n%s", r.stdout)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(r.stdout, `"key": null`) || !strings.Contains(r.stdout, `"source": "one-click"`) {
		t.Errorf("the one-click's audit entry:\n%s", r.stdout)
	}
}

// TestDomainEntriesFromTheCLI: an incident's blocks from the command line:
// suppressions add @domain with an expiry and a reference, a batch file of
// @domain and *.domain lines, check --json saying "listed_by", get and
// remove by the entry, the trail by its reference.
func TestDomainEntriesFromTheCLI(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).with("SHUSH_BASE_URL="+svc.url, "SHUSH_API_KEY="+svc.key)
	sb.run(t, nil, "suppressions", "add", "@Evil.Example", "--expires", "24h", "--reference", "INC-7", "--note", "phishing wave").want(t, 0)
	in := writeFile(t, sb.home, "blocks.txt", "*.evil.example\n@bücher.example\n")
	sb.run(t, nil, "suppressions", "batch", "add", "--file", in, "--reference", "INC-7").want(t, 0)
	sb.run(t, nil, "suppressions", "add", "@nodot").want(t, 2)

	ask := writeFile(t, sb.home, "ask.txt", "x@evil.example\ny@mail.evil.example\nleser@bücher.example\nz@example.org\n")
	doc := decode[struct {
		Data []struct {
			Email    string
			Listed   bool
			ListedBy string `json:"listed_by"`
			Note     *string
		}
	}](t, sb.run(t, nil, "suppressions", "check", "--file", ask, "--json").want(t, 0))
	want := map[string]string{"x@evil.example": "@evil.example", "y@mail.evil.example": "*.evil.example",
		"leser@xn--bcher-kva.example": "@xn--bcher-kva.example", "z@example.org": ""}
	if len(doc.Data) != 4 {
		t.Fatalf("check: %+v", doc.Data)
	}
	for _, it := range doc.Data {
		if w, ok := want[it.Email]; !ok || it.ListedBy != w || it.Listed != (w != "") {
			t.Errorf("check of %s: listed %v by %q, want by %q", it.Email, it.Listed, it.ListedBy, w)
		}
	}
	r := sb.run(t, nil, "suppressions", "get", "@evil.example", "--json").want(t, 0)
	if !strings.Contains(r.stdout, `"email": "@evil.example"`) || !strings.Contains(r.stdout, `"expires_at": "20`) {
		t.Errorf("get @evil.example: %s", r.stdout)
	}
	r = sb.run(t, nil, "audit", "--reference", "INC-7", "--jq", ".data | length").want(t, 0)
	if strings.TrimSpace(r.stdout) != "3" {
		t.Errorf("the trail of INC-7: %q entries, want 3", r.stdout)
	}
	sb.run(t, nil, "suppressions", "remove", "@evil.example", "--yes").want(t, 0)
	if got := svc.emails(t); strings.Join(got, " ") != "*.evil.example @xn--bcher-kva.example" {
		t.Errorf("the list after the removal: %v", got)
	}
}
