package server

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// Go's HTTP server accepts a request with both Content-Length and
// Transfer-Encoding (it drops Content-Length, as RFC 9112 allows), so a
// handler cannot tell such a request from a plain chunked one. A proxy in
// front that frames by Content-Length would then see a different request
// boundary than we do: request smuggling. RFC 9112 lets a server refuse the
// message instead, and so do we: GuardFraming's connections watch the
// request heads as the server reads them and the handler's framing layer
// answers 400 to an ambiguous one. A Service puts both in place.

// GuardFraming wraps a listener's connections so that the service can
// refuse requests with both Content-Length and Transfer-Encoding. Give the
// http.Server ConnContext too. Under TLS, wrap the TLS listener (the
// connections it returns), not the TCP one.
func GuardFraming(ln net.Listener) net.Listener { return guardListener{ln} }

// ConnContext is the http.Server hook that lets the handler find the
// connection GuardFraming watches.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if fc, ok := c.(*framingConn); ok {
		return context.WithValue(ctx, framingKey{}, fc)
	}
	return ctx
}

type framingKey struct{}

type guardListener struct{ net.Listener }

func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &framingConn{Conn: c}, nil
}

// The states of the scanner.
const (
	scanHead = iota
	scanBody
	scanChunkSize
	scanChunkData
	scanChunkEnd
	scanTrailer
	scanOff // lost track, or the connection ends after an ambiguous request
)

// maxLine bounds a line the scanner keeps; longer heads are the HTTP
// server's to refuse.
const maxLine = 64 << 10

// framingConn follows the HTTP/1.1 framing of the bytes read from it and
// queues, per request head, whether the head was ambiguous.
type framingConn struct {
	net.Conn

	mu        sync.Mutex
	state     int
	line      []byte
	inHead    bool // a request line was seen for the current head
	global    bool // the current head is "OPTIONS *", which the HTTP server answers itself
	cl, te    bool
	clValue   int64
	remaining int64
	verdicts  []bool
}

func (c *framingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.scan(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// ambiguous takes the verdict of the next request head read. Every head
// the handler sees passed through scan first, so a missing verdict means
// the scanner lost track (after an ambiguous head, or bytes it cannot
// follow): the request is refused rather than trusted.
func (c *framingConn) ambiguous() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.verdicts) == 0 {
		return true
	}
	v := c.verdicts[0]
	c.verdicts = c.verdicts[1:]
	return v
}

func (c *framingConn) scan(b []byte) {
	for len(b) > 0 && c.state != scanOff {
		switch c.state {
		case scanBody, scanChunkData:
			k := min(int64(len(b)), c.remaining)
			c.remaining -= k
			b = b[k:]
			if c.remaining == 0 {
				if c.state == scanBody {
					c.state = scanHead
				} else {
					c.state = scanChunkEnd
				}
			}
		default:
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				c.line = append(c.line, b...)
				if len(c.line) > maxLine {
					c.state = scanOff
				}
				return
			}
			c.line = append(c.line, b[:i]...)
			b = b[i+1:]
			line := strings.TrimSuffix(string(c.line), "\r")
			c.line = c.line[:0]
			c.onLine(line)
		}
	}
}

func (c *framingConn) onLine(line string) {
	switch c.state {
	case scanHead:
		c.headLine(line)
	case scanChunkSize:
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		switch {
		case err != nil || n < 0:
			c.state = scanOff
		case n == 0:
			c.state = scanTrailer
		default:
			c.state, c.remaining = scanChunkData, n
		}
	case scanChunkEnd:
		if line != "" {
			c.state = scanOff
			return
		}
		c.state = scanChunkSize
	case scanTrailer:
		if line == "" {
			c.state = scanHead
		}
	}
}

// headLine reads a line of a request's head: its request line, a header
// field, or the blank line that ends it and says how the body is framed.
func (c *framingConn) headLine(line string) {
	if !c.inHead {
		if line == "" {
			return // blank lines before a request are allowed
		}
		c.inHead, c.cl, c.te, c.clValue = true, false, false, 0
		// The server answers "OPTIONS *" without calling the
		// handler, so it must not leave a verdict in the queue.
		c.global = strings.HasPrefix(line, "OPTIONS * ")
		return
	}
	if line != "" {
		c.headerField(line)
		return
	}
	c.inHead = false
	if !c.global {
		c.verdicts = append(c.verdicts, c.cl && c.te)
	}
	switch {
	case c.cl && c.te:
		c.state = scanOff
	case c.te:
		c.state = scanChunkSize
	case c.clValue > 0:
		c.state, c.remaining = scanBody, c.clValue
	}
}

// headerField notes the framing a header field gives: Content-Length
// and Transfer-Encoding.
func (c *framingConn) headerField(line string) {
	name, value, ok := strings.Cut(line, ":")
	if !ok {
		return
	}
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "content-length":
		c.cl = true
		n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64)
		if err != nil || n < 0 {
			c.state = scanOff // the server refuses it itself
			return
		}
		c.clValue = n
	case "transfer-encoding":
		c.te = true
	}
}

// ambiguousFraming reports whether r came with both Content-Length and
// Transfer-Encoding on a connection GuardFraming watches.
func ambiguousFraming(r *http.Request) bool {
	fc, ok := r.Context().Value(framingKey{}).(*framingConn)
	return ok && fc.ambiguous()
}
