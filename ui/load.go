package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/shushlist/shush/batch"
	"github.com/shushlist/shush/ticket"
)

// fileLoadedMsg carries a file's entries; seq tells a stale load from the
// latest one.
type fileLoadedMsg struct {
	seq    int
	name   string
	items  []batch.Item
	ref    ticket.Reference
	hasRef bool
	// preset names the provider's file it was read as ("" for none).
	preset string
	err    error
	// ticket is a file of free text read as a ticket, as a paste is:
	// its mode is proposed the same way.
	ticket *pasteReadMsg
}

func (b *build) load(path string) tea.Cmd {
	b.loadSeq++
	seq, mode, own := b.loadSeq, b.list.mode, b.c.Own
	b.status = "Reading " + filepath.Base(path) + "…"
	return func() tea.Msg {
		items, ref, ok, preset, err := readFile(path, mode)
		msg := fileLoadedMsg{seq: seq, name: filepath.Base(path), items: items, ref: ref, hasRef: ok, preset: preset, err: err}
		if err == nil && len(items) > 0 {
			msg.ticket = readTicketFile(path, msg.name, mode, own)
		}
		return msg
	}
}

// maxTicketFile is the largest file of free text read as a ticket: a
// larger one is a list in prose, read without a proposal.
const maxTicketFile = 8 << 20

// readTicketFile reads a file of free text as a ticket, as readPaste reads
// a paste; nil for a file in another format, or one too large to hold.
func readTicketFile(path, name string, mode batch.Mode, own ticket.Own) *pasteReadMsg {
	fi, err := os.Stat(path)
	if err != nil || fi.Size() > maxTicketFile {
		return nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	if _, format, err := batch.ReadFormat(strings.NewReader(string(data)), name, mode); err != nil || format != batch.Text {
		return nil
	}
	read := readPaste(string(data), name, mode, own)().(pasteReadMsg)
	return &read
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
	if msg.ticket != nil {
		b.addPaste(*msg.ticket)
	} else {
		b.addItems(msg.items, msg.name, 0)
	}
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
func readFile(path string, mode batch.Mode) (items []batch.Item, ref ticket.Reference, hasRef bool, preset string, err error) {
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
	ref, hasRef = ticket.FindReference(head, name)
	return got.Items, ref, hasRef, preset, nil
}
