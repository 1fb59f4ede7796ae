package batch

import (
	"encoding/binary"
	"hash/maphash"
	"iter"
	"math/bits"
	"strings"
)

// valueSet holds the distinct values of a plan in order of first
// occurrence, compactly: the values one after the other in chunks of
// memory, and an open-addressing table of 64-bit slots that finds a
// value's place. A slot holds the upper bits of the value's hash and the
// value's offset in the chunks, so that a probe compares whole values only
// when those bits match, and a hash collision is settled by comparing the
// values themselves: two different values are never taken for one.
//
// An address's domain is kept once: the chunks hold the part before the
// last @ and the domain's number (a list's addresses are mostly at a few
// domains), for up to maxDomains domains; a value of another domain, or
// without an @ (an ID), is kept whole. A value so costs its local part,
// two or three bytes, and the table's 8 bytes a slot at three quarters
// full (about 11 a value); a map[string]struct{} and a []string cost
// about 70.
type valueSet struct {
	seed   maphash.Seed
	slots  []uint64 // 0 is empty; else fingerprint<<offBits | offset+1
	used   int      // slots in use
	chunks [][]byte
	// domains holds the domains kept once, by number; domainNo numbers
	// them.
	domains  []string
	domainNo map[string]uint64
	// buf is where a value kept with its domain's number is put together
	// again, for listing and hashing.
	buf []byte
	// dropped holds the offsets of values taken out again (drop); they are
	// skipped when the values are listed.
	dropped map[uint64]bool
	n       int // values held, dropped ones not counted
	// stored counts the values stored, dropped ones too: a value's
	// ordinal (see entries) is its place among them; length is their
	// length in all.
	stored, length int
	// collide gives every value the same hash: tests use it to show that
	// colliding values are told apart by their bytes.
	collide bool
}

const (
	offBits   = 40 // a terabyte of values, beyond MaxInput
	offMask   = 1<<offBits - 1
	chunkBits = 20
	chunkSize = 1 << chunkBits // more than any value (an address has at most 254 bytes)
	// maxDomains is the most domains kept once: their numbers take at most
	// two bytes, and their table at most about a megabyte, whatever the
	// input.
	maxDomains = 1 << 14
)

func newValueSet() *valueSet { return &valueSet{seed: maphash.MakeSeed()} }

// slotsFor is the size of a table that holds n values at most three
// quarters full.
func slotsFor(n int) int { return max(16, n+(n+2)/3) }

// reserve makes room for n values without growing the table on the way.
func (s *valueSet) reserve(n int) {
	if size := slotsFor(n); size > len(s.slots) {
		s.rehash(size)
	}
}

// home is the slot where a value of hash h is looked for first: the lower
// bits of h (the upper ones are its fingerprint) scaled to the table.
func (s *valueSet) home(h uint64) int {
	hi, _ := bits.Mul64(h<<(64-offBits), uint64(len(s.slots)))
	return int(hi)
}

func (s *valueSet) hash(v string) uint64 {
	if s.collide {
		return 0
	}
	return maphash.String(s.seed, v)
}

// add puts v in the set unless it is there; off is where v is kept.
func (s *valueSet) add(v string) (off uint64, added bool) {
	if (s.used+1)*4 > len(s.slots)*3 {
		s.rehash(slotsFor(max(16, 2*s.used)))
	}
	h := s.hash(v)
	fp := h >> offBits
	for i := s.home(h); ; {
		x := s.slots[i]
		if x == 0 {
			off = s.store(v)
			s.slots[i] = fp<<offBits | (off + 1)
			s.used++
			s.n++
			return off, true
		}
		if x>>offBits == fp && s.equal(x&offMask-1, v) {
			return x&offMask - 1, false
		}
		if i++; i == len(s.slots) {
			i = 0
		}
	}
}

// rehash moves the slots to a table of size slots.
func (s *valueSet) rehash(size int) {
	old := s.slots
	s.slots = make([]uint64, size)
	for _, x := range old {
		if x == 0 {
			continue
		}
		i := s.home(s.hash(string(s.at(x&offMask - 1))))
		for s.slots[i] != 0 {
			if i++; i == size {
				i = 0
			}
		}
		s.slots[i] = x
	}
}

// The chunks hold each value as a uvarint, then bytes: the uvarint is the
// value's length times two for a value kept whole, then the value; or the
// local part's length times two plus one, then the local part and the
// uvarint number of its domain.

// store appends v to the chunks and returns its offset.
func (s *valueSet) store(v string) uint64 {
	local, domain, kept := s.split(v)
	need := 2*binary.MaxVarintLen64 + len(v)
	last := len(s.chunks) - 1
	if last < 0 || cap(s.chunks[last])-len(s.chunks[last]) < need {
		s.chunks = append(s.chunks, make([]byte, 0, chunkSize))
		last++
	}
	c := s.chunks[last]
	off := uint64(last)<<chunkBits | uint64(len(c))
	if kept {
		c = binary.AppendUvarint(c, uint64(len(local))<<1|1)
		c = append(c, local...)
		c = binary.AppendUvarint(c, domain)
	} else {
		c = binary.AppendUvarint(c, uint64(len(v))<<1)
		c = append(c, v...)
	}
	s.chunks[last] = c
	s.stored++
	s.length += len(v)
	return off
}

// split finds the part of v before its last @ and the number of its
// domain, numbering the domain if there is room; kept is false for a
// value to keep whole.
func (s *valueSet) split(v string) (local string, domain uint64, kept bool) {
	at := strings.LastIndexByte(v, '@')
	if at < 0 || at == len(v)-1 {
		return "", 0, false
	}
	d := v[at+1:]
	n, ok := s.domainNo[d]
	if !ok {
		if len(s.domains) == maxDomains {
			return "", 0, false
		}
		if s.domainNo == nil {
			s.domainNo = map[string]uint64{}
		}
		d = strings.Clone(d) // not the whole value's memory
		n = uint64(len(s.domains))
		s.domains = append(s.domains, d)
		s.domainNo[d] = n
	}
	return v[:at], n, true
}

// entry reads the value at p in chunk c: its local part (the whole value
// when it has no domain number), its domain, and where the next begins.
func (s *valueSet) entry(c []byte, p int) (local []byte, domain string, kept bool, next int) {
	k, n := binary.Uvarint(c[p:])
	p += n
	l := int(k >> 1)
	local, p = c[p:p+l], p+l
	if k&1 == 0 {
		return local, "", false, p
	}
	d, n := binary.Uvarint(c[p:])
	return local, s.domains[d], true, p + n
}

// at returns the value kept at off, valid until the next call.
func (s *valueSet) at(off uint64) []byte {
	local, domain, kept, _ := s.entry(s.chunks[off>>chunkBits], int(off&(chunkSize-1)))
	return s.whole(local, domain, kept)
}

// whole is a value put together from its parts, valid until the next
// call.
func (s *valueSet) whole(local []byte, domain string, kept bool) []byte {
	if !kept {
		return local
	}
	s.buf = append(append(append(s.buf[:0], local...), '@'), domain...)
	return s.buf
}

// equal reports whether the value kept at off is v.
func (s *valueSet) equal(off uint64, v string) bool {
	local, domain, kept, _ := s.entry(s.chunks[off>>chunkBits], int(off&(chunkSize-1)))
	if !kept {
		return string(local) == v
	}
	l := len(local)
	return len(v) == l+1+len(domain) && v[l] == '@' && string(local) == v[:l] && domain == v[l+1:]
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
				local, domain, kept, next := s.entry(c, p)
				p = next
				ord++
				if s.dropped[off] {
					continue
				}
				if !yield(ord, s.whole(local, domain, kept)) {
					return
				}
			}
			if release {
				s.chunks[ci] = nil
			}
		}
	}
}
