package ui

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/ticket"
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
func importHistory(stateDir string, runs *batch.Runs) (bad int, err error) {
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
		meta := batch.RunMeta{Reference: r.Ticket, Input: "history of an earlier version"}
		if _, err := runs.Import(r.Target, r.Mode, r.Started, meta, r.Results); err != nil {
			return bad, fmt.Errorf("cannot import the history: %s", reason(err))
		}
	}
	if err := sc.Err(); err != nil {
		return bad, fmt.Errorf("cannot read the history: %s", reason(err))
	}
	f.Close()
	return bad, atomicfile.Rename(path, path+importedExt)
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

	// The search: query is what / found runs by; shown the runs it
	// matches (indexes into runs), all of them without a query; holding
	// the runs whose entries hold the queried address.
	search   textinput.Model
	typing   bool
	query    string
	shown    []int
	holding  map[string]bool
	searchNo int

	// peers are the other profiles' lists to sync with (s); sync is the
	// sync open in front of the runs, nil when none.
	peers []SyncPeer
	sync  *syncView
}

// historyKeys are the History screen's bindings.
type historyKeys struct{ Move, Open, List, Reload, Search, ShowAll, Sync key.Binding }

func newHistory(c *Common, dir string, peers []SyncPeer) *history {
	t := c.newTable()
	search := newTextInput(c, "ticket, address, target or mode")
	search.Prompt = "Find: "
	return &history{c: c, dir: dir, table: t, search: search, peers: peers, keys: historyKeys{
		Move:   kbh("↑/↓", "move", "up"),
		Open:   kbh("enter", "open results", "enter"),
		List:   kbh("o", "open as a new list", "o"),
		Reload: kbh("ctrl+r", "reload", "ctrl+r"),
		Search: kbh("/", "find", "/"),
		// Esc leaves a search: every run again.
		ShowAll: kbh("esc", "show all", "esc"),
		Sync:    kbh("s", "sync with another profile's list", "s"),
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
	h.search.Width = w - 8
	h.table.SetRows(nil)
	h.table.SetColumns(cols)
	h.table.SetWidth(w)
	// The title and the status line take the rest.
	st := h.c.Styles
	h.table.SetHeight(max(hh-lines(st.Title, st.Warn), 2))
	h.refresh()
}

// matches says whether run r answers the query: its ticket, target or
// mode holds it, or (for an address) its entries do.
func (h *history) matches(r batch.RunInfo) bool {
	q := strings.ToLower(h.query)
	if q == "" || h.holding[r.ID] {
		return true
	}
	for _, s := range []string{r.Reference, h.c.targetOf(r.Target), r.Target, r.Mode.String(), r.Input} {
		if strings.Contains(strings.ToLower(s), q) {
			return true
		}
	}
	return false
}

func (h *history) refresh() {
	h.shown = h.shown[:0]
	for i, r := range h.runs {
		if h.matches(r) {
			h.shown = append(h.shown, i)
		}
	}
	rows := make([]table.Row, len(h.shown))
	for i, at := range h.shown {
		r := h.runs[at]
		mode := r.Mode.String()
		if r.UndoOf != "" {
			mode = "undo: " + mode
		}
		counts := countsText(r.Counts, r.Invalid, r.LeftOut)
		if s := stateText(r.State); s != "" {
			counts = s + " · " + counts
		}
		rows[i] = table.Row{r.Created.Local().Format("2006-01-02 15:04"), mode, fmt.Sprint(r.Entries), counts, cell(r.Reference)}
		if h.wide {
			rows[i] = append(rows[i], cell(h.c.targetOf(r.Target)))
		}
	}
	h.table.SetRows(rows)
}

func (h *history) help(g globalKeys) help.KeyMap {
	if h.sync != nil {
		return h.sync.help()
	}
	if h.typing {
		return fieldHelp("find", "clear")
	}
	b := []key.Binding{h.keys.Move, h.keys.Open, h.keys.List, h.keys.Search, h.keys.Reload, g.Build, g.Help}
	if len(h.peers) > 0 {
		b = append([]key.Binding{h.keys.Move, h.keys.Open, h.keys.Sync}, b[2:]...)
	}
	if h.query != "" {
		b = append([]key.Binding{h.keys.ShowAll}, b...)
	}
	return keyMap{short: b, full: [][]key.Binding{b, {g.Browse, g.Quit}}}
}

type historyMsg struct {
	runs []batch.RunInfo
	bad  int
	err  error
}

func (h *history) load() tea.Cmd {
	dir, runs := h.dir, h.c.Runs
	return func() tea.Msg {
		if runs.Dir == "" {
			return historyMsg{err: fmt.Errorf("no state directory, so no history is kept")}
		}
		var bad int
		var err error
		if dir != "" {
			bad, err = importHistory(dir, runs)
		}
		list, lerr := runs.List()
		if err == nil {
			err = lerr
		}
		return historyMsg{runs: list, bad: bad, err: err}
	}
}

// fromRun is the Source of a ticket reference read from a recorded run.
const fromRun = "run"

// readList reads a recorded run back as a new list: what it sent, what
// was invalid and what it left out (left out again), in its mode, for its
// ticket.
func readList(runs *batch.Runs, ri batch.RunInfo) tea.Cmd {
	return func() tea.Msg {
		var segs segments
		if _, err := runs.Read(ri.ID, segs.add); err != nil {
			return listReadMsg{err: err}
		}
		l := restoreMsg{mode: ri.Mode, ref: ticket.Reference{Value: ri.Reference, Source: fromRun, Text: ri.ID},
			note: fmt.Sprintf("The list of the run of %s, as a new list: nothing of it is sent until you review it.", ri.Created.Local().Format("2006-01-02 15:04"))}
		for i, x := range segs.results {
			l.items = append(l.items, batch.NewItem(ri.Mode, i+1, x.Input))
			l.roles = append(l.roles, ticket.Decision{})
		}
		for _, it := range segs.invalid {
			l.items = append(l.items, it)
			l.roles = append(l.roles, ticket.Decision{})
		}
		for _, lo := range segs.leftOut {
			d := lo.Decision
			d.Leave = true
			l.items = append(l.items, lo.Item)
			l.roles = append(l.roles, d)
		}
		return listReadMsg{list: l}
	}
}

// openRun reads a recorded run's journals for the Results screen.
func openRun(runs *batch.Runs, id string) tea.Cmd {
	return func() tea.Msg {
		var segs segments
		ri, err := runs.Read(id, segs.add)
		if err != nil {
			return openRunMsg{err: err}
		}
		return openRunMsg{run: runOf(ri, segs)}
	}
}

func (h *history) update(msg tea.Msg) tea.Cmd {
	if cmd, ok := h.syncUpdate(msg); ok {
		return cmd
	}
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
	case searchedMsg:
		if msg.no == h.searchNo {
			h.holding, h.status = msg.holding, ""
			h.refresh()
			h.table.GotoTop()
		}
		return nil
	case tea.KeyMsg:
		return h.key(msg)
	}
	return nil
}

// key handles a key: the search field's while it is open, else the
// table's and the screen's.
func (h *history) key(msg tea.KeyMsg) tea.Cmd {
	if msg.Paste && !h.typing {
		return nil
	}
	switch {
	case h.typing:
		return h.searchKey(msg)
	case key.Matches(msg, h.keys.Search):
		h.typing = true
		return h.search.Focus()
	case key.Matches(msg, h.keys.ShowAll):
		h.showAll()
		return nil
	case key.Matches(msg, h.keys.Open):
		if i := h.table.Cursor(); i >= 0 && i < len(h.shown) {
			return openRun(h.c.Runs, h.runs[h.shown[i]].ID)
		}
		return nil
	case key.Matches(msg, h.keys.List):
		if i := h.table.Cursor(); i >= 0 && i < len(h.shown) {
			return readList(h.c.Runs, h.runs[h.shown[i]])
		}
		return nil
	case key.Matches(msg, h.keys.Reload):
		return h.load()
	}
	var cmd tea.Cmd
	h.table, cmd = h.table.Update(msg)
	return cmd
}

// showAll leaves the search: every run, the field empty, and the search
// of the runs' addresses still going is forgotten. Without a search it
// does nothing.
func (h *history) showAll() {
	if h.query == "" {
		return
	}
	h.searchNo++
	h.query, h.holding, h.status = "", nil, ""
	h.search.SetValue("")
	h.refresh()
	h.table.GotoTop()
}

// searchedMsg is the runs whose entries hold the queried address.
type searchedMsg struct {
	no      int
	holding map[string]bool
}

// searchKey edits the query; Enter finds, Esc clears. The headers answer
// at once; the runs' journals are searched for the query as an address in
// the background, and the runs that hold it join the matches.
func (h *history) searchKey(msg tea.KeyMsg) tea.Cmd {
	value, submitted, closed, cmd := fieldKey(&h.search, msg)
	if !closed {
		return cmd
	}
	h.typing = false
	h.searchNo++
	h.query, h.holding = "", nil
	if !submitted {
		h.search.SetValue("")
	} else {
		h.query = value
	}
	h.refresh()
	h.table.GotoTop()
	if h.query == "" || h.c.Runs.Dir == "" {
		return nil
	}
	h.status = "Looking for it among the runs' addresses too…"
	rs, no, addr := h.c.Runs, h.searchNo, strings.ToLower(h.query)
	runs := slices.Clone(h.runs)
	return func() tea.Msg {
		holding := map[string]bool{}
		for _, r := range runs {
			_, _ = rs.Read(r.ID, func(rep batch.Report) error {
				for _, x := range rep.Results {
					if strings.Contains(x.Input, addr) || strings.Contains(x.Email, addr) {
						holding[r.ID] = true
						return errFound
					}
				}
				return nil
			})
		}
		return searchedMsg{no: no, holding: holding}
	}
}

// errFound stops reading a run's journals once the address is found.
var errFound = errors.New("found")

// syncUpdate gives the sync open in front what is its: its messages,
// and every key (Esc closes it when it is not reading or applying).
func (h *history) syncUpdate(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case syncReadMsg, syncDoneMsg:
		if h.sync == nil {
			if m, ok := msg.(syncReadMsg); ok && m.close != nil {
				_ = m.close()
			}
			return nil, true
		}
		cmd := h.sync.update(msg)
		if _, done := msg.(syncDoneMsg); done {
			cmd = tea.Batch(cmd, h.load())
		}
		return cmd, true
	case tea.KeyMsg:
		if h.sync == nil {
			return h.openSync(msg)
		}
		if key.Matches(msg, h.sync.keys.Back) && !h.sync.busy() && !h.sync.confirming {
			h.sync.release()
			h.sync = nil
			return nil, true
		}
		return h.sync.update(msg), true
	}
	return nil, false
}

// openSync opens the sync on its key (when there is a list to sync with
// and no search is being typed).
func (h *history) openSync(msg tea.KeyMsg) (tea.Cmd, bool) {
	if h.typing || msg.Paste || len(h.peers) == 0 || !key.Matches(msg, h.keys.Sync) {
		return nil, false
	}
	h.sync = newSyncView(h.c, h.peers)
	if len(h.peers) == 1 {
		return h.sync.read(), true
	}
	return nil, true
}

func (h *history) render() string {
	if h.sync != nil {
		return h.sync.render()
	}
	st := h.c.Styles
	title := fmt.Sprintf("History · %d %s", len(h.runs), pluralN(len(h.runs), "run"))
	if h.query != "" {
		title = fmt.Sprintf("History · %d of %d %s match %q", len(h.shown), len(h.runs), pluralN(len(h.runs), "run"), h.query)
	}
	if n := len(h.shown); n > 0 {
		title += fmt.Sprintf(" · row %d", h.table.Cursor()+1)
	}
	if h.c.Runs.Dir != "" {
		title += " · " + h.c.Runs.Dir
	}
	body := h.table.View()
	if len(h.runs) == 0 {
		body = st.Muted.Render("No runs yet: the runs you send appear here.")
	}
	parts := []string{st.Title.Render(truncate(title, h.c.Width)), body}
	switch {
	case h.typing:
		parts = append(parts, h.search.View())
	case h.status != "":
		parts = append(parts, st.Warn.Render(truncate(h.status, h.c.Width)))
	}
	return lipgloss.JoinVertical(lipgloss.Left, strings.Join(parts, "\n"))
}
