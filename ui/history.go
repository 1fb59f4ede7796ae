package ui

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// historyFile is the file of past runs in the state directory, one JSON
// object a line, oldest first.
const historyFile = "history.jsonl"

// appendHistory adds a run to the history file (0600: results may be
// personal data).
func appendHistory(dir string, run *Run) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("cannot keep the history in %s: %s", dir, reason(err))
	}
	b, err := json.Marshal(run)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(filepath.Join(dir, historyFile), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("cannot keep the history in %s: %s", dir, reason(err))
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// readHistory reads the runs, newest first; lines it cannot read are
// counted, not fatal.
func readHistory(dir string) (runs []*Run, bad int, err error) {
	f, err := os.Open(filepath.Join(dir, historyFile))
	if os.IsNotExist(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cannot read the history: %s", reason(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for sc.Scan() {
		var r Run
		if json.Unmarshal(sc.Bytes(), &r) != nil {
			bad++
			continue
		}
		runs = append(runs, &r)
	}
	for i, j := 0, len(runs)-1; i < j; i, j = i+1, j-1 {
		runs[i], runs[j] = runs[j], runs[i]
	}
	return runs, bad, sc.Err()
}

// history is the History screen: past runs; Enter opens one's results.
type history struct {
	c      *Common
	dir    string
	runs   []*Run
	table  table.Model
	status string
	wide   bool // the table has the target column
}

func newHistory(c *Common, dir string) *history {
	t := c.newTable()
	return &history{c: c, dir: dir, table: t}
}

func (h *history) capturing() bool { return false }

func (h *history) setSize(w, hh int) {
	// Cells have one space of padding on each side; the target gets a
	// column when there is room.
	cols := []table.Column{{Title: "When", Width: 16}, {Title: "Mode", Width: 17}, {Title: "Entries", Width: 7}, {Title: "Counts"}, {Title: "Ticket"}}
	h.wide = w >= 110
	if h.wide {
		cols = append(cols, table.Column{Title: "Target", Width: 20})
	}
	used := 0
	for _, c := range cols {
		used += c.Width + 2
	}
	rest := max(w-used-4, 20)
	cols[3].Width = rest * 3 / 5
	cols[4].Width = rest - cols[3].Width
	h.table.SetRows(nil)
	h.table.SetColumns(cols)
	h.table.SetWidth(w)
	h.table.SetHeight(max(hh-3, 2))
	h.refresh()
}

func (h *history) refresh() {
	rows := make([]table.Row, len(h.runs))
	for i, r := range h.runs {
		rows[i] = table.Row{r.Started.Local().Format("2006-01-02 15:04"), r.Mode.String(), fmt.Sprint(len(r.Results)), countsText(r.Counts), cell(r.Ticket)}
		if h.wide {
			rows[i] = append(rows[i], r.Target)
		}
	}
	h.table.SetRows(rows)
}

func (h *history) help(g globalKeys) help.KeyMap {
	b := []key.Binding{kbh("↑/↓", "move", "up"), kbh("enter", "open results", "enter"), kbh("ctrl+r", "reload", "ctrl+r"), g.Build, g.Help}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Browse, g.Quit}}}
}

type historyMsg struct {
	runs []*Run
	bad  int
	err  error
}

type openRunMsg struct{ run *Run }

func (h *history) load() tea.Cmd {
	dir := h.dir
	return func() tea.Msg {
		if dir == "" {
			return historyMsg{err: fmt.Errorf("no state directory, so no history is kept")}
		}
		runs, bad, err := readHistory(dir)
		return historyMsg{runs: runs, bad: bad, err: err}
	}
}

func (h *history) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyMsg:
		h.runs, h.status = msg.runs, ""
		if msg.err != nil {
			h.status = capitalize(msg.err.Error()) + "."
		} else if msg.bad > 0 {
			h.status = fmt.Sprintf("%d lines of the history could not be read.", msg.bad)
		}
		h.refresh()
		h.table.GotoTop()
		return nil
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		switch msg.String() {
		case "enter":
			if i := h.table.Cursor(); i >= 0 && i < len(h.runs) {
				run := h.runs[i]
				return func() tea.Msg { return openRunMsg{run} }
			}
			return nil
		case "ctrl+r":
			return h.load()
		}
		var cmd tea.Cmd
		h.table, cmd = h.table.Update(msg)
		return cmd
	}
	return nil
}

func (h *history) render() string {
	st := h.c.Styles
	title := fmt.Sprintf("History · %d %s", len(h.runs), pluralN(len(h.runs), "run"))
	if n := len(h.runs); n > 0 {
		title += fmt.Sprintf(" · row %d", h.table.Cursor()+1)
	}
	if h.dir != "" {
		title += " · " + filepath.Join(h.dir, historyFile)
	}
	body := h.table.View()
	if len(h.runs) == 0 {
		body = st.Muted.Render("No runs yet: the runs you send appear here.")
	}
	parts := []string{st.Title.Render(truncate(title, h.c.Width)), body}
	if h.status != "" {
		parts = append(parts, st.Warn.Render(truncate(h.status, h.c.Width)))
	}
	return lipgloss.JoinVertical(lipgloss.Left, strings.Join(parts, "\n"))
}
