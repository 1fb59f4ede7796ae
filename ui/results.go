package ui

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/config"
	"github.com/shushlist/shush/internal/atomicfile"
	"github.com/shushlist/shush/safe"
)

// results is the Results screen: a table of address, ID and outcome, with
// export, copy, retry, undo and a new batch.
type results struct {
	c         *Common
	keys      resultsKeys
	run       *Run
	table     table.Model
	path      textinput.Model
	exporting bool
	status    string
	only      batch.Outcome // the outcome shown; empty for all
	idW       int           // the ID column's width
	rows      []row         // every entry of the run: results, then what it did not send
	invalid   int           // the rows of invalid entries (each entry once: once.go)
	shown     []int         // index in rows of each table row
	clip      copier
}

type resultsKeys struct {
	Up, Down, Filter, Export, Copy, Retry, Undo, New key.Binding
}

func newResults(c *Common, clip io.Writer) *results {
	t := c.newTable()
	p := newTextInput(c, "results.csv or results.json")
	p.Prompt = "Write to: "
	return &results{c: c, table: t, path: p, clip: newCopier(clip), keys: resultsKeys{
		Up:     kbh("↑/↓", "scroll", "up", "down"),
		Filter: kb("show one outcome", "f"),
		Export: kb("write CSV/JSON", "w"),
		Copy:   kb("copy IDs (OSC 52)", "y"),
		Retry:  kb("retry failed", "R"),
		Undo:   kb("undo this run", "U"),
		New:    kb("new batch", "n"),
	}}
}

func (r *results) setSize(w, h int) {
	// Cells have one space of padding on each side: 6 for three columns.
	// A narrow terminal shortens the ID (its first 8 characters identify
	// it on screen; exports and copies keep it whole), not the address.
	idW := 36
	if w-idW-6-max(16, (w-idW-6)/2) < minAddressWidth {
		idW = shortIDWidth
	}
	r.idW = idW
	outW := max(16, (w-idW-6)/2)
	addrW := max(w-idW-outW-6, 10)
	r.table.SetColumns([]table.Column{{Title: "Address", Width: addrW}, {Title: "ID", Width: idW}, {Title: "Outcome", Width: outW}})
	r.table.SetWidth(w)
	// The title, the counts and the line under the table take the rest.
	st := r.c.Styles
	r.table.SetHeight(max(h-lines(st.Title, st.Header, st.Muted), 2))
	r.path.Width = w - 12
}

func (r *results) help(g globalKeys) help.KeyMap {
	if r.exporting {
		return fieldHelp("write", "cancel")
	}
	k := r.keys
	short := []key.Binding{k.Up, k.Filter, k.Export, k.Copy}
	if r.run.retryable() && r.c.ours(r.run) {
		short = append(short, k.Retry)
	}
	if r.c.ours(r.run) {
		short = append(short, k.Undo)
	}
	short = append(short, k.New, g.Help)
	return keyMap{short: short, full: [][]key.Binding{short[:len(short)-1], {g.Build, g.Browse, g.History, g.Help, g.Quit}}}
}

// show puts a run in the table, with a note on what went wrong beyond
// its results ("" for none).
func (r *results) show(run *Run, note string) {
	r.run, r.exporting, r.status, r.only = run, false, note, ""
	r.rows = run.rows()
	r.invalid = 0
	for _, x := range r.rows {
		if x.Outcome == rowInvalid {
			r.invalid++
		}
	}
	r.fill()
}

// fill puts the run's rows in the table, only those with the outcome
// r.only when it is set.
func (r *results) fill() {
	r.shown = r.shown[:0]
	rows := make([]table.Row, 0, len(r.rows))
	for i, x := range r.rows {
		if r.only != "" && x.Outcome != r.only {
			continue
		}
		r.shown = append(r.shown, i)
		rows = append(rows, table.Row{cell(x.Address), cell(shortID(x.ID, r.idW)), cell(outcomeText(x))})
	}
	r.table.SetRows(rows)
	r.table.GotoTop()
}

// outcomeOrder is the order in which f steps through the outcomes a run
// has: what needs attention first, then what was not sent.
func outcomeOrder() []batch.Outcome {
	return []batch.Outcome{batch.Failed, batch.Unsent, batch.Unverified, batch.NotListed, batch.AlreadyListed, batch.Added, batch.Removed, batch.Erased,
		rowInvalid, rowLeftOut}
}

// has reports whether the run has entries with outcome o.
func (r *results) has(o batch.Outcome) bool {
	switch o {
	case rowInvalid:
		return r.invalid > 0
	case rowLeftOut:
		return len(r.run.LeftOut) > 0
	}
	return r.run.Counts[o] > 0
}

// nextFilter steps to the next outcome present in the run, then back to all.
func (r *results) nextFilter() {
	order := outcomeOrder()
	start := 0
	for i, o := range order {
		if o == r.only {
			start = i + 1
		}
	}
	if r.only == "" {
		start = 0
	}
	for _, o := range order[min(start, len(order)):] {
		if r.has(o) {
			r.only = o
			r.fill()
			return
		}
	}
	r.only = ""
	r.fill()
}

// outcomeText is the Outcome cell: a removal shows the service's
// deleted flag, a failure the service's message, an entry not sent why.
func outcomeText(x row) string {
	switch x.Outcome {
	case batch.Removed:
		return "deleted: true"
	case batch.Failed:
		return "failed: " + x.Error
	case rowInvalid:
		return "invalid, not sent: " + x.Error
	case rowLeftOut:
		return "left out, not sent: " + x.Error
	}
	return x.Outcome.Text()
}

// detailText is what the line under the table says of a row with a
// message.
func detailText(x row) string {
	switch x.Outcome {
	case batch.Failed, rowInvalid, rowLeftOut:
		return outcomeText(x)
	}
	return x.Error
}

// undoPlannedMsg is the undo of the run on screen, planned.
type undoPlannedMsg struct {
	undo batch.Undo
	err  error
}
type exportedMsg struct {
	path string
	n    int
	err  error
}

func (r *results) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case undoPlannedMsg:
		return r.confirmUndo(msg)
	case exportedMsg:
		if msg.err != nil {
			r.status = capitalize(msg.err.Error())
		} else {
			r.status = fmt.Sprintf("Wrote %d %s to %s.", msg.n, pluralN(msg.n, "row"), msg.path)
		}
		return nil
	case tea.KeyMsg:
		if r.exporting {
			return r.exportKey(msg)
		}
		if msg.Paste {
			// The next ticket, pasted where the last one's results are:
			// it starts a new list, as n does, and is read there.
			return func() tea.Msg { return newBatchMsg{paste: &msg} }
		}
		k := r.keys
		switch {
		case key.Matches(msg, k.Export):
			r.exporting = true
			// A file an agent can attach to the ticket: in their downloads
			// (or documents) directory, named after the ticket.
			r.path.SetValue(filepath.Join(config.ExportDir(), config.ExportName(r.run.Ticket, r.run.Mode.String(), r.run.Started.Local(), "csv")))
			r.path.CursorEnd()
			return r.path.Focus()
		case key.Matches(msg, k.Filter):
			r.nextFilter()
			return nil
		case key.Matches(msg, k.Copy):
			return r.copyIDs()
		case key.Matches(msg, k.Retry) && r.run.retryable() && r.c.ours(r.run):
			run := r.run
			n := run.Counts[batch.Failed] + run.Counts[batch.Unsent]
			return ask(fmt.Sprintf("Send the %d failed or unsent entries again?", n), func() tea.Msg { return retryMsg{run} })
		case key.Matches(msg, k.Undo):
			return r.undo()
		case key.Matches(msg, k.New):
			return func() tea.Msg { return newBatchMsg{} }
		}
		// Moving on clears the last message, so the row's detail shows.
		r.status = ""
		var cmd tea.Cmd
		r.table, cmd = r.table.Update(msg)
		return cmd
	}
	return nil
}

// undo plans the undo of the run on screen (the run service reads its
// journals and asks the service what it can restore), then asks.
func (r *results) undo() tea.Cmd {
	run := r.run
	switch {
	case run.ID == "":
		r.status = "Cannot undo: this run was sent without a journal (no state directory)."
		return nil
	case !r.c.ours(run):
		r.status = "Cannot undo here: this run was sent to " + r.c.targetOf(run.Target) + ", not this service."
		return nil
	}
	r.status = "Planning the undo…"
	runs, id := r.c.Runs, run.ID
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		u, err := runs.PlanUndo(ctx, id)
		return undoPlannedMsg{undo: u, err: err}
	}
}

// confirmUndo says what the undo sends and what it cannot do, and asks.
func (r *results) confirmUndo(msg undoPlannedMsg) tea.Cmd {
	r.status = ""
	if msg.err != nil {
		r.status = "Cannot undo: " + msg.err.Error() + "."
		return nil
	}
	u := msg.undo
	notes := strings.Join(u.Notes, " ")
	n := len(u.Values)
	if n == 0 {
		r.status = strings.TrimSpace("Nothing to undo: this run changed nothing that can be put back. " + notes)
		return nil
	}
	q := fmt.Sprintf("Undo: remove the %d %s this run added (by ID)?", n, pluralN(n, "entry"))
	if u.Mode == batch.Add {
		q = fmt.Sprintf("Undo: put the %d removed %s back?", n, pluralN(n, "address"))
	}
	// The prompt is one line: what the undo cannot do goes above it.
	r.status = notes
	return ask(q, func() tea.Msg { return undoRunMsg{u} })
}

func (r *results) copyIDs() tea.Cmd {
	var ids []string
	for _, x := range r.run.Results {
		if x.ID != "" {
			ids = append(ids, x.ID)
		}
	}
	if len(ids) == 0 {
		r.status = "There are no IDs to copy."
		return nil
	}
	r.status = clipMessage(r.clip.copy(strings.Join(ids, "\n")), len(ids), "ID", r.keys.Export.Help().Key)
	return nil
}

func (r *results) exportKey(msg tea.KeyMsg) tea.Cmd {
	path, ok, closed, cmd := fieldKey(&r.path, msg)
	r.exporting = !closed
	if !ok {
		return cmd
	}
	path = expandHome(path)
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	rows := r.rows
	head := exportHead{Ticket: r.run.Ticket, Target: r.c.targetOf(r.run.Target), Mode: r.run.Mode.String(), Started: r.run.Started.UTC()}
	return func() tea.Msg {
		err := writeResults(path, head, rows)
		return exportedMsg{path: path, n: len(rows), err: err}
	}
}

// exportHead is what an export says of its run, so that the file alone,
// attached to a ticket, tells which ticket, service, mode and time.
type exportHead struct {
	Ticket  string    `json:"ticket"`
	Target  string    `json:"target"`
	Mode    string    `json:"mode"`
	Started time.Time `json:"started"`
}

// expandHome reads a leading ~/ as the home directory, as a shell would.
func expandHome(path string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return path
}

// writeResults writes results as JSON when the path ends in .json (any
// case), else as CSV, each carrying the run's ticket, target, mode and
// time. The file is written whole or not at all.
func writeResults(path string, head exportHead, rows []row) error {
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	if strings.EqualFold(filepath.Ext(path), ".json") {
		enc := json.NewEncoder(f)
		enc.SetIndent("", "  ")
		err = enc.Encode(struct {
			exportHead
			Data []row `json:"data"`
		}{head, rows})
	} else {
		w := csv.NewWriter(f)
		_ = w.Write([]string{"address", "id", "outcome", "deleted", "error", "ticket", "target", "mode", "time", "expires_at", "note"})
		at := head.Started.Format(time.RFC3339)
		for _, x := range rows {
			until := ""
			if !x.ExpiresAt.IsZero() {
				until = x.ExpiresAt.UTC().Format(time.RFC3339)
			}
			_ = w.Write([]string{safe.Cell(x.Address), safe.Cell(x.ID), string(x.Outcome), fmt.Sprint(x.Deleted), safe.Cell(x.Error),
				safe.Cell(head.Ticket), safe.Cell(head.Target), head.Mode, at, until, safe.Cell(x.Note)})
		}
		w.Flush()
		err = w.Error()
	}
	if err == nil {
		err = f.Commit()
	}
	if err != nil {
		return err
	}
	return nil
}

func (r *results) render() string {
	st := r.c.Styles
	run := r.run
	title := fmt.Sprintf("Results · %s → %s · %s", run.Mode, r.c.targetOf(run.Target), run.Started.Local().Format("2006-01-02 15:04"))
	if run.Ticket != "" {
		title += " · ticket " + run.Ticket
	}
	counts := fmt.Sprintf("%d %s: %s", len(run.Results), pluralN(len(run.Results), "entry"), countsText(run.Counts, r.invalid, len(run.LeftOut)))
	if s := stateText(run.State); s != "" {
		counts = s + " · " + counts
	}
	if n := len(r.shown); n > 0 {
		counts += fmt.Sprintf(" · row %d of %d", r.table.Cursor()+1, n)
	}
	if r.only != "" {
		counts += fmt.Sprintf(" · only %s (f: next)", strings.ReplaceAll(r.only.Text(), "_", " "))
	}
	return lipgloss.JoinVertical(lipgloss.Left,
		st.Title.Render(truncate(title, r.c.Width)),
		st.Header.Render(truncate(counts, r.c.Width)),
		r.table.View(),
		r.tail(),
	)
}

// tail is the line under the table: the export field, a message, the
// row's detail, or what is left to send and why.
func (r *results) tail() string {
	st, run, w := r.c.Styles, r.run, r.c.Width
	cur := r.table.Cursor()
	unsent, failed := run.Counts[batch.Unsent], run.Counts[batch.Failed]
	switch {
	case r.exporting:
		return r.path.View()
	case r.status != "":
		return st.Muted.Render(truncate(r.status, w))
	case cur >= 0 && cur < len(r.shown) && r.rows[r.shown[cur]].Error != "":
		x := r.rows[r.shown[cur]]
		style := st.Warn
		if x.Outcome == batch.Failed {
			style = st.Bad
		}
		return style.Render(truncate(fmt.Sprintf("Row %d: %s", cur+1, detailText(x)), w))
	case cur >= 0 && cur < len(r.shown) && (r.rows[r.shown[cur]].Note != "" || !r.rows[r.shown[cur]].ExpiresAt.IsZero()):
		// What the service says the entry keeps.
		x := r.rows[r.shown[cur]]
		s := fmt.Sprintf("Row %d: %s", cur+1, x.Address)
		if !x.ExpiresAt.IsZero() {
			s += "  until " + x.ExpiresAt.UTC().Format("2006-01-02 15:04")
		}
		if x.Note != "" {
			s += "  “" + x.Note + "”"
		}
		return st.Muted.Render(truncate(s, w))
	case run.State == batch.Refused && unsent+failed > 0:
		return st.Bad.Render(truncate(fmt.Sprintf("%d %s not sent: the service refused this key. Send the list again with a key that may change it.", unsent+failed, pluralN(unsent+failed, "entry")+wasWere(unsent+failed)), w))
	case unsent > 0:
		why := "cancelled"
		switch run.State {
		case batch.Paused:
			why = "paused: the service stopped taking them"
		case batch.Running:
			why = "cut off"
		}
		return st.Warn.Render(truncate(fmt.Sprintf("%d %s not sent (%s); R sends them.", unsent, pluralN(unsent, "entry")+wasWere(unsent), why), w))
	case failed > 0 && !run.retryable():
		return st.Bad.Render(truncate(fmt.Sprintf("%d %s refused as sent: sending them again would be refused again. Correct the list and send it as a new one.", failed, pluralN(failed, "entry")+wasWere(failed)), w))
	case failed > 0:
		return st.Bad.Render(truncate(fmt.Sprintf("%d %s failed; R retries their batches.", failed, pluralN(failed, "entry")), w))
	}
	return ""
}
