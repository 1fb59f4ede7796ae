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
	seq    int
	name   string
	items  []batch.Item
	ref    batch.Reference
	hasRef bool
	// preset names the provider's file it was read as ("" for none).
	preset string
	err    error
}

func (b *build) load(path string) tea.Cmd {
	b.loadSeq++
	seq, mode := b.loadSeq, b.list.mode
	b.status = "Reading " + filepath.Base(path) + "…"
	return func() tea.Msg {
		items, ref, ok, preset, err := readFile(path, mode)
		return fileLoadedMsg{seq: seq, name: filepath.Base(path), items: items, ref: ref, hasRef: ok, preset: preset, err: err}
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
	b.list.noteReference(msg.ref, msg.hasRef)
	if msg.preset != "" {
		// The list here holds addresses: a provider's reasons and dates
		// go with shush suppressions batch add --file, which keeps them.
		b.summary += " Read as " + msg.preset + "; its origins and evidence are kept by shush suppressions batch add --file, this list keeps the addresses."
	}
	return nil
}

// refHead is how much of a ticket's file the reference is looked for in:
// its headers and first paragraphs.
const refHead = 64 << 10

// readFile reads the entries of a .txt, .csv, .json or .ndjson file with batch's
// rules (every format it reads; the extension only breaks ties), and the
// ticket reference its name or (for free text) its words name.
func readFile(path string, mode batch.Mode) (items []batch.Item, ref batch.Reference, hasRef bool, preset string, err error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, ref, false, "", fmt.Errorf("cannot read %s: %s", name, reason(err))
	}
	defer f.Close()
	got, err := batch.ReadAs(f, name, mode, batch.FormatAuto)
	if err != nil {
		return nil, ref, false, "", err
	}
	head := ""
	if got.Format == batch.Text {
		buf := make([]byte, refHead)
		n, _ := f.ReadAt(buf, 0)
		head = string(buf[:n])
	}
	if got.Preset != nil {
		preset = got.Preset.Name
	}
	ref, hasRef = batch.FindReference(head, name)
	return got.Items, ref, hasRef, preset, nil
}
