package ui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The review's Requester section in the built binary: a ticket whose
// requester asks for themselves and their colleague is reviewed with both
// taken in, the line that decided and the ticket's reference offered;
// tab reaches the section, t leaves the colleague out, and the run sends
// only the requester, under the reference.
func TestRequesterSectionInTmux(t *testing.T) {
	bin, dir := buildShush(t)
	cfg := filepath.Join(dir, "home", ".config", "shush")
	os.MkdirAll(cfg, 0o700)
	os.WriteFile(filepath.Join(cfg, "config.toml"), []byte("own = [\"@ourcompany.test\"]\n"), 0o600)
	s, _ := startTmuxWith(t, bin, dir, 110, 32)
	ticket := strings.Join([]string{
		"From: Jane Doe <jane@customer.test>",
		"To: support@ourcompany.test",
		"Cc: Tom Berg <tom@customer.test>",
		"Subject: Re: [#5521] product updates",
		"",
		"Please unsubscribe me and my colleague (cc'd) from the product updates.",
		"",
		"Best regards,",
		"Jane Doe | Marketing | jane@customer.test",
	}, "\n") + "\n"
	path := filepath.Join(dir, "ticket.txt")
	os.WriteFile(path, []byte(ticket), 0o600)
	s.tmux("load-buffer", "-b", "ticket", path)
	s.tmux("paste-buffer", "-p", "-b", "ticket", "-t", "ui")
	s.waitScreen("jane@customer.test  ✓ the requester asks for themselves", "tom@customer.test  ✓ a colleague the requester includes",
		"support@ourcompany.test  ↷ left out: one of our own addresses")

	s.tmux("send-keys", "-t", "ui", "C-s")
	s.waitScreen("2 addresses in 1 batch", `Requester: jane@customer.test (line 6: "Please unsubscribe me and my colleague (cc'd)`,
		"✓ tom@customer.test — a colleague the requester includes (line 6)", "Left out: 1, taken in: 2",
		"Ticket: #5521", "The ticket reference is from the subject, line 4")
	// A person's keys come apart (keys sent at once read as a paste).
	// tab: the ticket, the note, the expiry, the Requester section.
	for _, k := range []string{"Tab", "Tab", "Tab", "Tab", "Down", "Down", "t"} {
		s.tmux("send-keys", "-t", "ui", k)
		time.Sleep(100 * time.Millisecond)
	}
	s.waitScreen("tom@customer.test left out: it will not be sent", "1 address in 1 batch",
		"> ↷ tom@customer.test — a colleague the requester includes (left out by hand)", "Left out: 2, taken in: 1")
	s.tmux("send-keys", "-t", "ui", "Tab")
	time.Sleep(100 * time.Millisecond)
	s.tmux("send-keys", "-t", "ui", "-l", "add")
	s.waitScreen(`Type "add" and press Enter to send: add`)
	s.tmux("send-keys", "-t", "ui", "Enter")
	// The results keep him, as not sent, with why.
	scr := s.waitScreen("Results · add", "1 entry: 1 added", "ticket #5521", "jane@customer.test")
	for _, line := range strings.Split(scr, "\n") {
		if strings.Contains(line, "tom@customer.test") && !strings.Contains(line, "left out, not sent") {
			t.Fatalf("the colleague left out by hand was sent:\n%s", scr)
		}
	}
}
