package server_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
)

// rawOnce sends raw bytes on a new connection and reads one answer (nil
// when the service closed the connection without one).
func rawOnce(t *testing.T, base, raw string) (*http.Response, string) {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c, raw); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return nil, ""
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func gzipped(s string) string {
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	_, _ = io.WriteString(w, s)
	_ = w.Close()
	return b.String()
}

// TestHostileEdges: requests an attacker crafts by hand at the
// service's edges (framing, headers, encodings, sizes, paths). Each gets a
// clear refusal or the ordinary answer, never a 5xx, a hang or a change of
// the list.
func TestHostileEdges(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("ops", false)
	host := strings.TrimPrefix(s.url, "http://")
	auth := "Authorization: Bearer " + key + "\r\n"
	post := func(extra, body string) string {
		return "POST /suppressions/batch/add HTTP/1.1\r\nHost: " + host + "\r\n" + auth + extra + "\r\n" + body
	}
	get := func(target, extra string) string {
		return "GET " + target + " HTTP/1.1\r\nHost: " + host + "\r\n" + auth + extra + "\r\n"
	}
	add := `{"emails":["edge@example.com"]}`
	big := `{"emails":["` + strings.Repeat("a", server.MaxBody) + `@example.com"]}`
	bomb := gzipped(`{"emails":["` + strings.Repeat("z", 4<<20) + `@example.com"]}`)
	cases := []struct {
		name   string
		raw    string
		status int    // 0: the connection is closed without an answer
		want   string // part of the body
	}{
		{"two-different-content-lengths", post("Content-Type: application/json\r\nContent-Length: 31\r\nContent-Length: 5\r\n", add), 400, ""},
		{"negative-content-length", post("Content-Type: application/json\r\nContent-Length: -1\r\n", add), 400, ""},
		{"non-numeric-content-length", post("Content-Type: application/json\r\nContent-Length: 0x1f\r\n", add), 400, ""},
		{"transfer-encoding-not-chunked", post("Content-Type: application/json\r\nTransfer-Encoding: gzip\r\n", add), 501, ""},
		{"transfer-encoding-chunked-twice", post("Content-Type: application/json\r\nTransfer-Encoding: chunked, chunked\r\n", chunked(add)), 501, ""},
		{"content-length-over-1mib-refused-unread", post(fmt.Sprintf("Content-Type: application/json\r\nContent-Length: %d\r\n", 1<<30), ""), 413, "larger than"},
		{"chunked-body-over-1mib", post("Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n", chunked(big)), 413, "larger than"},
		{"expect-100-continue-too-large", post(fmt.Sprintf("Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: %d\r\n", 2<<20), ""), 413, "larger than"},
		{"gzip-bomb-never-inflated", post(fmt.Sprintf("Content-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n", len(bomb)), bomb), 400, "UTF-8"},
		{"utf16-body", post("Content-Type: application/json; charset=utf-16\r\nContent-Length: 6\r\n", "\xff\xfe{\x00}\x00"), 400, "UTF-8"},
		{"bom-before-json", post("Content-Type: application/json\r\nContent-Length: 34\r\n", "\xef\xbb\xbf"+add), 400, "not valid JSON"},
		{"json-content-type-lookalike", post("Content-Type: application/jsonx\r\nContent-Length: 31\r\n", add), 415, "Content-Type"},
		{"overlong-utf8-at-sign", post("Content-Type: application/json\r\nContent-Length: 32\r\n", `{"emails":["edge`+"\xc0\x80"+`example.com"]}`), 400, "UTF-8"},
		{"absolute-form-uri-other-host", "GET http://evil.example/suppressions HTTP/1.1\r\nHost: evil.example\r\n\r\n", 401, "missing_api_key"},
		{"path-traversal-in-ref", get("/suppressions/..%2f..%2fetc%2fpasswd", ""), 422, "neither a suppression ID nor a valid email address"},
		{"dot-segments-redirected-same-host", get("/suppressions/../../etc/passwd", ""), 307, ""},
		{"nul-in-path", get("/suppressions/a%00b@example.com", ""), 422, "neither"},
		{"very-long-path", get("/suppressions/"+strings.Repeat("a", 8000)+"@example.com", ""), 422, "neither"},
		{"limit-huge-number", get("/suppressions?limit=1e100", ""), 422, "limit"},
		{"limit-given-twice", get("/suppressions?limit=1&limit=100", ""), 422, "limit"},
		{"malformed-query-escape", get("/suppressions?limit=%zz", ""), 400, "query string"},
		{"method-override-header-ignored", get("/suppressions/edge@example.com", "X-HTTP-Method-Override: DELETE\r\n"), 404, "not_found"},
		{"trace-method", "TRACE /suppressions HTTP/1.1\r\nHost: " + host + "\r\n" + auth + "\r\n", 405, "method_not_allowed"},
		{"request-id-injection-replaced", get("/suppressions", "X-Request-Id: "+strings.Repeat("x", 65)+"\r\n"), 200, ""},
		{"control-character-in-header", get("/suppressions", "X-Note: a\x1b[2Jb\r\n"), 400, ""},
		{"bearer-key-with-spaces-and-unicode", "GET /suppressions HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer shush_\u202e key\r\n\r\n", 403, "invalid_api_key"},
		{"basic-auth-instead-of-bearer", "GET /suppressions HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Basic dXNlcjpwYXNz\r\n\r\n", 401, "missing_api_key"},
		{"oversized-header-block", get("/suppressions", "X-Pad: "+strings.Repeat("p", 2<<20)+"\r\n"), 431, ""},
		{"http-0.9-style-request", "GET /suppressions\r\n\r\n", 400, ""},
		{"websocket-upgrade-ignored", get("/livez", "Connection: Upgrade\r\nUpgrade: websocket\r\n"), 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			resp, body := rawOnce(t, s.url, c.raw)
			if resp == nil {
				if c.status != 0 {
					t.Fatalf("no answer, want %d", c.status)
				}
				return
			}
			if resp.StatusCode != c.status || !strings.Contains(body, c.want) {
				t.Errorf("%d %s, want %d mentioning %q", resp.StatusCode, body, c.status, c.want)
			}
			if c.name == "request-id-injection-replaced" && !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(resp.Header.Get("X-Request-Id")) {
				t.Errorf("a 65-character request ID came back as %q", resp.Header.Get("X-Request-Id"))
			}
			if c.name == "dot-segments-redirected-same-host" && resp.Header.Get("Location") != "/etc/passwd" {
				t.Errorf("redirected to %q, want the cleaned path on the same host", resp.Header.Get("Location"))
			}
			if c.name == "absolute-form-uri-other-host" && strings.Contains(body, "evil") {
				t.Error("the answer names the other host")
			}
		})
	}
	if s.lookup(key, "edge@example.com") != "" {
		t.Error("a hostile request changed the list")
	}
}
