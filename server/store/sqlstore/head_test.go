package sqlstore

import (
	"testing"

	"github.com/google/uuid"
)

// A process whose clock is behind the head's still mints IDs above it,
// and they stay valid UUIDv7s through every carry.
func TestMinterStaysAboveTheHead(t *testing.T) {
	for _, head := range []string{
		"ffffff00-0000-7000-8000-000000000000", // far in the future
		"01a20f83-cbd6-7d1c-bfff-ffffffffffff", // rand_b full
		"01a20f83-cbd6-7fff-bfff-ffffffffffff", // rand_a and rand_b full
	} {
		m := &minter{team: "t", last: uuid.MustParse(head)}
		prev := head
		for range 3 {
			id, err := m.next()
			if err != nil {
				t.Fatal(err)
			}
			u := uuid.MustParse(id)
			if id <= prev || u.Version() != 7 || u.Variant() != uuid.RFC4122 {
				t.Fatalf("after %s minted %s (version %d, variant %v)", prev, id, u.Version(), u.Variant())
			}
			prev = id
		}
	}
}
