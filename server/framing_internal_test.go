package server

import (
	"slices"
	"testing"
)

// FuzzFraming: the framing scanner never panics, and what it decides does
// not depend on how the bytes were split across reads.
func FuzzFraming(f *testing.F) {
	f.Add([]byte("POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nabcGET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 2\r\n\r\n"), uint8(7))
	f.Add([]byte("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nTrailer: 1\r\n\r\nGET / HTTP/1.1\r\n\r\n"), uint8(1))
	f.Add([]byte("\r\n\r\nGET / HTTP/1.1\nContent-Length: 0\n\n"), uint8(3))
	f.Fuzz(func(t *testing.T, stream []byte, step uint8) {
		whole := &framingConn{}
		whole.scan(stream)
		split := &framingConn{}
		n := int(step%16) + 1
		for i := 0; i < len(stream); i += n {
			split.scan(stream[i:min(i+n, len(stream))])
		}
		if !slices.Equal(whole.verdicts, split.verdicts) || whole.state != split.state {
			t.Fatalf("whole: %v state %d; in pieces of %d: %v state %d", whole.verdicts, whole.state, n, split.verdicts, split.state)
		}
	})
}
