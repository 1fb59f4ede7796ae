package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/safe"
	"github.com/shushlist/shush/ticket"
)

// listView renders the address list: only the rows that fit are drawn, so
// its cost does not grow with the list. A filter narrows it to the rows
// whose text contains a substring.
type listView struct {
	list     *entries
	filter   string
	matches  []int // row indices that match the filter; nil when none is set
	cursor   int   // position in the visible rows
	offset   int   // first visible row drawn
	selected map[int]bool
	width    int
	height   int
	// noFiles leaves the file picker out of the empty list's hint (the
	// UI served over SSH opens none).
	noFiles bool
	// hints holds the "did you mean" of each domain drawn, "" for none.
	hints map[string]string
}

func newListView(l *entries) listView {
	return listView{list: l, selected: map[int]bool{}, hints: map[string]string{}}
}

func (v *listView) setSize(w, h int) {
	v.width, v.height = w, max(h, 1)
	v.clamp()
}

// count is the number of rows shown (after the filter).
func (v *listView) count() int {
	if v.matches != nil {
		return len(v.matches)
	}
	return v.list.len()
}

// row maps a visible position to its index in the list.
func (v *listView) row(pos int) int {
	if v.matches != nil {
		return v.matches[pos]
	}
	return pos
}

// current is the list index under the cursor, or -1.
func (v *listView) current() int {
	if v.count() == 0 {
		return -1
	}
	return v.row(v.cursor)
}

func (v *listView) setFilter(f string) {
	v.filter = f
	v.refilter()
}

// refilter recomputes the matches; called after every change of the list.
func (v *listView) refilter() {
	if v.filter == "" {
		v.matches = nil
		v.clamp()
		return
	}
	f := strings.ToLower(v.filter)
	m := make([]int, 0, 64)
	// A filter starting with ! shows only the invalid rows (whose reason
	// or text contains the rest).
	invalidOnly := strings.HasPrefix(f, "!")
	f = strings.TrimPrefix(f, "!")
	for i, e := range v.list.rows {
		if invalidOnly {
			if !e.Valid() && (strings.Contains(strings.ToLower(e.Raw), f) || strings.Contains(e.Problem, f)) {
				m = append(m, i)
			}
			continue
		}
		if strings.Contains(e.Value, f) || strings.Contains(strings.ToLower(e.Raw), f) {
			m = append(m, i)
		}
	}
	v.matches = m
	v.clamp()
}

func (v *listView) move(d int) {
	v.cursor += d
	v.clamp()
}

func (v *listView) top()    { v.cursor = 0; v.clamp() }
func (v *listView) bottom() { v.cursor = v.count() - 1; v.clamp() }

func (v *listView) clamp() {
	n := v.count()
	if v.cursor >= n {
		v.cursor = n - 1
	}
	if v.cursor < 0 {
		v.cursor = 0
	}
	if v.cursor < v.offset {
		v.offset = v.cursor
	}
	if v.cursor >= v.offset+v.height {
		v.offset = v.cursor - v.height + 1
	}
	if v.offset > max(n-v.height, 0) {
		v.offset = max(n-v.height, 0)
	}
	if v.offset < 0 {
		v.offset = 0
	}
}

func (v *listView) toggle() {
	i := v.current()
	if i < 0 {
		return
	}
	if v.selected[i] {
		delete(v.selected, i)
	} else {
		v.selected[i] = true
	}
}

// selectAll selects every shown row, or clears the selection when all of
// them already are.
func (v *listView) selectAll() {
	n := v.count()
	if len(v.selected) == n && n > 0 {
		v.selected = map[int]bool{}
		return
	}
	v.selected = make(map[int]bool, n)
	for p := 0; p < n; p++ {
		v.selected[v.row(p)] = true
	}
}

// targets are the rows an action applies to: the selection, else the row
// under the cursor.
func (v *listView) targets() map[int]bool {
	if len(v.selected) > 0 {
		return v.selected
	}
	if i := v.current(); i >= 0 {
		return map[int]bool{i: true}
	}
	return nil
}

// changed resets what depends on row indices after the list changed shape.
func (v *listView) changed() {
	v.selected = map[int]bool{}
	v.refilter()
}

func (v *listView) view(c *Common, focused bool) string {
	st := c.Styles
	var b strings.Builder
	n := v.count()
	numW := len(fmt.Sprint(v.list.len()))
	for p := v.offset; p < min(v.offset+v.height, n); p++ {
		i := v.row(p)
		e := v.list.rows[i]
		// The cursor and the selection are marked in text too, so that
		// they show without colour (NO_COLOR).
		mark := " "
		if p == v.cursor && focused {
			mark = ">"
		}
		if v.selected[i] {
			mark += "*"
		} else {
			mark += " "
		}
		text := v.address(e.Value)
		rule := e.rule(v.list.mode)
		switch {
		case !e.Valid() || !rule.Decided():
		case rule.Leave:
			text += "  ↷ left out: " + rule.Text()
		default:
			text += "  ✓ " + rule.Text()
		}
		if !e.Valid() {
			text = e.Raw + "  ✗ " + e.Problem
			if e.Line > 0 && e.source != "typed" && e.source != "paste" {
				text += fmt.Sprintf(" (line %d)", e.Line)
			}
		}
		line := fmt.Sprintf("%s%*d  %s", mark, numW, i+1, safe.Text(text))
		line = ansi.Truncate(line, v.width, "…")
		switch {
		case p == v.cursor && focused:
			line = st.Cursor.Render(padRight(line, v.width))
		case !e.Valid():
			line = st.Invalid.Render(line)
		case rule.Leave:
			line = st.Muted.Render(line)
		case v.selected[i]:
			line = st.Selected.Render(line)
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	if n == 0 {
		msg := "The list is empty: paste a ticket, type an address, or press ctrl+o to open a file."
		if v.noFiles {
			msg = "The list is empty: paste a ticket or type an address."
		}
		if v.filter != "" {
			msg = "No row matches the filter."
		}
		b.WriteString(st.Muted.Render(ansi.Wrap(msg, v.width, "")))
		b.WriteByte('\n')
	}
	return lipgloss.NewStyle().Height(v.height).MaxHeight(v.height).Render(strings.TrimSuffix(b.String(), "\n"))
}

func padRight(s string, w int) string {
	if d := w - ansi.StringWidth(s); d > 0 {
		return s + strings.Repeat(" ", d)
	}
	return s
}

// address is a row's address as people read it: an internationalized
// domain in Unicode with what is sent beside it, and a "did you mean" for
// a likely typo of a mail provider's domain (never applied by itself).
func (v *listView) address(value string) string {
	text := shownAddress(value)
	at := strings.LastIndexByte(value, '@')
	if at < 0 {
		return text
	}
	domain := value[at+1:]
	hint, ok := v.hints[domain]
	if !ok {
		if h, found := ticket.Hint(value); found {
			hint = h[strings.LastIndexByte(h, '@')+1:]
		}
		if v.hints == nil {
			v.hints = map[string]string{}
		}
		v.hints[domain] = hint
	}
	if hint != "" {
		text += "  ? did you mean @" + hint
	}
	return text
}

// shownAddress is an address as people read it: an internationalized
// domain in Unicode, the ASCII form that is sent beside it.
func shownAddress(v string) string {
	if u := api.UnicodeEmail(v); u != v {
		return u + " (" + v + ")"
	}
	return v
}
