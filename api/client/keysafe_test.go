package client_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/shushlist/shush/api/client"
)

// A redirect is never followed with the key: the other host sees nothing,
// the error names where the answer pointed (without credentials), and it
// is not retried.
func TestRedirectIsNotFollowed(t *testing.T) {
	var elsewhere atomic.Int64
	var sawKey atomic.Bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		elsewhere.Add(1)
		if r.Header.Get("Authorization") != "" {
			sawKey.Store(true)
		}
		w.WriteHeader(http.StatusCreated)
	}))
	defer other.Close()
	var hits atomic.Int64
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		target := strings.Replace(other.URL, "http://", "http://user:hunter2@", 1) + r.URL.Path
		http.Redirect(w, r, target, http.StatusTemporaryRedirect)
	}))
	defer svc.Close()
	c := client.New(svc.URL, "shush_secret_key_value", client.WithRetry(3, 1, 2))
	_, err := c.BatchAdd(context.Background(), []string{"a@example.com"})
	if err == nil || !client.IsRedirect(err) {
		t.Fatalf("error %v; want a refused redirect", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "redirecting to http://***@127.0.0.1") || !strings.Contains(msg, "307") {
		t.Errorf("the error does not name the target: %s", msg)
	}
	for _, secret := range []string{"shush_secret_key_value", "hunter2"} {
		if strings.Contains(msg, secret) {
			t.Errorf("the error shows a secret: %s", msg)
		}
	}
	if elsewhere.Load() != 0 || sawKey.Load() {
		t.Errorf("the redirect target got %d requests (key seen: %v)", elsewhere.Load(), sawKey.Load())
	}
	if hits.Load() != 1 {
		t.Errorf("the service got %d requests; a refused redirect is not retried", hits.Load())
	}
}

func TestPlainHTTPWarning(t *testing.T) {
	for base, warn := range map[string]bool{
		"http://127.0.0.1:8080":          false,
		"http://localhost:8080":          false,
		"http://[::1]:8080":              false,
		"https://api.resend.com":         false,
		"http://suppressions.corp:8080":  true,
		"http://u:pw@10.0.0.5":           true,
		"HTTP://list.example.com/prefix": true,
	} {
		got := client.PlainHTTPWarning(base)
		if (got != "") != warn || strings.Contains(got, "pw@") {
			t.Errorf("PlainHTTPWarning(%q) = %q; want a warning: %v", base, got, warn)
		}
	}
}
