package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shushlist/shush/server"
)

// The key can come from a private file or from stdin instead of the
// command line; a readable file is refused; only one way at a time.
func TestKeyFromFileOrStdin(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t).with("SHUSH_BASE_URL=" + svc.url)
	keyFile := writeFile(t, sb.home, "key", svc.key+"\n")
	sb.run(t, nil, "suppressions", "list", "--api-key-file", keyFile, "--json").want(t, 0)

	if err := os.Chmod(keyFile, 0o644); err != nil {
		t.Fatal(err)
	}
	r := sb.run(t, nil, "suppressions", "list", "--api-key-file", keyFile).want(t, 2)
	if !strings.Contains(r.stderr, "chmod 600 "+keyFile) || strings.Contains(r.stderr, svc.key) {
		t.Errorf("a readable key file: %s", r)
	}
	r = sb.run(t, nil, "suppressions", "list", "--api-key-file", filepath.Join(sb.home, "nope")).want(t, 2)
	if !strings.Contains(r.stderr, "does not exist") {
		t.Errorf("a missing key file: %s", r)
	}

	// The first line of stdin is the key; the rest is the input.
	r = sb.run(t, []byte(svc.key+"\na@example.com\nb@example.com\n"), "suppressions", "batch", "add", "--api-key-stdin", "--file", "-", "--json").want(t, 0)
	if got := svc.emails(t); len(got) != 2 {
		t.Errorf("after a run keyed from stdin the list holds %v: %s", got, r)
	}
	r = sb.run(t, nil, "suppressions", "list", "--api-key", svc.key, "--api-key-file", keyFile).want(t, 2)
	if !strings.Contains(r.stderr, "one way") {
		t.Errorf("two ways at once: %s", r)
	}
}

// Plain http:// to another machine gets a one-line warning; credentials
// in a base URL never show.
func TestPlainHTTPWarningAndRedaction(t *testing.T) {
	t.Parallel()
	svc := newService(t, server.Options{}, nil)
	sb := newSandbox(t)
	r := sb.at(svc).run(t, nil, "suppressions", "list", "--json").want(t, 0)
	if strings.Contains(r.stderr, "warning") {
		t.Errorf("a warning for loopback: %s", r)
	}
	r = sb.run(t, nil, "suppressions", "list", "--base-url", "http://user:hunter2@shush-test.invalid:8080", "--api-key", "k_test")
	if !strings.Contains(r.stderr, "shush: warning: http://***@shush-test.invalid:8080 is plain http:// to another machine") {
		t.Errorf("no warning for plain http off this machine: %s", r)
	}
	if strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Errorf("the URL's password shows: %s", r)
	}
}

// The service's error message reaches stderr with its escapes visible.
func TestServiceErrorIsEscapedOnStderr(t *testing.T) {
	t.Parallel()
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnprocessableEntity)
		w.Write([]byte(`{"statusCode":422,"name":"validation_error","message":"\u001b[2J\u001b]52;c;aGk=\u0007 nope\u202e"}`))
	}))
	defer evil.Close()
	r := newSandbox(t).run(t, nil, "suppressions", "add", "a@example.com", "--base-url", evil.URL, "--api-key", "k").want(t, 1)
	// Piped, the error is JSON: exact, with the characters escaped.
	if strings.ContainsAny(r.stderr, "\x1b\x07\u202e") || !strings.Contains(r.stderr, `\u001b]52;c;aGk=\u0007 nope\u202e`) {
		t.Errorf("stderr: %q", r.stderr)
	}
}
