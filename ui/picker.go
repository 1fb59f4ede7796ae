package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/filepicker"
	"github.com/charmbracelet/bubbles/help"
	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// fileTypes are the extensions the list reads, compared case-insensitively.
var fileTypes = []string{".txt", ".csv", ".json", ".ndjson"}

// picker wraps bubbles' filepicker with the fixes v1.0.0 needs: the height
// is set before the first directory read, paths are absolute, a chosen file
// is checked with os.Stat, extensions match in any case, and a directory
// that cannot be read is reported instead of leaving a stale listing.
type picker struct {
	c      *Common
	fp     filepicker.Model
	dir    string
	height int
	err    string
	ready  bool
}

func newPicker(c *Common, start string) picker {
	if start == "" {
		start, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(start); err == nil {
		start = abs
	}
	return picker{c: c, dir: start}
}

func (p *picker) setSize(w, h int) {
	p.height = max(h-3, 3)
	if p.ready {
		// SetHeight only ever shrinks the window of rows it shows; a size
		// message makes it take the new height either way.
		p.fp.SetHeight(p.height)
		p.fp, _ = p.fp.Update(tea.WindowSizeMsg{Width: w, Height: h})
	}
}

// open starts a fresh picker: a new one re-reads the directory, which also
// avoids a panic in View on entries that disappeared since the last read.
func (p *picker) open() tea.Cmd {
	fp := filepicker.New()
	fp.CurrentDirectory = p.dir
	fp.AutoHeight = false
	// Before the first read: a later SetHeight cannot enlarge the window.
	fp.SetHeight(p.height)
	fp.ShowPermissions = false
	fp.ShowSize = false
	fp.FileAllowed = true
	fp.DirAllowed = false
	// The picker's own Esc means "back a directory"; ours closes it.
	fp.KeyMap.Back = key.NewBinding(key.WithKeys("h", "backspace", "left"), key.WithHelp("←/h", "up a directory"))
	st := filepicker.DefaultStylesWithRenderer(p.c.r)
	st.Cursor = p.c.Styles.Prompt
	st.Selected = p.c.Styles.Prompt
	st.Directory = p.c.Styles.Title
	st.File = p.c.Styles.Row
	st.DisabledFile = p.c.Styles.Muted
	st.DisabledSelected = p.c.Styles.Muted
	st.FileSize = p.c.Styles.Muted
	st.EmptyDirectory = p.c.Styles.Muted
	fp.Styles = st
	p.fp = fp
	p.err = ""
	p.ready = true
	return fp.Init()
}

// pickerClose closes the picker without choosing (the picker's own Esc
// would go up a directory; ours is Back).
var pickerClose = kbh("esc", "close", "esc")

func (p *picker) help() help.KeyMap {
	km := p.fp.KeyMap
	b := []key.Binding{
		kbh("↑/↓", "move", km.Up.Keys()...),
		kbh("enter/→", "open or choose", km.Open.Keys()...),
		km.Back,
		pickerClose,
	}
	return keyMap{short: b, full: [][]key.Binding{b}}
}

// update handles a message while the picker is open: closed says the
// agent closed it, chosen is the file the agent chose ("" for none).
func (p *picker) update(msg tea.Msg) (closed bool, chosen string, cmd tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok && key.Matches(k, pickerClose) {
		return true, "", nil
	}
	before := p.fp.CurrentDirectory
	p.fp, cmd = p.fp.Update(msg)
	if p.fp.CurrentDirectory != before {
		// The picker swallows read errors and keeps showing the old
		// listing; check the new directory ourselves.
		if _, err := os.ReadDir(p.fp.CurrentDirectory); err != nil {
			p.err = fmt.Sprintf("Cannot open %s: %s.", p.fp.CurrentDirectory, reason(err))
			p.fp.CurrentDirectory = before
			return false, "", nil
		}
		p.dir = p.fp.CurrentDirectory
		p.err = ""
	}
	if ok, path := p.fp.DidSelectFile(msg); ok {
		return false, path, nil
	}
	if ok, path := p.fp.DidSelectDisabledFile(msg); ok {
		return false, path, nil
	}
	return false, "", cmd
}

func (b *build) openPicker() tea.Cmd {
	b.back = b.focus
	b.focus = focusPicker
	b.input.Blur()
	return b.picker.open()
}

func (b *build) pickerUpdate(msg tea.Msg) tea.Cmd {
	closed, chosen, cmd := b.picker.update(msg)
	switch {
	case closed:
		b.focus = b.back
		if b.focus == focusEntry {
			b.input.Focus()
		}
		return nil
	case chosen != "":
		return b.choose(chosen)
	}
	return cmd
}

// choose loads the file after checking its extension in any case.
func (b *build) choose(path string) tea.Cmd {
	ext := strings.ToLower(filepath.Ext(path))
	known := false
	for _, t := range fileTypes {
		known = known || ext == t
	}
	if !known {
		b.picker.err = fmt.Sprintf("%s is not a .txt, .csv, .json or .ndjson file.", filepath.Base(path))
		return nil
	}
	if _, err := os.Stat(path); err != nil {
		b.picker.err = fmt.Sprintf("Cannot read %s: %s.", filepath.Base(path), reason(err))
		return nil
	}
	b.focus = focusList
	return b.load(path)
}

func (p *picker) view() string {
	st := p.c.Styles
	title := st.Title.Render("Open a file (.txt, .csv, .json, .ndjson)")
	head := title + "  " + st.Muted.Render(truncate(p.dir, p.c.Width-lipgloss.Width(title)-2))
	foot := ""
	if p.err != "" {
		foot = st.Bad.Render(truncate(p.err, p.c.Width))
	}
	body := func() (s string) {
		defer func() {
			if recover() != nil {
				s = st.Bad.Render("A file vanished while listing; press ← and → to re-read.")
			}
		}()
		return p.fp.View()
	}()
	return lipgloss.JoinVertical(lipgloss.Left, head, lipgloss.NewStyle().Height(p.height).MaxHeight(p.height).Render(body), foot)
}
