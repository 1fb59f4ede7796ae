package ui

import "github.com/shushlist/shush/batch"

// The UI works in batch's modes: add, remove by address, remove by ID,
// and erase, which only a ticket that asks to be forgotten proposes.

// nextMode is the mode m changes to: add, then remove by address, then by
// ID, then add again; from erase, add.
func nextMode(m batch.Mode) batch.Mode {
	switch m {
	case batch.Add:
		return batch.RemoveEmails
	case batch.RemoveEmails:
		return batch.RemoveIDs
	}
	return batch.Add
}

// removes reports whether the mode takes entries off the list.
func removes(m batch.Mode) bool { return m == batch.RemoveEmails || m == batch.RemoveIDs }

// adds reports whether the mode keeps its addresses on the list: add, and
// erase (the review treats them alike, but erase has no note or expiry).
func adds(m batch.Mode) bool { return m == batch.Add || m == batch.Erase }

// noun is what one entry of the mode is called.
func noun(m batch.Mode) string {
	if m == batch.RemoveIDs {
		return "ID"
	}
	return "address"
}
