package sqlstore

import (
	"context"
	"fmt"

	"github.com/google/uuid"
)

// minter mints the IDs a change gives to what it puts in a team's trail
// and on its list (new entries, audit entries), while the change holds
// the team's trail head: each ID is above the last one any change of the
// team minted, and the head is held until the change commits, so the
// team's IDs ascend in the order their changes commit. A reader that
// follows the trail or the list by ID (a cursor of the newest seen) can
// then never see a newer ID before an older one commits and so skip it,
// whatever the processes' clocks say.
type minter struct {
	team string
	last uuid.UUID
	// minted says whether an ID was minted, and so the head moves.
	minted bool
}

// holdTrail takes the team's trail head for the rest of the change. With
// wait false it returns nil, rather than waiting, when another change
// holds it.
func holdTrail(ctx context.Context, tx Tx, team string, wait bool) (*minter, error) {
	last, ok, err := tx.HoldTrail(ctx, team, wait)
	if err != nil || !ok {
		return nil, err
	}
	m := &minter{team: team}
	if last != "" {
		if m.last, err = uuid.Parse(last); err != nil {
			return nil, fmt.Errorf("the trail head of team %q is not an ID: %w", team, err)
		}
	}
	return m, nil
}

// next mints an ID: a fresh UUIDv7, or the one just above the last ID
// minted when the clock has not passed it (another process's clock may
// be ahead of this one's).
func (m *minter) next() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", err
	}
	if cmpUUID(u, m.last) <= 0 {
		u = above(m.last)
	}
	m.last, m.minted = u, true
	return u.String(), nil
}

// save moves the team's head to the last ID minted, inside the change.
func (m *minter) save(ctx context.Context, tx Tx) error {
	if m == nil || !m.minted {
		return nil
	}
	return tx.SetTrailHead(ctx, m.team, m.last.String())
}

func cmpUUID(a, b uuid.UUID) int {
	for i := range a {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// above returns the UUIDv7 just above u: its random bits (the 62 of
// rand_b, then the 12 of rand_a) plus one, the version and variant kept;
// past them, the next millisecond.
func above(u uuid.UUID) uuid.UUID {
	// rand_b: byte 8's low 6 bits and bytes 9-15.
	for i := 15; i >= 9; i-- {
		u[i]++
		if u[i] != 0 {
			return u
		}
	}
	if u[8]&0x3f != 0x3f {
		u[8]++
		return u
	}
	u[8] &^= 0x3f
	// rand_a: byte 6's low 4 bits and byte 7.
	u[7]++
	if u[7] != 0 {
		return u
	}
	if u[6]&0x0f != 0x0f {
		u[6]++
		return u
	}
	u[6] &^= 0x0f
	// The 48-bit millisecond time.
	for i := 5; i >= 0; i-- {
		u[i]++
		if u[i] != 0 {
			break
		}
	}
	return u
}
