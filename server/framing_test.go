package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server"
)

// rawExchange writes raw bytes on one connection and reads n answers.
func rawExchange(t *testing.T, base, raw string, n int) []*http.Response {
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
	br := bufio.NewReader(c)
	var out []*http.Response
	for i := 0; i < n; i++ {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		out = append(out, resp)
	}
	// Nothing more may follow.
	if _, err := br.ReadByte(); err == nil {
		t.Errorf("more bytes after %d answers", n)
	}
	return out
}

func bodyOf(r *http.Response) string {
	b, _ := io.ReadAll(r.Body)
	return string(b)
}

func chunked(body string) string {
	return fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(body), body)
}

// TestAmbiguousFramingIsRefused: a request with both Content-Length and
// Transfer-Encoding is answered 400 and the connection closed, whatever
// the case of the names and whatever came before it on the connection; the
// list is unchanged.
func TestAmbiguousFramingIsRefused(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("ops", false)
	host := strings.TrimPrefix(s.url, "http://")
	body := `{"emails":["smuggled@example.com"]}`
	head := "POST /suppressions/batch/add HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/json\r\n"

	for name, raw := range map[string]string{
		"cl-then-te": head + fmt.Sprintf("Content-Length: %d\r\n", len(chunked(body))) + "Transfer-Encoding: chunked\r\n\r\n" + chunked(body),
		"te-then-cl": head + "Transfer-Encoding: chunked\r\n" + "Content-Length: 4\r\n\r\n" + chunked(body),
		"odd-case":   head + "transfer-encoding: chunked\r\n" + "CONTENT-LENGTH: 4\r\n\r\n" + chunked(body),
	} {
		t.Run(name, func(t *testing.T) {
			resp := rawExchange(t, s.url, raw, 1)[0]
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(bodyOf(resp), "Content-Length and Transfer-Encoding") {
				t.Errorf("status %d", resp.StatusCode)
			}
			if !resp.Close {
				t.Error("the connection stays open after an ambiguous request")
			}
		})
	}

	// Behind a well-framed request on the same connection.
	good := `{"emails":["first@example.com"]}`
	raw := head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(good), good) +
		head + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body)
	answers := rawExchange(t, s.url, raw, 2)
	if answers[0].StatusCode != http.StatusCreated || answers[1].StatusCode != http.StatusBadRequest {
		t.Errorf("pipelined good then ambiguous: %d, %d", answers[0].StatusCode, answers[1].StatusCode)
	}

	// Behind "OPTIONS *", which the HTTP server answers without the
	// service: the verdicts stay in step.
	raw = "OPTIONS * HTTP/1.1\r\nHost: " + host + "\r\n\r\n" +
		head + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked(body)
	answers = rawExchange(t, s.url, raw, 2)
	if answers[0].StatusCode != http.StatusOK || answers[1].StatusCode != http.StatusBadRequest {
		t.Errorf("OPTIONS * then ambiguous: %d, %d", answers[0].StatusCode, answers[1].StatusCode)
	}
	// An ambiguous "OPTIONS *" leaves the guard unsure of what follows:
	// the next request is refused, not trusted.
	raw = "OPTIONS * HTTP/1.1\r\nHost: " + host + "\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
		head + "Transfer-Encoding: chunked\r\n\r\n" + chunked(body)
	answers = rawExchange(t, s.url, raw, 2)
	if answers[1].StatusCode != http.StatusBadRequest {
		t.Errorf("a request after an ambiguous OPTIONS *: %d", answers[1].StatusCode)
	}
	if s.lookup(key, "smuggled@example.com") != "" {
		t.Error("an ambiguous request changed the list")
	}
}

// TestWellFramedRequestsKeepFlowing: chunked and sized bodies, bodies that
// look like headers, and several requests on one connection are all
// answered as usual; only the framing guard's own case is refused.
func TestWellFramedRequestsKeepFlowing(t *testing.T) {
	s := startService(t, openSQLite(t), server.Options{})
	key := s.key("ops", false)
	host := strings.TrimPrefix(s.url, "http://")
	head := "POST /suppressions/batch/add HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/json\r\n"
	lure := "\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"
	raw := head + "Transfer-Encoding: chunked\r\n\r\n" + chunked(`{"emails":["a@example.com"]}`) +
		head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(lure), lure) +
		head + "Transfer-Encoding: chunked\r\n\r\n" + "3;ext=1\r\n{\"e\r\n" + chunked(`mails":["b@example.com"]}`) +
		head + fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(`{"emails":["c@example.com"]}`), `{"emails":["c@example.com"]}`)
	answers := rawExchange(t, s.url, raw+"GET /suppressions HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+key+"\r\nConnection: close\r\n\r\n", 5)
	want := []int{201, 400, 201, 201, 200}
	for i, r := range answers {
		if r.StatusCode != want[i] {
			t.Errorf("request %d: %d, want %d: %s", i+1, r.StatusCode, want[i], bodyOf(r))
		}
	}
	if !strings.Contains(bodyOf(answers[1]), "not valid JSON") {
		t.Errorf("the header-like body: %s", bodyOf(answers[1]))
	}
	for _, e := range []string{"a@example.com", "b@example.com", "c@example.com"} {
		if s.lookup(key, e) == "" {
			t.Errorf("%s is not listed", e)
		}
	}
}
