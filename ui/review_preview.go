package ui

import (
	"context"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

// The review's preview: the look-up of every entry before it is sent, and
// the view of what it found.

// preview is the lookup of every entry of a removal (batch.Lookup); a
// removal by address then goes by the IDs it found (Plan.Found), and the
// undo of a removal by ID adds back the addresses it found.
type preview struct {
	seq     int
	done    int
	lookups []batch.Found
	found   int
	missing int
	failed  int
}

func (p *preview) complete() bool { return p.done == len(p.lookups) }

type previewMsg struct {
	seq     int
	start   int
	lookups []batch.Found
}

const previewChunk = 64

func (r *review) startPreview() tea.Cmd {
	r.seq++
	r.preview = &preview{seq: r.seq, lookups: make([]batch.Found, len(r.values))}
	return r.lookup(0)
}

// lookup resolves the next chunk of the preview: addresses with the
// checker (a bulk request's worth, or a few look-ups at a time), IDs a few
// look-ups at a time.
func (r *review) lookup(start int) tea.Cmd {
	size := previewChunk
	if r.mode != batch.RemoveIDs {
		size = r.c.Checker.ChunkSize()
	}
	end := min(start+size, len(r.values))
	vals := append([]string(nil), r.values[start:end]...)
	svc, seq, byID, k := r.svc, r.seq, r.mode == batch.RemoveIDs, r.c.Checker
	return func() tea.Msg {
		if byID {
			return previewMsg{seq: seq, start: start, lookups: lookUp(svc, vals)}
		}
		return previewMsg{seq: seq, start: start, lookups: checkUp(k, vals)}
	}
}

// checkUp checks vals with the checker; an address whose check failed
// carries the error.
func checkUp(k *batch.Checker, vals []string) []batch.Found {
	got, err := k.Check(context.Background(), vals)
	for i := len(got); i < len(vals); i++ {
		got = append(got, batch.Found{Input: vals[i], Err: err})
	}
	return got
}

// lookUp looks vals up, a few requests at a time; an entry whose look-up
// failed carries the error.
func lookUp(svc *client.Client, vals []string) []batch.Found {
	got, err := batch.Lookup(context.Background(), svc, vals, 4)
	if err != nil {
		// Lookup stops at a service without lookups: what it did not
		// reach failed the same way.
		for i := range got {
			if got[i].Input == "" {
				got[i] = batch.Found{Input: vals[i], Err: err}
			}
		}
	}
	return got
}

func (r *review) previewView(height int) string {
	st := r.c.Styles
	p := r.preview
	var b strings.Builder
	w := r.c.Width
	if !p.complete() {
		fmt.Fprintf(&b, "Looking up %d of %d…\n", p.done, len(p.lookups))
	}
	head := fmt.Sprintf("Preview: %d on the list · %d not on the list", p.found, p.missing)
	if adds(r.mode) {
		head = fmt.Sprintf("Preview: %d new · %d already listed", p.missing, p.found)
	}
	if p.failed > 0 {
		head += fmt.Sprintf(" · %d lookups failed", p.failed)
	}
	var shown []int
	for i, f := range p.lookups[:p.done] {
		if r.only.keeps(f) {
			shown = append(shown, i)
		}
	}
	if r.only != showAll {
		head += fmt.Sprintf(" · showing %s (%d; ctrl+f: next)", r.only.name(r.mode), len(shown))
	}
	b.WriteString(st.Header.Render(truncate(head, w)) + "\n")
	rows := max(height-2, 1)
	r.offset = min(r.offset, max(len(shown)-rows, 0))
	for _, i := range shown[r.offset:min(r.offset+rows, len(shown))] {
		f, v := p.lookups[i], r.values[i]
		e := f.Entry
		var s string
		switch {
		case f.Err != nil:
			s = st.Bad.Render(truncate(fmt.Sprintf("  ! %s  lookup failed: %s", v, errorText(f.Err)), w))
		case !f.Listed && r.mode == batch.Erase:
			s = truncate(fmt.Sprintf("  + %s  not listed: listed as erased", v), w)
		case !f.Listed && r.mode == batch.Add:
			s = truncate(fmt.Sprintf("  + %s  new", v), w)
		case !f.Listed:
			s = st.Muted.Render(truncate(fmt.Sprintf("  - %s  not on the list", v), w))
		default:
			s = fmt.Sprintf("  ✓ %s  %s  added %s  ", e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			// What room is left shows the end of the ID, which tells entries
			// apart (shortID).
			s += shortID(e.ID, max(w-lipgloss.Width(s), shortIDWidth))
			if r.mode == batch.RemoveIDs {
				s = fmt.Sprintf("  ✓ %s  %s  %s  added %s", e.ID, e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			}
			s = truncate(s, w)
		}
		b.WriteString(s + "\n")
	}
	return b.String()
}

// previewFilter is which entries the preview shows: ctrl+f steps through
// them.
type previewFilter int

const (
	showAll previewFilter = iota
	showListed
	showMissing
	showFailed
	filterCount
)

func (f previewFilter) keeps(x batch.Found) bool {
	switch f {
	case showListed:
		return x.Err == nil && x.Listed
	case showMissing:
		return x.Err == nil && !x.Listed
	case showFailed:
		return x.Err != nil
	}
	return true
}

func (f previewFilter) name(m batch.Mode) string {
	switch f {
	case showListed:
		if adds(m) {
			return "the already listed"
		}
		return "those on the list"
	case showMissing:
		if adds(m) {
			return "the new"
		}
		return "those not on the list"
	case showFailed:
		return "the failed look-ups"
	}
	return "all"
}
