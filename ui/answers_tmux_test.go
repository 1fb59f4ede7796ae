package ui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The questions tickets ask, as a support agent asks them in a terminal,
// of shush serve: "unblock everyone at this law firm" (Browse's / with the
// firm's domain, its matches taken as a removal, reviewed with their count)
// and "which of our 2,500 customers are suppressed?" (a check of the
// whole paste, paged, the listed ones filtered out).
func TestListAnswersInTmux(t *testing.T) {
	bin, dir := buildShush(t)
	sv := startServe(t, bin, dir, "jane")
	var firm []string
	for i := range 30 {
		firm = append(firm, fmt.Sprintf("partner%02d@firm.example", i))
	}
	listed := filepath.Join(dir, "listed.txt")
	os.WriteFile(listed, []byte(strings.Join(append(firm, "jane@example.com", "customer0042@crm.example"), "\n")), 0o600)
	sv.run("suppressions", "batch", "add", "--file", listed, "--note", "firm asked on #48213", "--expires", "30d")

	s, _ := startTmuxWith(t, bin, dir, 120, 32, "SHUSH_BASE_URL="+sv.base, "SHUSH_API_KEY="+sv.key)
	s.waitScreen("answers")
	key := func(k ...string) {
		for _, one := range k {
			s.tmux("send-keys", "-t", "ui", one)
			time.Sleep(100 * time.Millisecond)
		}
	}
	key("Escape", "l")
	s.waitScreen("Browse · page 1 · all origins")
	key("/")
	s.tmux("send-keys", "-t", "ui", "-l", "@firm.example")
	s.waitScreen("Look up: @firm.example")
	key("Enter")
	scr := s.waitScreen("Browse · everyone at firm.example (X: remove all) · page 1", "partner29@firm.example", "Expires (UTC)",
		"(X: remove all)")
	if strings.Contains(scr, "jane@example.com") || strings.Contains(scr, "crm.example") {
		t.Fatalf("the search shows another domain's entries:\n%s", scr)
	}
	key("Down")
	s.waitScreen("partner28@firm.example  until ", "“firm asked on #48213”")
	key("n")
	s.waitScreen("Browse · everyone at firm.example (X: remove all) · page 2")
	key("X")
	s.waitScreen("30 addresses from Browse (everyone at firm.example), to remove; r reviews.")
	key("r")
	s.waitScreen("Review · remove by address", "From Browse's search: everyone at firm.example, 30 entries when read",
		"Preview: 30 on the list · 0 not on the list", "This removes 30 entries from the list.")
	s.tmux("send-keys", "-t", "ui", "-l", "remove")
	s.waitScreen(`Type "remove" and press Enter to send: remove`)
	key("Enter")
	s.waitScreen("Results · remove by address", "30 entries: 30 removed")

	// 2,500 customers pasted; one is listed.
	key("n")
	s.waitScreen("New batch")
	var crm []string
	for i := range 2500 {
		crm = append(crm, fmt.Sprintf("customer%04d@crm.example", i))
	}
	path := filepath.Join(dir, "crm.txt")
	os.WriteFile(path, []byte(strings.Join(crm, "\n")+"\n"), 0o600)
	s.tmux("load-buffer", "-b", "crm", path)
	s.tmux("paste-buffer", "-p", "-b", "crm", "-t", "ui")
	s.waitScreen("Paste: 2500 added")
	s.esc()
	key("c")
	s.waitScreen("Check · 2500 addresses", "1 listed · 2499 not listed", "rows 1–", "of 2500", "- customer0000@crm.example  not listed")
	key("PageDown")
	scr = s.waitScreen("✓ customer0042@crm.example")
	if strings.Contains(scr, "customer0000@crm.example") {
		t.Errorf("PageDown did not page:\n%s", scr)
	}
	key("C-f")
	s.waitScreen("showing those on the list", "✓ customer0042@crm.example  manual", "“firm asked on #48213”")
}
