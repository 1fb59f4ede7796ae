package ui

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
)

type reviewFocus int

const (
	focusConfirm reviewFocus = iota
	focusTicket
)

// review is the Review screen: what will be sent where, what is left out
// and why, the preview of a removal, and the confirmation.
type review struct {
	c       *Common
	svc     Service
	mode    Mode
	values  []string
	invalid []entry
	lookups bool
	preview *preview
	seq     int
	ticket  textinput.Model
	confirm textinput.Model
	focus   reviewFocus
	offset  int
	err     string
	height  int
}

// preview is the lookup of every entry of a removal.
type preview struct {
	seq     int
	done    int
	entries []api.Entry // zero ID: not on the list
	errs    []string    // a lookup that failed
	found   int
	missing int
	failed  int
}

func (p *preview) complete() bool { return p.done == len(p.entries) }

func newReview(c *Common, svc Service) *review {
	r := &review{c: c, svc: svc}
	r.ticket = newTextInput(c, "ticket reference (optional)")
	r.ticket.Prompt = "Ticket: "
	r.ticket.CharLimit = 200
	r.confirm = newTextInput(c, "")
	return r
}

// open lays out the review of the build list and starts the preview of a
// removal.
func (r *review) open(mode Mode, l *entries, lookups bool) tea.Cmd {
	r.mode, r.lookups = mode, lookups
	r.values = l.values()
	r.invalid = r.invalid[:0]
	for _, e := range l.rows {
		if !e.valid() {
			r.invalid = append(r.invalid, e)
		}
	}
	r.err, r.offset, r.preview = "", 0, nil
	r.confirm.SetValue("")
	r.confirm.Prompt = fmt.Sprintf("Type %q and press Enter to send: ", r.word())
	r.focus = focusConfirm
	r.confirm.Focus()
	r.ticket.Blur()
	if mode.removes() && lookups && len(r.values) > 0 {
		return r.startPreview()
	}
	return nil
}

func (r *review) word() string {
	if r.mode.removes() {
		return "remove"
	}
	return "add"
}

func (r *review) capturing() bool { return true }

func (r *review) setSize(w, h int) {
	r.height = h
	r.ticket.Width = w - 12
	r.confirm.Width = 12
}

func (r *review) help(g globalKeys) help.KeyMap {
	b := []key.Binding{kbh("enter", "send (after typing "+r.word()+")", "enter"), kbh("esc", "back", "esc")}
	if r.mode == ModeAdd {
		b = append(b, kbh("ctrl+s", "send", "ctrl+s"))
	}
	b = append(b, kbh("tab", "ticket / confirmation", "tab"))
	if r.preview != nil {
		b = append(b, kbh("↑/↓", "scroll the preview", "up", "down"), kbh("ctrl+p", "look up again", "ctrl+p"))
	}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Quit}}}
}

type previewMsg struct {
	seq     int
	start   int
	entries []api.Entry
	errs    []string
}

const previewChunk = 64

func (r *review) startPreview() tea.Cmd {
	r.seq++
	r.preview = &preview{seq: r.seq, entries: make([]api.Entry, len(r.values)), errs: make([]string, len(r.values))}
	return r.lookup(0)
}

// lookup resolves the next chunk of the preview, a few requests at a time.
func (r *review) lookup(start int) tea.Cmd {
	end := min(start+previewChunk, len(r.values))
	vals := append([]string(nil), r.values[start:end]...)
	svc, seq := r.svc, r.seq
	return func() tea.Msg {
		msg := previewMsg{seq: seq, start: start, entries: make([]api.Entry, len(vals)), errs: make([]string, len(vals))}
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, v := range vals {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				e, err := svc.Get(context.Background(), v)
				switch {
				case err == nil:
					msg.entries[i] = e
				case api.IsNotFound(err):
				default:
					msg.errs[i] = errorText(err)
				}
			}()
		}
		wg.Wait()
		return msg
	}
}

func (r *review) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case previewMsg:
		p := r.preview
		if p == nil || msg.seq != p.seq {
			return nil
		}
		for k := range msg.entries {
			i := msg.start + k
			p.entries[i], p.errs[i] = msg.entries[k], msg.errs[k]
			switch {
			case msg.errs[k] != "":
				p.failed++
			case msg.entries[k].ID != "":
				p.found++
			default:
				p.missing++
			}
		}
		p.done = msg.start + len(msg.entries)
		if !p.complete() {
			return r.lookup(p.done)
		}
		return nil
	case tea.KeyMsg:
		return r.key(msg)
	}
	return nil
}

// startSendMsg asks the root to send a run.
type startSendMsg struct{ run *Run }

// backMsg asks the root to go back to the Build screen.
type backMsg struct{}

func (r *review) key(msg tea.KeyMsg) tea.Cmd {
	if !msg.Paste {
		switch msg.String() {
		case "esc":
			r.seq++ // a preview still running is now stale
			return func() tea.Msg { return backMsg{} }
		case "tab", "shift+tab":
			if r.focus == focusConfirm {
				r.focus = focusTicket
				r.confirm.Blur()
				return r.ticket.Focus()
			}
			r.focus = focusConfirm
			r.ticket.Blur()
			return r.confirm.Focus()
		case "up":
			r.offset = max(r.offset-1, 0)
			return nil
		case "down":
			r.offset++
			return nil
		case "ctrl+p":
			if r.mode.removes() && r.lookups && len(r.values) > 0 {
				return r.startPreview()
			}
			return nil
		case "ctrl+s":
			if r.mode == ModeAdd {
				return r.send()
			}
		case "enter":
			if r.focus == focusTicket {
				r.focus = focusConfirm
				r.ticket.Blur()
				return r.confirm.Focus()
			}
			if strings.TrimSpace(strings.ToLower(r.confirm.Value())) != r.word() {
				r.err = fmt.Sprintf("Type %q to send; nothing was sent.", r.word())
				return nil
			}
			return r.send()
		}
	}
	var cmd tea.Cmd
	if r.focus == focusTicket {
		r.ticket, cmd = r.ticket.Update(msg)
	} else {
		r.confirm, cmd = r.confirm.Update(msg)
	}
	return cmd
}

// send builds the run and hands it to the Send screen.
func (r *review) send() tea.Cmd {
	if len(r.values) == 0 {
		r.err = "There is nothing valid to send."
		return nil
	}
	p := r.preview
	if p != nil && !p.complete() {
		r.err = "Wait for the preview to finish."
		return nil
	}
	if p != nil && p.failed > 0 {
		r.err = fmt.Sprintf("%d lookups failed; press ctrl+p to look them up again before sending.", p.failed)
		return nil
	}
	rows := make([]Result, len(r.values))
	byID := r.mode == ModeRemoveIDs || p != nil
	for i, v := range r.values {
		res := Result{Value: v, Outcome: OutUnsent, Batch: -1}
		if r.mode == ModeRemoveIDs {
			res.ID = v
		} else {
			res.Address = v
		}
		if p != nil {
			if e := p.entries[i]; e.ID != "" {
				res.ID, res.Address, res.Value = e.ID, e.Email, e.ID
			} else {
				res.Outcome = OutNotListed
			}
		}
		rows[i] = res
	}
	run := newRun(r.mode, r.c.Target.label(), strings.TrimSpace(r.ticket.Value()), rows, byID)
	if len(run.batches) == 0 {
		r.err = "Nothing to send: none of the entries is on the list."
		run.count()
		return func() tea.Msg { return runDoneMsg{run: run} }
	}
	return func() tea.Msg { return startSendMsg{run} }
}

func (r *review) render() string {
	st := r.c.Styles
	w := r.c.Width
	var b strings.Builder
	line := func(s string) { b.WriteString(truncate(s, w)); b.WriteByte('\n') }
	line(st.Title.Render("Review · " + r.mode.String()))
	batches := (len(r.values) + api.MaxBatch - 1) / api.MaxBatch
	line(fmt.Sprintf("%d %s in %d %s of up to %d → %s", len(r.values), pluralN(len(r.values), r.mode.noun()), batches, pluralN(batches, "batch"), api.MaxBatch, r.c.Target.label()))
	if n := len(r.invalid); n > 0 {
		line(st.Invalid.Render(fmt.Sprintf("Excluded: %d invalid %s, never sent:", n, pluralN(n, "entry"))))
		for _, e := range r.invalid[:min(n, 3)] {
			line(st.Invalid.Render(fmt.Sprintf("  %s — %s", e.raw, e.problem)))
		}
		if n > 3 {
			line(st.Muted.Render(fmt.Sprintf("  … and %d more (in the list, the filter ! shows them)", n-3)))
		}
	} else {
		line(st.Muted.Render("Excluded: nothing."))
	}
	used := strings.Count(b.String(), "\n")
	rest := r.height - used - 5
	switch {
	case r.mode == ModeRemoveEmails && !r.lookups:
		line(st.Warn.Render("This service offers no lookups: addresses are removed as they are, without a preview."))
	case r.preview != nil:
		b.WriteString(r.previewView(rest))
	}
	if r.mode.removes() && len(r.values) > 0 {
		n := len(r.values)
		if r.preview != nil {
			n = r.preview.found
		}
		line(st.Warn.Render(fmt.Sprintf("This removes %d %s from the list.", n, pluralN(n, "entry"))))
	}
	body := strings.TrimSuffix(b.String(), "\n")
	foot := []string{r.ticket.View(), r.confirm.View()}
	if r.mode == ModeAdd {
		foot[1] += st.Muted.Render("  (or ctrl+s)")
	}
	if r.err != "" {
		foot = append(foot, st.Bad.Render(truncate(r.err, w)))
	} else {
		foot = append(foot, "")
	}
	h := r.height - len(foot)
	return lipgloss.JoinVertical(lipgloss.Left, lipgloss.NewStyle().Height(h).MaxHeight(h).Render(body), strings.Join(foot, "\n"))
}

func (r *review) previewView(height int) string {
	st := r.c.Styles
	p := r.preview
	var b strings.Builder
	w := r.c.Width
	if !p.complete() {
		fmt.Fprintf(&b, "Looking up %d of %d…\n", p.done, len(p.entries))
	}
	head := fmt.Sprintf("Preview: %d on the list · %d not on the list", p.found, p.missing)
	if p.failed > 0 {
		head += fmt.Sprintf(" · %d lookups failed", p.failed)
	}
	b.WriteString(st.Header.Render(head) + "\n")
	rows := max(height-2, 1)
	r.offset = min(r.offset, max(p.done-rows, 0))
	for i := r.offset; i < min(r.offset+rows, p.done); i++ {
		e, v := p.entries[i], r.values[i]
		var s string
		switch {
		case p.errs[i] != "":
			s = st.Bad.Render(truncate(fmt.Sprintf("  ! %s  lookup failed: %s", v, p.errs[i]), w))
		case e.ID == "":
			s = st.Muted.Render(truncate(fmt.Sprintf("  - %s  not on the list", v), w))
		default:
			s = fmt.Sprintf("  ✓ %s  %s  added %s  %s", e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"), e.ID)
			if r.mode == ModeRemoveIDs {
				s = fmt.Sprintf("  ✓ %s  %s  %s  added %s", e.ID, e.Email, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			}
			s = truncate(s, w)
		}
		b.WriteString(s + "\n")
	}
	return b.String()
}

func pluralN(n int, noun string) string {
	if n == 1 {
		return noun
	}
	switch {
	case strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "s"):
		return noun + "es"
	case strings.HasSuffix(noun, "y"):
		return noun[:len(noun)-1] + "ies"
	}
	return noun + "s"
}

func (t Target) label() string {
	if t.Label == "" {
		return "local list"
	}
	return t.Label
}
