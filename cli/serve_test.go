package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shushlist/shush/cli"
)

// run runs shush with args and returns the exit status, stdout and stderr.
func runShush(t *testing.T, ctx context.Context, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := cli.Main(ctx, args, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
	return code, out.String(), errOut.String()
}

func TestKeysCommands(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "keys", "shush.db")

	code, out, errOut := runShush(t, ctx, "keys", "create", "--team", "support", "--db", db)
	if code != 0 {
		t.Fatalf("keys create: exit %d: %s", code, errOut)
	}
	key := strings.TrimSpace(out)
	if !regexp.MustCompile(`^shush_[0-9a-f]{16}_[a-z2-7]{32}$`).MatchString(key) {
		t.Fatalf("keys create printed %q, want the key alone", out)
	}
	if !strings.Contains(errOut, "will not be shown again") || strings.Contains(errOut, key) {
		t.Errorf("keys create notice: %q", errOut)
	}

	code, out, _ = runShush(t, ctx, "keys", "create", "--team", "audit", "--read-only", "--json", "--db", db)
	var created struct {
		ID, Key, Team string
		ReadOnly      bool `json:"read_only"`
	}
	if err := json.Unmarshal([]byte(out), &created); code != 0 || err != nil || created.Team != "audit" || !created.ReadOnly ||
		!strings.HasPrefix(created.Key, "shush_"+created.ID+"_") {
		t.Fatalf("keys create --json: exit %d, %q", code, out)
	}

	// Into a pipe (a buffer here) keys list prints JSON, like every command.
	code, out, _ = runShush(t, ctx, "keys", "list", "--db", db)
	if code != 0 || !strings.Contains(out, `"team": "support"`) || !strings.Contains(out, created.ID) || !strings.Contains(out, `"read_only": true`) {
		t.Errorf("keys list: exit %d:\n%s", code, out)
	}
	if strings.Contains(out, key[len(key)-32:]) || strings.Contains(out, created.Key) {
		t.Error("keys list shows a key")
	}

	code, _, _ = runShush(t, ctx, "keys", "revoke", created.ID, "--db", db)
	if code != 0 {
		t.Fatalf("keys revoke: exit %d", code)
	}
	code, out, _ = runShush(t, ctx, "keys", "list", "--json", "--db", db)
	var listed []struct {
		ID        string  `json:"id"`
		RevokedAt *string `json:"revoked_at"`
		Key       string  `json:"key"`
	}
	if err := json.Unmarshal([]byte(out), &listed); code != 0 || err != nil || len(listed) != 2 {
		t.Fatalf("keys list --json: exit %d %q", code, out)
	}
	for _, k := range listed {
		if k.Key != "" {
			t.Error("keys list --json shows a key")
		}
		if (k.ID == created.ID) != (k.RevokedAt != nil) {
			t.Errorf("key %s revoked_at %v", k.ID, k.RevokedAt)
		}
	}

	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"keys", "revoke", "0000000000000000", "--db", db}, 1, "no API key"},
		{[]string{"keys", "revoke", "--db", db}, 2, "KEY_ID"},
		{[]string{"keys", "revoke", key, "--db", db}, 2, "not the key itself"},
		{[]string{"keys", "create", "--db", db}, 2, "--team"},
		{[]string{"keys", "create", "--team", "two words", "--db", db}, 2, "space"},
		{[]string{"keys", "create", "--team", "x", "--bogus", "--db", db}, 2, "bogus"},
		{[]string{"keys", "create", "--team", "x", "--db", "postgres://u:pw@localhost/db"}, 1, "database"},
	} {
		code, _, errOut := runShush(t, ctx, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.want)
		}
		if strings.Contains(errOut, key) || strings.Contains(errOut, "pw@") {
			t.Errorf("%v: stderr shows a secret", c.args)
		}
	}
}

func TestServeAnswersAndShutsDown(t *testing.T) {
	db := filepath.Join(t.TempDir(), "shush.db")
	_, key, _ := runShush(t, context.Background(), "keys", "create", "--team", "ops", "--db", db)
	key = strings.TrimSpace(key)

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errOut serveOutput
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"serve", "--addr", addr, "--db", db, "--rate", "100"}, cli.IO{In: strings.NewReader(""), Out: &out, Err: &errOut})
	}()
	base := "http://" + addr
	deadline := time.Now().Add(10 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not come up: %v; stderr %s", err, errOut.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A request in flight when the signal comes: its body is half sent.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"emails":["inflight@example.com"]}`
	fmt.Fprintf(conn, "POST /suppressions/batch/add HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		addr, key, len(body), body[:10])

	req, _ := http.NewRequest("POST", base+"/suppressions/batch/add", strings.NewReader(`{"emails":["a@example.com"]}`))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 || resp.Header.Get("Ratelimit-Limit") != "100" {
		t.Errorf("batch add through serve: %d, ratelimit-limit %q", resp.StatusCode, resp.Header.Get("Ratelimit-Limit"))
	}
	cancel()
	time.Sleep(200 * time.Millisecond)
	if _, err := conn.Write([]byte(body[10:])); err != nil {
		t.Fatalf("the in-flight request's connection was cut: %v", err)
	}
	inflight, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to the request in flight at shutdown: %v", err)
	}
	inflight.Body.Close()
	if inflight.StatusCode != 201 {
		t.Errorf("the request in flight at shutdown got %d, want 201", inflight.StatusCode)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("serve exited %d after cancel: %s", code, errOut.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop after its context was cancelled")
	}
	logs := errOut.String()
	if !strings.Contains(logs, fmt.Sprintf("serving on http://%s", addr)) || strings.Count(logs, "serving on") != 1 {
		t.Errorf("serve did not print its address once: %s", logs)
	}
	if !strings.Contains(logs, `route="POST /suppressions/batch/add"`) || strings.Contains(logs, key[len(key)-32:]) || strings.Contains(logs, "a@example.com") {
		t.Errorf("request log: %s", logs)
	}
	if code, _, errOut := runShush(t, context.Background(), "serve", "--rate", "0", "--db", db); code != 2 || !strings.Contains(errOut, "--rate") {
		t.Errorf("serve --rate 0: exit %d %q", code, errOut)
	}
}

// serveOutput is a buffer that the serving goroutine and the test share.
type serveOutput struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveOutput) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveOutput) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
