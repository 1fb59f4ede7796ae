package ui

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// check verifies that the duplicate set and the valid count agree with the
// rows.
func check(t *testing.T, l *entries, step string) {
	t.Helper()
	seen := map[string]int{}
	valid := 0
	for _, e := range l.rows {
		if e.Valid() {
			seen[e.Value]++
			valid++
		}
	}
	if !reflect.DeepEqual(seen, l.seen) && !(len(seen) == 0 && len(l.seen) == 0) || valid != l.valid {
		t.Fatalf("after %s: set %v (valid %d), rows say %v (valid %d)", step, l.seen, l.valid, seen, valid)
	}
}

func snapshot(l *entries) []entry { return append([]entry(nil), l.rows...) }

// Any sequence of changes, undone step by step, walks back through the
// same lists, and the duplicate set always matches the rows.
func TestUndoWalksBack(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	l := newEntries(batch.Add)
	var history [][]entry
	var modes []batch.Mode
	for step := 0; step < 40; step++ {
		history = append(history, snapshot(l))
		modes = append(modes, l.mode)
		before := l.gen
		switch op := r.IntN(6); op {
		case 0, 1:
			var items []batch.Item
			for k := 0; k < 1+r.IntN(5); k++ {
				raw := fmt.Sprintf("u%d@example.com", r.IntN(30))
				if r.IntN(5) == 0 {
					raw = "bad@"
				}
				items = append(items, batch.NewItem(l.mode, k+1, raw))
			}
			l.add(items, nil, "paste")
		case 2:
			if l.len() > 0 {
				l.edit(r.IntN(l.len()), fmt.Sprintf("e%d@example.com", r.IntN(30)))
			}
		case 3:
			if l.len() > 0 {
				l.remove(map[int]bool{r.IntN(l.len()): true, r.IntN(l.len()): true})
			}
		case 4:
			l.clear()
		case 5:
			l.setMode(batch.Mode(r.IntN(2)), ticket.Own{})
		}
		if l.gen == before {
			// Nothing changed, nothing to undo.
			history, modes = history[:len(history)-1], modes[:len(modes)-1]
		}
		check(t, l, fmt.Sprintf("step %d", step))
	}
	for i := len(history) - 1; i >= 0; i-- {
		if _, ok := l.undoLast(); !ok {
			if len(history)-i > maxUndo {
				return
			}
			t.Fatalf("undo %d refused", i)
		}
		check(t, l, fmt.Sprintf("undo to %d", i))
		if l.mode != modes[i] || !reflect.DeepEqual(snapshot(l), history[i]) && !(len(history[i]) == 0 && l.len() == 0) {
			t.Fatalf("undo to step %d: got %v (mode %v), want %v (mode %v)", i, l.rows, l.mode, history[i], modes[i])
		}
	}
}
