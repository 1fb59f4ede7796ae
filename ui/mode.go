package ui

import "github.com/shushlist/shush/batch"

// Mode is what a batch does with its entries.
type Mode int

// The three modes of a batch.
const (
	ModeAdd Mode = iota
	ModeRemoveEmails
	ModeRemoveIDs
)

// String names the mode as the header shows it.
func (m Mode) String() string {
	switch m {
	case ModeRemoveEmails:
		return "remove by address"
	case ModeRemoveIDs:
		return "remove by ID"
	}
	return "add"
}

func (m Mode) next() Mode { return (m + 1) % 3 }

// removes reports whether the mode takes entries off the list.
func (m Mode) removes() bool { return m != ModeAdd }

// noun is what one entry of the mode is called.
func (m Mode) noun() string {
	if m == ModeRemoveIDs {
		return "ID"
	}
	return "address"
}

// batch is the mode as batch names it.
func (m Mode) batch() batch.Mode {
	switch m {
	case ModeRemoveEmails:
		return batch.RemoveEmails
	case ModeRemoveIDs:
		return batch.RemoveIDs
	}
	return batch.Add
}

func fromBatchMode(m batch.Mode) Mode {
	switch m {
	case batch.RemoveEmails:
		return ModeRemoveEmails
	case batch.RemoveIDs:
		return ModeRemoveIDs
	}
	return ModeAdd
}
