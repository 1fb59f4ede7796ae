package ticket_test

import (
	"os"
	"testing"

	"github.com/shushlist/shush/ticket"
)

func TestZZProbe(t *testing.T) {
	dir := os.Getenv("PROBE")
	if dir == "" {
		t.Skip()
	}
	for _, c := range loadCorpus(t, dir) {
		tk := ticket.Read(c.text)
		r := tk.Reading(ticket.NewOwn(c.own))
		o, why := score(c, r)
		t.Logf("%-5s %s: %s%s", []string{"right", "safe", "WRONG"}[o], c.name, why, map[bool]string{true: explain(tk, c), false: ""}[o == 2])
	}
}
