package ui

import (
	"fmt"
	"os"
	"path/filepath"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
)

// fileLoadedMsg carries a file's entries; seq tells a stale load from the
// latest one.
type fileLoadedMsg struct {
	seq   int
	name  string
	items []batch.Item
	err   error
}

func (b *build) load(path string) tea.Cmd {
	b.loadSeq++
	seq, mode := b.loadSeq, b.list.mode
	b.status = "Reading " + filepath.Base(path) + "…"
	return func() tea.Msg {
		items, err := readFile(path, mode)
		return fileLoadedMsg{seq: seq, name: filepath.Base(path), items: items, err: err}
	}
}

func (b *build) fileLoaded(msg fileLoadedMsg) tea.Cmd {
	if msg.seq != b.loadSeq {
		return nil
	}
	if msg.err != nil {
		b.status = ""
		b.summary = msg.err.Error()
		return nil
	}
	b.addItems(msg.items, msg.name, 0)
	return nil
}

// readFile reads the entries of a .txt, .csv or .json file with batch's
// rules (every format it reads; the extension only breaks ties).
func readFile(path string, mode batch.Mode) ([]batch.Item, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", name, reason(err))
	}
	defer f.Close()
	return batch.Read(f, name, mode)
}
