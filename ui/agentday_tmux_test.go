package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A support agent's day, as they would drive it, against shush serve:
// a ticket with quoted headers and a signature keeps the requester out and
// says why; the add review marks what is already listed; check answers a
// ticket without arming anything; the history finds the run by its ticket
// number; an export's path is shown and its file names the ticket. The
// screens are the support agent's guide's pictures (docs/screens/day.md,
// remade with -update).
func TestAgentsDayAgainstShushServe(t *testing.T) {
	bin, dir := buildShush(t)
	home := filepath.Join(dir, "home")
	// shush serve on a free port, with a key named after the agent.
	sv := startServe(t, bin, dir, "jane")
	run := sv.run
	// Yesterday's ticket, from the command line.
	yesterday := filepath.Join(dir, "yesterday.txt")
	os.WriteFile(yesterday, []byte("known@example.com\n"), 0o600)
	run("suppressions", "batch", "add", "--file", yesterday, "--reference", "#4000")

	// Our own domain, in the config file: never sent.
	cfg := filepath.Join(home, ".config", "shush")
	os.MkdirAll(cfg, 0o700)
	os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("own = [\"@ourcompany.test\"]\n"), 0o600)

	downloads := filepath.Join(dir, "downloads")
	os.MkdirAll(downloads, 0o700)
	s, _ := startTmuxWith(t, bin, dir, 110, 32, "SHUSH_BASE_URL="+sv.base, "SHUSH_API_KEY="+sv.key, "SHUSH_EXPORT_DIR="+downloads)
	s.waitScreen("answers")

	// The ticket: a forwarded mail with its headers, a quote and a signature.
	ticket := strings.Join([]string{
		"From: Jane Customer <jane@customer.test>",
		"To: support@ourcompany.test",
		"Subject: please stop",
		"",
		"Hello, please stop mailing known@example.com and new@example.com.",
		"",
		"On Mon, 23 Nov 2026, Ops <ops@customer.test> wrote:",
		"> the list is attached",
		"",
		"Thanks,",
		"Jane Customer",
		"jane.customer@customer.test",
	}, "\n") + "\n"
	path := filepath.Join(dir, "ticket.txt")
	os.WriteFile(path, []byte(ticket), 0o600)
	s.tmux("load-buffer", "-b", "ticket", path)
	s.tmux("paste-buffer", "-p", "-b", "ticket", "-t", "ui")
	dayCapture(t, "day-1-ticket", s.waitScreen("jane@customer.test  ↷ left out: the requester, who does not ask for themselves",
		"ops@customer.test  ↷ left out: only in a reply attribution", "jane.customer@customer.test  ↷ left out: only in a signature",
		"support@ourcompany.test  ↷ left out: one of our own addresses", "· 4 left out"))

	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("Review · add", "2 addresses in 1 batch", "Requester: jane@customer.test (line 1", "Left out: 4, taken in: 0")
	dayCapture(t, "day-2-review", s.waitScreen("Preview: 1 new · 1 already listed", "✓ known@example.com", "+ new@example.com  new"))
	s.tmux("send-keys", "-t", "ui", "Tab")
	s.tmux("send-keys", "-t", "ui", "-l", "#4711")
	s.waitScreen("#4711")
	// Keys sent at once can reach the program in one read, which reads
	// as a paste; a person's keys come apart.
	s.tmux("send-keys", "-t", "ui", "Enter")
	time.Sleep(150 * time.Millisecond)
	s.tmux("send-keys", "-t", "ui", "-l", "add")
	s.tmux("send-keys", "-t", "ui", "Enter")
	dayCapture(t, "day-3-results", s.waitScreen("2 entries: 1 added · 1 already listed", "ticket #4711"))

	// Another ticket asks only: are these suppressed?
	s.tmux("send-keys", "-t", "ui", "n")
	s.waitScreen("New batch")
	check := filepath.Join(dir, "check.txt")
	os.WriteFile(check, []byte("Is new@example.com still blocked? What about other@example.com?\n"), 0o600)
	s.tmux("load-buffer", "-b", "check", check)
	s.tmux("paste-buffer", "-p", "-b", "check", "-t", "ui")
	s.waitScreen("Paste: 2 added")
	s.esc()
	s.tmux("send-keys", "-t", "ui", "c")
	dayCapture(t, "day-4-check", s.waitScreen("Check · 2 addresses", "1 listed · 1 not listed", "✓ new@example.com", "by jane", "ref #4711", "- other@example.com  not listed"))
	s.esc()

	// Last week's run, by its ticket number.
	s.tmux("send-keys", "-t", "ui", "h")
	s.waitScreen("History · 2 runs")
	s.tmux("send-keys", "-t", "ui", "/")
	// Keys sent at once can reach the program in one read (a paste): the
	// search field is open before the query is typed.
	s.waitScreen("Find: ")
	s.tmux("send-keys", "-t", "ui", "-l", "4711")
	s.tmux("send-keys", "-t", "ui", "Enter")
	dayCapture(t, "day-5-history", s.waitScreen(`History · 1 of 2 runs match "4711"`, "#4711"))
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("Results · add", "ticket #4711")
	s.tmux("send-keys", "-t", "ui", "w")
	s.waitScreen("Write to: " + downloads)
	s.tmux("send-keys", "-t", "ui", "Enter")
	scr := dayCapture(t, "day-6-export", s.waitScreen("Wrote 6 rows to "+downloads))
	files, _ := filepath.Glob(filepath.Join(downloads, "*4711*.csv"))
	if len(files) != 1 || !strings.Contains(strings.ReplaceAll(scr, "\n", ""), filepath.Base(files[0])[:12]) {
		t.Fatalf("the export names the ticket and its path is shown: %v\n%s", files, scr)
	}
	data, _ := os.ReadFile(files[0])
	if !strings.Contains(string(data), "known@example.com") || !strings.Contains(string(data), "already_listed") || !strings.Contains(string(data), "#4711") ||
		!strings.Contains(string(data), `jane@customer.test,,left_out,false,"the requester, who does not ask for themselves (line 1: ""From:`) {
		t.Errorf("the export:\n%s", data)
	}
	writeDayDoc(t)
}

// dayCapture is capture for the agent's day, returning the screen.
func dayCapture(t *testing.T, name, screen string) string {
	t.Helper()
	capture(t, name, screen)
	return screen
}

// dayDocs are the agent's day's captions.
var dayDocs = []struct{ name, caption string }{
	{"day-1-ticket", "A forwarded ticket pasted: whom it is about. The requester asks about others, not themselves, so they are left out, as are the reply attribution, the signature and our own address: greyed, with the reason; `t` flips one."},
	{"day-2-review", "The review: what goes; the Requester section with whom the ticket is not about, why and the line that decided; each address new or already listed (with origin and date)."},
	{"day-3-results", "The results: one ID per address, already listed told from added by what the service says."},
	{"day-4-check", "Check (`c`): which addresses of another ticket are listed, since when, by whom and under which ticket; nothing is sent."},
	{"day-5-history", "History (`h`), `/` finds last week's run by its ticket number."},
	{"day-6-export", "The run's results written out (`w`): the path is shown in full and the file's name names the ticket."},
}

// writeDayDoc gathers the day's captures into docs/screens/day.md (with
// -update).
func writeDayDoc(t *testing.T) {
	t.Helper()
	intro := "Captured from the built binary in tmux at 110x32 against `shush serve`\n" +
		"(`tmux capture-pane -p`). Remake them (needs tmux) with:\n\n```\ngo test ./ui -run TestAgentsDayAgainstShushServe -update\n```\n"
	writeCapturesDoc(t, "day.md", "A support agent's day with shush", intro, dayDocs, true)
}
