package batch

import (
	"io"

	"github.com/shushlist/shush/ticket"
)

// Read is ReadFormat without the format.
func Read(r io.Reader, name string, mode Mode) ([]Item, error) {
	items, _, err := ReadFormat(r, name, mode)
	return items, err
}

// ReadPlan is ReadPlanAs of a format found by itself.
func ReadPlan(r io.Reader, name string, mode Mode, own ticket.Own, ov ticket.Override) (*Input, error) {
	return ReadPlanAs(r, name, mode, own, ov, FormatAuto)
}
