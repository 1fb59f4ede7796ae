package ui

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/table"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"

	"github.com/shushlist/shush/api"
	"github.com/shushlist/shush/api/client"
	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/safe"
)

var origins = []api.Origin{"", api.OriginBounce, api.OriginComplaint, api.OriginManual}

// browse is the Browse screen: the service's list page by page, an origin
// filter, a look-up by address or ID or a search (everyone at a domain,
// addresses starting with a prefix) paged the same way, marks that become
// a removal by ID, and every match of a search taken as a removal.
type browse struct {
	c   *Common
	svc *client.Client
	// next is where the page after this one starts: its last entry, or
	// where the service stopped a bounded search page.
	next    string
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
	wider   bool // and the expiry's
	// search is the search the pages are of (api.SearchNone for the whole
	// list); taking says its every match is being read for a removal.
	search api.Search
	taking bool
}

type browseKeys struct {
	Next, Prev, Origin, Lookup, Mark, Use, TakeAll, Reload key.Binding
}

func newBrowse(c *Common, svc *client.Client) *browse {
	t := c.newTable()
	in := newTextInput(c, "address, ID, @domain or prefix*")
	in.Prompt = "Look up: "
	return &browse{c: c, svc: svc, table: t, lookup: in, marked: map[string]string{}, keys: browseKeys{
		Next:    kbh("n/→", "next page", "n", "right"),
		Prev:    kbh("p/←", "previous page", "p", "left"),
		Origin:  kb("origin filter", "o"),
		Lookup:  kb("look up", "/"),
		Mark:    kbh("space", "mark for removal", " "),
		Use:     kb("remove the marked", "x"),
		TakeAll: kb("remove every match", "X"),
		Reload:  kb("the whole list", "ctrl+r"),
	}}
}

func (b *browse) setSize(w, h int) {
	// Cells have one space of padding on each side. The date goes first
	// when the terminal is narrow.
	cols := []table.Column{{Title: "", Width: 1}, {Title: "Address"}, {Title: "ID", Width: 36}, {Title: "Origin", Width: 9}}
	if w >= 100 {
		cols = append(cols, table.Column{Title: "Added (UTC)", Width: 16})
	}
	if w >= 120 {
		cols = append(cols, table.Column{Title: "Expires (UTC)", Width: 16})
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
	b.wide, b.wider = w >= 100, w >= 120
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
	short := []key.Binding{k.Next, k.Prev, k.Origin, k.Lookup, k.Mark, k.Use}
	if b.searching() {
		short = append(short, k.TakeAll, k.Reload)
	}
	short = append(short, g.Help)
	return keyMap{short: short, full: [][]key.Binding{short[:len(short)-1], {k.Reload, g.Build, g.History, g.Help, g.Quit}}}
}

// searching says the pages are a domain's or a prefix's matches.
func (b *browse) searching() bool {
	return b.search.Kind == api.SearchDomain || b.search.Kind == api.SearchPrefix
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
	b.loading, b.taking = true, false
	p.Limit = b.pageSize()
	p.Origin = origins[b.origin]
	p.Search = b.search
	b.params = p
	svc, seq := b.svc, b.seq
	return func() tea.Msg {
		// A search the service bounds per page reads on to fill it.
		resp, err := svc.ListFull(context.Background(), p)
		return pageMsg{seq: seq, resp: resp, err: err}
	}
}

func (b *browse) first() tea.Cmd {
	b.pageNo = 1
	return b.fetch(client.ListParams{})
}

// whole leaves a search for the first page of the whole list.
func (b *browse) whole() tea.Cmd {
	b.search = api.Search{}
	return b.first()
}

// takenMsg is every match of a search, read for a removal.
type takenMsg struct {
	seq    int
	search api.Search
	emails []string
	err    error
}

// takeAll reads every match of the search, a page of 100 at a time, for
// the Build screen to remove.
func (b *browse) takeAll() tea.Cmd {
	b.seq++
	b.taking = true
	b.status = fmt.Sprintf("Reading every match of %s…", b.search)
	svc, seq, p := b.svc, b.seq, client.ListParams{Limit: api.MaxBatch, Origin: origins[b.origin], Search: b.search}
	return func() tea.Msg {
		var emails []string
		for {
			page, err := svc.List(context.Background(), p)
			if err != nil {
				return takenMsg{seq: seq, err: err}
			}
			for _, e := range page.Data {
				emails = append(emails, e.Email)
			}
			if !page.HasMore || len(page.Data) == 0 {
				return takenMsg{seq: seq, search: p.Search, emails: emails}
			}
			p.After = page.Data[len(page.Data)-1].ID
		}
	}
}

func (b *browse) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case takenMsg:
		return b.tookAll(msg)
	case pageMsg:
		return b.paged(msg)
	case tea.KeyMsg:
		if b.looking {
			return b.lookupKey(msg)
		}
		if msg.Paste {
			// A paste is what to look up ("Jane <jane@…>", an ID): it
			// opens the look-up holding it, never runs as keys.
			b.looking = true
			b.lookup.SetValue("")
			return tea.Batch(b.lookup.Focus(), b.lookupKey(msg))
		}
		return b.key(msg)
	}
	return nil
}

// tookAll hands the matches a take-all read to the list.
func (b *browse) tookAll(msg takenMsg) tea.Cmd {
	if msg.seq != b.seq {
		return nil
	}
	b.taking = false
	switch {
	case msg.err != nil:
		b.status = "Reading the matches failed: " + errorText(msg.err) + "."
		return nil
	case len(msg.emails) == 0:
		b.status = "Nothing matches " + msg.search.String() + "."
		return nil
	}
	return func() tea.Msg { return useSearchMsg{search: msg.search, emails: msg.emails} }
}

// paged shows a page of the list, or why there is none.
func (b *browse) paged(msg pageMsg) tea.Cmd {
	if msg.seq != b.seq {
		return nil
	}
	b.loading = false
	if errors.Is(msg.err, client.ErrNoSearch) {
		b.status = "This service does not search its list (only shush's own does): look up a whole address instead."
		b.search, b.page, b.hasMore = api.Search{}, nil, false
		b.refresh()
		return nil
	}
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
	b.next = msg.resp.Next(b.params.Before != "")
	if len(b.page) == 0 && b.hasMore {
		b.status = "No match among the entries read so far; the next page reads on."
	}
	b.refresh()
	b.table.GotoTop()
	return nil
}

// key handles a key of the screen's own, else the table's.
func (b *browse) key(msg tea.KeyMsg) tea.Cmd {
	k := b.keys
	switch {
	case key.Matches(msg, k.Next):
		return b.nextPage()
	case key.Matches(msg, k.Prev):
		return b.prevPage()
	case key.Matches(msg, k.Origin):
		b.origin = (b.origin + 1) % len(origins)
		return b.first()
	case key.Matches(msg, k.Reload):
		return b.whole()
	case key.Matches(msg, k.TakeAll):
		if !b.searching() {
			b.status = "X takes every match of a search: / and @domain or a prefix* first."
			return nil
		}
		if b.taking {
			return nil
		}
		return b.takeAll()
	case key.Matches(msg, k.Lookup):
		b.looking = true
		b.lookup.SetValue("")
		return b.lookup.Focus()
	case key.Matches(msg, k.Mark):
		b.mark()
		return nil
	case key.Matches(msg, k.Use):
		return b.useMarked()
	}
	var cmd tea.Cmd
	b.table, cmd = b.table.Update(msg)
	return cmd
}

// nextPage reads the page after this one, if there is one.
func (b *browse) nextPage() tea.Cmd {
	if !b.hasMore || b.next == "" || b.single {
		return nil
	}
	b.pageNo++
	if b.params.Before != "" && len(b.page) > 0 {
		return b.fetch(client.ListParams{After: b.page[len(b.page)-1].ID})
	}
	return b.fetch(client.ListParams{After: b.next})
}

// prevPage reads the page before this one; from a single entry, the list.
func (b *browse) prevPage() tea.Cmd {
	if b.single {
		return b.whole()
	}
	if b.pageNo > 1 && len(b.page) > 0 {
		b.pageNo--
		return b.fetch(client.ListParams{Before: b.page[0].ID})
	}
	return nil
}

// mark marks the entry under the cursor, or unmarks it, and moves down.
func (b *browse) mark() {
	i := b.table.Cursor()
	if i < 0 || i >= len(b.page) {
		return
	}
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

// useMarked hands the marked entries, in the order marked, to the list.
func (b *browse) useMarked() tea.Cmd {
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
	// The marks stay until the list takes them (taken): the agent may
	// still say no.
	return func() tea.Msg { return useMarkedMsg{ids: ids} }
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
	if search, ok := searchOf(q); ok {
		b.search, b.single, b.pageNo = search, false, 1
		return b.fetch(client.ListParams{})
	}
	// What people paste: "Jane <jane@example.com>", mailto: links, an ID.
	ref, err := batch.Ref(q)
	if err != nil {
		b.status = capitalize(err.Error()) + "."
		if t := strings.TrimSpace(q); strings.HasPrefix(t, "@") || strings.HasSuffix(t, "*") {
			// It meant to be a search: say what is wrong with it.
			if _, serr := api.ParseSearch(t); serr != nil {
				b.status = fmt.Sprintf("%s is not a search: %s.", api.Quote(t), serr)
			}
		}
		return nil
	}
	b.search = api.Search{}
	b.seq++
	b.loading = true
	svc, seq := b.svc, b.seq
	return func() tea.Msg {
		e, err := svc.Get(context.Background(), ref)
		return pageMsg{seq: seq, resp: api.ListResponse{Data: []api.Entry{e}}, single: true, query: ref, err: err}
	}
}

// searchOf reads what the agent typed as a search when it is one: @domain,
// a prefix with *, or a bare domain (firm.example: everyone there).
func searchOf(q string) (api.Search, bool) {
	q = strings.TrimSpace(q)
	if strings.HasPrefix(q, "@") || strings.HasSuffix(q, "*") {
		s, err := api.ParseSearch(q)
		return s, err == nil
	}
	if !strings.ContainsAny(q, "@ <>:") && strings.Contains(q, ".") {
		s, err := api.ParseSearch("@" + q)
		return s, err == nil
	}
	return api.Search{}, false
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
		if b.wider {
			until := ""
			if e.ExpiresAt != nil {
				until = e.ExpiresAt.UTC().Format("2006-01-02 15:04")
			}
			rows[i] = append(rows[i], until)
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
	if b.search.Kind != api.SearchNone {
		title = fmt.Sprintf("Browse · %s · page %d · %s", b.search.Describe(), b.pageNo, origin)
		if b.searching() && len(b.page) > 0 {
			// First, where a narrow terminal still shows it.
			title = fmt.Sprintf("Browse · %s (X: remove all) · page %d · %s", b.search.Describe(), b.pageNo, origin)
		}
	}
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
	status := b.status
	if i := b.table.Cursor(); status == "" && i >= 0 && i < len(b.page) {
		// The row under the cursor, in full: its expiry and note.
		if k := kept(b.page[i]); k != "" {
			status = safe.Text(b.page[i].Email) + k
		}
	}
	tail := st.Muted.Render(truncate(status, b.c.Width))
	if b.looking {
		tail = b.lookup.View()
	} else if b.loading {
		tail = st.Muted.Render("Loading…")
	}
	return lipgloss.JoinVertical(lipgloss.Left, st.Title.Render(truncate(title+more, b.c.Width)), body, tail)
}
