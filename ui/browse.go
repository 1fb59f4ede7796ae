package ui

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
)

var origins = []api.Origin{"", api.OriginBounce, api.OriginComplaint, api.OriginManual}

// browse is the Browse screen: the service's list page by page, an origin
// filter, a lookup by address or ID, and marks that become a removal by ID.
type browse struct {
	c       *Common
	svc     *client.Client
	idW     int // the ID column's width
	keys    browseKeys
	table   table.Model
	lookup  textinput.Model
	looking bool
	seq     int
	page    []api.Entry
	hasMore bool
	pageNo  int
	params  client.ListParams
	origin  int
	marked  map[string]string // ID → address
	order   []string
	status  string
	loading bool
	single  bool // the page is a lookup's answer
	wide    bool // the table has the date column
}

type browseKeys struct {
	Next, Prev, Origin, Lookup, Mark, Use, Reload key.Binding
}

func newBrowse(c *Common, svc *client.Client) *browse {
	t := c.newTable()
	in := newTextInput(c, "address or ID")
	in.Prompt = "Look up: "
	return &browse{c: c, svc: svc, table: t, lookup: in, marked: map[string]string{}, keys: browseKeys{
		Next:   kbh("n/→", "next page", "n", "right"),
		Prev:   kbh("p/←", "previous page", "p", "left"),
		Origin: kb("origin filter", "o"),
		Lookup: kb("look up", "/"),
		Mark:   kbh("space", "mark for removal", " "),
		Use:    kb("remove the marked", "x"),
		Reload: kb("first page", "ctrl+r"),
	}}
}

func (b *browse) setSize(w, h int) {
	// Cells have one space of padding on each side. The date goes first
	// when the terminal is narrow.
	cols := []table.Column{{Title: "", Width: 1}, {Title: "Address"}, {Title: "ID", Width: 36}, {Title: "Origin", Width: 9}}
	if w >= 100 {
		cols = append(cols, table.Column{Title: "Added (UTC)", Width: 16})
	}
	used := 0
	for _, c := range cols {
		used += c.Width + 2
	}
	if w-used-2 < minAddressWidth {
		// A narrow terminal shortens the ID, not the address.
		used -= cols[2].Width - shortIDWidth
		cols[2].Width = shortIDWidth
	}
	b.idW = cols[2].Width
	cols[1].Width = max(w-used-2, 10)
	b.wide = w >= 100
	// SetRows before SetColumns: a row with more cells than columns panics.
	b.table.SetRows(nil)
	b.table.SetColumns(cols)
	b.refresh()
	b.table.SetWidth(w)
	// The title and the status line take the rest.
	st := b.c.Styles
	b.table.SetHeight(max(h-lines(st.Title, st.Muted), 3))
	b.lookup.Width = w - 12
}

func (b *browse) pageSize() int { return min(max(b.table.Height()-1, 1), 100) }

func (b *browse) help(g globalKeys) help.KeyMap {
	if b.looking {
		return fieldHelp("look up", "cancel")
	}
	k := b.keys
	short := []key.Binding{k.Next, k.Prev, k.Origin, k.Lookup, k.Mark, k.Use, g.Help}
	return keyMap{short: short, full: [][]key.Binding{short[:6], {k.Reload, g.Build, g.History, g.Help, g.Quit}}}
}

type pageMsg struct {
	query  string // the look-up's address or ID (single answers)
	seq    int
	resp   api.ListResponse
	single bool
	err    error
}

func (b *browse) fetch(p client.ListParams) tea.Cmd {
	b.seq++
	b.loading = true
	p.Limit = b.pageSize()
	p.Origin = origins[b.origin]
	b.params = p
	svc, seq := b.svc, b.seq
	return func() tea.Msg {
		resp, err := svc.List(context.Background(), p)
		return pageMsg{seq: seq, resp: resp, err: err}
	}
}

func (b *browse) first() tea.Cmd {
	b.pageNo = 1
	return b.fetch(client.ListParams{})
}

func (b *browse) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case pageMsg:
		if msg.seq != b.seq {
			return nil
		}
		b.loading = false
		if msg.err != nil {
			b.status = errorText(msg.err)
			if msg.single && client.IsNotFound(msg.err) {
				// A miss clears the previous hit: the table never shows
				// an entry that is not the answer.
				b.status = fmt.Sprintf("%s is not on the list.", msg.query)
				b.single, b.page, b.hasMore = true, nil, false
				b.refresh()
			}
			return nil
		}
		b.status = ""
		b.single = msg.single
		b.page, b.hasMore = msg.resp.Data, msg.resp.HasMore
		b.refresh()
		b.table.GotoTop()
		return nil
	case tea.KeyMsg:
		if b.looking {
			return b.lookupKey(msg)
		}
		if msg.Paste {
			return nil
		}
		k := b.keys
		switch {
		case key.Matches(msg, k.Next):
			if b.hasMore && len(b.page) > 0 && !b.single {
				b.pageNo++
				return b.fetch(client.ListParams{After: b.page[len(b.page)-1].ID})
			}
			return nil
		case key.Matches(msg, k.Prev):
			if b.single {
				return b.first()
			}
			if b.pageNo > 1 && len(b.page) > 0 {
				b.pageNo--
				return b.fetch(client.ListParams{Before: b.page[0].ID})
			}
			return nil
		case key.Matches(msg, k.Origin):
			b.origin = (b.origin + 1) % len(origins)
			return b.first()
		case key.Matches(msg, k.Reload):
			return b.first()
		case key.Matches(msg, k.Lookup):
			b.looking = true
			b.lookup.SetValue("")
			return b.lookup.Focus()
		case key.Matches(msg, k.Mark):
			if i := b.table.Cursor(); i >= 0 && i < len(b.page) {
				e := b.page[i]
				if _, ok := b.marked[e.ID]; ok {
					delete(b.marked, e.ID)
				} else {
					b.marked[e.ID] = e.Email
					b.order = append(b.order, e.ID)
				}
				b.refresh()
				b.table.MoveDown(1)
			}
			return nil
		case key.Matches(msg, k.Use):
			var ids []string
			for _, id := range b.order {
				if _, ok := b.marked[id]; ok {
					ids = append(ids, id)
				}
			}
			if len(ids) == 0 {
				b.status = "Mark entries with space first."
				return nil
			}
			// The marks stay until the list takes them (taken): the agent
			// may still say no.
			return func() tea.Msg { return useMarkedMsg{ids: ids} }
		}
		var cmd tea.Cmd
		b.table, cmd = b.table.Update(msg)
		return cmd
	}
	return nil
}

// taken clears the marks once the Build screen's list holds them.
func (b *browse) taken() {
	b.marked, b.order = map[string]string{}, nil
	b.refresh()
}

func (b *browse) lookupKey(msg tea.KeyMsg) tea.Cmd {
	q, ok, closed, cmd := fieldKey(&b.lookup, msg)
	b.looking = !closed
	if !ok {
		return cmd
	}
	// What people paste: "Jane <jane@example.com>", mailto: links, an ID.
	ref, err := batch.Ref(q)
	if err != nil {
		b.status = err.Error() + "."
		return nil
	}
	b.seq++
	b.loading = true
	svc, seq := b.svc, b.seq
	return func() tea.Msg {
		e, err := svc.Get(context.Background(), ref)
		return pageMsg{seq: seq, resp: api.ListResponse{Data: []api.Entry{e}}, single: true, query: ref, err: err}
	}
}

func (b *browse) refresh() {
	rows := make([]table.Row, len(b.page))
	for i, e := range b.page {
		mark := " "
		if _, ok := b.marked[e.ID]; ok {
			mark = "*"
		}
		rows[i] = table.Row{mark, cell(e.Email), cell(shortID(e.ID, b.idW)), cell(string(e.Origin))}
		if b.wide {
			rows[i] = append(rows[i], e.CreatedAt.UTC().Format("2006-01-02 15:04"))
		}
	}
	b.table.SetRows(rows)
}

func (b *browse) render() string {
	st := b.c.Styles
	origin := "all origins"
	if o := origins[b.origin]; o != "" {
		origin = "origin " + string(o)
	}
	title := fmt.Sprintf("Browse · page %d · %s", b.pageNo, origin)
	if b.single {
		title = "Browse · lookup result (p goes back to the first page)"
	}
	if n := len(b.marked); n > 0 {
		title += fmt.Sprintf(" · %d marked", n)
	}
	if n := len(b.page); n > 0 {
		title += fmt.Sprintf(" · row %d of %d", b.table.Cursor()+1, n)
	}
	more := ""
	if b.hasMore && !b.single {
		more = " · more: n"
	}
	body := b.table.View()
	if len(b.page) == 0 && !b.loading {
		body = st.Muted.Render("No entries.")
	}
	tail := st.Muted.Render(truncate(b.status, b.c.Width))
	if b.looking {
		tail = b.lookup.View()
	} else if b.loading {
		tail = st.Muted.Render("Loading…")
	}
	return lipgloss.JoinVertical(lipgloss.Left, st.Title.Render(truncate(title+more, b.c.Width)), body, tail)
}
