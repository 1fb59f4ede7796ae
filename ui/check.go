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
// suppressed, with origin, date, expiry and note and, where the service
// keeps a trail, who listed them under which reference. It checks any
// number (a bulk request of 1,000 at a time, or look-ups against a service
// without it), shows how far it got, and pages the answer. It sends
// nothing and arms nothing.
type checker struct {
	c      *Common
	keys   checkKeys
	values []string
	// requester marks the ticket's requester among values: check looks
	// up everyone, the requester too.
	requester map[string]bool
	found     []batch.Found
	// trail is the newest addition of a listed entry, by index, read for
	// the rows shown (and all of them before an export); asked marks
	// those asked for, and noTrail a service that keeps none.
	trail   map[int]api.AuditEntry
	asked   map[int]bool
	noTrail bool
	done    int
	seq     int
	offset  int
	height  int
	only    previewFilter
	status  string
	// exporting says the export waits for the trail of the rows not
	// shown yet.
	exporting bool
}

type checkKeys struct{ Back, Up, Down, PageUp, PageDown, Filter, Again, Export key.Binding }

func newChecker(c *Common) *checker {
	return &checker{c: c, keys: checkKeys{
		Back:     kbh("esc", "back", "esc"),
		Up:       kbh("↑/↓", "scroll", "up"),
		Down:     key.NewBinding(key.WithKeys("down")),
		PageUp:   kbh("pgup/pgdn", "page", "pgup"),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " ")),
		Filter:   kbh("ctrl+f", "listed/not listed/all", "ctrl+f"),
		Again:    kbh("ctrl+p", "look up again", "ctrl+p"),
		Export:   kb("write CSV", "w"),
	}}
}

// checkedMsg is a chunk of the check's answers.
type checkedMsg struct {
	seq, start int
	found      []batch.Found
}

// trailMsg is the trail of some listed entries, by index; none says the
// service keeps no trail.
type trailMsg struct {
	seq   int
	trail map[int]api.AuditEntry
	none  bool
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
	k.status, k.offset, k.only = "", 0, showAll
	return k.start()
}

func (k *checker) start() tea.Cmd {
	k.seq++
	k.found, k.done, k.exporting = make([]batch.Found, len(k.values)), 0, false
	k.trail, k.asked, k.noTrail = map[int]api.AuditEntry{}, map[int]bool{}, false
	if len(k.values) == 0 {
		return nil
	}
	return k.lookup(0)
}

// lookup checks the next chunk: a bulk request's worth, or a few look-ups
// against a service without the bulk check.
func (k *checker) lookup(start int) tea.Cmd {
	end := min(start+k.c.Checker.ChunkSize(), len(k.values))
	vals := append([]string(nil), k.values[start:end]...)
	ck, seq := k.c.Checker, k.seq
	return func() tea.Msg {
		return checkedMsg{seq: seq, start: start, found: checkUp(ck, vals)}
	}
}

// readTrail reads the trail of the listed entries at idx: the newest
// addition of each (a service without a trail has none).
func (k *checker) readTrail(idx []int) tea.Cmd {
	if len(idx) == 0 || k.noTrail {
		return nil
	}
	ids := make(map[int]string, len(idx))
	for _, i := range idx {
		k.asked[i] = true
		ids[i] = k.found[i].Entry.ID
	}
	svc, seq := k.c.Service, k.seq
	return func() tea.Msg {
		trail := map[int]api.AuditEntry{}
		for i, id := range ids {
			page, err := svc.SuppressionAudit(context.Background(), id, client.AuditParams{Limit: 1, Type: api.AuditAdded})
			if err != nil {
				// No trail on this service, or it failed: the states stand.
				return trailMsg{seq: seq, trail: trail, none: client.IsUnsupported(err)}
			}
			if len(page.Data) > 0 {
				trail[i] = page.Data[0]
			}
		}
		return trailMsg{seq: seq, trail: trail}
	}
}

// shown is the indexes of the answers the filter keeps.
func (k *checker) shown() []int {
	var out []int
	for i, f := range k.found[:k.done] {
		if k.only.keeps(f) {
			out = append(out, i)
		}
	}
	return out
}

// rows is how many answers the screen shows at once.
func (k *checker) rows() int {
	st := k.c.Styles
	return max(k.height-lines(st.Title, st.Header, st.Muted), 1)
}

// visibleTrail reads the trail of the listed entries shown that it has
// not asked for yet.
func (k *checker) visibleTrail() tea.Cmd {
	shown := k.shown()
	k.offset = min(k.offset, max(len(shown)-k.rows(), 0))
	var want []int
	for _, i := range shown[k.offset:min(k.offset+k.rows(), len(shown))] {
		if k.found[i].Listed && !k.asked[i] {
			want = append(want, i)
		}
	}
	return k.readTrail(want)
}

func (k *checker) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case checkedMsg:
		if msg.seq != k.seq {
			return nil
		}
		copy(k.found[msg.start:], msg.found)
		k.done = msg.start + len(msg.found)
		var next tea.Cmd
		if k.done < len(k.values) {
			next = k.lookup(k.done)
		}
		return tea.Batch(next, k.visibleTrail())
	case trailMsg:
		if msg.seq != k.seq {
			return nil
		}
		for i, a := range msg.trail {
			k.trail[i] = a
		}
		k.noTrail = k.noTrail || msg.none
		if k.exporting {
			return k.export()
		}
		return nil
	case checkWrittenMsg:
		k.exporting = false
		k.status = fmt.Sprintf("Wrote %d addresses to %s.", msg.n, msg.path)
		if msg.err != nil {
			k.status = capitalize(msg.err.Error()) + "."
		}
		return nil
	case tea.KeyMsg:
		keys := k.keys
		switch {
		case key.Matches(msg, keys.Back):
			k.seq++ // what is still being looked up is no longer wanted
			return func() tea.Msg { return backMsg{} }
		case key.Matches(msg, keys.Up):
			k.offset = max(k.offset-1, 0)
		case key.Matches(msg, keys.Down):
			k.offset++
		case key.Matches(msg, keys.PageUp):
			k.offset = max(k.offset-k.rows(), 0)
		case key.Matches(msg, keys.PageDown):
			k.offset += k.rows()
		case key.Matches(msg, keys.Filter):
			k.only, k.offset = (k.only+1)%filterCount, 0
		case key.Matches(msg, keys.Again):
			return k.start()
		case key.Matches(msg, keys.Export):
			return k.startExport()
		default:
			return nil
		}
		return k.visibleTrail()
	}
	return nil
}

// startExport starts the export (w) once every address is checked, and
// says so before.
func (k *checker) startExport() tea.Cmd {
	switch {
	case k.exporting:
		return nil
	case k.done < len(k.values):
		k.status = fmt.Sprintf("Still checking (%d of %d): w writes the file once every address is checked.", k.done, len(k.values))
		return nil
	}
	k.exporting = true
	k.status = "Reading who listed each entry, for the export…"
	return k.export()
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

// export writes the check as CSV to the export directory, named after it,
// once the trail of every listed entry is read (a chunk of them at a time,
// while the screen says so); a service without a trail has none to read.
func (k *checker) export() tea.Cmd {
	var want []int
	for i, f := range k.found {
		if f.Listed && !k.asked[i] && len(want) < previewChunk {
			want = append(want, i)
		}
	}
	if len(want) > 0 && !k.noTrail {
		k.status = fmt.Sprintf("Reading who listed each entry, for the export (%d of %d listed)…", len(k.asked), k.listedCount())
		return k.readTrail(want)
	}
	path := filepath.Join(config.ExportDir(), config.ExportName("", "check", time.Now(), "csv"))
	rows := [][]string{{"address", "listed", "id", "origin", "created_at", "expires_at", "note", "key", "reference", "target", "time", "requester"}}
	at := time.Now().UTC().Format(time.RFC3339)
	for i, f := range k.found {
		r := []string{safe.Cell(f.Input), fmt.Sprint(f.Listed), "", "", "", "", "", "", "", safe.Cell(k.c.Target.label()), at, fmt.Sprint(k.requester[f.Input])}
		if f.Err != nil {
			r[1] = "unknown: " + safe.Cell(errorText(f.Err))
		}
		if f.Listed {
			e := f.Entry
			// The service's answer is outside text too.
			r[2], r[3], r[4] = safe.Cell(e.ID), safe.Cell(string(e.Origin)), e.CreatedAt.UTC().Format(time.RFC3339)
			if e.ExpiresAt != nil {
				r[5] = e.ExpiresAt.UTC().Format(time.RFC3339)
			}
			if e.Note != nil {
				r[6] = safe.Cell(*e.Note)
			}
		}
		if a, ok := k.trail[i]; ok {
			r[7] = safe.Cell(a.By())
			if a.Reference != nil {
				r[8] = safe.Cell(*a.Reference)
			}
		}
		rows = append(rows, r)
	}
	return func() tea.Msg {
		err := writeCSV(path, rows)
		return checkWrittenMsg{path: path, n: len(rows) - 1, err: err}
	}
}

func (k *checker) listedCount() int {
	listed, _, _ := k.counts()
	return listed
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
	b := []key.Binding{k.keys.Up, k.keys.PageUp, k.keys.Filter, k.keys.Export, k.keys.Again, k.keys.Back, g.Help}
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
		how := ""
		if !k.c.Checker.Bulk() {
			how = " (one at a time: the service has no bulk check)"
		}
		head += fmt.Sprintf(" · checking %d of %d…%s", k.done, len(k.values), how)
	}
	shown := k.shown()
	rows := k.rows()
	k.offset = min(k.offset, max(len(shown)-rows, 0))
	if len(shown) > rows {
		head += fmt.Sprintf(" · rows %d–%d of %d", k.offset+1, min(k.offset+rows, len(shown)), len(shown))
	}
	if k.only != showAll {
		head += fmt.Sprintf(" · showing %s (ctrl+f: next)", k.only.name(batch.RemoveEmails))
	}
	line(st.Header.Render(head))
	for _, i := range shown[k.offset:min(k.offset+rows, len(shown))] {
		f := k.found[i]
		who := ""
		if k.requester[f.Input] {
			who = " (requester)"
		}
		switch {
		case f.Err != nil:
			line(st.Bad.Render(fmt.Sprintf("  ! %s%s  look-up failed: %s", safe.Text(f.Input), who, safe.Text(errorText(f.Err)))))
		case !f.Listed:
			line(st.Muted.Render(fmt.Sprintf("  - %s%s  not listed", safe.Text(f.Input), who)))
		default:
			// Every string of the answer is the service's: its escapes,
			// styling (SGR) too, are shown, never obeyed.
			e := f.Entry
			s := fmt.Sprintf("  ✓ %s%s  %s  added %s", safe.Text(e.Email), who, safe.Text(string(e.Origin)), e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			if f.ListedBy != "" {
				s = fmt.Sprintf("  ✓ %s%s  listed by %s  added %s", safe.Text(e.Email), who, safe.Text(f.ListedBy), e.CreatedAt.UTC().Format("2006-01-02 15:04"))
			}
			if a, ok := k.trail[i]; ok {
				s += "  by " + safe.Text(a.By())
				if a.Reference != nil {
					s += "  ref " + safe.Text(*a.Reference)
				}
			}
			line(s + kept(e) + "  " + safe.Text(e.ID))
		}
	}
	body := lipgloss.NewStyle().Height(k.height - 1).MaxHeight(k.height - 1).Render(strings.TrimSuffix(b.String(), "\n"))
	return lipgloss.JoinVertical(lipgloss.Left, body, st.Muted.Render(truncate(k.status, w)))
}
