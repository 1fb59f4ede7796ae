package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/ticket"
)

// The unsent list is a draft on disk, one per profile (its addresses:
// 0600, in the state directory): written whenever the list changes,
// removed when the list empties or goes out in a run (which keeps it from
// then on), and offered back at start, so that a crash or a closed
// terminal loses nothing.

// draft is the unsent list as the file keeps it.
type draft struct {
	Saved time.Time `json:"saved"`
	// Target is the service the list was made for: a draft is offered
	// back only there.
	Target    string            `json:"target"`
	Mode      batch.Mode        `json:"mode"`
	Reference *ticket.Reference `json:"reference,omitempty"`
	Rows      []draftRow        `json:"rows"`
}

// draftRow is one row: what was given, where it came from, and the rule's
// decision for it as the list had it (Leave is kept apart: a Decision does
// not write it).
type draftRow struct {
	Line   int              `json:"line"`
	Raw    string           `json:"raw"`
	Source string           `json:"source,omitempty"`
	Rule   *ticket.Decision `json:"rule,omitempty"`
	Leave  bool             `json:"leave,omitempty"`
}

// drafts writes and reads the draft file of one profile. Writes run in
// commands, one at a time, and one older than the last written is
// dropped: the file always holds the newest list.
type drafts struct {
	path  string // "" without a state directory: no drafts
	mu    sync.Mutex
	wrote int // the newest generation written (or removed)
}

func newDrafts(stateDir, profile string) *drafts {
	if stateDir == "" {
		return &drafts{}
	}
	if profile == "" {
		profile = "default"
	}
	// A profile's name is the user's; only safe characters name a file.
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, profile)
	return &drafts{path: filepath.Join(stateDir, "drafts", name+".json")}
}

// write replaces the draft with data, list generation gen.
func (d *drafts) write(gen int, data []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if gen < d.wrote {
		return nil
	}
	d.wrote = gen
	if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
		return err
	}
	return atomicfile.WriteFile(d.path, data, 0o600)
}

// remove deletes the draft: the list is empty, or went out.
func (d *drafts) remove() {
	if d == nil || d.path == "" {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = os.Remove(d.path)
}

// load reads the draft, when there is one.
func (d *drafts) load() (draft, bool, error) {
	var dr draft
	if d.path == "" {
		return dr, false, nil
	}
	data, err := os.ReadFile(d.path)
	if errors.Is(err, os.ErrNotExist) {
		return dr, false, nil
	}
	if err == nil {
		err = json.Unmarshal(data, &dr)
	}
	if err != nil {
		return dr, false, fmt.Errorf("cannot read the unsent list kept in %s: %s", d.path, reason(err))
	}
	return dr, len(dr.Rows) > 0, nil
}

// draftSaved is the end of a write of the draft.
type draftSaved struct{ err error }

// keepDraft writes the build list as the draft when it changed since the
// last write, or removes the draft when the list is empty.
func (m *Model) keepDraft() tea.Cmd {
	l := m.build.list
	if m.drafts.path == "" || l.gen == m.draftGen || m.sending {
		return nil
	}
	m.draftGen = l.gen
	d, gen := m.drafts, l.gen
	if l.len() == 0 {
		return func() tea.Msg { d.remove(); return nil }
	}
	dr := draft{Saved: time.Now().UTC(), Target: m.target(), Mode: l.mode, Rows: make([]draftRow, len(l.rows))}
	if l.hasRef {
		ref := l.ref
		dr.Reference = &ref
	}
	for i, e := range l.rows {
		row := draftRow{Line: e.Line, Raw: e.Raw, Source: e.source}
		if rule := e.rule(l.mode); rule.Decided() {
			row.Rule, row.Leave = &rule, rule.Leave
		}
		dr.Rows[i] = row
	}
	data, err := json.Marshal(dr)
	if err != nil {
		return func() tea.Msg { return draftSaved{err} }
	}
	return func() tea.Msg { return draftSaved{d.write(gen, data)} }
}

// target is the base URL of the service the UI works on.
func (m *Model) target() string {
	if m.opts.Service == nil {
		return ""
	}
	return client.JournalTarget(m.opts.Service.BaseURL())
}

// draftMsg is the draft found at start.
type draftMsg struct{ d draft }

// loadDraft looks for a draft at start.
func (m Model) loadDraft() tea.Cmd {
	d := m.drafts
	return func() tea.Msg {
		dr, ok, err := d.load()
		switch {
		case err != nil:
			return draftSaved{err}
		case !ok:
			return nil
		}
		return draftMsg{dr}
	}
}

// offerDraft asks whether to bring back the list a crash or a closed
// terminal left unsent, when the Build screen holds none.
func (m *Model) offerDraft(dr draft) tea.Cmd {
	if m.build.list.len() > 0 || !client.SameTarget(dr.Target, m.target()) {
		return nil
	}
	n := len(dr.Rows)
	what := fmt.Sprintf("%d %s", n, pluralN(n, "entry"))
	restore := restoreMsg{mode: dr.Mode, note: fmt.Sprintf("Brought back the unsent list of %s (%s).", dr.Saved.Local().Format("2006-01-02 15:04"), what)}
	if dr.Reference != nil {
		what += ", ticket " + dr.Reference.Value
		restore.ref = *dr.Reference
	}
	for _, row := range dr.Rows {
		restore.items = append(restore.items, batch.NewItem(dr.Mode, row.Line, row.Raw))
		var rule ticket.Decision
		if row.Rule != nil {
			rule = *row.Rule
			rule.Leave = row.Leave
		}
		restore.roles = append(restore.roles, rule)
	}
	return ask(fmt.Sprintf("Bring back the list not sent at %s? (%s, %s)", dr.Saved.Local().Format("01-02 15:04"), what, dr.Mode),
		func() tea.Msg { return restore })
}
