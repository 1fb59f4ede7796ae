package ui

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/shushlist/shush/server/intake/intaketest"
)

// An agent works the review queue of shush serve in the terminal: the
// header counts the events that wait; the Intake screen shows each with
// its evidence, a hostile diagnostic made harmless; s suppresses (the
// trail names the agent's key), i ignores; Browse shows the evidence of
// an entry intake listed.
func TestIntakeReviewInTmux(t *testing.T) {
	bin, dir := buildShush(t)
	sv := startServe(t, bin, dir, "jane")
	p := intaketest.NewResend()
	var in struct{ ID string }
	if err := json.Unmarshal([]byte(sv.run("intake", "create", "--provider", "resend", "--secret", p.Secret)), &in); err != nil || in.ID == "" {
		t.Fatalf("intake create: %v", err)
	}
	now := time.Now()
	for i, body := range [][]byte{
		intaketest.ResendBounce("gone@example.com", "Permanent", "General", "550 5.1.1 <gone@example.com>: user unknown"),
		intaketest.ResendBounce("blocked@example.com", "Permanent", "General", "550 5.7.1 refused \x1b]52;c;cHduZWQ=\x07\x1b[2J by policy"),
		intaketest.ResendBounce("odd@example.com", "Undetermined", "Undetermined", "the remote server said nothing useful"),
	} {
		resp, err := http.DefaultClient.Do(p.Request(sv.base+"/intake/"+in.ID, "msg_"+string(rune('a'+i)), body, now))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("the provider's event: %d %s", resp.StatusCode, b)
		}
	}

	s, _ := startTmuxWith(t, bin, dir, 120, 36, "SHUSH_BASE_URL="+sv.base, "SHUSH_API_KEY="+sv.key)
	s.waitScreen("2 events need a look (F4)")
	s.tmux("send-keys", "-t", "ui", "F4")
	scr := s.waitScreen("Intake review · 2 events need a look", "odd@example.com", "blocked@example.com", "why it waits")
	// The newest first: the undetermined bounce; then the policy block,
	// whose diagnostic's escapes show as text.
	s.tmux("send-keys", "-t", "ui", "Down")
	scr = s.waitScreen("blocked@example.com · bounce from resend", `refused \x1b]52;c;cHduZWQ=\x07\x1b[2J by policy`, "policy refusal (5.7.1)")
	if strings.Contains(scr, "\x1b]52") {
		t.Fatalf("a raw escape sequence reached the pane:\n%s", scr)
	}
	s.tmux("send-keys", "-t", "ui", "s")
	s.waitScreen("Suppressed blocked@example.com", "Intake review · 1 event needs a look")
	s.tmux("send-keys", "-t", "ui", "i")
	s.waitScreen("Ignored the event of odd@example.com; nothing was listed.", "Intake review · nothing waits")

	var trail struct {
		Data []struct {
			Key *struct{ Name string } `json:"key"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(sv.run("audit", "--email", "blocked@example.com")), &trail); err != nil || len(trail.Data) != 1 ||
		trail.Data[0].Key == nil || trail.Data[0].Key.Name != "jane" {
		t.Errorf("the suppress decision's trail: %+v %v", trail, err)
	}
	var decided struct {
		Data []struct{ Email, Decision string } `json:"data"`
	}
	_ = json.Unmarshal([]byte(sv.run("intake", "review", "--decided")), &decided)
	if len(decided.Data) != 2 {
		t.Errorf("decided: %+v", decided)
	}

	// Browse: the evidence of the entry a permanent bounce listed.
	s.tmux("send-keys", "-t", "ui", "l")
	// As a person does: the page shown, then the look-up.
	s.waitScreen("Browse · page 1", "gone@example.com", "/ look up")
	s.tmux("send-keys", "-t", "ui", "/")
	s.waitScreen("Look up: ")
	s.tmux("send-keys", "-t", "ui", "-l", "gone@example.com")
	s.waitScreen("Look up: gone@example.com")
	s.tmux("send-keys", "-t", "ui", "Enter")
	s.waitScreen("gone@example.com", "bounce 5.1.1 via resend: “550 5.1.1 <gone@example.com>: user unknown”")
}
