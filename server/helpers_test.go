package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/server"
	"github.com/shushlist/shush/server/store"
)

// service is a running server over real HTTP.
type service struct {
	t   testing.TB
	st  store.Store
	url string
}

func startService(t testing.TB, st store.Store, opts server.Options) *service {
	t.Helper()
	if opts.Rate == 0 {
		opts.Rate = 10000
	}
	var h http.Handler = server.New(st, opts)
	if tt, ok := t.(*testing.T); ok {
		// Tests check every answer against the OpenAPI document;
		// benchmarks measure the service alone.
		h = checkedAgainstOpenAPI(tt, h)
	}
	ts := httptest.NewUnstartedServer(h)
	ts.Listener = server.GuardFraming(ts.Listener)
	ts.Config.ConnContext = server.ConnContext
	ts.Start()
	t.Cleanup(ts.Close)
	return &service{t: t, st: st, url: ts.URL}
}

// key makes an API key for the team.
func (s *service) key(team string, readOnly bool) string {
	s.t.Helper()
	_, text, err := server.CreateKey(context.Background(), s.st, team, readOnly)
	if err != nil {
		s.t.Fatalf("create key: %v", err)
	}
	return text
}

// reply is a response as a client sees it.
type reply struct {
	status int
	header http.Header
	body   []byte
}

func (r reply) decode(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("response body %q: %v", r.body, err)
	}
}

// apiError decodes an error answer and checks its status and name.
func (r reply) wantError(t testing.TB, status int, name string) api.Error {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
	var e api.Error
	r.decode(t, &e)
	if e.StatusCode != status || e.Name != name || e.Message == "" {
		t.Fatalf("error body %s, want statusCode %d name %s and a message", r.body, status, name)
	}
	return e
}

func (s *service) do(method, path, key, contentType string, body []byte, header ...string) reply {
	s.t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.url+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		s.t.Fatal(err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// post sends a JSON body given as text.
func (s *service) post(path, key, body string) reply {
	s.t.Helper()
	return s.do("POST", path, key, "application/json", []byte(body))
}

func (s *service) get(path, key string) reply {
	s.t.Helper()
	return s.do("GET", path, key, "", nil)
}

// add adds addresses and returns the IDs the service gave.
func (s *service) add(key string, emails ...string) []string {
	s.t.Helper()
	b, _ := json.Marshal(api.BatchAddRequest{Emails: emails})
	r := s.post("/suppressions/batch/add", key, string(b))
	if r.status != http.StatusCreated {
		s.t.Fatalf("batch add: status %d: %s", r.status, r.body)
	}
	var resp api.BatchResponse
	r.decode(s.t, &resp)
	ids := make([]string, len(resp.Data))
	for i, d := range resp.Data {
		if d.Object != "suppression" || d.Deleted {
			s.t.Fatalf("batch add item %d: %+v", i, d)
		}
		ids[i] = d.ID
	}
	return ids
}

// lookup reports the ID the service holds for ref (ID or address), or ""
// when it answers 404.
func (s *service) lookup(key, ref string) string {
	s.t.Helper()
	r := s.get("/suppressions/"+escapeSegment(ref), key)
	if r.status == http.StatusNotFound {
		return ""
	}
	if r.status != http.StatusOK {
		s.t.Fatalf("get %s: status %d: %s", ref, r.status, r.body)
	}
	var e api.Entry
	r.decode(s.t, &e)
	return e.ID
}

func escapeSegment(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' {
			b.WriteByte(c)
		} else {
			b.WriteString("%" + strings.ToUpper(string("0123456789abcdef"[c>>4])) + strings.ToUpper(string("0123456789abcdef"[c&15])))
		}
	}
	return b.String()
}

func jsonBody(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// syncWriter lets concurrent request logs share a buffer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(b)
}

func decodeReply(r reply, v any) error { return json.Unmarshal(r.body, v) }
