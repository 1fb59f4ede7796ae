package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// An incident in the terminal: a block put up from the CLI (@evil.example
// for 24 hours, with a note) shows on the Domain blocks screen (F5, D)
// with the time it has left and its note as written; a block typed
// into the build list (*.bad.example) is sent as any entry and shows too,
// with no expiry; a check of an address at the blocked domain answers
// "listed by"; once a block is taken off, ctrl+r shows it gone.
func TestDomainBlocksInTmux(t *testing.T) {
	bin, dir := buildShush(t)
	sv := startServe(t, bin, dir, "jane")
	sv.run("suppressions", "add", "@Evil.Example", "--expires", "24h", "--reference", "INC-7", "--note", "phishing wave <b>&amp;</b>")

	s, _ := startTmuxWith(t, bin, dir, 120, 30, "SHUSH_BASE_URL="+sv.base, "SHUSH_API_KEY="+sv.key)
	s.waitScreen("List · 0 entries")
	s.tmux("send-keys", "-t", "ui", "F5")
	s.waitScreen("Domain blocks · 1 active", "@evil.example", "23h 5", "phishing wave <b>&amp;</b>")

	// A block typed into the build list, sent as any entry.
	s.tmux("send-keys", "-t", "ui", "b")
	s.waitScreen("List · 0 entries")
	s.tmux("send-keys", "-t", "ui", "-l", "*.Bad.Example")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("*.bad.example")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add")
	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("1 entry: 1 added")
	s.tmux("send-keys", "-t", "ui", "F5")
	s.waitScreen("Domain blocks · 2 active", "*.bad.example", "no expiry", "@evil.example", "23h 5")

	var checked struct{ Data []map[string]any }
	list := filepath.Join(dir, "check.txt")
	if err := os.WriteFile(list, []byte("x@evil.example\ny@mail.bad.example\nz@bad.example\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := sv.run("suppressions", "check", "--file", list, "--json")
	if err := json.Unmarshal([]byte(out), &checked); err != nil || len(checked.Data) != 3 {
		t.Fatalf("check: %v\n%s", err, out)
	}
	for i, want := range []string{"@evil.example", "*.bad.example", ""} {
		if by, _ := checked.Data[i]["listed_by"].(string); by != want || checked.Data[i]["listed"] != (want != "") {
			t.Errorf("check of %v: listed by %q, want %q", checked.Data[i]["email"], by, want)
		}
	}

	sv.run("suppressions", "remove", "@evil.example", "--yes")
	s.tmux("send-keys", "-t", "ui", "C-r")
	s.waitScreen("Domain blocks · 1 active", "*.bad.example")
	s.waitGone("@evil.example")
}
