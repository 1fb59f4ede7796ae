package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

func (r *review) render() string {
	st := r.c.Styles
	w := r.c.Width
	var b strings.Builder
	line := func(s string) { b.WriteString(truncate(s, w)); b.WriteByte('\n') }
	line(st.Title.Render("Review · " + r.mode.String()))
	if r.question != "" {
		for _, p := range []string{"Which mode? " + r.question, "1: add · 2: remove by address · 3: remove by ID · 4: check, send nothing · 5: erase · esc: back. Nothing is sent until you choose."} {
			for _, l := range wrapped(p, w) {
				b.WriteString(st.Warn.Render(l))
				b.WriteByte('\n')
			}
		}
	}
	if r.refusal != "" {
		line(st.Bad.Render(r.refusal))
	}
	batches := batch.BatchCount(len(r.values))
	line(fmt.Sprintf("%d %s in %d %s of up to %d → %s", len(r.values), pluralN(len(r.values), noun(r.mode)), batches, pluralN(batches, "batch"), api.MaxBatch, r.c.Target.label()))
	if r.list.search != "" {
		line(st.Header.Render("From Browse's search: " + r.list.search))
	}
	r.invalidView(line)
	r.againView(line)
	protected := r.protected()
	if n := len(protected); n > 0 {
		line(st.Muted.Render(fmt.Sprintf("Excluded: %d protected by the team's rules, never sent: %s", n, strings.Join(protected[:min(n, 3)], ", "))))
	} else if len(r.invalid)+len(r.again) == 0 && len(r.people) == 0 {
		line(st.Muted.Render("Excluded: nothing."))
	}
	r.peopleView(line)
	used := strings.Count(b.String(), "\n")
	rest := r.height - used - 5
	switch {
	case r.mode == batch.RemoveEmails && !r.lookups:
		line(st.Warn.Render("This service offers no lookups: addresses are removed as they are, without a preview."))
	case r.preview != nil:
		b.WriteString(r.previewView(rest))
	}
	r.effectView(line)
	body := strings.TrimSuffix(b.String(), "\n")
	foot := r.footer()
	h := r.height - len(foot)
	return lipgloss.JoinVertical(lipgloss.Left, lipgloss.NewStyle().Height(h).MaxHeight(h).Render(body), strings.Join(foot, "\n"))
}

// invalidView lists the first invalid entries, which are never sent.
func (r *review) invalidView(line func(string)) {
	st := r.c.Styles
	n := len(r.invalid)
	if n == 0 {
		return
	}
	line(st.Invalid.Render(fmt.Sprintf("Excluded: %d invalid %s, never sent:", n, pluralN(n, "entry"))))
	for _, e := range r.invalid[:min(n, 3)] {
		line(st.Invalid.Render(fmt.Sprintf("  %s — %s", e.Raw, e.Problem)))
	}
	if n > 3 {
		line(st.Muted.Render(fmt.Sprintf("  … and %d more (in the list, the filter ! shows them)", n-3)))
	}
}

// effectView says what the run will do to the list, as far as known.
func (r *review) effectView(line func(string)) {
	st := r.c.Styles
	switch {
	case removes(r.mode) && len(r.values) > 0:
		n := len(r.values)
		if r.preview != nil {
			n = r.preview.found
		}
		line(st.Warn.Render(fmt.Sprintf("This removes %d %s from the list.", n, pluralN(n, "entry"))))
	case r.mode == batch.Erase && len(r.values) > 0:
		line(st.Warn.Render(fmt.Sprintf("This erases %d %s: kept blocked as keyed hashes only. It cannot be undone.",
			len(r.values), pluralN(len(r.values), "address"))))
	case r.mode == batch.Add && r.preview != nil && r.preview.complete():
		p := r.preview
		stay := "stay as they are"
		if p.found == 1 {
			stay = "stays as it is"
		}
		line(st.Warn.Render(fmt.Sprintf("This adds %d new %s; %d already listed %s.", p.missing, pluralN(p.missing, "entry"), p.found, stay)))
	case r.mode == batch.Add && len(r.values) > maxAddPreview && r.lookups:
		line(st.Muted.Render(fmt.Sprintf("Too many to look up one by one (%d); the results will say which were already listed.", len(r.values))))
	}
}

// footer is the review's fields and the line under them: an error, a
// note, or what the field in focus means.
func (r *review) footer() []string {
	st, w := r.c.Styles, r.c.Width
	foot := []string{r.ticket.View()}
	if r.mode == batch.Add {
		foot = append(foot, r.entryNote.View(), r.expires.View(), r.confirm.View()+st.Muted.Render("  (or ctrl+s)"))
	} else {
		foot = append(foot, r.confirm.View())
	}
	switch {
	case r.err != "":
		foot = append(foot, st.Bad.Render(truncate(r.err, w)))
	case r.note != "":
		foot = append(foot, st.Muted.Render(truncate(r.note, w)))
	case r.focus == focusNote:
		foot = append(foot, st.Muted.Render(truncate("The note is kept with each entry the run lists; an entry already listed keeps its own.", w)))
	case r.focus == focusExpires:
		foot = append(foot, st.Muted.Render(truncate("The entries leave the list then (counted by the service's clock); an entry already listed keeps a later expiry.", w)))
	case r.offeredFrom != "" && r.offered != "" && strings.TrimSpace(r.ticket.Value()) == r.offered:
		foot = append(foot, st.Muted.Render(truncate("The ticket reference is from "+r.offeredFrom+" (tab to edit it).", w)))
	default:
		foot = append(foot, "")
	}
	return foot
}

// againView says which invalid entries name an entry another row names
// (an address beside its ID): they go once, by that row (once.go).
func (r *review) againView(line func(string)) {
	n := len(r.again)
	if n == 0 {
		return
	}
	names := make([]string, 0, 4)
	for _, e := range r.again[:min(n, 3)] {
		names = append(names, fmt.Sprintf("%s (line %d)", e.Raw, e.Line))
	}
	if n > 3 {
		names = append(names, fmt.Sprintf("%d more", n-3))
	}
	line(r.c.Styles.Muted.Render(fmt.Sprintf("Named twice: %s, the same %s as another row; it goes once, by that row.",
		strings.Join(names, ", "), pluralN(n, "entry"))))
}

// maxPeopleShown is the most rows the Requester section shows at once.
const maxPeopleShown = 4

// peopleView draws the Requester section: whom the ticket is about as the
// rule decided, each row with its reason and the line that decided, the
// requester's line quoted; with the section in focus, the row t flips.
func (r *review) peopleView(line func(string)) {
	if len(r.people) == 0 {
		return
	}
	st := r.c.Styles
	rows := r.list.rows
	head := "Requester: none named in the ticket"
	if e := rows[r.people[0]]; e.role.Requester {
		head = "Requester: " + shownAddress(e.Value)
		if ev := e.rule(r.mode).By.String(); ev != "" {
			head += " (" + ev + ")"
		}
	}
	left := 0
	for _, i := range r.people {
		if rows[i].rule(r.mode).Leave {
			left++
		}
	}
	taken := len(r.people) - left
	hint := "tab: choose, t: take in / leave out"
	if r.focus == focusPeople {
		hint = "↑/↓ choose, t: take in / leave out"
	}
	line(st.Header.Render(head))
	first := max(0, min(r.person-maxPeopleShown+1, len(r.people)-maxPeopleShown))
	for k := first; k < min(first+maxPeopleShown, len(r.people)); k++ {
		e := rows[r.people[k]]
		d := e.rule(r.mode)
		mark, style := "✓", st.Row
		if d.Leave {
			mark, style = "↷", st.Muted
		}
		cursor := " "
		if r.focus == focusPeople && k == r.person {
			cursor = ">"
		}
		s := fmt.Sprintf("%s %s %s — %s", cursor, mark, shownAddress(e.Value), d.Text())
		if d.By.Line > 0 {
			s += fmt.Sprintf(" (line %d)", d.By.Line)
		}
		line(style.Render(s))
	}
	if n := len(r.people) - first - maxPeopleShown; n > 0 {
		line(st.Muted.Render(fmt.Sprintf("  … and %d more (↓)", n)))
	}
	line(st.Muted.Render(fmt.Sprintf("  Left out: %d, taken in: %d · %s", left, taken, hint)))
}

// protected are the addresses the plan leaves out because the team
// protects them.
func (r *review) protected() []string {
	var out []string
	for _, l := range r.left {
		if l.Reason == ticket.ReasonProtected {
			out = append(out, l.Value)
		}
	}
	return out
}
