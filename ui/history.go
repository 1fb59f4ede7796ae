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

	"github.com/shushlist/shush/batch"
)

// historyFile is the file of past runs that earlier versions kept in the
// state directory, one JSON object a line. The history now is the
// recorded runs (batch.Runs) of the UI and the CLI; the file is imported
// into them once and renamed with importedExt.
const historyFile = "history.jsonl"

const importedExt = ".imported"

// importHistory records the runs of an earlier version's history file and
// renames the file, so that they are imported once. Lines it cannot read
// are counted, not fatal.
func importHistory(stateDir, journals string) (bad int, err error) {
	path := filepath.Join(stateDir, historyFile)
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("cannot read the history: %s", reason(err))
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	for sc.Scan() {
		var r Run
		if json.Unmarshal(sc.Bytes(), &r) != nil || len(r.Results) == 0 {
			bad++
			continue
		}
		meta := batch.RunMeta{Reference: r.Ticket, Source: "ui", Input: "history of an earlier version"}
		if _, err := batch.Import(journals, r.Target, r.Mode, r.Started, meta, r.Results); err != nil {
			return bad, fmt.Errorf("cannot import the history: %s", reason(err))
		}
	}
	if err := sc.Err(); err != nil {
		return bad, fmt.Errorf("cannot read the history: %s", reason(err))
	}
	f.Close()
	return bad, os.Rename(path, path+importedExt)
}

// history is the History screen: past runs; Enter opens one's results.
type history struct {
	c      *Common
	keys   historyKeys
	dir    string // the state directory, where an earlier history may be
	runs   []batch.RunInfo
	table  table.Model
	status string
	wide   bool // the table has the target column
}

// historyKeys are the History screen's bindings.
type historyKeys struct{ Move, Open, Reload key.Binding }

func newHistory(c *Common, dir string) *history {
	t := c.newTable()
	return &history{c: c, dir: dir, table: t, keys: historyKeys{
		Move:   kbh("↑/↓", "move", "up"),
		Open:   kbh("enter", "open results", "enter"),
		Reload: kbh("ctrl+r", "reload", "ctrl+r"),
	}}
}

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
	// The title and the status line take the rest.
	st := h.c.Styles
	h.table.SetHeight(max(hh-lines(st.Title, st.Warn), 2))
	h.refresh()
}

func (h *history) refresh() {
	rows := make([]table.Row, len(h.runs))
	for i, r := range h.runs {
		mode := r.Mode.String()
		if r.UndoOf != "" {
			mode = "undo: " + mode
		}
		counts := countsText(r.Counts)
		if r.State == batch.Running {
			counts = "cut off · " + counts
		}
		rows[i] = table.Row{r.Created.Local().Format("2006-01-02 15:04"), mode, fmt.Sprint(r.Entries), counts, cell(r.Reference)}
		if h.wide {
			rows[i] = append(rows[i], cell(h.c.targetOf(r.Target)))
		}
	}
	h.table.SetRows(rows)
}

func (h *history) help(g globalKeys) help.KeyMap {
	b := []key.Binding{h.keys.Move, h.keys.Open, h.keys.Reload, g.Build, g.Help}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Browse, g.Quit}}}
}

type historyMsg struct {
	runs []batch.RunInfo
	bad  int
	err  error
}

func (h *history) load() tea.Cmd {
	dir, journals := h.dir, h.c.Journals
	return func() tea.Msg {
		if journals == "" {
			return historyMsg{err: fmt.Errorf("no state directory, so no history is kept")}
		}
		var bad int
		var err error
		if dir != "" {
			bad, err = importHistory(dir, journals)
		}
		runs, lerr := batch.Runs(journals)
		if err == nil {
			err = lerr
		}
		return historyMsg{runs: runs, bad: bad, err: err}
	}
}

// openRun reads a recorded run's journals for the Results screen.
func openRun(journals, id string) tea.Cmd {
	return func() tea.Msg {
		var results []batch.Result
		ri, err := batch.Load(journals, id, func(rep batch.Report) error {
			results = append(results, rep.Results...)
			return nil
		})
		if err != nil {
			return openRunMsg{err: err}
		}
		return openRunMsg{run: runOf(ri, results)}
	}
}

func (h *history) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case historyMsg:
		h.runs, h.status = msg.runs, ""
		if msg.err != nil {
			h.status = capitalize(msg.err.Error()) + "."
		} else if msg.bad > 0 {
			h.status = fmt.Sprintf("%d lines of the earlier history could not be read.", msg.bad)
		}
		h.refresh()
		h.table.GotoTop()
		return nil
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		switch {
		case key.Matches(msg, h.keys.Open):
			if i := h.table.Cursor(); i >= 0 && i < len(h.runs) {
				return openRun(h.c.Journals, h.runs[i].ID)
			}
			return nil
		case key.Matches(msg, h.keys.Reload):
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
	if h.c.Journals != "" {
		title += " · " + h.c.Journals
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
