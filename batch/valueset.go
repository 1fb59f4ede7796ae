package batch

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
)

// valueSet holds the distinct values of a plan in order of first
// occurrence, compactly: the values one after the other in chunks of
// memory (a length, then the bytes), and an open-addressing table of
// 64-bit slots that finds a value's place. A slot holds the upper bits of
// the value's hash and the value's offset in the chunks, so that a probe
// compares whole values only when those bits match, and a hash collision
// is settled by comparing the values themselves: two different values are
// never taken for one. A value costs its length plus about 12 bytes,
// where a map[string]struct{} and a []string cost about 70.
type valueSet struct {
	seed   maphash.Seed
	slots  []uint64 // 0 is empty; else fingerprint<<offBits | offset+1
	used   int      // slots in use
	chunks [][]byte
	// dropped holds the offsets of values taken out again (drop); they are
	// skipped when the values are listed.
	dropped map[uint64]bool
	n       int // values held, dropped ones not counted
	// stored counts the values stored, dropped ones too: a value's
	// ordinal (see entries) is its place among them.
	stored int
	// collide gives every value the same hash: tests use it to show that
	// colliding values are told apart by their bytes.
	collide bool
}

const (
	offBits   = 40 // a terabyte of values, beyond MaxInput
	offMask   = 1<<offBits - 1
	chunkBits = 20
	chunkSize = 1 << chunkBits // more than any value (an address has at most 254 bytes)
)

func newValueSet() *valueSet { return &valueSet{seed: maphash.MakeSeed()} }

// reserve makes room for n values without growing the table on the way.
func (s *valueSet) reserve(n int) {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	if size > len(s.slots) {
		s.rehash(size)
	}
}

// add puts v in the set unless it is there; off is where v is kept.
func (s *valueSet) add(v string) (off uint64, added bool) {
	if (s.used+1)*4 > len(s.slots)*3 {
		s.rehash(max(16, 2*len(s.slots)))
	}
	h := maphash.String(s.seed, v)
	if s.collide {
		h = 0
	}
	fp := h >> offBits
	mask := uint64(len(s.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		x := s.slots[i]
		if x == 0 {
			off = s.store(v)
			s.slots[i] = fp<<offBits | (off + 1)
			s.used++
			s.n++
			return off, true
		}
		if x>>offBits == fp && string(s.at(x&offMask-1)) == v {
			return x&offMask - 1, false
		}
	}
}

// rehash moves the slots to a table of size slots (a power of two).
func (s *valueSet) rehash(size int) {
	old := s.slots
	s.slots = make([]uint64, size)
	mask := uint64(size - 1)
	for _, x := range old {
		if x == 0 {
			continue
		}
		h := maphash.Bytes(s.seed, s.at(x&offMask-1))
		if s.collide {
			h = 0
		}
		i := h & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = x
	}
}

// store appends v to the chunks and returns its offset.
func (s *valueSet) store(v string) uint64 {
	need := binary.MaxVarintLen64 + len(v)
	last := len(s.chunks) - 1
	if last < 0 || cap(s.chunks[last])-len(s.chunks[last]) < need {
		s.chunks = append(s.chunks, make([]byte, 0, chunkSize))
		last++
	}
	c := s.chunks[last]
	off := uint64(last)<<chunkBits | uint64(len(c))
	c = binary.AppendUvarint(c, uint64(len(v)))
	s.chunks[last] = append(c, v...)
	s.stored++
	return off
}

// at returns the value kept at off.
func (s *valueSet) at(off uint64) []byte {
	c := s.chunks[off>>chunkBits][off&(chunkSize-1):]
	n, k := binary.Uvarint(c)
	return c[k : k+int(n)]
}

// drop takes the value at off out of the listing (it stays found by add).
func (s *valueSet) drop(off uint64) {
	if s.dropped == nil {
		s.dropped = map[uint64]bool{}
	}
	if !s.dropped[off] {
		s.dropped[off] = true
		s.n--
	}
}

// done lets go of the table: the values can still be listed, no longer
// added.
func (s *valueSet) done() {
	s.slots, s.used = nil, 0
}

// each calls fn with every value in order of first occurrence (the bytes
// are valid during the call) until fn returns false.
func (s *valueSet) each(fn func(v []byte) bool) {
	for v := range s.values(false) {
		if !fn(v) {
			return
		}
	}
}

// values lists the values in order of first occurrence; a value's bytes
// are valid until the next. With release, each chunk of values is let go
// once listed: the set is then spent.
func (s *valueSet) values(release bool) iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		for _, v := range s.entries(release) {
			if !yield(v) {
				return
			}
		}
	}
}

// entries is values with each value's ordinal: its place in the order
// of first occurrence, dropped values counted (what add's caller can
// number a value by: the number of values stored before it).
func (s *valueSet) entries(release bool) iter.Seq2[int, []byte] {
	return func(yield func(int, []byte) bool) {
		ord := -1
		for ci, c := range s.chunks {
			for p := 0; p < len(c); {
				off := uint64(ci)<<chunkBits | uint64(p)
				n, k := binary.Uvarint(c[p:])
				v := c[p+k : p+k+int(n)]
				p += k + int(n)
				ord++
				if s.dropped[off] {
					continue
				}
				if !yield(ord, v) {
					return
				}
			}
			if release {
				s.chunks[ci] = nil
			}
		}
	}
}
