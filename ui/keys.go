package ui

import "github.com/charmbracelet/bubbles/key"

func kb(help string, keys ...string) key.Binding {
	desc := keys[0]
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(desc, help))
}

func kbh(keyHelp, help string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(keyHelp, help))
}

// globalKeys work on every screen unless a text field has focus.
type globalKeys struct {
	Help, Quit, Build, Browse, History key.Binding
}

func newGlobalKeys() globalKeys {
	return globalKeys{
		Help:    kb("all keys", "?"),
		Quit:    kbh("q", "quit", "q", "ctrl+c"),
		Build:   kbh("F1", "build list", "f1"),
		Browse:  kbh("F2", "browse the list", "f2"),
		History: kbh("F3", "history", "f3"),
	}
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
	// In the entry field.
	AddLine, Leave key.Binding
}

func newBuildKeys() buildKeys {
	return buildKeys{
		Up:        kbh("↑/k", "up", "up", "k"),
		Down:      kbh("↓/j", "down", "down", "j"),
		PageUp:    kbh("pgup", "page up", "pgup", "ctrl+u"),
		PageDown:  kbh("pgdn", "page down", "pgdown", "ctrl+d"),
		Top:       kbh("g/home", "first row", "g", "home"),
		Bottom:    kbh("G/end", "last row", "G", "end"),
		Select:    kbh("space", "select", " "),
		SelectAll: kb("select all", "ctrl+a"),
		Edit:      kbh("e/enter", "edit row", "e", "enter"),
		Delete:    kbh("d/del", "delete rows", "d", "delete"),
		Filter:    kbh("/", "filter (! = invalid)", "/"),
		Undo:      kb("undo", "u", "ctrl+z"),
		Clear:     kb("clear all", "X"),
		Mode:      kb("change mode", "m"),
		Type:      kbh("i/a", "type entries", "i", "a"),
		Open:      kb("open a file", "ctrl+o", "o"),
		Review:    kbh("r/ctrl+s", "review & send", "r", "ctrl+s"),
		AddLine:   kb("add", "enter"),
		Leave:     kbh("tab/esc", "to the list", "tab", "esc"),
	}
}

func (k buildKeys) listHelp(g globalKeys) keyMap {
	return keyMap{
		short: []key.Binding{k.Type, k.Open, k.Edit, k.Delete, k.Filter, k.Undo, k.Mode, k.Review, g.Help},
		// Three columns, so that all of it fits in 80 columns.
		full: [][]key.Binding{
			{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Select, k.SelectAll},
			{k.Type, k.Open, k.Edit, k.Delete, k.Undo, k.Clear, k.Filter, k.Mode},
			{k.Review, g.Build, g.Browse, g.History, g.Help, g.Quit},
		},
	}
}

func (k buildKeys) entryHelp() keyMap {
	open := kb("open a file", "ctrl+o")
	review := kb("review & send", "ctrl+s")
	b := []key.Binding{k.AddLine, k.Leave, open, review}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

func fieldHelp(submit, cancel string) keyMap {
	b := []key.Binding{kb(submit, "enter"), kb(cancel, "esc")}
	return keyMap{short: b, full: [][]key.Binding{b}}
}
