package client

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/internal/redact"
)

// WithTrace writes every request the client sends and every answer it
// gets to w, as gh's GH_DEBUG=api does: method, URL, headers and body, then
// status, headers and body, each attempt of a retried request apart. What
// could let someone use the account never appears: the Authorization header
// shows only its scheme, URL user info is removed, a signing secret or key
// in a body is masked. A body is shown up to 64 KiB (an export streams on,
// unshown, past that).
func WithTrace(w io.Writer) Option {
	return func(o *options) { o.trace = w }
}

// traceLimit is how much of a body the trace shows.
const traceLimit = 64 << 10

// tracer is the transport that writes the trace, around the real one.
type tracer struct {
	next http.RoundTripper
	mu   *sync.Mutex // one request's or answer's lines stay together
	w    io.Writer
	n    *int64
	// key is the client's API key: wherever it would show (a service
	// that echoes it), it is masked too.
	key string
}

func newTracer(next http.RoundTripper, w io.Writer, key string) *tracer {
	if next == nil {
		next = http.DefaultTransport
	}
	var n int64
	return &tracer{next: next, mu: &sync.Mutex{}, w: w, n: &n, key: key}
}

func (t *tracer) RoundTrip(req *http.Request) (*http.Response, error) {
	t.mu.Lock()
	*t.n++
	id := *t.n
	t.mu.Unlock()
	var body []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
		req.Body = io.NopCloser(bytes.NewReader(b))
	}
	t.write(fmt.Sprintf("> #%d %s %s", id, req.Method, redact.URL(req.URL.String())), req.Header, body, int64(len(body)))
	start := time.Now()
	resp, err := t.next.RoundTrip(req)
	took := time.Since(start).Round(time.Millisecond)
	if err != nil {
		msg := redactText(err.Error())
		if t.key != "" {
			msg = strings.ReplaceAll(msg, t.key, "[redacted]")
		}
		t.mu.Lock()
		fmt.Fprintf(t.w, "< #%d no answer after %s: %s\n\n", id, took, msg)
		t.mu.Unlock()
		return nil, err
	}
	resp.Body = &tracedBody{ReadCloser: resp.Body, t: t, head: fmt.Sprintf("< #%d %s (%s)", id, resp.Status, took), header: resp.Header}
	return resp, nil
}

// write prints a request's or an answer's head line, headers and body.
func (t *tracer) write(head string, h http.Header, body []byte, size int64) {
	var b strings.Builder
	b.WriteString(head + "\n")
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			fmt.Fprintf(&b, "%s: %s\n", k, redactHeader(k, v))
		}
	}
	if len(body) > 0 {
		b.WriteString("\n")
		b.Write(redactBody(body))
		if !bytes.HasSuffix(body, []byte("\n")) {
			b.WriteString("\n")
		}
		if size > int64(len(body)) {
			fmt.Fprintf(&b, "… (%d bytes in all; the trace shows the first %d)\n", size, len(body))
		}
	}
	b.WriteString("\n")
	out := b.String()
	if t.key != "" {
		out = strings.ReplaceAll(out, t.key, "[redacted]")
	}
	t.mu.Lock()
	io.WriteString(t.w, out)
	t.mu.Unlock()
}

// tracedBody keeps the first traceLimit bytes of an answer as it is read,
// and writes the answer's trace when it is closed (or read to its end).
type tracedBody struct {
	io.ReadCloser
	t      *tracer
	head   string
	header http.Header
	kept   []byte
	size   int64
	done   bool
}

func (b *tracedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.size += int64(n)
	if room := traceLimit - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(n, room)]...)
	}
	if err == io.EOF {
		b.flush()
	}
	return n, err
}

func (b *tracedBody) Close() error {
	b.flush()
	return b.ReadCloser.Close()
}

func (b *tracedBody) flush() {
	if b.done {
		return
	}
	b.done = true
	b.t.write(b.head, b.header, b.kept, b.size)
}

// redactHeader shows a header's value unless it carries a credential.
func redactHeader(name, v string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		scheme, _, _ := strings.Cut(v, " ")
		return scheme + " [redacted]"
	case "Cookie", "Set-Cookie":
		return "[redacted]"
	}
	return v
}

// Credentials a body or an error may carry: a webhook's signing secret, a
// shush or hosted-service key, and URL user info.
var (
	secretField = regexp.MustCompile(`("(?:signing_secret|secret|key|api_key|token)"\s*:\s*")[^"]*(")`)
	keyText     = regexp.MustCompile(`\b(` + api.WebhookSecretPrefix + `|shush_|re_)[A-Za-z0-9_+/=-]{6,}`)
	userInfo    = regexp.MustCompile(`(://)[^/@\s]*@`)
)

func redactBody(b []byte) []byte {
	b = secretField.ReplaceAll(b, []byte("${1}[redacted]${2}"))
	return keyText.ReplaceAll(b, []byte("${1}[redacted]"))
}

// redactText removes credentials from an error's text (a URL in it).
func redactText(s string) string {
	return string(redactBody([]byte(userInfo.ReplaceAllString(s, "${1}***@"))))
}
