package ui

import "github.com/charmbracelet/bubbles/key"

func kb(help string, keys ...string) key.Binding {
	desc := keys[0]
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(desc, help))
}

func kbh(keyHelp, help string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keyHelp, help))
}

// globalKeys work on every screen unless a text field has focus (then
// only Interrupt and the function keys in fn do).
type globalKeys struct {
	Help, Quit, Interrupt, Build, Browse, History key.Binding
	Intake, Domains                               key.Binding
	fn                                            struct{ Build, Browse, History, Intake, Domains key.Binding }
	// browseAny is Browse's keys, matched even when Browse is hidden from
	// the help (a service without the list), so that they say why.
	browseAny key.Binding
}

func newGlobalKeys() globalKeys {
	g := globalKeys{
		Help:      kb("all keys", "?"),
		Quit:      kb("quit", "q"),
		Interrupt: kb("quit", "ctrl+c"),
		Build:     kbh("b/F1", "build list", "b", "f1"),
		Browse:    kbh("l/F2", "browse the list", "l", "f2"),
		History:   kbh("h/F3", "history", "h", "f3"),
		Intake:    kbh("v/F4", "intake review", "v", "f4"),
		Domains:   kbh("D/F5", "domain blocks", "D", "f5"),
	}
	g.fn.Build = kbh("F1", "build list", "f1")
	g.fn.Browse = kbh("F2", "browse the list", "f2")
	g.fn.History = kbh("F3", "history", "f3")
	g.fn.Intake = kbh("F4", "intake review", "f4")
	g.fn.Domains = kbh("F5", "domain blocks", "f5")
	g.browseAny = key.NewBinding(key.WithKeys(g.Browse.Keys()...))
	return g
}

// fieldKeys close a one-line text field: Submit keeps what was typed,
// Cancel drops it.
var fieldKeys = struct{ Submit, Cancel key.Binding }{
	Submit: kb("done", "enter"),
	Cancel: kb("cancel", "esc"),
}

// keyMap is a screen's bindings for the help footer.
type keyMap struct {
	short []key.Binding
	full  [][]key.Binding
}

func (k keyMap) ShortHelp() []key.Binding  { return k.short }
func (k keyMap) FullHelp() [][]key.Binding { return k.full }

type buildKeys struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Select, SelectAll, Edit, Delete, Filter key.Binding
	Undo, Clear, Mode, Type, Open, Review   key.Binding
	Flip, Check, ShowAll                    key.Binding
	// In the entry field.
	AddLine, Leave, EntryOpen, EntryReview, Help key.Binding
}

func newBuildKeys() buildKeys {
	return buildKeys{
		Up:          kbh("↑/k", "up", "up", "k"),
		Down:        kbh("↓/j", "down", "down", "j"),
		PageUp:      kbh("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:    kbh("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:         kbh("g/home", "first row", "g", "home"),
		Bottom:      kbh("G/end", "last row", "G", "end"),
		Select:      kbh("space", "select", " "),
		SelectAll:   kb("select all", "ctrl+a"),
		Edit:        kbh("e/enter", "edit row", "e", "enter"),
		Delete:      kbh("d/del", "delete rows", "d", "delete"),
		Filter:      kbh("/", "filter (! = invalid)", "/"),
		Undo:        kb("undo", "u", "ctrl+z"),
		Clear:       kb("clear all", "X"),
		Mode:        kb("change mode", "m"),
		Flip:        kb("take in / leave out", "t"),
		Check:       kb("check, no send", "c"),
		ShowAll:     kbh("esc", "clear filter", "esc"),
		Type:        kbh("i/a", "type entries", "i", "a"),
		Open:        kb("open a file", "ctrl+o", "o"),
		Review:      kbh("r/ctrl+s", "review & send", "r", "ctrl+s"),
		AddLine:     kb("add", "enter"),
		EntryOpen:   kb("open a file", "ctrl+o"),
		EntryReview: kb("review & send", "ctrl+s"),
		Help:        kb("all keys", "?"),
		Leave:       kbh("tab/esc", "to the list", "tab", "esc"),
	}
}

// listHelp is the list's keys; filtered, Esc shows every row again.
func (k buildKeys) listHelp(g globalKeys, filtered bool) keyMap {
	short := []key.Binding{k.Type, k.Open, k.Edit, k.Delete, k.Filter, k.Undo, k.Mode, k.Review, g.Help}
	if filtered {
		short = append([]key.Binding{k.ShowAll}, short...)
	}
	return keyMap{
		short: short,
		// Three columns, so that all of it fits in 80 columns.
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Select, k.SelectAll},
			{k.Type, k.Open, k.Edit, k.Delete, k.Undo, k.Clear, k.Filter, k.Mode, k.Flip},
			{k.Review, k.Check, g.Build, g.Browse, g.History, g.Intake, g.Domains, g.Help, g.Quit},
		},
	}
}

// entryHelp is the entry field's keys; ? is the help only while the
// field is empty (else it is text).
func (k buildKeys) entryHelp(g globalKeys, empty bool) keyMap {
	b := []key.Binding{k.AddLine, k.Leave, k.EntryOpen, k.EntryReview}
	if empty {
		b = append(b, k.Help)
	}
	return keyMap{short: b, full: [][]key.Binding{b, {g.fn.Build, g.fn.Browse, g.fn.History, g.Interrupt}}}
}

func fieldHelp(submit, cancel string) keyMap {
	b := []key.Binding{kb(submit, "enter"), kb(cancel, "esc")}
	return keyMap{short: b, full: [][]key.Binding{b}}
}
