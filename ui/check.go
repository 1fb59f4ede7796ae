package ui

import (
	"context"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/safe"
)

// checker is the Check screen: which of the list's addresses are
// suppressed, with origin and date and, where the service keeps a trail,
// who listed them under which reference. It sends nothing and arms
// nothing.
type checker struct {
	c      *Common
	keys   checkKeys
	values []string
	// requester marks the ticket's requester among values: check looks
	// up everyone, the requester too.
	requester map[string]bool
	found     []batch.Found
	trail     map[int]api.AuditEntry
	done      int
	seq       int
	offset    int
	height    int
	status    string
}

type checkKeys struct{ Back, Up, Down, Again, Export key.Binding }

func newChecker(c *Common) *checker {
	return &checker{c: c, keys: checkKeys{
		Back:   kbh("esc", "back", "esc"),
		Up:     kbh("↑/↓", "scroll", "up"),
		Down:   key.NewBinding(key.WithKeys("down")),
		Again:  kbh("ctrl+p", "look up again", "ctrl+p"),
		Export: kb("write CSV", "w"),
	}}
}

// maxCheck is the most addresses the UI looks up one by one; the command
// line's check takes any number.
const maxCheck = 2000

// checkedMsg is a chunk of the check's look-ups and their trail.
type checkedMsg struct {
	seq, start int
	found      []batch.Found
	trail      map[int]api.AuditEntry
}

// checkWrittenMsg is the end of the check's export.
type checkWrittenMsg exportedMsg

// open checks the list's valid entries (left out or not: a check sends
// nothing, so it leaves nobody out).
func (k *checker) open(l *entries) tea.Cmd {
	k.values = k.values[:0]
	k.requester = map[string]bool{}
	for _, e := range l.rows {
		if e.Valid() {
			k.values = append(k.values, e.Value)
			if e.role.Requester {
				k.requester[e.Value] = true
			}
		}
	}
	k.status, k.offset = "", 0
	if len(k.values) > maxCheck {
		k.status = fmt.Sprintf("%d addresses are too many to look up here (at most %d); shush suppressions check --file takes any number.", len(k.values), maxCheck)
		k.values = k.values[:maxCheck]
	}
	return k.start()
}

func (k *checker) start() tea.Cmd {
	k.seq++
	k.found, k.trail, k.done = make([]batch.Found, len(k.values)), map[int]api.AuditEntry{}, 0
	if len(k.values) == 0 {
		return nil
	}
	return k.lookup(0)
}

// lookup checks the next chunk: look-ups, then the trail of what is listed
// (the newest change of each; a service without a trail has none).
func (k *checker) lookup(start int) tea.Cmd {
	end := min(start+previewChunk, len(k.values))
	vals := append([]string(nil), k.values[start:end]...)
	svc, seq := k.c.Service, k.seq
	return func() tea.Msg {
		got := lookUp(svc, vals)
		trail := map[int]api.AuditEntry{}
		for i, f := range got {
			if !f.Listed {
				continue
			}
			page, err := svc.SuppressionAudit(context.Background(), f.Entry.ID, client.AuditParams{Limit: 1, Type: api.AuditAdded})
			if err != nil {
				break // no trail on this service, or it failed: the states stand
			}
			if len(page.Data) > 0 {
				trail[start+i] = page.Data[0]
			}
		}
		return checkedMsg{seq: seq, start: start, found: got, trail: trail}
	}
}

func (k *checker) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case checkedMsg:
		if msg.seq != k.seq {
			return nil
		}
		copy(k.found[msg.start:], msg.found)
		for i, a := range msg.trail {
			k.trail[i] = a
		}
		k.done = msg.start + len(msg.found)
		if k.done < len(k.values) {
			return k.lookup(k.done)
		}
		return nil
	case checkWrittenMsg:
		k.status = fmt.Sprintf("Wrote %d addresses to %s.", msg.n, msg.path)
		if msg.err != nil {
			k.status = capitalize(msg.err.Error()) + "."
		}
		return nil
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, k.keys.Back):
			k.seq++ // what is still being looked up is no longer wanted
			return func() tea.Msg { return backMsg{} }
		case key.Matches(msg, k.keys.Up):
			k.offset = max(k.offset-1, 0)
		case key.Matches(msg, k.keys.Down):
			k.offset++
		case key.Matches(msg, k.keys.Again):
			return k.start()
		case key.Matches(msg, k.keys.Export) && k.done == len(k.values):
			return k.export()
		}
	}
	return nil
}

// counts is how many addresses are listed, not listed, and unknown.
func (k *checker) counts() (listed, missing, failed int) {
	for _, f := range k.found[:k.done] {
		switch {
		case f.Err != nil:
			failed++
		case f.Listed:
			listed++
		default:
			missing++
		}
	}
	return listed, missing, failed
}

// export writes the check as CSV to the export directory, named after it.
func (k *checker) export() tea.Cmd {
	path := filepath.Join(config.ExportDir(), config.ExportName("", "check", time.Now(), "csv"))
	rows := [][]string{{"address", "listed", "id", "origin", "created_at", "key", "reference", "target", "time", "requester"}}
	at := time.Now().UTC().Format(time.RFC3339)
	for i, f := range k.found {
		r := []string{safe.Cell(f.Input), fmt.Sprint(f.Listed), "", "", "", "", "", safe.Cell(k.c.Target.label()), at, fmt.Sprint(k.requester[f.Input])}
		if f.Err != nil {
			r[1] = "unknown: " + safe.Cell(errorText(f.Err))
		}
		if f.Listed {
			e := f.Entry
			// The service's answer is outside text too.
			r[2], r[3], r[4] = safe.Cell(e.ID), safe.Cell(string(e.Origin)), e.CreatedAt.UTC().Format(time.RFC3339)
		}
		if a, ok := k.trail[i]; ok {
			r[5] = safe.Cell(a.By())
			if a.Reference != nil {
				r[6] = safe.Cell(*a.Reference)
			}
		}
		rows = append(rows, r)
	}
	return func() tea.Msg {
		err := writeCSV(path, rows)
		return checkWrittenMsg{path: path, n: len(rows) - 1, err: err}
	}
}

// writeCSV writes rows to path whole or not at all.
func writeCSV(path string, rows [][]string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot write in %s: %s", dir, reason(err))
	}
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := csv.NewWriter(f)
	_ = w.WriteAll(rows)
	if err := w.Error(); err != nil {
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	return nil
}

func (k *checker) keyMode() inputMode { return normal }

func (k *checker) setSize(w, h int) { k.height = h }

func (k *checker) help(g globalKeys) help.KeyMap {
	b := []key.Binding{k.keys.Up, k.keys.Export, k.keys.Again, k.keys.Back, g.Help}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Build, g.Browse, g.History, g.Quit}}}
}

func (k *checker) render() string {
	st := k.c.Styles
	w := k.c.Width
	var b strings.Builder
	line := func(s string) { b.WriteString(truncate(s, w)); b.WriteByte('\n') }
	line(st.Title.Render(fmt.Sprintf("Check · %d %s → %s · nothing is sent", len(k.values), pluralN(len(k.values), "address"), k.c.Target.label())))
	listed, missing, failed := k.counts()
	head := fmt.Sprintf("%d listed · %d not listed", listed, missing)
	if failed > 0 {
		head += fmt.Sprintf(" · %d look-ups failed", failed)
	}
	if k.done < len(k.values) {
		head += fmt.Sprintf(" · looking up %d of %d…", k.done, len(k.values))
	}
	line(st.Header.Render(head))
	rows := max(k.height-lines(st.Title, st.Header, st.Muted), 1)
	k.offset = min(k.offset, max(k.done-rows, 0))
	for i := k.offset; i < min(k.offset+rows, k.done); i++ {
		f := k.found[i]
		who := ""
		if k.requester[f.Input] {
			who = " (requester)"
		}
		switch {
		case f.Err != nil:
			line(st.Bad.Render(fmt.Sprintf("  ! %s%s  look-up failed: %s", f.Input, who, errorText(f.Err))))
		case !f.Listed:
			line(st.Muted.Render(fmt.Sprintf("  - %s%s  not listed", f.Input, who)))
		default:
			e := f.Entry
			s := fmt.Sprintf("  ✓ %s%s  %s  added %s", e.Email, who, e.Origin, e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			if a, ok := k.trail[i]; ok {
				s += "  by " + a.By()
				if a.Reference != nil {
					s += "  ref " + *a.Reference
				}
			}
			line(s + "  " + e.ID)
		}
	}
	body := lipgloss.NewStyle().Height(k.height - 1).MaxHeight(k.height - 1).Render(strings.TrimSuffix(b.String(), "\n"))
	return lipgloss.JoinVertical(lipgloss.Left, body, st.Muted.Render(truncate(k.status, w)))
}
