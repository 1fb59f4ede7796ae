package bounce

import (
	"fmt"
	"io"
)

// Parse reads one RFC 5322 message and returns its reports: at least one,
// since a message the reader cannot place is one Report of KindUnknown with
// what it found. An error means the message cannot be read at all: it is
// empty, larger than MaxMessageSize, or its header is not a mail header.
func Parse(r io.Reader) ([]Report, error) {
	raw, err := io.ReadAll(io.LimitReader(r, MaxMessageSize+1))
	if err != nil {
		return nil, fmt.Errorf("reading the message: %w", err)
	}
	if len(raw) > MaxMessageSize {
		return nil, errTooLarge
	}
	return parse(raw)
}
