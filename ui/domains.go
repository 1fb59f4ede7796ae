package ui

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/safe"
)

// domains is the Domain blocks screen: the entries that list a whole
// domain (@domain, *.domain), as an incident puts them up, each with the
// time it has left, its note and when it was listed. It reads the service
// when it comes to front and on ctrl+r; the time left is counted again
// every minute. Blocks are added and taken off as any entry: typed or
// pasted into the build list ("@evil.example"), sent in add or remove
// mode.
type domains struct {
	c     *Common
	svc   *client.Client
	keys  domainsKeys
	table table.Model
	items []api.Entry
	more  bool
	// known says the service answered once; offered that it has domain
	// entries (a service without them answers 404).
	known, offered bool
	status         string
	seq            int
	gen            int // the showing whose ticking counts
	// now is the clock the time left is counted on; tests set it.
	now func() time.Time
}

type domainsKeys struct {
	Move, Reload key.Binding
}

// domainsEvery is how often the time left is counted again.
const domainsEvery = time.Minute

func newDomains(c *Common, svc *client.Client) *domains {
	return &domains{c: c, svc: svc, table: c.newTable(), now: time.Now, keys: domainsKeys{
		Move:   kbh("↑/↓", "move", "up"),
		Reload: kbh("ctrl+r", "reload", "ctrl+r"),
	}}
}

func (d *domains) keyMode() inputMode { return normal }

func (d *domains) setSize(w, h int) {
	cols := []table.Column{{Title: "Blocks"}, {Title: "Time left", Width: 14}, {Title: "Listed", Width: 16}, {Title: "Note"}}
	rest := max(w-(14+16)-4*2-4, 30)
	cols[0].Width = min(rest*2/5, 40)
	cols[3].Width = rest - cols[0].Width
	d.table.SetRows(nil)
	d.table.SetColumns(cols)
	d.table.SetWidth(w)
	st := d.c.Styles
	d.table.SetHeight(max(h-lines(st.Title, st.Muted, st.Warn), 2))
	d.refresh()
}

func (d *domains) help(g globalKeys) help.KeyMap {
	b := []key.Binding{d.keys.Move, d.keys.Reload, g.Build, g.Browse, g.Help}
	return keyMap{short: b, full: [][]key.Binding{b, {g.History, g.Intake, g.Domains, g.Quit}}}
}

// domainsMsg is the service's domain entries, read for load seq.
type domainsMsg struct {
	seq   int
	items []api.Entry
	more  bool
	err   error
}

func (m domainsMsg) news() (bool, bool) { return newsOf(m.err) }

// domainsTickMsg is the turn to count the time left again, of the
// ticking begun at the screen's gen-th showing (an older one stops).
type domainsTickMsg struct{ gen int }

// ticking begins counting the time left again every minute, in place of
// any counting begun before.
func (d *domains) ticking() tea.Cmd {
	d.gen++
	return d.c.after(domainsEvery, domainsTickMsg{d.gen})
}

// load reads the domain entries.
func (d *domains) load() tea.Cmd {
	if d.svc == nil {
		return nil
	}
	d.seq++
	svc, seq := d.svc, d.seq
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(client.Once(context.Background()), 10*time.Second)
		defer cancel()
		page, err := svc.DomainEntries(ctx)
		return domainsMsg{seq: seq, items: page.Data, more: page.HasMore, err: err}
	}
}

func (d *domains) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case domainsMsg:
		if msg.seq != d.seq {
			return nil
		}
		switch {
		case client.IsUnsupported(msg.err) || client.IsNotFound(msg.err):
			d.known, d.offered, d.items = true, false, nil
			d.status = "This service keeps no domain blocks (they need shush's own service)."
		case msg.err != nil:
			d.status = "The domain blocks could not be read: " + errorText(msg.err) + "."
		default:
			d.known, d.offered, d.items, d.more, d.status = true, true, msg.items, msg.more, ""
		}
		d.refresh()
		return nil
	case domainsTickMsg:
		if msg.gen != d.gen {
			return nil
		}
		d.refresh()
		return d.c.after(domainsEvery, domainsTickMsg{d.gen})
	case tea.KeyMsg:
		if msg.Paste {
			return nil
		}
		if key.Matches(msg, d.keys.Reload) {
			d.status = ""
			return d.load()
		}
		var cmd tea.Cmd
		d.table, cmd = d.table.Update(msg)
		return cmd
	}
	return nil
}

// active are the blocks whose expiry has not passed (the service takes an
// expired one off within a minute).
func (d *domains) active() []api.Entry {
	now := d.now()
	out := make([]api.Entry, 0, len(d.items))
	for _, e := range d.items {
		if e.ExpiresAt == nil || e.ExpiresAt.After(now) {
			out = append(out, e)
		}
	}
	return out
}

func (d *domains) refresh() {
	now := d.now()
	act := d.active()
	rows := make([]table.Row, len(act))
	for i, e := range act {
		note := ""
		if e.Note != nil {
			note = *e.Note
		}
		rows[i] = table.Row{cell(api.UnicodeEmail(e.Email)), timeLeft(e.ExpiresAt, now), e.CreatedAt.Local().Format("2006-01-02 15:04"), cell(note)}
	}
	d.table.SetRows(rows)
	switch c := d.table.Cursor(); {
	case len(rows) == 0:
	case c < 0:
		d.table.SetCursor(0)
	case c >= len(rows):
		d.table.SetCursor(len(rows) - 1)
	}
}

// timeLeft is how long a block has left, in the two largest units.
func timeLeft(at *api.Timestamp, now time.Time) string {
	if at == nil {
		return "no expiry"
	}
	left := at.Sub(now)
	switch {
	case left <= 0:
		return "expiring"
	case left < time.Minute:
		return "under 1m"
	case left < time.Hour:
		return fmt.Sprintf("%dm", int(left/time.Minute))
	case left < 48*time.Hour:
		return fmt.Sprintf("%dh %02dm", int(left/time.Hour), int(left%time.Hour/time.Minute))
	}
	return fmt.Sprintf("%dd %02dh", int(left/(24*time.Hour)), int(left%(24*time.Hour)/time.Hour))
}

func (d *domains) render() string {
	st := d.c.Styles
	act := d.active()
	n := len(act)
	title := "Domain blocks"
	switch {
	case !d.known:
		title += " · reading…"
	case !d.offered:
	case n == 0:
		title += " · none active"
	default:
		more := ""
		if d.more {
			more = " (the newest 100 of each kind)"
		}
		title += fmt.Sprintf(" · %d active%s", n, more)
	}
	body := d.table.View()
	if d.known && d.offered && n == 0 {
		body = st.Muted.Render("No domain is blocked. Add one as any entry: type @evil.example (or *.evil.example for its subdomains) in the build list.")
	}
	parts := []string{st.Title.Render(truncate(title, d.c.Width)), body,
		st.Muted.Render(truncate("@d blocks every address of d; *.d every address of its subdomains. Protected addresses stay deliverable.", d.c.Width))}
	if d.status != "" {
		parts = append(parts, st.Warn.Render(truncate(safe.Text(d.status), d.c.Width)))
	}
	return lipgloss.JoinVertical(lipgloss.Left, parts...)
}
