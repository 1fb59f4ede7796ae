package cli

import (
	"errors"
	"testing"
)

// brokenPipe is a stdout the reader has gone from.
type brokenPipe struct{}

func (brokenPipe) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

// say tells a person what was done on a line of its own; printDone tells
// it as JSON off a terminal, as the sentence on one; a write that fails
// is the command's error, not a silent success.
func TestSayAndPrintDone(t *testing.T) {
	ta := bareApp()
	if err := ta.say("Removed %s (ID %s).", "bob@example.com", "0195f3c2"); err != nil {
		t.Fatal(err)
	}
	if got := ta.out.String(); got != "Removed bob@example.com (ID 0195f3c2).\n" {
		t.Errorf("say: %q", got)
	}

	ta.reset()
	done := map[string]any{"id": "k1", "revoked": true}
	if err := ta.printDone(done, "Revoked API key %s.", "k1"); err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	ta.decode(t, &got)
	if got["id"] != "k1" || got["revoked"] != true {
		t.Errorf("printDone off a terminal: %s", ta.out.String())
	}
	ta.reset()
	if err := ta.human().printDone(done, "Revoked API key %s.", "k1"); err != nil {
		t.Fatal(err)
	}
	if got := ta.out.String(); got != "Revoked API key k1.\n" {
		t.Errorf("printDone on a terminal: %q", got)
	}

	ta.io.Out = brokenPipe{}
	if err := ta.say("Removed %s.", "bob@example.com"); err == nil {
		t.Error("say on a broken pipe: no error")
	}
	if err := ta.printDone(done, "Revoked API key %s.", "k1"); err == nil {
		t.Error("printDone on a broken pipe: no error")
	}
}
