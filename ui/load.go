package ui

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// fileLoadedMsg carries a file's entries; seq tells a stale load from the
// latest one.
type fileLoadedMsg struct {
	seq   int
	name  string
	items []item
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
		b.summary = capitalize(msg.err.Error())
		return nil
	}
	b.addItems(msg.items, msg.name, 0)
	return nil
}

// readFile reads the entries of a .txt, .csv or .json file. Every line of a
// text file and every cell of a CSV file is an entry (a header cell named
// email, emails, id or ids is skipped); a JSON file is an array of strings
// or an object with an "emails" or "ids" array.
func readFile(path string, mode Mode) ([]item, error) {
	name := filepath.Base(path)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", name, reason(err))
	}
	var items []item
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		items, err = readJSON(data, mode)
	case ".csv":
		items, err = readCSV(data, mode)
	default:
		items = readLines(string(data), mode)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return items, nil
}

func readLines(text string, mode Mode) []item {
	text = normalizeNewlines(text)
	text = strings.TrimPrefix(text, "\ufeff")
	items := make([]item, 0, strings.Count(text, "\n")+1)
	line := 0
	for len(text) > 0 {
		line++
		l := text
		if i := strings.IndexByte(text, '\n'); i >= 0 {
			l, text = text[:i], text[i+1:]
		} else {
			text = ""
		}
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		v, p := validate(l, mode)
		items = append(items, item{raw: l, line: line, value: v, problem: p})
	}
	return items
}

func readCSV(data []byte, mode Mode) ([]item, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\ufeff"))))
	r.FieldsPerRecord = -1
	var items []item
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			return items, nil
		}
		if err != nil {
			return nil, fmt.Errorf("it is not valid CSV: %w", err)
		}
		line, _ := r.FieldPos(0)
		for _, cell := range rec {
			cell = strings.TrimSpace(cell)
			switch strings.ToLower(cell) {
			case "", "email", "emails", "id", "ids", "address":
				continue
			}
			v, p := validate(cell, mode)
			items = append(items, item{raw: cell, line: line, value: v, problem: p})
		}
	}
}

func readJSON(data []byte, mode Mode) ([]item, error) {
	var list []string
	if err := json.Unmarshal(data, &list); err != nil {
		var body struct {
			Emails []string `json:"emails"`
			IDs    []string `json:"ids"`
		}
		if err2 := json.Unmarshal(data, &body); err2 != nil {
			return nil, errors.New("it is neither a JSON array of strings nor an object with an \"emails\" or \"ids\" array")
		}
		list = body.Emails
		if mode == ModeRemoveIDs || len(list) == 0 {
			list = append(body.IDs, list...)
		}
	}
	items := make([]item, 0, len(list))
	for i, s := range list {
		v, p := validate(s, mode)
		items = append(items, item{raw: strings.TrimSpace(s), line: i + 1, value: v, problem: p})
	}
	return items, nil
}
