package dbcopy

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"time"
)

// A row as the copy carries it: one value per column of its Table, each
// of the Go type of its kind (string, int64, bool, time.Time, []string,
// []byte), or nil for NULL. A ChangeID or ChangeRef column holds a change,
// which is compared by its canonical key and written by its key in the
// target's dialect.
type row []any

// change is a value of a ChangeID or ChangeRef column: canon is the
// change's first_id (nil for a reference to no change), native its key
// in the target's dialect (int64 or a UUID's text; nil with canon).
type change struct {
	canon  any
	native any
}

// sum is a table's checksum: how many rows, and the sum (modulo 2^128)
// of each canonical row's SHA-256, cut to 128 bits, so that the rows'
// order does not count.
type sum struct {
	rows   int64
	hi, lo uint64
}

// add counts one row.
func (s *sum) add(r row) {
	h := sha256.Sum256(canonical(r))
	lo := binary.BigEndian.Uint64(h[8:16])
	hi := binary.BigEndian.Uint64(h[:8])
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, lo, 0)
	s.hi, _ = bits.Add64(s.hi, hi, carry)
	s.rows++
}

// String is the checksum's hex form.
func (s sum) String() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], s.hi)
	binary.BigEndian.PutUint64(b[8:], s.lo)
	return hex.EncodeToString(b[:])
}

// canonical writes a row the same way whatever dialect it came from: each
// value with a tag of its type and its length, times in milliseconds.
func canonical(r row) []byte {
	b := make([]byte, 0, 256)
	for _, v := range r {
		b = appendValue(b, v)
	}
	return b
}

func appendValue(b []byte, v any) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, 0)
	case string:
		return appendString(append(b, 1), x)
	case int64:
		return binary.BigEndian.AppendUint64(append(b, 2), uint64(x))
	case bool:
		if x {
			return append(b, 3, 1)
		}
		return append(b, 3, 0)
	case time.Time:
		return binary.BigEndian.AppendUint64(append(b, 4), uint64(x.UnixMilli()))
	case []string:
		b = binary.AppendUvarint(append(b, 5), uint64(len(x)))
		for _, s := range x {
			b = appendString(b, s)
		}
		return b
	case []byte:
		b = binary.AppendUvarint(append(b, 6), uint64(len(x)))
		return append(b, x...)
	case change:
		return appendValue(b, x.canon)
	}
	panic(fmt.Sprintf("dbcopy: a value of type %T", v))
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
