package ui

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
